//! `head` (the seed's case 1): each block loads its tile (coalesced),
//! sorts inside each vector in registers, then runs every stage whose
//! partners lie in the tile through shared memory (the step protocol of
//! [`super::tile`]), and stores the tile.
//!
//! The tile is `2 * ntid.x * L` keys: a sort of at most one tile launches
//! one block of fewer threads (the seed's "shrink the tile"), and the
//! stages beyond the tile are skipped by a block-uniform test.
//!
//! Launch: grid `(tiles)`, block `(G)` (or `(P / 2L)` for one small
//! tile); parameter `keys`.

use super::config::BitonicConfig;
use super::emit::Gen;
use super::tile::Held;
use crate::KernelMarks;
use kernels_ir::{Kernel, Special};

/// Generates `head` for `cfg`.
pub fn generate(cfg: &BitonicConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("head", cfg);
    g.b.shared(cfg.smem_bytes() as u32, 16);
    let mut h = Held::new(&mut g);
    let base = g.b.reg32();
    let nt = g.b.reg32();
    g.b.mov(nt, Special::NtidX);
    g.b.mov(base, Special::CtaidX);
    g.b.mul(base, base, nt);
    g.b.shl(base, base, 1u32);
    g.stage("load tile");
    h.load_tile(&mut g, base);
    let lg_l = cfg.vector.trailing_zeros();
    let lg_t = cfg.tile().trailing_zeros();
    for k in 1..=lg_l {
        g.stage(format!("stage {k} d={} (vector)", 1u32 << (k - 1)));
        h.vector_steps(&mut g, k);
    }
    let done = g.b.label("store");
    // Keys of this block's tile, to skip the stages it does not have.
    let tile = g.b.reg32();
    g.b.mul(tile, nt, 2 * cfg.vector);
    let mut first = true;
    for k in lg_l + 1..=lg_t {
        if k > lg_l + 1 {
            g.b.setp_lt_u(h.p, tile, 1u32 << k);
            g.b.when(h.p).bra(done);
        }
        for s in (0..k - lg_l).rev() {
            let flip = s == k - 1 - lg_l;
            g.stage(format!("stage {k} d={} (shared)", cfg.vector << s));
            h.shared_step(&mut g, s, flip, first);
            first = false;
        }
        if lg_l > 0 {
            g.stage(format!("stage {k} d<{} (vector)", cfg.vector));
            h.vector_steps(&mut g, k);
        }
    }
    g.b.bind(done);
    g.stage("store tile");
    if first {
        // One vector pair per tile (T = 2L): nothing went through shared
        // memory; store the registers directly.
        let x = g.b.reg32();
        g.b.add(x, base, h.x1);
        let addr = g.vector_addr(x);
        let (a, b) = (h.a.clone(), h.b.clone());
        g.st_global_vec(addr, &a);
        g.b.add(x, base, h.x2);
        g.vector_addr_into(addr, x);
        g.st_global_vec(addr, &b);
    } else {
        h.store_tile(&mut g, base);
    }
    g.finish()
}
