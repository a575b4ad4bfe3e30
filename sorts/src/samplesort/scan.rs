//! `scan`: the exclusive prefix sum over one level's `k * p * C` counts
//! (bucket-major, so bucket 0's blocks and copies come first), plus the
//! bucket's first position: every (bucket, block, copy) gets the global
//! index its first key goes to.
//!
//! One block walks the counts in tiles of `t * SCAN_ITEMS`: a coalesced
//! load into shared memory, a serial sum of each thread's consecutive
//! counts, a Hillis-Steele scan of the `t` thread sums (lg t steps, two
//! barriers each), then each thread writes its running offsets back and
//! the tile is stored coalesced; the tile's total carries into the next.
//! The counts are small (`k * p * C`: 230,400 for 1M keys with the
//! defaults), so one block, one launch per large bucket, is the design;
//! it runs on one SM (the report shows its cycles).
//!
//! Launch: grid `(1)`, block `(t)`; parameters `counts`, `offsets`,
//! `total`, `base`.

use super::config::{SCAN_ITEMS, SamplesortConfig};
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType};

/// Generates `scan` for `cfg`.
pub fn generate(cfg: &SamplesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("scan", cfg);
    let counts = g.b.param("counts", ParamType::U64);
    let offsets = g.b.param("offsets", ParamType::U64);
    let total = g.b.param("total", ParamType::U32);
    let base = g.b.param("base", ParamType::U32);
    let t = cfg.block_threads;
    let e = SCAN_ITEMS;
    let sums = t * e * 4;
    g.b.shared(sums + t * 4, 8);
    g.stage("scan");
    let tid = g.tid();
    let (carry, tile, i, sh, own, sum, incl, x, run, tot) = (
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
    );
    let v = g.b.regs32(e as usize);
    let a = g.b.reg64();
    let p = g.b.pred();
    g.b.mov(carry, base);
    g.b.mov(tile, 0u32);
    // own = tid * 4: this thread's sum; sh = tid * e * 4: its counts.
    g.b.shl(own, tid, 2u32);
    g.b.mul(sh, tid, e * 4);
    let top = g.b.label("next_tile");
    g.b.bind(top);
    for r in 0..e {
        g.b.add(i, tile, tid);
        g.b.add(i, i, r * t);
        g.b.setp_lt_u(p, i, total);
        g.word_addr(a, counts, i);
        g.b.mov(x, 0u32);
        g.b.when(p).ld_global_b32(x, a, 0);
        g.b.st_shared_b32(Some(own), (r * t * 4) as i32, x);
    }
    g.b.bar_sync();
    g.b.mov(sum, 0u32);
    for (r, &vr) in v.iter().enumerate() {
        g.b.ld_shared_b32(vr, Some(sh), (r * 4) as i32);
        g.b.add(sum, sum, vr);
    }
    g.b.st_shared_b32(Some(own), sums as i32, sum);
    g.b.bar_sync();
    g.b.mov(incl, sum);
    let mut d = 1;
    while d < t {
        g.b.setp_ge_u(p, tid, d);
        g.b.mov(x, 0u32);
        g.b.when(p)
            .ld_shared_b32(x, Some(own), (sums - d * 4) as i32);
        g.b.bar_sync();
        g.b.add(incl, incl, x);
        g.b.st_shared_b32(Some(own), sums as i32, incl);
        g.b.bar_sync();
        d *= 2;
    }
    g.b.sub(run, incl, sum);
    g.b.add(run, run, carry);
    for (r, &vr) in v.iter().enumerate() {
        g.b.st_shared_b32(Some(sh), (r * 4) as i32, run);
        g.b.add(run, run, vr);
    }
    g.b.ld_shared_b32(tot, None, (sums + (t - 1) * 4) as i32);
    g.b.bar_sync();
    for r in 0..e {
        g.b.add(i, tile, tid);
        g.b.add(i, i, r * t);
        g.b.setp_lt_u(p, i, total);
        g.word_addr(a, offsets, i);
        g.b.ld_shared_b32(x, Some(own), (r * t * 4) as i32);
        g.b.when(p).st_global_b32(a, 0, x);
    }
    g.b.add(carry, carry, tot);
    g.b.add(tile, tile, t * e);
    g.b.bar_sync();
    g.b.setp_lt_u(p, tile, total);
    g.b.when(p).bra(top);
    g.finish()
}
