//! The code-generation context every HotSort kernel generator shares: the
//! builder, the configuration, and the small pieces of code all of them
//! emit (global slab addresses, compare-exchange networks, the shuffle flip
//! and half steps).

use crate::KernelMarks;
use crate::hotsort::config::{HotSortConfig, MergeExchange};
use crate::hotsort::layout::SmemLayout;
use crate::hotsort::networks::{self, Comparator};
use std::collections::HashMap;

use kernels_ir::{Kernel, KernelBuilder, Opcode, Param, ParamType, Reg, Special};

/// One step of a merge across the lanes of a warp.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LaneStage {
    /// Lane `l` against lane `l ^ (f-1)`, register `r` against `H-1-r`:
    /// merges two sorted runs of `f/2` lanes.
    Flip(u32),
    /// Lane `l` against lane `l ^ m`, register `r` against `r`.
    Half(u32),
}

impl LaneStage {
    /// The lane XOR mask.
    pub fn mask(self) -> u32 {
        match self {
            LaneStage::Flip(f) => f - 1,
            LaneStage::Half(m) => m,
        }
    }

    /// The lane bit that tells the lower lane (bit clear, keeps the minimum)
    /// from the upper one.
    pub fn pivot(self) -> u32 {
        match self {
            LaneStage::Flip(f) => f / 2,
            LaneStage::Half(m) => m,
        }
    }
}

/// A lane stage's name in the trace marks: `flip f=8`, `half m=2`.
pub fn stage_name(stage: LaneStage) -> String {
    match stage {
        LaneStage::Flip(f) => format!("flip f={f}"),
        LaneStage::Half(m) => format!("half m={m}"),
    }
}

/// The stages of the warp merge at level `f` (runs of `f/2` lanes become
/// runs of `f`): the flip, then half steps `f/4 .. 1`.
pub fn flip_stages(f: u32) -> Vec<LaneStage> {
    let mut stages = vec![LaneStage::Flip(f)];
    let mut m = f / 4;
    while m >= 1 {
        stages.push(LaneStage::Half(m));
        m /= 2;
    }
    stages
}

/// The half steps that clean a bitonic slab: masks `W/2 .. 1`.
pub fn clean_stages(warp: u32) -> Vec<LaneStage> {
    let mut stages = Vec::new();
    let mut m = warp / 2;
    while m >= 1 {
        stages.push(LaneStage::Half(m));
        m /= 2;
    }
    stages
}

/// Shuffles issued before their results are consumed.
pub const SHUFFLE_BATCH: usize = 8;

/// A kernel under construction.
pub struct Gen<'a> {
    /// The builder.
    pub b: KernelBuilder,
    /// The configuration.
    pub cfg: &'a HotSortConfig,
    /// The shared-memory layout.
    pub smem: SmemLayout,
    /// `%laneid`.
    pub lane: Reg,
    /// The keys buffer parameter.
    pub keys: Param,
    /// The values buffer parameter (the second), with values.
    pub vals: Option<Param>,
    /// With values: the value register beside each key-class register
    /// that holds a key (slab keys and key pools), so every helper that
    /// moves a key moves its value too.
    value_of: HashMap<Reg, Reg>,
    /// With values: the value address beside each global key address
    /// (from [`Gen::key_addr`] and [`Gen::step_addr`]).
    value_addr_of: HashMap<Reg, Reg>,
    /// With values: the byte offset of the shared value array from the
    /// keys (see [`Gen::declare_shared`]).
    value_offset: i32,
    /// With values: the predicate of a compare-exchange's swap.
    swap: Option<Reg>,
    /// A predicate for lane-lower tests and guards (reused; the IR allows 7).
    pub p: Reg,
    /// A second predicate.
    pub q: Reg,
    /// Named pools of reusable 32-bit registers (the IR allows 255 words
    /// per thread, so helpers reuse their temporaries instead of allocating
    /// fresh ones at every call).
    pools: Vec<(&'static str, Vec<Reg>)>,
    /// Named pools of reusable 64-bit key registers (64-bit keys only).
    key_pools: Vec<(&'static str, Vec<Reg>)>,
    /// 64-bit temporaries that hold no key (see [`Gen::wide_temp`]).
    wide_temps: Vec<Reg>,
    /// Row-major shared accessors by (region, lane value), see [`Gen::rows`].
    pub(super) row_bases: Vec<(Reg, Reg, super::smem::RowBase)>,
    /// The key registers and stage starts recorded so far.
    pub marks: KernelMarks,
    /// The temporaries [`Gen::shuffle_stage`] shuffles 32-bit keys without
    /// values into: the ones [`super::hoist::hoist_shuffles`] may rename.
    pub shuffle_temps: Vec<Reg>,
    /// Shuffles [`Gen::shuffle_stage`] issues before it uses their results
    /// ([`SHUFFLE_BATCH`] unless the kernel sets fewer, as `bc` does).
    pub shuffle_batch: usize,
}

impl<'a> Gen<'a> {
    /// A kernel called `name` with the keys buffer as its first parameter.
    pub fn new(name: &str, cfg: &'a HotSortConfig) -> Gen<'a> {
        let mut b = KernelBuilder::new(name);
        let keys = b.param("keys", ParamType::U64);
        let vals = cfg.values.then(|| b.param("vals", ParamType::U64));
        let lane = b.reg32();
        let (p, q) = (b.pred(), b.pred());
        let swap = cfg.values.then(|| b.pred());
        b.mov(lane, Special::LaneId);
        Gen {
            b,
            cfg,
            smem: SmemLayout::new(cfg),
            lane,
            keys,
            vals,
            value_of: HashMap::new(),
            value_addr_of: HashMap::new(),
            value_offset: 0,
            swap,
            p,
            q,
            pools: Vec::new(),
            key_pools: Vec::new(),
            wide_temps: Vec::new(),
            row_bases: Vec::new(),
            marks: KernelMarks::default(),
            shuffle_temps: Vec::new(),
            shuffle_batch: SHUFFLE_BATCH,
        }
    }

    /// The first `n` registers of pool `name`. Each helper owns its pool
    /// names, so registers of one pool are never live across a call that
    /// uses the same pool.
    pub fn pool(&mut self, name: &'static str, n: usize) -> Vec<Reg> {
        let at = match self.pools.iter().position(|(p, _)| *p == name) {
            Some(at) => at,
            None => {
                self.pools.push((name, Vec::new()));
                self.pools.len() - 1
            }
        };
        while self.pools[at].1.len() < n {
            let r = self.b.reg32();
            self.pools[at].1.push(r);
        }
        self.pools[at].1[..n].to_vec()
    }

    /// The first `n` key-class registers of pool `name` (32 or 64 bits, as
    /// the configuration's keys): pools that hold keys.
    pub fn key_pool(&mut self, name: &'static str, n: usize) -> Vec<Reg> {
        if self.cfg.key_bits == 32 {
            return self.pool(name, n);
        }
        let at = match self.key_pools.iter().position(|(p, _)| *p == name) {
            Some(at) => at,
            None => {
                self.key_pools.push((name, Vec::new()));
                self.key_pools.len() - 1
            }
        };
        while self.key_pools[at].1.len() < n {
            let r = self.b.reg64();
            self.add_value(r);
            self.key_pools[at].1.push(r);
        }
        self.key_pools[at].1[..n].to_vec()
    }

    /// A 64-bit temporary that holds no key (no value beside it), reused.
    fn wide_temp(&mut self) -> Reg {
        if let Some(&r) = self.wide_temps.first() {
            return r;
        }
        let r = self.b.reg64();
        self.wide_temps.push(r);
        r
    }

    /// `n` fresh key-class registers.
    pub fn key_regs(&mut self, n: usize) -> Vec<Reg> {
        if self.cfg.key_bits == 32 {
            self.b.regs32(n)
        } else {
            (0..n)
                .map(|_| {
                    let r = self.b.reg64();
                    self.add_value(r);
                    r
                })
                .collect()
        }
    }

    /// With values, gives key register `key` its value register.
    fn add_value(&mut self, key: Reg) {
        if self.cfg.values {
            let v = self.b.reg32();
            self.value_of.insert(key, v);
        }
    }

    /// The value register beside key register `key` (with values).
    pub fn value(&self, key: Reg) -> Option<Reg> {
        self.value_of.get(&key).copied()
    }

    /// The values of `keys` (empty without values): what the trace marks
    /// as the values' registers.
    pub fn values_of(&self, keys: &[Reg]) -> Vec<Reg> {
        keys.iter().filter_map(|&k| self.value(k)).collect()
    }

    /// The value address beside global key address `addr`.
    fn value_addr(&self, addr: Reg) -> Reg {
        *self
            .value_addr_of
            .get(&addr)
            .expect("a key address with values has a value address")
    }

    /// A 64-bit register holding `from + step` (`from - step` when `down`)
    /// for a global key address `from` and a byte step between keys; with
    /// values, its value address moves by half the step (4-byte values
    /// beside 8-byte keys).
    pub fn step_addr(&mut self, from: Reg, step: Reg, value_step: Option<Reg>, down: bool) -> Reg {
        let a = self.b.reg64();
        if down {
            self.b.sub(a, from, step);
        } else {
            self.b.add(a, from, step);
        }
        if let Some(vs) = value_step {
            let (vf, va) = (self.value_addr(from), self.b.reg64());
            if down {
                self.b.sub(va, vf, vs);
            } else {
                self.b.add(va, vf, vs);
            }
            self.value_addr_of.insert(a, va);
        }
        a
    }

    /// Declares the kernel's shared memory for `slabs` slab regions: the
    /// keys and, with values, the value array after them.
    pub fn declare_shared(&mut self, slabs: u32) {
        self.b
            .shared(self.smem.block_bytes(slabs) as u32, self.kb());
        self.value_offset = self.smem.keys_bytes(slabs) as i32;
    }

    /// Bytes per key.
    pub fn kb(&self) -> u32 {
        self.cfg.key_bytes()
    }

    /// log2 of the bytes per key (the shift from a key index to bytes).
    pub fn kb_log2(&self) -> u32 {
        self.kb().trailing_zeros()
    }

    /// Loads one key from global memory.
    pub fn ld_global_key(&mut self, dst: Reg, base: Reg, offset: i32) {
        let op = if self.kb() == 8 {
            Opcode::LdGlobalB64
        } else {
            Opcode::LdGlobalB32
        };
        let guard = self.b.pending_guard();
        self.b.load(op, dst, Some(base), offset);
        if let Some(v) = self.value(dst) {
            let va = self.value_addr(base);
            self.b.guarded(guard).ld_global_b32(v, va, offset / 2);
        }
    }

    /// Stores one key (and with values its value) to global memory. A key
    /// register without a value (the fill's sentinel) stores the key alone.
    pub fn st_global_key(&mut self, base: Reg, offset: i32, src: Reg) {
        let op = if self.kb() == 8 {
            Opcode::StGlobalB64
        } else {
            Opcode::StGlobalB32
        };
        let guard = self.b.pending_guard();
        self.b.store(op, Some(base), offset, src);
        if let Some(v) = self.value(src) {
            let va = self.value_addr(base);
            self.b.guarded(guard).st_global_b32(va, offset / 2, v);
        }
    }

    /// Loads one key (and with values its value, from the value array's
    /// slot at the same position) from shared memory.
    pub fn ld_shared_key(&mut self, dst: Reg, base: Option<Reg>, offset: i32) {
        let op = if self.kb() == 8 {
            Opcode::LdSharedB64
        } else {
            Opcode::LdSharedB32
        };
        let guard = self.b.pending_guard();
        self.b.load(op, dst, base, offset);
        if let Some(v) = self.value(dst) {
            let off = offset + self.value_offset;
            self.b.guarded(guard).ld_shared_b32(v, base, off);
        }
    }

    /// Stores one key (and with values its value) to shared memory.
    pub fn st_shared_key(&mut self, base: Option<Reg>, offset: i32, src: Reg) {
        let op = if self.kb() == 8 {
            Opcode::StSharedB64
        } else {
            Opcode::StSharedB32
        };
        let guard = self.b.pending_guard();
        self.b.store(op, base, offset, src);
        if let Some(v) = self.value(src) {
            let off = offset + self.value_offset;
            self.b.guarded(guard).st_shared_b32(base, off, v);
        }
    }

    /// `n` short-lived scratch registers: valid only until the next helper
    /// call.
    pub fn scratch(&mut self, n: usize) -> Vec<Reg> {
        self.pool("scratch", n)
    }

    /// The finished kernel.
    pub fn finish(self) -> Kernel {
        self.finish_marked().0
    }

    /// The finished kernel with its marks.
    pub fn finish_marked(mut self) -> (Kernel, KernelMarks) {
        self.b.exit();
        (self.b.build(), self.marks)
    }

    /// Marks the next instruction as the start of stage `label` (a stage
    /// that emitted nothing is replaced by the next one).
    pub fn stage(&mut self, label: impl Into<String>) {
        let pc = self.b.next_pc();
        if self.marks.stages.last().is_some_and(|(at, _)| *at == pc) {
            self.marks.stages.pop();
        }
        self.marks.stages.push((pc, label.into()));
    }

    /// Warp width `W`.
    pub fn w(&self) -> u32 {
        self.cfg.warp
    }

    /// Slab height `H`.
    pub fn h(&self) -> u32 {
        self.cfg.slab_height
    }

    /// A 64-bit register holding `keys + key_bytes * index` for a 32-bit
    /// key index (with values, beside `vals + 4 * index`).
    pub fn key_addr(&mut self, index: Reg) -> Reg {
        self.key_addr_with(index, true)
    }

    /// [`Gen::key_addr`] without a value address: for stores of keys alone
    /// (the fill's sentinels).
    pub fn key_addr_only(&mut self, index: Reg) -> Reg {
        self.key_addr_with(index, false)
    }

    fn key_addr_with(&mut self, index: Reg, with_value: bool) -> Reg {
        let d = self.b.reg64();
        self.b.cvt_u64_u32(d, index);
        if let Some(vals) = self.vals.filter(|_| with_value) {
            let v = self.b.reg64();
            self.b.shl(v, d, 2u32);
            self.b.add(v, v, vals);
            self.value_addr_of.insert(d, v);
        }
        self.b.shl(d, d, self.kb_log2());
        self.b.add(d, d, self.keys);
        d
    }

    /// Loads row `r` of the slab at `addr` (= slab base + lane) into `dst`:
    /// one coalesced warp-wide load.
    pub fn load_row(&mut self, dst: Reg, addr: Reg, r: u32) {
        let off = (r * self.w() * self.kb()) as i32;
        self.ld_global_key(dst, addr, off);
    }

    /// Stores `src` to row `r` of the slab at `addr`.
    pub fn store_row(&mut self, addr: Reg, r: u32, src: Reg) {
        let off = (r * self.w() * self.kb()) as i32;
        self.st_global_key(addr, off, src);
    }

    /// Emits one compare-exchange per comparator over `regs`.
    pub fn network(&mut self, regs: &[Reg], net: &[Comparator]) {
        for &(a, b) in net {
            self.cmpx(regs[a], regs[b]);
        }
    }

    /// `a, b = min, max` of two keys; with values, the values follow their
    /// keys (compared on the key alone: equal keys keep their values): the
    /// swap predicate, then three predicated `xor`s swap the values.
    pub fn cmpx(&mut self, a: Reg, b: Reg) {
        match (self.swap, self.value(a), self.value(b)) {
            (Some(swap), Some(va), Some(vb)) => {
                self.b.setp_gt_u(swap, a, b);
                self.b.cmpx_u(a, b);
                self.b.when(swap).xor(va, va, vb);
                self.b.when(swap).xor(vb, vb, va);
                self.b.when(swap).xor(va, va, vb);
            }
            _ => {
                self.b.cmpx_u(a, b);
            }
        }
    }

    /// Sorts each lane's registers with the best known network.
    pub fn sort_lanes(&mut self, keys: &[Reg]) {
        self.stage("lane sort");
        self.network(keys, &networks::sorting_network(keys.len()));
    }

    /// Sorts each lane's bitonic column of registers.
    pub fn merge_lanes(&mut self, keys: &[Reg]) {
        self.stage("lane merge");
        self.network(keys, &networks::bitonic_sorter(keys.len()));
    }

    /// Sets `self.p` to "this lane is the lower one of `stage`".
    pub fn set_lower(&mut self, pivot: u32) {
        let t = self.scratch(1)[0];
        self.b.and(t, self.lane, pivot);
        self.b.setp_eq(self.p, t, 0u32);
    }

    /// `key = lower ? min(key, other) : max(key, other)`, with `self.p`
    /// holding "lower"; `other` is clobbered.
    fn keep(&mut self, key: Reg, other: Reg) {
        let p = self.p;
        match (self.swap, self.value(key), self.value(other)) {
            (Some(take), Some(v), Some(ov)) => {
                // The lower lane takes a smaller partner, the upper a larger
                // one; on equal keys both keep their own pair.
                self.b.when(p).setp_lt_u(take, other, key);
                self.b.unless(p).setp_gt_u(take, other, key);
                self.b.when(take).mov(key, other);
                self.b.when(take).mov(v, ov);
            }
            _ => {
                self.b.cmpx_u(key, other);
                self.b.unless(p).mov(key, other);
            }
        }
    }

    /// One lane stage through `shfl.xor`. Shuffles are issued in batches of
    /// `shuffle_batch` ([`SHUFFLE_BATCH`], fewer in `bc` at some slab
    /// heights) before their results are used, so several are in flight at
    /// once; `bs` then moves each up among the compare-exchanges before it
    /// ([`super::hoist`]).
    pub fn shuffle_stage(&mut self, keys: &[Reg], stage: LaneStage) {
        let h = keys.len();
        self.set_lower(stage.pivot());
        // (register that receives, register whose partner value it needs)
        let pairs: Vec<(usize, usize)> = match stage {
            LaneStage::Flip(_) => (0..h).map(|r| (r, h - 1 - r)).collect(),
            LaneStage::Half(_) => (0..h).map(|r| (r, r)).collect(),
        };
        let mask = stage.mask();
        // An even batch keeps a flip's pair (consecutive in `order`) together.
        let chunk = if h == 1 {
            1
        } else {
            self.shuffle_batch.min(h) & !1
        };
        let tmp = self.key_pool("scratch", chunk);
        if self.kb() == 4 && !self.cfg.values {
            for &t in &tmp {
                if !self.shuffle_temps.contains(&t) {
                    self.shuffle_temps.push(t);
                }
            }
        }
        // A flip pairs r with H-1-r: both shuffles must read the old values,
        // so a batch never splits a pair's reads from its writes.
        let mut done = vec![false; h];
        let mut order: Vec<usize> = Vec::new();
        for &(r, s) in &pairs {
            if !done[r] {
                done[r] = true;
                order.push(r);
                if !done[s] {
                    done[s] = true;
                    order.push(s);
                }
            }
        }
        for batch in order.chunks(chunk) {
            let batch: Vec<usize> = batch.to_vec();
            for (i, &r) in batch.iter().enumerate() {
                self.shfl_xor_key(tmp[i], keys[pairs[r].1], mask);
            }
            for (i, &r) in batch.iter().enumerate() {
                self.keep(keys[r], tmp[i]);
            }
        }
    }

    /// `dst = src` of lane `lane ^ mask`: one shuffle for a 32-bit key, two
    /// (the halves) for a 64-bit one, and one more for its value.
    pub fn shfl_xor_key(&mut self, dst: Reg, src: Reg, mask: u32) {
        let w = self.w();
        if let (Some(vd), Some(vs)) = (self.value(dst), self.value(src)) {
            self.b.shfl_xor(vd, vs, mask, w);
        }
        if self.kb() == 4 {
            self.b.shfl_xor(dst, src, mask, w);
            return;
        }
        let t = self.pool("shfl_halves", 2);
        let (lo, hi) = (t[0], t[1]);
        self.b.cvt_u32_u64(lo, src);
        self.b.shr(dst, src, 32u32);
        self.b.cvt_u32_u64(hi, dst);
        self.b.shfl_xor(lo, lo, mask, w);
        self.b.shfl_xor(hi, hi, mask, w);
        self.b.cvt_u64_u32(dst, hi);
        self.b.shl(dst, dst, 32u32);
        let d = self.wide_temp();
        self.b.cvt_u64_u32(d, lo);
        self.b.or(dst, dst, d);
    }

    /// Runs `stages` across the lanes (through shuffles or shared memory, as
    /// configured; `region` is the warp's own shared region, bytes) and then
    /// sorts each lane's bitonic column.
    pub fn lane_merge(&mut self, keys: &[Reg], stages: &[LaneStage], region: Option<Reg>) {
        match (self.cfg.merge, region) {
            (MergeExchange::Shared, Some(region)) => {
                if let Some(&first) = stages.first() {
                    self.stage(format!("smem {}", stage_name(first)));
                }
                super::lanes::shared_stages(self, keys, stages, region);
            }
            _ => {
                for &stage in stages {
                    self.stage(stage_name(stage));
                    self.shuffle_stage(keys, stage);
                }
            }
        }
        self.merge_lanes(keys);
    }

    /// Sorts the slab held in `keys`: per-lane network, then the warp flip
    /// merges `f = 2, 4, ..., W`.
    pub fn sort_slab(&mut self, keys: &[Reg], region: Option<Reg>) {
        self.sort_lanes(keys);
        let mut f = 2;
        while f <= self.w() {
            self.lane_merge(keys, &flip_stages(f), region);
            f *= 2;
        }
    }

    /// Cleans the bitonic slab held in `keys` into a sorted slab.
    pub fn clean_slab(&mut self, keys: &[Reg], region: Option<Reg>) {
        let stages = clean_stages(self.w());
        self.lane_merge(keys, &stages, region);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_lists() {
        assert_eq!(
            flip_stages(8),
            vec![LaneStage::Flip(8), LaneStage::Half(2), LaneStage::Half(1)]
        );
        assert_eq!(flip_stages(2), vec![LaneStage::Flip(2)]);
        assert_eq!(
            clean_stages(4),
            vec![LaneStage::Half(2), LaneStage::Half(1)]
        );
        assert_eq!(LaneStage::Flip(8).mask(), 7);
        assert_eq!(LaneStage::Flip(8).pivot(), 4);
    }
}
