//! `transpose`: slab order to linear order, one warp per slab. The warp
//! loads its slab by rows (coalesced), stores it to its shared region in
//! linear order (lane `l` writes `l*H + r`: the transposing access the
//! layouts exist for), reads it back by rows and stores the rows, so key
//! `l*H + r` of the slab lands at `slab_base + l*H + r`.
//!
//! Launch: grid `(ceil(slabs / P))`, block `(W * P)` with `P` =
//! `block_slabs`; parameters `keys`, `slabs` (warps past it exit).

use super::config::HotSortConfig;
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType, Special};

/// Generates `transpose` for `cfg`.
pub fn generate(cfg: &HotSortConfig) -> Kernel {
    generate_marked(cfg).0
}

/// [`generate`], with the key registers marked (no stages: it only moves
/// keys).
pub fn generate_marked(cfg: &HotSortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("transpose", cfg);
    let slabs = g.b.param("slabs", ParamType::U32);
    let (w, h, p) = (cfg.warp, cfg.slab_height, cfg.block_slabs);
    let warp = g.b.reg32();
    g.b.mov(warp, Special::WarpId);
    let slab = g.b.reg32();
    g.b.mov(slab, Special::CtaidX);
    g.b.mul(slab, slab, p);
    g.b.add(slab, slab, warp);
    g.b.setp_ge_u(g.p, slab, slabs);
    g.b.when(g.p).exit();
    let idx = g.b.reg32();
    g.b.mul(idx, slab, w * h);
    g.b.add(idx, idx, g.lane);
    let addr = g.key_addr(idx);
    let keys = g.key_regs(h as usize);
    // The replay's slab shows these rows (not the addresses and pointers).
    g.marks.key_regs.clone_from(&keys);
    for (r, &k) in keys.iter().enumerate() {
        g.load_row(k, addr, r as u32);
    }
    g.declare_shared(p);
    let region = g.b.reg32();
    g.b.mul(region, warp, g.smem.region_phys * g.kb());
    let lin = g.linear_base(region);
    for (r, &k) in keys.iter().enumerate() {
        let (a, off) = g.linear_addr(&lin, r as u32);
        g.st_shared_key(Some(a), off, k);
    }
    g.b.warp_sync();
    let rows = g.rows(region, g.lane);
    for (r, &k) in keys.iter().enumerate() {
        let (a, off) = g.row(rows, r as u32);
        g.ld_shared_key(k, Some(a), off);
    }
    for (r, &k) in keys.iter().enumerate() {
        g.store_row(addr, r as u32, k);
    }
    g.finish_marked()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slab_rows_are_marked_for_the_replay() {
        // Without marks the replay showed every register written, 64-bit
        // pointers included, on one colour scale.
        let cfg = HotSortConfig::new(8, 4);
        let (_, marks) = generate_marked(&cfg);
        assert_eq!(marks.key_regs.len(), 4);
        assert!(marks.stages.is_empty());
    }
}
