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

/// Generates `bc` for `cfg`: the block clean of a full block.
pub fn generate(cfg: &HotSortConfig) -> Kernel {
    generate_marked(cfg, cfg.block_slabs).0
}

/// The block clean of `p` warps (a power of two up to `block_slabs`), with
/// the key registers and stage marks.
pub fn generate_marked(cfg: &HotSortConfig, p: u32) -> (Kernel, KernelMarks) {
    let mut g = Gen::new(super::schedule::bc_name(cfg, p), cfg);
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
