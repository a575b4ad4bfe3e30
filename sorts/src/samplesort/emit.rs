//! The code-generation context the sample sort kernels share: key-width
//! loads and stores, global addresses, the tree walk of `find_buckets`
//! and `scatter`, and the block-wide bitonic network in shared memory that
//! sorts the sample (`create_bst`) and every small bucket (`small_sort`).

use super::config::SamplesortConfig;
use super::network::Network;
use crate::KernelMarks;
use kernels_ir::{Kernel, KernelBuilder, Opcode, Operand, Reg, Special};

/// A kernel under construction.
pub struct Gen<'a> {
    /// The builder.
    pub b: KernelBuilder,
    /// The configuration.
    pub cfg: &'a SamplesortConfig,
    /// The key registers and stage starts recorded so far.
    pub marks: KernelMarks,
    /// A 64-bit scratch register for address arithmetic (allocated at
    /// first use), so an address may be computed into its own base.
    tmp64: Option<Reg>,
}

impl<'a> Gen<'a> {
    /// An empty kernel called `name`.
    pub fn new(name: &str, cfg: &'a SamplesortConfig) -> Gen<'a> {
        Gen {
            b: KernelBuilder::new(name),
            cfg,
            marks: KernelMarks::default(),
            tmp64: None,
        }
    }

    /// Bytes per key word.
    pub fn kb(&self) -> u32 {
        self.cfg.key_bytes()
    }

    /// log2 of [`Gen::kb`].
    pub fn kb_shift(&self) -> u32 {
        self.kb().trailing_zeros()
    }

    /// A fresh key register (32 or 64 bits, as the words).
    pub fn key_reg(&mut self) -> Reg {
        if self.cfg.key_bits == 64 {
            self.b.reg64()
        } else {
            self.b.reg32()
        }
    }

    /// Marks the start of a stage at the next instruction.
    pub fn stage(&mut self, name: impl Into<String>) {
        let pc = self.b.next_pc();
        self.marks.stages.push((pc, name.into()));
    }

    fn width(&self, b32: Opcode, b64: Opcode) -> Opcode {
        if self.cfg.key_bits == 64 { b64 } else { b32 }
    }

    /// A key load from global memory.
    pub fn ld_global(&mut self, dst: Reg, addr: Reg, offset: i32) {
        let op = self.width(Opcode::LdGlobalB32, Opcode::LdGlobalB64);
        self.b.load(op, dst, Some(addr), offset);
    }

    /// A key store to global memory.
    pub fn st_global(&mut self, addr: Reg, offset: i32, src: Reg) {
        let op = self.width(Opcode::StGlobalB32, Opcode::StGlobalB64);
        self.b.store(op, Some(addr), offset, src);
    }

    /// A key load from shared memory.
    pub fn ld_shared(&mut self, dst: Reg, addr: Option<Reg>, offset: i32) {
        let op = self.width(Opcode::LdSharedB32, Opcode::LdSharedB64);
        self.b.load(op, dst, addr, offset);
    }

    /// A key store to shared memory.
    pub fn st_shared(&mut self, addr: Option<Reg>, offset: i32, src: Reg) {
        let op = self.width(Opcode::StSharedB32, Opcode::StSharedB64);
        self.b.store(op, addr, offset, src);
    }

    /// `dst = base + idx * key_bytes` (a 64-bit global address; `base` a
    /// 64-bit register or parameter).
    pub fn key_addr(&mut self, dst: Reg, base: impl Into<Operand>, idx: Reg) {
        self.scaled_addr(dst, base, idx, self.kb_shift());
    }

    fn scaled_addr(&mut self, dst: Reg, base: impl Into<Operand>, idx: Reg, shift: u32) {
        let t = *self.tmp64.get_or_insert_with(|| self.b.reg64());
        self.b.cvt_u64_u32(t, idx);
        self.b.shl(t, t, shift);
        self.b.add(dst, t, base);
    }

    /// `dst = base + idx * 4` (a 64-bit global address of a 32-bit word).
    pub fn word_addr(&mut self, dst: Reg, base: impl Into<Operand>, idx: Reg) {
        self.scaled_addr(dst, base, idx, 2);
    }

    /// The largest key word (the sorting networks' padding).
    pub fn max_key(&self) -> i64 {
        -1
    }

    /// The branch-free walk of the splitter tree held in shared memory at
    /// byte 0 (node `j` at word `j`): `j = 1`, then `lg k` times
    /// `j = 2j + (bt[j] < x)`; leaves `bucket = j - k` (the number of
    /// splitters below `x`). A predicated increment, no branch: the lanes
    /// never diverge.
    pub fn tree_walk(&mut self, bucket: Reg, x: Reg, node: Reg, addr: Reg, p: Reg) {
        let k = self.cfg.buckets;
        self.b.mov(bucket, 1u32);
        for _ in 0..self.cfg.depth() {
            self.b.shl(addr, bucket, self.kb_shift());
            self.ld_shared(node, Some(addr), 0);
            self.b.setp_lt_u(p, node, x);
            self.b.shl(bucket, bucket, 1u32);
            self.b.when(p).add(bucket, bucket, 1u32);
        }
        self.b.sub(bucket, bucket, k);
    }

    /// The degenerate path's three-way split against the single splitter
    /// `s = bt[1]`: bucket 0 for `x < s`, 1 for `x = s` (final), 2 for
    /// `x > s`; predicated, no branch.
    pub fn three_way(&mut self, bucket: Reg, x: Reg, node: Reg, p: Reg) {
        let kb = self.kb() as i32;
        self.ld_shared(node, None, kb);
        self.b.mov(bucket, 0u32);
        self.b.setp_eq(p, node, x);
        self.b.when(p).mov(bucket, 1u32);
        self.b.setp_lt_u(p, node, x);
        self.b.when(p).mov(bucket, 2u32);
    }

    /// Sorts `slots` keys (a power of two) in shared memory at byte
    /// `base` with `threads` threads (`%tid.x` in `tid`; `threads <=
    /// slots / 2`): the bitonic network in its flip form, so every
    /// comparator is ascending. Stage `s` first compares each slot with
    /// its mirror in the block of `2^s` (`lo ^ (2^s - 1)`), then half
    /// cleaners at distance `2^(s-2) .. 1`; each thread takes pairs `tid +
    /// r * threads`; one barrier after every step. Fully unrolled (the
    /// sizes are known when generating). While the distance is at most
    /// `threads`, pair `tid + r * threads` lies `2 r threads` slots after
    /// pair `tid`, so the thread reaches the others by immediate offsets.
    ///
    /// The slot addresses are computed as ptxas computes them (the SASS of
    /// every `small_sort_P`, `hw/data/h200/sass/samplesort_64k_zipf/`): the
    /// lower slot of pair `tid` at each distance once, in a register of
    /// its own that every later step at that distance reuses, and every
    /// pair's addresses while the pair before it waits for its shared
    /// loads (between its loads and its compare-exchange), not after the
    /// barrier. The machine issues in program order, so an address chain
    /// placed after the barrier would wait on the network's critical path
    /// (four dependent integer operations a step) where the H200 waits
    /// only for the loads, the compare-exchange and the stores.
    pub fn shared_bitonic(&mut self, tid: Reg, base: u32, slots: u32, threads: u32) {
        debug_assert!(slots.is_power_of_two() && threads <= slots / 2);
        let pairs = slots / 2 / threads;
        let lg = slots.trailing_zeros();
        // Every comparator in program order: (stage, distance exponent,
        // pair), a barrier after each step's last pair.
        let order: Vec<(u32, u32, u32)> = (1..=lg)
            .flat_map(|s| {
                (0..s)
                    .rev()
                    .flat_map(move |d| (0..pairs).map(move |r| (s, d, r)))
            })
            .collect();
        let (ka, kc) = (self.key_reg(), self.key_reg());
        let mut net = Network::new(self, tid, base, slots, threads);
        let mut at = net.prepare(self, order[0]);
        for (n, &(_, _, r)) in order.iter().enumerate() {
            self.ld_shared(ka, Some(at.lo), at.lo_off);
            self.ld_shared(kc, Some(at.hi), at.hi_off);
            let following = order.get(n + 1).map(|&next| net.prepare(self, next));
            self.b.cmpx_u(ka, kc);
            self.st_shared(Some(at.lo), at.lo_off, ka);
            self.st_shared(Some(at.hi), at.hi_off, kc);
            if r + 1 == pairs {
                self.b.bar_sync();
            }
            if let Some(f) = following {
                at = f;
            }
        }
    }

    /// `@p atom.shared.add.u32 old, [addr], 1`: the counter's old value
    /// in `old` (lanes of one instruction apply in ascending lane order).
    pub fn atom_inc(&mut self, p: Reg, old: Reg, addr: Reg) {
        self.b.when(p).atom_shared_add_u32(old, Some(addr), 0, 1u32);
    }

    /// `tid = %tid.x`.
    pub fn tid(&mut self) -> Reg {
        let tid = self.b.reg32();
        self.b.mov(tid, Special::TidX);
        tid
    }

    /// The kernel with a final `exit`, and its marks.
    pub fn finish(mut self) -> (Kernel, KernelMarks) {
        self.b.exit();
        (self.b.build(), self.marks)
    }
}
