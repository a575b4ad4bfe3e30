//! `create_bst`: one block per large bucket of the level draws the sample,
//! sorts it, and writes the bucket's splitter tree and degenerate flag.
//!
//! 1. Each thread draws its share of the `a * k` sample positions with its
//!    own LCG (`x = 1664525 x + 1013904223`, the GPU generator the slides
//!    describe), seeded from the bucket's seed (the host's, per bucket)
//!    and the thread index; position `= (x * n) >> 32`, so every key of
//!    the bucket can be drawn. The sample goes to shared memory, padded
//!    to a power of two with the largest word.
//! 2. The block sorts it ([`super::emit::Gen::shared_bitonic`]).
//! 3. Splitter `s_i = sample[a i]`, `i = 1 .. k-1`, laid out as the
//!    implicit tree: node `j` of level `l = floor(lg j)` holds
//!    `s_((2 (j - 2^l) + 1) k / 2^(l+1))` (root `s_(k/2)`, children of `j`
//!    at `2j` and `2j + 1`). Node 0 is unused.
//! 4. Thread 0 flags the bucket degenerate when `s_1 = s_(k-1)`.
//!
//! Launch: grid `(large buckets)`, block `(min(t, slots / 2))`;
//! parameters `list` (per bucket: start, length, in-scratch flag, seed;
//! four u32 words), `keys`, `scratch`, `trees` (`k` words per bucket),
//! `flags` (one u32 per bucket).

use super::config::SamplesortConfig;
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType, Special};

/// Threads per `create_bst` block.
pub fn threads(cfg: &SamplesortConfig) -> u32 {
    cfg.block_threads.min(cfg.sample_slots() / 2).max(1)
}

/// Generates `create_bst` for `cfg`.
pub fn generate(cfg: &SamplesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("create_bst", cfg);
    let list = g.b.param("list", ParamType::U64);
    let keys = g.b.param("keys", ParamType::U64);
    let scratch = g.b.param("scratch", ParamType::U64);
    let trees = g.b.param("trees", ParamType::U64);
    let flags = g.b.param("flags", ParamType::U64);
    let slots = cfg.sample_slots();
    let t = threads(cfg);
    let (k, a) = (cfg.buckets, cfg.oversample);
    let sample = a * k;
    g.b.shared(slots * g.kb(), 8);

    g.stage("sample");
    let tid = g.tid();
    let (blk, start, len, in_b, seed) = (
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
    );
    let (ea, src) = (g.b.reg64(), g.b.reg64());
    let p = g.b.pred();
    g.b.mov(blk, Special::CtaidX);
    g.b.shl(seed, blk, 2u32);
    g.word_addr(ea, list, seed);
    g.b.ld_global_b32(start, ea, 0);
    g.b.ld_global_b32(len, ea, 4);
    g.b.ld_global_b32(in_b, ea, 8);
    g.b.ld_global_b32(seed, ea, 12);
    g.b.setp_ne(p, in_b, 0u32);
    g.b.selp(src, scratch, keys, p);
    g.key_addr(src, src, start);
    // The thread's LCG: the bucket's seed mixed with the thread index.
    let (x, i, pos) = (g.b.reg32(), g.b.reg32(), g.b.reg32());
    let (wide, addr, n64) = (g.b.reg64(), g.b.reg64(), g.b.reg64());
    g.b.mul(x, tid, 0x9E37_79B9u32);
    g.b.xor(x, x, seed);
    g.b.cvt_u64_u32(n64, len);
    // Every draw's load first, each into a register of its own, then the
    // stores: ptxas issues a thread's independent loads back to back
    // whatever the PTX order (`hw/calib/suite_loads.txt`), so the draws
    // wait for memory once, not once each, as `scan`'s tile does.
    let draws = slots / t;
    let sh = g.b.reg32();
    let mut drawn = Vec::with_capacity(draws as usize);
    for r in 0..draws {
        let key = g.key_reg();
        g.marks.key_regs.push(key);
        g.b.add(i, tid, r * t);
        g.b.setp_lt_u(p, i, sample);
        g.b.mul(x, x, 1_664_525u32);
        g.b.add(x, x, 1_013_904_223u32);
        g.b.cvt_u64_u32(wide, x);
        g.b.mul(wide, wide, n64);
        g.b.shr(wide, wide, 32u32);
        g.b.cvt_u32_u64(pos, wide);
        g.key_addr(addr, src, pos);
        let max = g.max_key();
        g.b.mov(key, max);
        g.b.when(p);
        g.ld_global(key, addr, 0);
        drawn.push(key);
    }
    // The first draw's register holds keys again below.
    let key = drawn[0];
    for (r, key) in (0..draws).zip(drawn) {
        g.b.add(i, tid, r * t);
        g.b.shl(sh, i, g.kb_shift());
        g.st_shared(Some(sh), 0, key);
    }
    g.b.bar_sync();

    g.stage("sort sample");
    g.shared_bitonic(tid, 0, slots, t);

    g.stage("tree");
    let (j, lo, idx) = (g.b.reg32(), g.b.reg32(), g.b.reg32());
    let lgk = cfg.depth();
    for r in 0..k.div_ceil(t) {
        g.b.add(j, tid, r * t + 1);
        // The level of j: the last l with j >= 2^l sets the index.
        for l in 0..lgk {
            g.b.setp_ge_u(p, j, 1u32 << l);
            g.b.sub(lo, j, 1u32 << l);
            g.b.shl(lo, lo, 1u32);
            g.b.add(lo, lo, 1u32);
            g.b.when(p).shl(idx, lo, lgk - l - 1);
        }
        g.b.mul(idx, idx, a);
        g.b.shl(idx, idx, g.kb_shift());
        // Threads past the last node load and store nothing.
        g.b.setp_lt_u(p, j, k);
        g.b.when(p);
        g.ld_shared(key, Some(idx), 0);
        g.b.mul(lo, blk, k);
        g.b.add(lo, lo, j);
        g.key_addr(addr, trees, lo);
        g.b.when(p);
        g.st_global(addr, 0, key);
    }

    g.stage("flag");
    let other = g.key_reg();
    let kb = g.kb();
    g.ld_shared(key, None, (a * kb) as i32);
    g.ld_shared(other, None, (a * (k - 1) * kb) as i32);
    g.b.setp_eq(p, key, other);
    g.b.selp(i, 1u32, 0u32, p);
    g.word_addr(addr, flags, blk);
    g.b.setp_eq(p, tid, 0u32);
    g.b.when(p).st_global_b32(addr, 0, i);
    g.finish()
}
