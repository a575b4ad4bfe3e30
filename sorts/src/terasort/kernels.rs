//! GPUTeraSort's kernels, one thread per element, no shared memory, no
//! barriers (the seed's fragment programs in compute form):
//!
//! - `keygen`: key-pointer pair `i` = `prefix << 32 | i`, where `prefix` is
//!   the first 4 key bytes of record `i` read big-endian (bytes past the
//!   key zero); slots `n..total` get the all-ones padding word.
//! - `refine_keys`: for each slot holding pointer `p` (padding skipped),
//!   the next 4 key bytes of record `p` replace the prefix.
//! - `step_pair`: one bitonic step, one thread per pair `(i, i + d)`, in place.
//! - `step_output`: one bitonic step, one thread per output `i` (reads `i`
//!   and `i ^ d`, writes `i` to the other buffer), as the seed draws it.
//!
//! (`reorder`, which gathers the records, is in [`super::reorder`].)
//! Every kernel takes a 1-D grid of `block_threads` threads; threads past
//! the count exit.
//! Packing pointer and prefix into one 64-bit word makes ties break by
//! pointer, so the order is deterministic.

use super::config::TeraSortConfig;
use crate::KernelMarks;
use kernels_ir::{Kernel, KernelBuilder, Opcode, Param, ParamType, Reg, Special};

/// `t = ctaid.x * ntid.x + tid.x`; exits threads with `t >= count`.
fn thread_index(b: &mut KernelBuilder, count: Param) -> Reg {
    let (t, x, p) = (b.reg32(), b.reg32(), b.pred());
    b.mov(t, Special::CtaidX);
    b.mov(x, Special::NtidX);
    b.mul(t, t, x);
    b.mov(x, Special::TidX);
    b.add(t, t, x);
    b.setp_ge_u(p, t, count);
    b.when(p).exit();
    t
}

/// `base + index * scale` as a 64-bit address.
fn address(b: &mut KernelBuilder, base: Param, index: Reg, scale: u32) -> Reg {
    let a = b.reg64();
    b.cvt_u64_u32(a, index);
    b.mul(a, a, i64::from(scale));
    b.add(a, a, base);
    a
}

/// Reads the 32-bit word at `addr + offset` as big-endian bytes, masked.
fn big_endian_word(b: &mut KernelBuilder, addr: Reg, offset: i32, mask: Param) -> Reg {
    let (w, x, y) = (b.reg32(), b.reg32(), b.reg32());
    b.ld_global_b32(w, addr, offset);
    b.shl(x, w, 24);
    b.shr(y, w, 24);
    b.or(x, x, y);
    b.and(y, w, 0xff00);
    b.shl(y, y, 8);
    b.or(x, x, y);
    b.shr(y, w, 8);
    b.and(y, y, 0xff00);
    b.or(x, x, y);
    b.and(x, x, mask);
    x
}

/// `prefix << 32 | pointer`.
fn pack(b: &mut KernelBuilder, prefix: Reg, pointer: Reg) -> Reg {
    let (v, lo) = (b.reg64(), b.reg64());
    b.cvt_u64_u32(v, prefix);
    b.shl(v, v, 32);
    b.cvt_u64_u32(lo, pointer);
    b.or(v, v, lo);
    v
}

/// `keygen`: parameters `records`, `pairs`, `n`, `total`, `mask`.
pub fn keygen(cfg: &TeraSortConfig) -> (Kernel, KernelMarks) {
    let mut b = KernelBuilder::new("keygen");
    let records = b.param("records", ParamType::U64);
    let pairs = b.param("pairs", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let total = b.param("total", ParamType::U32);
    let mask = b.param("mask", ParamType::U32);
    let t = thread_index(&mut b, total);
    let slot = address(&mut b, pairs, t, 8);
    let (pad, ones) = (b.pred(), b.reg64());
    b.setp_ge_u(pad, t, n);
    b.mov(ones, -1i64);
    b.when(pad).store(Opcode::StGlobalB64, Some(slot), 0, ones);
    b.when(pad).exit();
    let rec = address(&mut b, records, t, cfg.record_bytes);
    let start = b.next_pc();
    let prefix = big_endian_word(&mut b, rec, 0, mask);
    let v = pack(&mut b, prefix, t);
    b.store(Opcode::StGlobalB64, Some(slot), 0, v);
    b.exit();
    let marks = KernelMarks {
        key_regs: vec![v],
        stages: vec![(start, "key-pointer".to_string())],
    };
    (b.build(), marks)
}

/// `refine_keys`: parameters `records`, `slots`, `total`, `offset` (key
/// byte of this round), `mask`.
pub fn refine_keys(cfg: &TeraSortConfig) -> (Kernel, KernelMarks) {
    let mut b = KernelBuilder::new("refine_keys");
    let records = b.param("records", ParamType::U64);
    let slots = b.param("slots", ParamType::U64);
    let total = b.param("total", ParamType::U32);
    let offset = b.param("offset", ParamType::U32);
    let mask = b.param("mask", ParamType::U32);
    let t = thread_index(&mut b, total);
    let slot = address(&mut b, slots, t, 8);
    let (v, ptr, pad) = (b.reg64(), b.reg32(), b.pred());
    b.load(Opcode::LdGlobalB64, v, Some(slot), 0);
    b.cvt_u32_u64(ptr, v);
    b.setp_eq(pad, ptr, u32::MAX);
    b.when(pad).exit();
    let rec = address(&mut b, records, ptr, cfg.record_bytes);
    let off = b.reg64();
    b.cvt_u64_u32(off, offset);
    b.add(rec, rec, off);
    let start = b.next_pc();
    let prefix = big_endian_word(&mut b, rec, 0, mask);
    let v = pack(&mut b, prefix, ptr);
    b.store(Opcode::StGlobalB64, Some(slot), 0, v);
    b.exit();
    let marks = KernelMarks {
        key_regs: vec![v],
        stages: vec![(start, "next key bytes".to_string())],
    };
    (b.build(), marks)
}

/// `up = ((i >> stage) & 1) == 0 || i >= flat`: the direction of element
/// `i`'s block at this stage. Segments from word `flat` on finish their
/// last stage here and all sort up.
fn ascending(b: &mut KernelBuilder, i: Reg, stage: Param, flat: Param) -> Reg {
    let (x, up, last) = (b.reg32(), b.pred(), b.pred());
    b.shr(x, i, stage);
    b.and(x, x, 1);
    b.setp_eq(up, x, 0);
    b.setp_ge_u(last, i, flat);
    b.or(up, up, last);
    up
}

/// `step_pair`: parameters `pairs`, `half` (pairs to process), `lgd`,
/// `d`, `stage` (the direction bit), `flat` (see [`ascending`]).
pub fn step_pair(_cfg: &TeraSortConfig) -> (Kernel, KernelMarks) {
    let mut b = KernelBuilder::new("step_pair");
    let pairs = b.param("pairs", ParamType::U64);
    let half = b.param("half", ParamType::U32);
    let lgd = b.param("lgd", ParamType::U32);
    let d = b.param("d", ParamType::U32);
    let stage = b.param("stage", ParamType::U32);
    let flat = b.param("flat", ParamType::U32);
    let t = thread_index(&mut b, half);
    // i = t with a zero bit inserted at position lgd; its partner is i + d.
    let (i, x, j) = (b.reg32(), b.reg32(), b.reg32());
    b.shr(i, t, lgd);
    b.shl(i, i, lgd);
    b.shl(i, i, 1);
    b.sub(x, d, 1);
    b.and(x, t, x);
    b.or(i, i, x);
    b.add(j, i, d);
    let up = ascending(&mut b, i, stage, flat);
    let ai = address(&mut b, pairs, i, 8);
    let aj = address(&mut b, pairs, j, 8);
    let (a, c) = (b.reg64(), b.reg64());
    let load = b.next_pc();
    b.load(Opcode::LdGlobalB64, a, Some(ai), 0);
    b.load(Opcode::LdGlobalB64, c, Some(aj), 0);
    let cmp = b.next_pc();
    let (lo, hi) = (b.reg64(), b.reg64());
    b.min_u(lo, a, c);
    b.max_u(hi, a, c);
    b.selp(a, lo, hi, up);
    b.selp(c, hi, lo, up);
    let store = b.next_pc();
    b.store(Opcode::StGlobalB64, Some(ai), 0, a);
    b.store(Opcode::StGlobalB64, Some(aj), 0, c);
    b.exit();
    let marks = KernelMarks {
        key_regs: vec![a, c],
        stages: vec![
            (0, "pair index".to_string()),
            (load, "load pair".to_string()),
            (cmp, "compare-exchange".to_string()),
            (store, "store pair".to_string()),
        ],
    };
    (b.build(), marks)
}

/// `step_output`: parameters `src`, `dst`, `total`, `d`, `stage`, `flat`.
pub fn step_output(_cfg: &TeraSortConfig) -> (Kernel, KernelMarks) {
    let mut b = KernelBuilder::new("step_output");
    let src = b.param("src", ParamType::U64);
    let dst = b.param("dst", ParamType::U64);
    let total = b.param("total", ParamType::U32);
    let d = b.param("d", ParamType::U32);
    let stage = b.param("stage", ParamType::U32);
    let flat = b.param("flat", ParamType::U32);
    let i = thread_index(&mut b, total);
    let p = b.reg32();
    b.xor(p, i, d);
    let up = ascending(&mut b, i, stage, flat);
    let (x, low, keep_max) = (b.reg32(), b.pred(), b.pred());
    b.and(x, i, d);
    b.setp_eq(low, x, 0);
    b.xor(keep_max, low, up);
    let ai = address(&mut b, src, i, 8);
    let ap = address(&mut b, src, p, 8);
    let (a, c) = (b.reg64(), b.reg64());
    let load = b.next_pc();
    b.load(Opcode::LdGlobalB64, a, Some(ai), 0);
    b.load(Opcode::LdGlobalB64, c, Some(ap), 0);
    let cmp = b.next_pc();
    let (lo, hi) = (b.reg64(), b.reg64());
    b.min_u(lo, a, c);
    b.max_u(hi, a, c);
    // The seed keeps the minimum where `low == up`, the maximum otherwise.
    b.selp(a, hi, lo, keep_max);
    let store = b.next_pc();
    let out = address(&mut b, dst, i, 8);
    b.store(Opcode::StGlobalB64, Some(out), 0, a);
    b.exit();
    let marks = KernelMarks {
        key_regs: vec![a, c],
        stages: vec![
            (0, "output index".to_string()),
            (load, "load both".to_string()),
            (cmp, "min or max".to_string()),
            (store, "store one".to_string()),
        ],
    };
    (b.build(), marks)
}

/// `rebase` (phase 2 on the GPU only): copies one sorted run's words to
/// its place in the merge buffer with pointers made global (`first`, the
/// run's first record, added to each), and fills the run's slot up to
/// `total` words with the all-ones padding word. Parameters `pairs`,
/// `runs` (the run's slot), `n` (words of the run), `total`, `first`.
pub fn rebase(_cfg: &TeraSortConfig) -> (Kernel, KernelMarks) {
    let mut b = KernelBuilder::new("rebase");
    let pairs = b.param("pairs", ParamType::U64);
    let runs = b.param("runs", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let total = b.param("total", ParamType::U32);
    let first = b.param("first", ParamType::U32);
    let t = thread_index(&mut b, total);
    let slot = address(&mut b, runs, t, 8);
    let (pad, v) = (b.pred(), b.reg64());
    b.setp_ge_u(pad, t, n);
    b.mov(v, -1i64);
    b.when(pad).store(Opcode::StGlobalB64, Some(slot), 0, v);
    b.when(pad).exit();
    let start = b.next_pc();
    let from = address(&mut b, pairs, t, 8);
    b.load(Opcode::LdGlobalB64, v, Some(from), 0);
    // Pointers stay below 2^31: the sum never carries into the prefix.
    let off = b.reg64();
    b.cvt_u64_u32(off, first);
    b.add(v, v, off);
    b.store(Opcode::StGlobalB64, Some(slot), 0, v);
    b.exit();
    let marks = KernelMarks {
        key_regs: vec![v],
        stages: vec![(start, "global pointer".to_string())],
    };
    (b.build(), marks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::verify_kernel;

    #[test]
    fn every_kernel_verifies_for_several_layouts() {
        for (w, r, k) in [(8, 16, 4), (32, 100, 10), (64, 4, 1), (16, 200, 64)] {
            let cfg = TeraSortConfig {
                record_bytes: r,
                key_bytes: k,
                ..TeraSortConfig::new(w, 32)
            };
            for (kernel, _) in [
                keygen(&cfg),
                refine_keys(&cfg),
                step_pair(&cfg),
                step_output(&cfg),
                super::super::reorder::reorder(&cfg),
                rebase(&cfg),
            ] {
                let name = kernel.name.clone();
                verify_kernel(kernel).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }
}
