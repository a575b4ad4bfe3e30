//! Small example kernels: each exercises one part of the IR or one memory
//! behaviour the simulator models (coalescing, bank conflicts, barriers,
//! divergence). Every generator takes the warp width it is built for where
//! the code depends on it (shuffle segments, shared-memory sizes).

use crate::builder::KernelBuilder;
use crate::entities::Reg;
use crate::inst::{RegList, Special};
use crate::kernel::{Kernel, ParamType};
use crate::opcode::Opcode;

/// Emits `gid = %ctaid.x * %ntid.x + %tid.x` into a fresh register.
fn global_index(b: &mut KernelBuilder) -> Reg {
    let gid = b.reg32();
    b.mul(gid, Special::CtaidX, Special::NtidX);
    b.add(gid, gid, Special::TidX);
    gid
}

/// Emits `addr = base + index * scale` (64-bit) into a fresh register.
fn element_address(
    b: &mut KernelBuilder,
    base: impl Into<crate::Operand>,
    index: Reg,
    scale: i64,
) -> Reg {
    let (off, addr) = (b.reg64(), b.reg64());
    b.cvt_u64_u32(off, index);
    b.mul(off, off, scale);
    b.add(addr, base, off);
    addr
}

/// `vcopy(src, dst, n)`: `dst[i] = src[i]` for every `i < n`, one 32-bit
/// word per thread, threads numbered across the grid.
pub fn vcopy() -> Kernel {
    let mut b = KernelBuilder::new("vcopy");
    let src = b.param("src", ParamType::U64);
    let dst = b.param("dst", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let (out, val) = (b.pred(), b.reg32());
    let done = b.label("done");
    let gid = global_index(&mut b);
    b.setp_ge_u(out, gid, n);
    b.when(out).bra(done);
    let from = element_address(&mut b, src, gid, 4);
    b.ld_global_b32(val, from, 0);
    let to = element_address(&mut b, dst, gid, 4);
    b.st_global_b32(to, 0, val);
    b.bind(done);
    b.exit();
    b.build()
}

/// `vcopy4(src, dst, n)`: like `vcopy` with 128-bit accesses, four words
/// per thread; `n` counts 16-byte elements.
pub fn vcopy4() -> Kernel {
    let mut b = KernelBuilder::new("vcopy4");
    let src = b.param("src", ParamType::U64);
    let dst = b.param("dst", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let out = b.pred();
    let vals = RegList::new(&b.regs32(4));
    let gid = global_index(&mut b);
    b.setp_ge_u(out, gid, n);
    b.when(out).exit();
    let from = element_address(&mut b, src, gid, 16);
    b.load(Opcode::LdGlobalB128, vals, Some(from), 0);
    let to = element_address(&mut b, dst, gid, 16);
    b.store(Opcode::StGlobalB128, Some(to), 0, vals);
    b.exit();
    b.build()
}

/// Emits a shuffle-down tree that leaves the sum of each `warp`-lane
/// segment's `v` in its first lane.
fn warp_sum(b: &mut KernelBuilder, v: Reg, tmp: Reg, warp: u32) {
    let mut delta = warp / 2;
    while delta > 0 {
        b.shfl(Opcode::ShflDown, tmp, v, delta, warp);
        b.add(v, v, tmp);
        delta /= 2;
    }
}

/// The most threads a block of [`reduce`] may have (its shared memory
/// holds one partial sum per warp of such a block).
pub const REDUCE_MAX_BLOCK_THREADS: u32 = 1024;

/// `reduce(src, dst, n)` for warps of `warp` lanes: each block sums its
/// `%ntid.x` elements of `src` (elements past `n` count 0) and writes the
/// sum to `dst[%ctaid.x]`. Warps reduce with `shfl.down`, write one partial
/// each to shared memory, meet at `bar.sync`, and warp 0 adds the partials
/// (a loop whose trip count differs between lanes). Blocks of at most
/// [`REDUCE_MAX_BLOCK_THREADS`] threads.
pub fn reduce(warp: u32) -> Kernel {
    let mut b = KernelBuilder::new("reduce");
    let src = b.param("src", ParamType::U64);
    let dst = b.param("dst", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let partials = b.shared(4 * (REDUCE_MAX_BLOCK_THREADS / warp.max(1)), 4);
    let (p, v, tmp, slot) = (b.pred(), b.reg32(), b.reg32(), b.reg32());
    let (top, done) = (b.label("partials"), b.label("summed"));
    let gid = global_index(&mut b);
    b.mov(v, 0);
    b.setp_lt_u(p, gid, n);
    let from = element_address(&mut b, src, gid, 4);
    b.when(p).ld_global_b32(v, from, 0);
    warp_sum(&mut b, v, tmp, warp);
    b.setp_eq(p, Special::LaneId, 0);
    b.shl(slot, Special::WarpId, 2);
    b.when(p).st_shared_b32(Some(slot), partials as i32, v);
    b.bar_sync();
    b.setp_ne(p, Special::WarpId, 0);
    b.when(p).exit();
    // Warp 0: lane l adds partials l, l + warp, l + 2*warp, ...
    b.mov(v, 0);
    b.mov(slot, Special::LaneId);
    b.bind(top);
    b.setp_ge_u(p, slot, Special::NWarps);
    b.when(p).bra(done);
    b.shl(tmp, slot, 2);
    b.ld_shared_b32(tmp, Some(tmp), partials as i32);
    b.add(v, v, tmp);
    b.add(slot, slot, Special::WarpSize);
    b.bra(top);
    b.bind(done);
    warp_sum(&mut b, v, tmp, warp);
    b.setp_ne(p, Special::LaneId, 0);
    b.when(p).exit();
    b.mov(slot, Special::CtaidX);
    let to = element_address(&mut b, dst, slot, 4);
    b.st_global_b32(to, 0, v);
    b.exit();
    b.build()
}

/// `smem_stride_S(out)` for warps of `warp` lanes: lane `l` stores `l + 1`
/// to the 32-bit shared word `l * stride`, then loads it back and writes it
/// to `out[gid]`. With 32 four-byte banks, stride 1 is conflict-free, 2 is a
/// 2-way conflict, 32 a 32-way conflict, 33 conflict-free again. Every warp
/// uses the same words with the same values, so the result does not depend
/// on how warps interleave.
pub fn smem_stride(stride: u32, warp: u32) -> Kernel {
    let mut b = KernelBuilder::new(format!("smem_stride_{stride}"));
    let out = b.param("out", ParamType::U64);
    let words = b.shared(4 * stride * warp, 4);
    let (offset, val) = (b.reg32(), b.reg32());
    let gid = global_index(&mut b);
    b.mul(offset, Special::LaneId, i64::from(4 * stride));
    b.add(val, Special::LaneId, 1);
    b.st_shared_b32(Some(offset), words as i32, val);
    b.warp_sync();
    b.ld_shared_b32(val, Some(offset), words as i32);
    let to = element_address(&mut b, out, gid, 4);
    b.st_global_b32(to, 0, val);
    b.exit();
    b.build()
}

/// `gmem_stride_S(src, dst, n)`: thread `gid < n` loads the 32-bit word
/// `src[gid * stride]` and writes it to `dst[gid]`: the loads of a warp
/// touch `stride` times as many sectors as a unit-stride copy (up to one per
/// lane). `src` must hold `n * stride` words.
pub fn gmem_stride(stride: u32) -> Kernel {
    let mut b = KernelBuilder::new(format!("gmem_stride_{stride}"));
    let src = b.param("src", ParamType::U64);
    let dst = b.param("dst", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let (out, val) = (b.pred(), b.reg32());
    let gid = global_index(&mut b);
    b.setp_ge_u(out, gid, n);
    b.when(out).exit();
    let from = element_address(&mut b, src, gid, 4 * i64::from(stride));
    b.ld_global_b32(val, from, 0);
    let to = element_address(&mut b, dst, gid, 4);
    b.st_global_b32(to, 0, val);
    b.exit();
    b.build()
}

/// `diverge(out)`: per-lane control flow. Even lanes take one side of an
/// if/else, odd lanes the other (so both run, taken side first), then each
/// lane loops `lane % 4` times. `out[gid] = (even ? 10 : 20) + lane % 4`.
pub fn diverge() -> Kernel {
    let mut b = KernelBuilder::new("diverge");
    let out = b.param("out", ParamType::U64);
    let (p, v, i) = (b.pred(), b.reg32(), b.reg32());
    let (odd, join, top, done) = (
        b.label("odd"),
        b.label("join"),
        b.label("loop"),
        b.label("done"),
    );
    let gid = global_index(&mut b);
    b.and(i, Special::LaneId, 1);
    b.setp_ne(p, i, 0);
    b.when(p).bra(odd);
    b.mov(v, 10);
    b.bra(join);
    b.bind(odd);
    b.mov(v, 20);
    b.bind(join);
    b.and(i, Special::LaneId, 3);
    b.bind(top);
    b.setp_eq(p, i, 0);
    b.when(p).bra(done);
    b.add(v, v, 1);
    b.sub(i, i, 1);
    b.bra(top);
    b.bind(done);
    let to = element_address(&mut b, out, gid, 4);
    b.st_global_b32(to, 0, v);
    b.exit();
    b.build()
}

/// Bins of [`histogram`].
pub const HISTOGRAM_BINS: u32 = 64;

/// `histogram(src, dst, n)`: each block counts, for its `%ntid.x` elements
/// `src[gid]` with `gid < n`, how many fall in each of the
/// [`HISTOGRAM_BINS`] bins `src[gid] % HISTOGRAM_BINS`, with one shared
/// atomic add per element into a shared histogram, and writes the counts to
/// `dst[%ctaid.x * HISTOGRAM_BINS + bin]`. Keys of one bin in one warp
/// serialise their atomics (no broadcast), so a skewed input costs more
/// wavefronts than a uniform one. The counts do not depend on how warps
/// interleave.
pub fn histogram() -> Kernel {
    let mut b = KernelBuilder::new("histogram");
    let src = b.param("src", ParamType::U64);
    let dst = b.param("dst", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let bins = b.shared(4 * HISTOGRAM_BINS, 4);
    let (p, i, at, v) = (b.pred(), b.reg32(), b.reg32(), b.reg32());
    // Zero the bins: thread t clears bins t, t + ntid, ...
    let (zero, zeroed) = (b.label("zero"), b.label("zeroed"));
    b.mov(i, Special::TidX);
    b.mov(v, 0);
    b.bind(zero);
    b.setp_ge_u(p, i, HISTOGRAM_BINS);
    b.when(p).bra(zeroed);
    b.shl(at, i, 2);
    b.st_shared_b32(Some(at), bins as i32, v);
    b.add(i, i, Special::NtidX);
    b.bra(zero);
    b.bind(zeroed);
    b.bar_sync();
    // Count: one atomic per element of the block.
    let gid = global_index(&mut b);
    b.setp_lt_u(p, gid, n);
    let from = element_address(&mut b, src, gid, 4);
    b.when(p).ld_global_b32(v, from, 0);
    b.and(at, v, i64::from(HISTOGRAM_BINS - 1));
    b.shl(at, at, 2);
    b.when(p).atom_shared_add_u32(v, Some(at), bins as i32, 1);
    b.bar_sync();
    // Write the block's counts out, as the zeroing loop walks the bins.
    let (out, done) = (b.label("out"), b.label("done"));
    let row = b.reg32();
    b.mul(row, Special::CtaidX, i64::from(HISTOGRAM_BINS));
    b.mov(i, Special::TidX);
    b.bind(out);
    b.setp_ge_u(p, i, HISTOGRAM_BINS);
    b.when(p).bra(done);
    b.shl(at, i, 2);
    b.ld_shared_b32(v, Some(at), bins as i32);
    b.add(at, row, i);
    let to = element_address(&mut b, dst, at, 4);
    b.st_global_b32(to, 0, v);
    b.add(i, i, Special::NtidX);
    b.bra(out);
    b.bind(done);
    b.exit();
    b.build()
}
