//! `small_sort` and `copy_buckets`, the end of every bucket.
//!
//! `small_sort_P` (one kernel per power of two `P` of slots, from two keys
//! per lane of a warp up to `M` rounded up): one block per bucket of at
//! most `P` keys loads the bucket (coalesced, padded with the largest
//! word), sorts it in shared memory with the bitonic network
//! ([`super::emit::Gen::shared_bitonic`]), and stores it at the same
//! place in the keys buffer, whichever buffer it was in. The host
//! launches the classes largest first (the authors' order: fewer
//! stragglers), each block with `min(t, P / 2)` threads.
//!
//! `copy_buckets`: one block per finished bucket that lies in the scratch
//! buffer (a single key, a constant bucket, the `=` bucket of a three-way
//! split) copies it to the keys buffer.
//!
//! Launch: grid `(buckets)`; parameters `list` (per bucket: start,
//! length, in-scratch flag, unused; four u32 words), `keys`, `scratch`.

use super::config::SamplesortConfig;
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, Param, ParamType, Reg, Special};

/// Threads per block of `small_sort_P`.
pub fn threads(cfg: &SamplesortConfig, slots: u32) -> u32 {
    cfg.block_threads.min(slots / 2)
}

/// The bucket's entry: `(start, len)` and the 64-bit address of its first
/// key in the buffer it lies in, and `dst` that of its place in `keys`.
fn entry(g: &mut Gen, list: Param, keys: Param, scratch: Param) -> (Reg, Reg, Reg, Reg) {
    let (blk, start, len, in_b) = (g.b.reg32(), g.b.reg32(), g.b.reg32(), g.b.reg32());
    let (ea, src, dst) = (g.b.reg64(), g.b.reg64(), g.b.reg64());
    let p = g.b.pred();
    g.b.mov(blk, Special::CtaidX);
    g.b.shl(blk, blk, 2u32);
    g.word_addr(ea, list, blk);
    g.b.ld_global_b32(start, ea, 0);
    g.b.ld_global_b32(len, ea, 4);
    g.b.ld_global_b32(in_b, ea, 8);
    g.b.setp_ne(p, in_b, 0u32);
    g.b.selp(src, scratch, keys, p);
    g.key_addr(src, src, start);
    g.key_addr(dst, keys, start);
    (len, src, dst, ea)
}

/// Generates `small_sort_P` for `slots = P` (a power of two, at least
/// [`SamplesortConfig::min_small_slots`]).
pub fn small_sort(cfg: &SamplesortConfig, slots: u32) -> (Kernel, KernelMarks) {
    let mut g = Gen::new(&format!("small_sort_{slots}"), cfg);
    let list = g.b.param("list", ParamType::U64);
    let keys = g.b.param("keys", ParamType::U64);
    let scratch = g.b.param("scratch", ParamType::U64);
    let t = threads(cfg, slots);
    g.b.shared(slots * g.kb(), 8);
    g.stage("load bucket");
    let tid = g.tid();
    let (len, src, dst, addr) = entry(&mut g, list, keys, scratch);
    let (i, sh) = (g.b.reg32(), g.b.reg32());
    let p = g.b.pred();
    let key = g.key_reg();
    g.marks.key_regs.push(key);
    let max = g.max_key();
    for r in 0..slots / t {
        g.b.add(i, tid, r * t);
        g.b.setp_lt_u(p, i, len);
        g.key_addr(addr, src, i);
        g.b.mov(key, max);
        g.b.when(p);
        g.ld_global(key, addr, 0);
        g.b.shl(sh, i, g.kb_shift());
        g.st_shared(Some(sh), 0, key);
    }
    g.b.bar_sync();
    g.stage("small sort");
    g.shared_bitonic(tid, 0, slots, t);
    g.stage("store bucket");
    for r in 0..slots / t {
        g.b.add(i, tid, r * t);
        g.b.setp_lt_u(p, i, len);
        g.b.shl(sh, i, g.kb_shift());
        g.ld_shared(key, Some(sh), 0);
        g.key_addr(addr, dst, i);
        g.b.when(p);
        g.st_global(addr, 0, key);
    }
    g.finish()
}

/// Generates `copy_buckets` for `cfg`.
pub fn copy_buckets(cfg: &SamplesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("copy_buckets", cfg);
    let list = g.b.param("list", ParamType::U64);
    let keys = g.b.param("keys", ParamType::U64);
    let scratch = g.b.param("scratch", ParamType::U64);
    let t = cfg.block_threads;
    g.stage("copy");
    let tid = g.tid();
    let (len, src, dst, addr) = entry(&mut g, list, keys, scratch);
    let (i, iters, r) = (g.b.reg32(), g.b.reg32(), g.b.reg32());
    let (p, more) = (g.b.pred(), g.b.pred());
    let key = g.key_reg();
    g.marks.key_regs.push(key);
    // ceil(len / t) rounds, a block-uniform loop (at least one).
    g.b.add(iters, len, t - 1);
    g.b.shr(iters, iters, t.trailing_zeros());
    g.b.mov(r, 0u32);
    g.b.mov(i, tid);
    let top = g.b.label("next_key");
    g.b.bind(top);
    g.b.setp_lt_u(p, i, len);
    g.key_addr(addr, src, i);
    g.b.when(p);
    g.ld_global(key, addr, 0);
    g.key_addr(addr, dst, i);
    g.b.when(p);
    g.st_global(addr, 0, key);
    g.b.add(i, i, t);
    g.b.add(r, r, 1u32);
    g.b.setp_lt_u(more, r, iters);
    g.b.when(more).bra(top);
    g.finish()
}
