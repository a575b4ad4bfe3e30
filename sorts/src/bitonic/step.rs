//! `step` (the seed's case 2, and every launch of the plain sort): one
//! global step at vector stride `2^s`. Thread `t` loads vectors
//! `x1 = insert0(t, s)` and its partner `x2` (`x1 + 2^s`, or the mirror
//! `x1 ^ (2^(s+1) - 1)` for the first step of a stage) straight from
//! global memory, compare-exchanges them and stores them; the next step
//! needs a new launch.
//!
//! Count-aware: words past `nv` vectors are the maximum key and never
//! stored, so a pair whose upper vector lies there is already in order and
//! its thread does nothing (or only its in-vector steps).
//!
//! In the plain sort with `L > 1` one launch also runs the in-vector work
//! that needs no partner: `pre` sorts inside both vectors first (the first
//! launch), `post` runs a stage's in-vector steps after its last global
//! step. With `L = 1` it is the AMD SDK bitonic kernel: one comparator per
//! thread and launch.
//!
//! Launch: grid `(ceil(pairs / G))`, block `(G)`; parameters `keys`, `nv`,
//! `hi_mask`, `x_xor`, `x_add` (see [`params`]), `flip`, `pre`, `post`
//! (flags are 0 or 1).

use super::config::BitonicConfig;
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType};

/// Generates `step` for `cfg`.
pub fn generate(cfg: &BitonicConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("step", cfg);
    let nv = g.b.param("nv", ParamType::U32);
    // The host passes the step's index arithmetic precomputed: for vector
    // stride 2^s, `hi_mask` = !(2^s - 1), so x1 = t + (t & hi_mask); and
    // x2 = (x1 ^ x_xor) + x_add (the mirror: 2^(s+1) - 1 and 0; a half
    // step: 0 and 2^s).
    let hi_mask = g.b.param("hi_mask", ParamType::U32);
    let x_xor = g.b.param("x_xor", ParamType::U32);
    let x_add = g.b.param("x_add", ParamType::U32);
    let flip = g.b.param("flip", ParamType::U32);
    let pre = g.b.param("pre", ParamType::U32);
    let post = g.b.param("post", ParamType::U32);
    let (a, b) = g.vectors();
    let (p, f, have2) = (g.b.pred(), g.b.pred(), g.b.pred());
    let t = g.global_thread();
    let (x1, x2) = (g.b.reg32(), g.b.reg32());
    g.stage("global step: pair");
    g.b.and(x1, t, hi_mask);
    g.b.add(x1, x1, t);
    g.b.setp_ge_u(p, x1, nv);
    g.b.when(p).exit();
    g.b.setp_ne(f, flip, 0u32);
    g.b.xor(x2, x1, x_xor);
    g.b.add(x2, x2, x_add);
    g.b.setp_lt_u(have2, x2, nv);
    let addr1 = g.vector_addr(x1);
    g.stage("global step: load");
    g.ld_global_vec(&a, addr1);
    let single = g.b.label("single");
    g.b.unless(have2).bra(single);
    let addr2 = g.vector_addr(x2);
    g.ld_global_vec(&b, addr2);
    let lg_l = cfg.vector.trailing_zeros();
    let vector_work = lg_l > 0 && !cfg.fused;
    if vector_work {
        in_vector(&mut g, pre, p, "pre: sort in vectors", &[&a, &b], 1..=lg_l);
    }
    let (mirror, compared) = (g.b.label("mirror"), g.b.label("compared"));
    g.stage("global step: compare");
    g.b.when(f).bra(mirror);
    g.cmpx_vectors(&a, &b, false);
    g.b.bra(compared);
    g.b.bind(mirror);
    g.cmpx_vectors(&a, &b, true);
    g.b.bind(compared);
    if vector_work {
        in_vector(
            &mut g,
            post,
            p,
            "post: in-vector steps",
            &[&a, &b],
            lg_l + 1..=lg_l + 1,
        );
    }
    g.stage("global step: store");
    g.st_global_vec(addr1, &a);
    g.st_global_vec(addr2, &b);
    g.b.exit();
    // The upper vector is all padding: only the in-vector work on x1.
    g.b.bind(single);
    if vector_work {
        let any = g.b.reg32();
        g.b.or(any, pre, post);
        g.b.setp_eq(p, any, 0u32);
        g.b.when(p).exit();
        in_vector(&mut g, pre, p, "pre: sort in vectors", &[&a], 1..=lg_l);
        in_vector(
            &mut g,
            post,
            p,
            "post: in-vector steps",
            &[&a],
            lg_l + 1..=lg_l + 1,
        );
        g.st_global_vec(addr1, &a);
    }
    g.finish()
}

/// The index parameters `hi_mask`, `x_xor`, `x_add` of a step at vector
/// stride `2^s`.
pub fn params(s: u32, flip: bool) -> [u32; 3] {
    let half = 1u32 << s;
    if flip {
        [!(half - 1), 2 * half - 1, 0]
    } else {
        [!(half - 1), 0, half]
    }
}

/// The in-vector stages `ks` on each of `vs`, when `flag` is set.
fn in_vector(
    g: &mut Gen,
    flag: kernels_ir::Param,
    p: kernels_ir::Reg,
    name: &str,
    vs: &[&Vec<kernels_ir::Reg>],
    ks: std::ops::RangeInclusive<u32>,
) {
    let skip = g.b.label("skip");
    g.b.setp_eq(p, flag, 0u32);
    g.b.when(p).bra(skip);
    g.stage(name);
    for k in ks {
        for v in vs {
            g.vector_stage(v, k);
        }
    }
    g.b.bind(skip);
}
