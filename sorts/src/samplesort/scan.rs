//! `scan`: the exclusive prefix sum over one level's `k * p * C` counts
//! (bucket-major, so bucket 0's blocks and copies come first), plus the
//! bucket's first position: every (bucket, block, copy) gets the global
//! index its first key goes to.
//!
//! Two launches, as a multi-block scan does: `scan_sums` sums each
//! block's chunk of [`CHUNK_TILES`] tiles of `t * SCAN_ITEMS` counts
//! (a tree reduction in shared memory); `scan` starts each block at `base`
//! plus the sums of the chunks before its own (a block reduction of at
//! most a few hundred sums), then walks its chunk tile by tile: a
//! coalesced load into shared memory, a serial sum of each thread's
//! consecutive counts, a Hillis-Steele scan of the `t` thread sums (lg t
//! steps, two barriers each), the running offsets written back and the
//! tile stored coalesced; the tile's total carries into the next.
//!
//! Launch: grid `(chunks)`, block `(t)`; `scan_sums`: `counts`, `total`,
//! `chunk`, `sums`; `scan`: `counts`, `offsets`, `total`, `base`, `sums`,
//! `chunk`.

use super::config::{SCAN_ITEMS, SamplesortConfig};
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, Param, ParamType, Reg, Special};

/// Tiles of `t * SCAN_ITEMS` counts per block of `scan_sums` and `scan`:
/// one, so the tiles of a scan run in parallel (the latency of a tile's
/// loads and barriers, not its work, bounds a block; 1M uniform keys: 2.1 M
/// cycles with 1, 3.6 M with 4).
pub const CHUNK_TILES: u32 = 1;

/// Counts per chunk (one block of `scan_sums` and `scan`).
pub fn chunk(cfg: &SamplesortConfig) -> u32 {
    cfg.block_threads * SCAN_ITEMS * CHUNK_TILES
}

/// Adds `x` over the block into shared word 0 (at byte `at`): each thread
/// stores its `x` at `own + at`, then a tree of lg t steps.
fn block_sum(g: &mut Gen, tid: Reg, own: Reg, x: Reg, y: Reg, at: u32) {
    let t = g.cfg.block_threads;
    let p = g.b.pred();
    g.b.st_shared_b32(Some(own), at as i32, x);
    g.b.bar_sync();
    let mut d = t / 2;
    while d >= 1 {
        g.b.setp_lt_u(p, tid, d);
        g.b.when(p).ld_shared_b32(y, Some(own), (at + d * 4) as i32);
        g.b.when(p).add(x, x, y);
        g.b.when(p).st_shared_b32(Some(own), at as i32, x);
        g.b.bar_sync();
        d /= 2;
    }
}

/// `x` = the sum of `src[j]` for `j` in `lo .. hi`, this thread's share
/// (stride t, a block-uniform loop of `ceil((hi - lo) / t)` rounds).
fn strided_sum(g: &mut Gen, tid: Reg, src: Param, lo: Reg, hi: Reg, x: Reg) {
    let t = g.cfg.block_threads;
    let (j, v, n) = (g.b.reg32(), g.b.reg32(), g.b.reg32());
    let a = g.b.reg64();
    let (p, more) = (g.b.pred(), g.b.pred());
    g.b.mov(x, 0u32);
    g.b.add(j, lo, tid);
    g.b.sub(n, hi, lo);
    let (top, done) = (g.b.label("sum_next"), g.b.label("sum_done"));
    g.b.setp_eq(more, n, 0u32);
    g.b.when(more).bra(done);
    g.b.bind(top);
    g.b.setp_lt_u(p, j, hi);
    g.word_addr(a, src, j);
    g.b.mov(v, 0u32);
    g.b.when(p).ld_global_b32(v, a, 0);
    g.b.add(x, x, v);
    g.b.add(j, j, t);
    g.b.sub(v, j, tid);
    g.b.setp_lt_u(more, v, hi);
    g.b.when(more).bra(top);
    g.b.bind(done);
}

/// Generates `scan_sums` for `cfg`.
pub fn generate_sums(cfg: &SamplesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("scan_sums", cfg);
    let counts = g.b.param("counts", ParamType::U64);
    let total = g.b.param("total", ParamType::U32);
    let chunk = g.b.param("chunk", ParamType::U32);
    let sums = g.b.param("sums", ParamType::U64);
    let t = cfg.block_threads;
    g.b.shared(t * 4, 8);
    g.stage("chunk sums");
    let tid = g.tid();
    let (blk, lo, hi, x, y, own) = (
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
    );
    g.b.mov(blk, Special::CtaidX);
    g.b.mul(lo, blk, chunk);
    g.b.add(hi, lo, chunk);
    g.b.min_u(hi, hi, total);
    strided_sum(&mut g, tid, counts, lo, hi, x);
    g.b.shl(own, tid, 2u32);
    block_sum(&mut g, tid, own, x, y, 0);
    let a = g.b.reg64();
    let p = g.b.pred();
    g.b.setp_eq(p, tid, 0u32);
    g.word_addr(a, sums, blk);
    g.b.when(p).st_global_b32(a, 0, x);
    g.finish()
}

/// Generates `scan` for `cfg`.
pub fn generate(cfg: &SamplesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("scan", cfg);
    let counts = g.b.param("counts", ParamType::U64);
    let offsets = g.b.param("offsets", ParamType::U64);
    let total = g.b.param("total", ParamType::U32);
    let base = g.b.param("base", ParamType::U32);
    let chunk_sums = g.b.param("sums", ParamType::U64);
    let chunk = g.b.param("chunk", ParamType::U32);
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
    // own = tid * 4: this thread's sum; sh = tid * e * 4: its counts.
    g.b.shl(own, tid, 2u32);
    g.b.mul(sh, tid, e * 4);
    // The chunk's start: base plus the sums of the chunks before it.
    let (blk, zero, end) = (g.b.reg32(), g.b.reg32(), g.b.reg32());
    g.b.mov(blk, Special::CtaidX);
    g.b.mov(zero, 0u32);
    strided_sum(&mut g, tid, chunk_sums, zero, blk, carry);
    block_sum(&mut g, tid, own, carry, x, sums);
    g.b.ld_shared_b32(carry, None, sums as i32);
    g.b.add(carry, carry, base);
    g.b.mul(tile, blk, chunk);
    g.b.add(end, tile, chunk);
    g.b.min_u(end, end, total);
    g.b.bar_sync();
    let top = g.b.label("next_tile");
    g.b.bind(top);
    // All of the tile's loads first, then the shared stores: each store
    // waits for its load, so interleaving them would wait out one global
    // latency per load, where ptxas issues the independent loads back to
    // back and waits once (the H200's long_scoreboard stall in `scan` is a
    // third of what the interleaved order costs in the simulator).
    for (r, &vr) in v.iter().enumerate() {
        g.b.add(i, tile, tid);
        g.b.add(i, i, r as u32 * t);
        g.b.setp_lt_u(p, i, end);
        g.word_addr(a, counts, i);
        g.b.mov(vr, 0u32);
        g.b.when(p).ld_global_b32(vr, a, 0);
    }
    for (r, &vr) in v.iter().enumerate() {
        g.b.st_shared_b32(Some(own), (r as u32 * t * 4) as i32, vr);
    }
    g.b.bar_sync();
    // This thread's counts, loaded back to back before they are summed.
    for (r, &vr) in v.iter().enumerate() {
        g.b.ld_shared_b32(vr, Some(sh), (r * 4) as i32);
    }
    g.b.mov(sum, 0u32);
    for &vr in &v {
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
    // The same order for the write-back: the shared loads back to back
    // (the counts in `v` are dead by now), then the global stores.
    for (r, &vr) in v.iter().enumerate() {
        g.b.ld_shared_b32(vr, Some(own), (r as u32 * t * 4) as i32);
    }
    for (r, &vr) in v.iter().enumerate() {
        g.b.add(i, tile, tid);
        g.b.add(i, i, r as u32 * t);
        g.b.setp_lt_u(p, i, end);
        g.word_addr(a, offsets, i);
        g.b.when(p).st_global_b32(a, 0, vr);
    }
    g.b.add(carry, carry, tot);
    g.b.add(tile, tile, t * e);
    g.b.bar_sync();
    g.b.setp_lt_u(p, tile, end);
    g.b.when(p).bra(top);
    g.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samplesort::waits::load_waits;
    use kernels_ir::opcode::Space;

    #[test]
    fn a_tile_waits_once_for_its_global_loads() {
        // One wait for the sums of the chunks before this block, one for the
        // tile's SCAN_ITEMS loads: the order ptxas gives (the H200's
        // long_scoreboard stall per instruction in `scan` is a third of what
        // one wait per load costs). Interleaving loads and shared stores
        // waited SCAN_ITEMS times per tile.
        let (k, _) = generate(&SamplesortConfig::new(32, 32));
        assert_eq!(load_waits(&k.insts, Space::Global), 2);
    }

    #[test]
    fn the_write_back_waits_once_for_its_shared_loads() {
        // Shared loads: 1 (the carry) + 1 (the serial sum) + lg t
        // (Hillis-Steele) + lg t (the block sum) + 1 (the tile total, which
        // the write-back's stores do not wait for) + 1 (the write-back).
        let cfg = SamplesortConfig::new(32, 32);
        let lg = cfg.block_threads.trailing_zeros() as usize;
        let (k, _) = generate(&cfg);
        assert_eq!(load_waits(&k.insts, Space::Shared), 3 + 2 * lg);
    }
}
