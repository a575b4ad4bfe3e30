//! `tail` (the seed's case 3): after the global steps of a stage, each
//! block reloads its tile and runs the remaining steps (distances `T/2`
//! down to 1) through shared memory and in registers, then stores it.
//! The first step's pair (vectors `t` and `t + G`) is exactly what the
//! coalesced load gives each thread, so it needs no shared round trip.
//!
//! Launch: grid `(tiles)`, block `(G)`; parameter `keys`.

use super::config::BitonicConfig;
use super::emit::Gen;
use super::tile::Held;
use crate::KernelMarks;
use kernels_ir::{Kernel, Special};

/// Generates `tail` for `cfg`.
pub fn generate(cfg: &BitonicConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("tail", cfg);
    g.b.shared(cfg.smem_bytes() as u32, 16);
    let mut h = Held::new(&mut g);
    let base = g.b.reg32();
    g.b.mov(base, Special::CtaidX);
    g.b.mul(base, base, 2 * cfg.block_threads);
    g.stage("load tile");
    h.load_tile(&mut g, base);
    let lg_g = cfg.block_threads.trailing_zeros();
    let l = cfg.vector;
    g.stage(format!("tail d={} (registers)", l << lg_g));
    let (a, b) = (h.a.clone(), h.b.clone());
    g.cmpx_vectors(&a, &b, false);
    // Vectors t and t + G are the pair of the step at stride G.
    h.set_step(lg_g, false);
    let mut first = true;
    for s in (0..lg_g).rev() {
        g.stage(format!("tail d={} (shared)", l << s));
        h.shared_step(&mut g, s, false, first);
        first = false;
    }
    if l > 1 {
        g.stage(format!("tail d<{l} (vector)"));
        // Any stage past the vector: the half steps L/2 .. 1.
        h.vector_steps(&mut g, l.trailing_zeros() + 1);
    }
    g.stage("store tile");
    if first {
        let x = g.b.reg32();
        g.b.add(x, base, h.x1);
        let addr = g.vector_addr(x);
        g.st_global_vec(addr, &a);
        g.b.add(x, base, h.x2);
        g.vector_addr_into(addr, x);
        g.st_global_vec(addr, &b);
    } else {
        h.store_tile(&mut g, base);
    }
    g.finish()
}
