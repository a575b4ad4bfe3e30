//! `bc`, the block clean: a block of `P` warps (`block_slabs`, or fewer:
//! the schedule sizes it to the span left, see [`super::schedule`]) takes
//! a span of that many slabs whose sub-spans are bitonic and in order, loads it by
//! columns straight from global memory (warp `j` loads rows `j, j+P, ...`
//! of every slab, each a coalesced row), half-cleans each column across the
//! slabs in registers, exchanges through shared memory so every warp holds
//! one slab, cleans its slab across lanes and stores it.
//!
//! Half-cleaning at distances no larger than the bitonic sub-spans is all
//! that changes keys: at larger distances every pair is already in order, so
//! one `bc` serves every span the host leaves to clean.
//!
//! Launch: grid `(spans)`, block `(W * P)`; parameter `keys`. The kernel
//! of a full block is called `bc`, one of `N` warps `bc_N`.

use super::columns::{self, Source};
use super::config::{HotSortConfig, MergeExchange};
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, Special};

/// Registers of `bc` beyond its keys that hold neither a key nor a
/// shuffled value: the lane, the warp, addresses and the lane-lower
/// predicate's operands (ptxas's SASS, below).
const BC_FIXED_REGS: u32 = 6;

/// Shuffles `bc` issues before it uses their results: as many as the
/// registers ptxas gives it leave beyond its keys (32-bit keys).
///
/// **Why.** In the SASS of `bc` (ptxas 13.0, `-O3 -arch=sm_90`, slab
/// heights 4 to 32: `hw/data/h200/sass/hotsort_bc/`, read by
/// `tests/shuffles_in_flight.rs`) four or five shuffle results wait for
/// their compare-exchange when the next shuffle issues at H = 8 to 20 and
/// 28, and one at H = 24 and 32. ptxas gives the kernel its keys and about six
/// registers more, rounded up to a multiple of 8 and at least 32 (30 used
/// at H = 16 to 24, 38 at 28 and 32), and shuffles into what is left: two
/// at H = 24 and 32. With eight in flight there the model ran `bc` at
/// H = 32 20% fast at 64K keys, whose two warps a scheduler do not hide a
/// shuffle's latency (docs/calibration.md, "Shuffles in flight: the
/// registers ptxas gives `bc`"). 64-bit keys (with or without values)
/// shuffle their halves through other temporaries and keep
/// [`SHUFFLE_BATCH`].
///
/// [`SHUFFLE_BATCH`]: super::emit::SHUFFLE_BATCH
pub fn shuffle_batch(cfg: &HotSortConfig) -> usize {
    if cfg.key_bits != 32 {
        return super::emit::SHUFFLE_BATCH;
    }
    let free = (register_budget(cfg.slab_height) - cfg.slab_height - BC_FIXED_REGS) as usize;
    (free & !1).clamp(2, super::emit::SHUFFLE_BATCH)
}

/// The registers a thread of ptxas's `bc` over 32-bit keys uses at most at
/// slab height `h`: its keys and [`BC_FIXED_REGS`], rounded up to a
/// multiple of eight, at least 32 (see [`shuffle_batch`]).
pub fn register_budget(h: u32) -> u32 {
    (h + BC_FIXED_REGS).div_ceil(8).max(4) * 8
}

/// Generates `bc` for `cfg`: the block clean of a full block.
pub fn generate(cfg: &HotSortConfig) -> Kernel {
    generate_marked(cfg, cfg.block_slabs).0
}

/// The block clean of `p` warps (a power of two up to `block_slabs`), with
/// the key registers and stage marks.
pub fn generate_marked(cfg: &HotSortConfig, p: u32) -> (Kernel, KernelMarks) {
    let mut g = Gen::new(super::schedule::bc_name(cfg, p), cfg);
    g.shuffle_batch = shuffle_batch(cfg);
    let (w, h) = (cfg.warp, cfg.slab_height);
    let warp = g.b.reg32();
    g.b.mov(warp, Special::WarpId);
    let keys = g.key_regs(h as usize);
    g.marks.key_regs.clone_from(&keys);
    let uses_shared = p > 1 || cfg.merge == MergeExchange::Shared;
    let region = uses_shared.then(|| {
        g.declare_shared(p);
        let region = g.b.reg32();
        g.b.mul(region, warp, g.smem.region_phys * g.kb());
        region
    });
    // This warp's own slab, for the final store.
    let idx = g.b.reg32();
    g.b.mov(idx, Special::CtaidX);
    g.b.mul(idx, idx, p);
    g.b.add(idx, idx, warp);
    g.b.mul(idx, idx, w * h);
    g.b.add(idx, idx, g.lane);
    let own = g.key_addr(idx);
    if p > 1 {
        let region = region.expect("p > 1 uses shared memory");
        // Row `warp` of the span's first slab.
        let first = g.b.reg32();
        g.b.mov(first, Special::CtaidX);
        g.b.mul(first, first, p * w * h);
        let t = g.b.reg32();
        g.b.mul(t, warp, w);
        g.b.add(first, first, t);
        g.b.add(first, first, g.lane);
        let addr = g.key_addr(first);
        let zero = g.b.reg32();
        g.b.mov(zero, 0u32);
        g.stage("block clean");
        columns::cross_slab(&mut g, &keys, p, false, warp, zero, Source::Global { addr });
        g.b.bar_sync();
        columns::reload_slab(&mut g, &keys, region);
    } else {
        for (r, &k) in keys.iter().enumerate() {
            g.load_row(k, own, r as u32);
        }
    }
    g.clean_slab(&keys, region);
    for (r, &k) in keys.iter().enumerate() {
        g.store_row(own, r as u32, k);
    }
    g.finish_marked()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bc_shuffles_into_what_its_registers_leave() {
        // Slab height -> shuffles in flight; 64-bit keys keep the batch.
        let want = [
            (4, 8),
            (8, 8),
            (12, 8),
            (16, 8),
            (20, 6),
            (24, 2),
            (28, 6),
            (32, 2),
        ];
        for (h, batch) in want {
            let cfg = HotSortConfig::new(32, h);
            assert_eq!(shuffle_batch(&cfg), batch, "H = {h}");
        }
        let mut wide = HotSortConfig::new(32, 32);
        wide.key_bits = 64;
        assert_eq!(shuffle_batch(&wide), crate::hotsort::emit::SHUFFLE_BATCH);
    }
}
