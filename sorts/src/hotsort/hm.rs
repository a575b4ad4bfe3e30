//! `hm`, the streaming half merge: for spans of `C` slabs whose halves are
//! bitonic, a thread owns one key position of `K` slabs
//! `s0, s0 + C/K, ...` and half-cleans them in registers (slab distances
//! `C/2 .. C/K`), leaving sub-spans of `C/K` slabs to clean. Used while the
//! span to clean is larger than `bc` takes.
//!
//! Launch: grid `(H/Y, C/K, spans)`, block `(W, Y)` as for `fm`; parameters
//! `keys`, `stride` (`C/K`), `span` (`C`).

use super::config::HotSortConfig;
use super::emit::Gen;
use super::fm::{position, step_bytes, strided};
use super::networks;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType, Special};

/// Generates `hm` for `cfg`.
pub fn generate(cfg: &HotSortConfig) -> Kernel {
    generate_marked(cfg).0
}

/// [`generate`], with the key registers and stage marks.
pub fn generate_marked(cfg: &HotSortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("hm", cfg);
    let stride = g.b.param("stride", ParamType::U32);
    let span = g.b.param("span", ParamType::U32);
    let k = cfg.hm_rows();
    let sk = cfg.warp * cfg.slab_height;
    let pos = position(&mut g);
    let first = g.b.reg32();
    let t = g.b.reg32();
    g.b.mov(first, Special::CtaidZ);
    g.b.mul(first, first, span);
    g.b.mov(t, Special::CtaidY);
    g.b.add(first, first, t);
    g.b.mul(first, first, sk);
    g.b.add(first, first, pos);
    let first = g.key_addr(first);
    let stride_reg = g.b.reg32();
    g.b.mov(stride_reg, stride);
    let step = step_bytes(&mut g, stride_reg);
    let addrs = strided(&mut g, first, step, k, false);
    let vals = g.key_regs(k as usize);
    g.marks.key_regs.clone_from(&vals);
    for (v, a) in vals.iter().zip(&addrs) {
        g.ld_global_key(*v, *a, 0);
    }
    g.stage("half merge");
    g.network(&vals, &networks::bitonic_merge(k as usize));
    for (v, a) in vals.iter().zip(&addrs) {
        g.st_global_key(*a, 0, *v);
    }
    g.finish_marked()
}
