//! `fm`, the streaming flip merge: merges pairs of sorted runs of `R` slabs
//! across global memory. A thread owns one key position `p = row*W + lane`
//! of `K` slabs of the left run, `s0, s0 + R/K, ...`, and of their flip
//! partners in the right run, mirrored (`2R-1-s`, position `W*H-1-p`); it
//! compare-exchanges each left key with its partner, half-cleans both sides
//! in registers (slab distances `R/2 .. R/K`) and stores everything back.
//! What is left to clean are sub-spans of `R/K` slabs (`hm`, `bc`).
//!
//! Launch: grid `(H/Y, R/K, spans)`, block `(W, Y)` with `Y` from
//! [`rows_per_block`]; parameters `keys`, `stride` (`R/K`), `run` (`R`).

use super::config::HotSortConfig;
use super::emit::Gen;
use super::networks;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType, Reg, Special};

/// Rows of a slab one `fm`/`hm` block covers: the largest power of two
/// dividing `H` with at most 256 threads per block, and never more than
/// the machine allows per block (a block is at least one warp).
pub fn rows_per_block(cfg: &HotSortConfig) -> u32 {
    let pow2_divisor = 1u32 << cfg.slab_height.trailing_zeros();
    let threads = cfg.max_block_threads.min(256);
    pow2_divisor.min((threads / cfg.warp).max(1))
}

/// This thread's key position `row*W + lane` within a slab.
pub(super) fn position(g: &mut Gen<'_>) -> Reg {
    let y = rows_per_block(g.cfg);
    let pos = g.b.reg32();
    let t = g.b.reg32();
    g.b.mov(pos, Special::CtaidX);
    g.b.mul(pos, pos, y);
    g.b.mov(t, Special::TidY);
    g.b.add(pos, pos, t);
    g.b.mul(pos, pos, g.w());
    g.b.add(pos, pos, g.lane);
    pos
}

/// `K` addresses `first + i * step` (`step` in bytes, 64-bit), negated steps
/// when `down`; with values, each with its value address.
pub(super) fn strided(g: &mut Gen<'_>, first: Reg, step: Reg, k: u32, down: bool) -> Vec<Reg> {
    let value_step = (g.cfg.values && k > 1).then(|| {
        let vs = g.b.reg64();
        g.b.shr(vs, step, 1u32);
        vs
    });
    let mut out = vec![first];
    for _ in 1..k {
        let prev = *out.last().expect("non-empty");
        let a = g.step_addr(prev, step, value_step, down);
        out.push(a);
    }
    out
}

/// `stride * W*H*key_bytes` as a 64-bit byte step.
pub(super) fn step_bytes(g: &mut Gen<'_>, stride: Reg) -> Reg {
    let step = g.b.reg64();
    g.b.cvt_u64_u32(step, stride);
    g.b.mul(step, step, i64::from(g.w() * g.h() * g.kb()));
    step
}

/// Generates `fm` for `cfg`.
pub fn generate(cfg: &HotSortConfig) -> Kernel {
    generate_marked(cfg).0
}

/// [`generate`], with the key registers and stage marks.
pub fn generate_marked(cfg: &HotSortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("fm", cfg);
    let stride = g.b.param("stride", ParamType::U32);
    let run = g.b.param("run", ParamType::U32);
    let k = cfg.fm_rows();
    let sk = cfg.warp * cfg.slab_height;
    let pos = position(&mut g);
    let (s0, span, t) = (g.b.reg32(), g.b.reg32(), g.b.reg32());
    g.b.mov(s0, Special::CtaidY);
    g.b.mov(span, Special::CtaidZ);
    // span_first = span * 2R
    g.b.mul(span, span, run);
    g.b.shl(span, span, 1u32);
    // left = (span_first + s0) * SK + pos
    let left = g.b.reg32();
    g.b.add(left, span, s0);
    g.b.mul(left, left, sk);
    g.b.add(left, left, pos);
    // right = (span_first + 2R - 1 - s0) * SK + SK - 1 - pos
    let right = g.b.reg32();
    g.b.shl(t, run, 1u32);
    g.b.add(right, span, t);
    g.b.sub(right, right, s0);
    g.b.sub(right, right, 1u32);
    g.b.mul(right, right, sk);
    g.b.add(right, right, (sk - 1) as i64);
    g.b.sub(right, right, pos);
    let (left, right) = (g.key_addr(left), g.key_addr(right));
    let stride_reg = g.b.reg32();
    g.b.mov(stride_reg, stride);
    let step = step_bytes(&mut g, stride_reg);
    let la = strided(&mut g, left, step, k, false);
    let ra = strided(&mut g, right, step, k, true);
    let lv = g.key_regs(k as usize);
    let rv = g.key_regs(k as usize);
    g.marks.key_regs = lv.iter().chain(&rv).copied().collect();
    for i in 0..k as usize {
        g.ld_global_key(lv[i], la[i], 0);
        g.ld_global_key(rv[i], ra[i], 0);
    }
    g.stage("flip merge");
    for i in 0..k as usize {
        g.cmpx(lv[i], rv[i]);
    }
    // Left slabs ascend with i; right slabs descend, so the minimum of a
    // right pair goes to the larger i.
    let half = networks::bitonic_merge(k as usize);
    g.network(&lv, &half);
    let flipped: Vec<(usize, usize)> = half.iter().map(|&(a, b)| (b, a)).collect();
    for &(a, b) in &flipped {
        g.cmpx(rv[a], rv[b]);
    }
    for i in 0..k as usize {
        g.st_global_key(la[i], 0, lv[i]);
        g.st_global_key(ra[i], 0, rv[i]);
    }
    g.finish_marked()
}
