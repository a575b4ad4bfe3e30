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
    let max = g.max_key();
    // Every round's load first, each into a register of its own, then the
    // stores at immediate offsets from one shared address: the SASS of
    // every class (`hw/data/h200/sass/samplesort_64k_zipf/`) issues all of a
    // thread's global loads (32 at P = 8192) before its first shared
    // store, so the block waits for memory once, not once a round (as
    // `create_bst`'s draws and `scan`'s tile do).
    let rounds = slots / t;
    let keys: Vec<Reg> = (0..rounds).map(|_| g.key_reg()).collect();
    g.marks.key_regs.extend(keys.iter().copied());
    for (r, &key) in (0..rounds).zip(&keys) {
        g.b.add(i, tid, r * t);
        g.b.setp_lt_u(p, i, len);
        g.key_addr(addr, src, i);
        g.b.mov(key, max);
        g.b.when(p);
        g.ld_global(key, addr, 0);
    }
    g.b.shl(sh, tid, g.kb_shift());
    let stride = (t << g.kb_shift()) as i32;
    for (r, &key) in (0..rounds).zip(&keys) {
        g.st_shared(Some(sh), r as i32 * stride, key);
    }
    g.b.bar_sync();
    g.stage("small sort");
    g.shared_bitonic(tid, 0, slots, t);
    g.stage("store bucket");
    // The shared loads first, then the stores, as the SASS has them.
    for (r, &key) in (0..rounds).zip(&keys) {
        g.ld_shared(key, Some(sh), r as i32 * stride);
    }
    for (r, &key) in (0..rounds).zip(&keys) {
        g.b.add(i, tid, r * t);
        g.b.setp_lt_u(p, i, len);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samplesort::waits;
    use kernels_ir::Opcode;
    use kernels_ir::opcode::{Format, Space};

    fn space(op: Opcode) -> Option<Space> {
        op.memory().map(|(s, _)| s)
    }

    /// How many times the warp waits for global loads before the load
    /// stage's barrier.
    fn global_waits_before_first_barrier(k: &Kernel) -> usize {
        let end = k
            .insts
            .iter()
            .position(|inst| inst.data.opcode() == Opcode::BarSync)
            .unwrap_or(k.insts.len());
        waits::load_waits(&k.insts[..end], Space::Global)
    }

    #[test]
    fn a_bucket_waits_once_for_its_keys() {
        // The bucket's list entry, then all its keys at once, as ptxas
        // issues them (every LDG before the first STS in the SASS of every
        // class). Loading and storing round by round waited once a round.
        for (key_bits, slots) in [(32, 128), (32, 1024), (32, 8192), (64, 4096)] {
            let cfg = SamplesortConfig::new(32, key_bits);
            let (k, _) = small_sort(&cfg, slots);
            assert_eq!(
                global_waits_before_first_barrier(&k),
                2,
                "{key_bits}-bit, P = {slots}"
            );
        }
    }

    #[test]
    fn a_step_starts_with_its_loads() {
        // After every barrier of the network and the write-back, the next
        // instruction is the step's first shared load: its address was
        // computed while the step before waited for its loads, as in the
        // SASS, not on the critical path after the barrier.
        for (key_bits, slots) in [(32, 64), (32, 512), (32, 4096), (64, 2048)] {
            let cfg = SamplesortConfig::new(32, key_bits);
            let (k, _) = small_sort(&cfg, slots);
            let bars: Vec<usize> = (0..k.insts.len())
                .filter(|&i| k.insts[i].data.opcode() == Opcode::BarSync)
                .collect();
            let lg = slots.trailing_zeros() as usize;
            assert_eq!(bars.len(), 1 + lg * (lg + 1) / 2);
            // The first barrier ends the load; the network's first address
            // follows it.
            for &b in &bars[1..] {
                let next = k.insts[b + 1].data.opcode();
                assert!(
                    next.format() == Format::Load && space(next) == Some(Space::Shared),
                    "{key_bits}-bit, P = {slots}: {next:?} after the barrier at {b}"
                );
            }
        }
    }
}
