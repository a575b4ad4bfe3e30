//! `partition`: the coarse merge-path search of one merge pass, one thread
//! per output tile boundary, in global memory (moderngpu's
//! `KernelMergePartition`, which the seed launches with 64 threads).
//!
//! Boundary `i` (0..=P) lies in the frame of `coop` tiles that starts at
//! tile `i & ~(coop-1)`: A is the frame's first `coop/2` tiles, B the rest,
//! both clamped to the count. `mp[i]` is the number of A keys among the
//! first `min(NV*i - frame, |A| + |B|)` outputs of the frame's merge.
//!
//! Launch: grid `(ceil((P+1) / T))`, block `(T)` with `T` the config's
//! `partition_threads`; parameters `keys`, `count`, `coop`, `mp` (a `u32`
//! per boundary), `parts` (`P + 1`; threads past it exit).

use super::config::MergesortConfig;
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType, Special};

/// Generates `partition` for `cfg`.
pub fn generate(cfg: &MergesortConfig) -> Kernel {
    generate_marked(cfg).0
}

/// [`generate`], with the stage marks (it holds no keys).
pub fn generate_marked(cfg: &MergesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("partition", cfg);
    let keys = g.b.param("keys", ParamType::U64);
    let count = g.b.param("count", ParamType::U32);
    let coop = g.b.param("coop", ParamType::U32);
    let mp = g.b.param("mp", ParamType::U64);
    let parts = g.b.param("parts", ParamType::U32);
    let nv = cfg.tile_keys();
    g.stage("partition search");
    let (i, t, frame, half) = (g.b.reg32(), g.b.reg32(), g.b.reg32(), g.b.reg32());
    let p = g.b.pred();
    g.b.mov(i, Special::CtaidX);
    g.b.mov(t, Special::NtidX);
    g.b.mul(i, i, t);
    g.b.mov(t, Special::TidX);
    g.b.add(i, i, t);
    g.b.setp_ge_u(p, i, parts);
    g.b.when(p).exit();
    let r = frame_ranges(&mut g, i, count, coop, nv, [frame, half]);
    // diag = min(NV*i - frame, |A| + |B|)
    let (diag, split) = (g.b.reg32(), g.b.reg32());
    g.b.mul(diag, i, nv);
    g.b.sub(diag, diag, frame);
    g.b.add(t, r.a_count, r.b_count);
    g.b.min_u(diag, diag, t);
    g.merge_path_global(
        split,
        keys,
        [r.a_start, r.a_count, r.b_start, r.b_count],
        diag,
    );
    let addr = g.b.reg64();
    g.b.cvt_u64_u32(addr, i);
    g.b.shl(addr, addr, 2);
    g.b.add(addr, addr, mp);
    g.b.st_global_b32(addr, 0, split);
    g.finish()
}

/// The A and B lists of a merge frame, clamped to the count.
pub struct FrameRanges {
    /// First key of A.
    pub a_start: kernels_ir::Reg,
    /// Keys of A.
    pub a_count: kernels_ir::Reg,
    /// First key of B (the end of A).
    pub b_start: kernels_ir::Reg,
    /// Keys of B.
    pub b_count: kernels_ir::Reg,
}

/// moderngpu's `FindMergesortFrame` and the clamp to the count: for tile
/// (or boundary) `tile` of a pass merging frames of `coop` tiles, sets
/// `frame` (the frame's first key, `NV * (tile & ~(coop-1))`) and `half`
/// (`NV * coop/2`) and returns the frame's A and B lists. Computed as
/// counts so nothing overflows 32 bits up to 2^31 keys.
pub fn frame_ranges(
    g: &mut Gen<'_>,
    tile: kernels_ir::Reg,
    count: kernels_ir::Param,
    coop: kernels_ir::Param,
    nv: u32,
    [frame, half]: [kernels_ir::Reg; 2],
) -> FrameRanges {
    let r = FrameRanges {
        a_start: g.b.reg32(),
        a_count: g.b.reg32(),
        b_start: g.b.reg32(),
        b_count: g.b.reg32(),
    };
    let t = g.b.reg32();
    g.b.sub(t, coop, 1);
    g.b.not(t, t);
    g.b.and(frame, tile, t);
    g.b.mul(frame, frame, nv);
    g.b.shr(half, coop, 1);
    g.b.mul(half, half, nv);
    g.b.min_u(r.a_start, frame, count);
    g.b.sub(t, count, r.a_start);
    g.b.min_u(r.a_count, half, t);
    g.b.add(r.b_start, r.a_start, r.a_count);
    g.b.sub(t, count, r.b_start);
    g.b.min_u(r.b_count, half, t);
    r
}
