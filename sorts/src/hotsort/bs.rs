//! `bs`, the block sort: each warp loads one slab (row `r` of the slab is
//! one coalesced load of `slab_base + r*W + lane`), sorts each lane's column
//! with the best known sorting network, merges the lanes with the warp flip
//! merges, and then the block's slabs are merged through shared memory with
//! multi-slab flip merges until the block is one sorted run; every warp
//! stores its slab back in place.
//!
//! Launch: grid `(blocks)`, block `(W * block_slabs)`; parameter `keys`.

use super::columns::{self, Source};
use super::config::{HotSortConfig, MergeExchange};
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, Special};

/// Generates `bs` for `cfg`.
pub fn generate(cfg: &HotSortConfig) -> Kernel {
    generate_marked(cfg).0
}

/// [`generate`], with the key registers and stage marks.
pub fn generate_marked(cfg: &HotSortConfig) -> (Kernel, KernelMarks) {
    generate_with(cfg, true)
}

/// [`generate_marked`], with the shuffles in the generator's order when
/// `hoist` is false (for the tests of `hoist`).
pub(crate) fn generate_with(cfg: &HotSortConfig, hoist: bool) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("bs", cfg);
    let (w, h, p) = (cfg.warp, cfg.slab_height, cfg.block_slabs);
    let warp = g.b.reg32();
    g.b.mov(warp, Special::WarpId);
    // slab = ctaid.x * P + warp; index of this lane's row-0 key.
    let idx = g.b.reg32();
    g.b.mov(idx, Special::CtaidX);
    g.b.mul(idx, idx, p);
    g.b.add(idx, idx, warp);
    g.b.mul(idx, idx, w * h);
    g.b.add(idx, idx, g.lane);
    let addr = g.key_addr(idx);
    let keys = g.key_regs(h as usize);
    g.marks.key_regs.clone_from(&keys);
    for (r, &k) in keys.iter().enumerate() {
        g.load_row(k, addr, r as u32);
    }

    let uses_shared = p > 1 || cfg.merge == MergeExchange::Shared;
    let region = uses_shared.then(|| {
        g.declare_shared(p);
        let region = g.b.reg32();
        g.b.mul(region, warp, g.smem.region_phys * g.kb());
        region
    });
    g.sort_slab(&keys, region);

    // Multi-slab flip merges: runs of G/2 slabs become runs of G.
    let mut group = 2;
    while group <= p {
        let region = region.expect("p > 1 uses shared memory");
        let (j, base) = (g.b.reg32(), g.b.reg32());
        g.b.and(j, warp, group - 1);
        g.b.sub(base, warp, j);
        g.b.mul(base, base, g.smem.region_phys * g.kb());
        g.stage(format!("block flip g={group}"));
        columns::park_slab(&mut g, &keys, region);
        g.b.bar_sync();
        columns::cross_slab(&mut g, &keys, group, true, j, base, Source::Shared);
        g.b.bar_sync();
        columns::reload_slab(&mut g, &keys, region);
        g.clean_slab(&keys, Some(region));
        group *= 2;
    }

    for (r, &k) in keys.iter().enumerate() {
        g.store_row(addr, r as u32, k);
    }
    // The shuffles move up among the compare-exchanges before them, as
    // ptxas issues them (see `hoist`).
    let temps = std::mem::take(&mut g.shuffle_temps);
    let (mut kernel, marks) = g.finish_marked();
    if hoist {
        super::hoist::hoist_shuffles(&mut kernel, &temps);
    }
    (kernel, marks)
}
