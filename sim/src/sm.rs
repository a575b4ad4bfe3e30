//! One SM: its warp slots, resident blocks, sub-partitions and pipes, and
//! the scheduling pass that runs every cycle something can happen.
//!
//! **Stall accounting.** Every resident warp is charged exactly one reason
//! per cycle, in bulk: when a warp issues at cycle `t`, it is `selected` for
//! its issue slots, and the wait until its next instruction's operands are
//! ready (known at once, as every latency is fixed at issue) is charged to
//! the reason of the latest dependency (`wait`, `short_scoreboard`,
//! `long_scoreboard`, `branch_resolving`). A ready warp whose pipe is busy is
//! charged the pipe's throttle reason until it frees; a ready warp that
//! could issue but was not picked is `not_selected`; a warp at `bar.sync` is
//! `barrier` until the release. So reasons sum to resident warp-cycles, and
//! idle stretches cost nothing to simulate.

use kernels_ir::Special;

use crate::config::GpuConfig;
use crate::decode::Program;
use crate::error::SimError;
use crate::launch::{Ctx, Launch};
use crate::scheduler::SubPartition;
use crate::stats::StallReason;
use crate::warp::{Entry, State, Warp};

/// A block resident on an SM.
#[derive(Clone, Debug, Default)]
pub(crate) struct BlockSlot {
    pub used: bool,
    /// Linear index in the grid.
    pub id: u64,
    pub ctaid: [u32; 3],
    pub smem: Vec<u8>,
    /// Warps that have not exited.
    pub live_warps: u32,
    /// Live warps waiting at `bar.sync`.
    pub arrived: u32,
    /// The block's warp slots, by warp index.
    pub warps: Vec<u16>,
}

/// One SM.
pub(crate) struct Sm {
    pub id: u32,
    pub warps: Vec<Warp>,
    /// Per warp slot, the hot scheduling state kept apart from the rest so
    /// a scheduling pass reads small contiguous arrays: the first cycle not
    /// yet charged to a stall reason, before which the warp cannot issue
    /// ([`crate::scheduler::NEVER`] unless the slot holds a running warp
    /// not at a barrier),
    /// sub-partition-major (see `per_sp`)...
    pub ready: Vec<u64>,
    /// ...its current pc...
    pub pcs: Vec<u32>,
    /// ...and the throttle class of the instruction there
    /// ([`crate::scheduler::throttle_class`]).
    pub pipes: Vec<u8>,
    /// ...and the same class as the top two bits of a `u64` (bit 62 its
    /// low bit, the sign bit its high bit), so `next_eligible`'s vector
    /// scan picks each warp's pipe with sign-bit selects (`vblendvpd`)
    /// instead of three compares and masks per class.
    pub sels: Vec<u64>,
    /// The warps' ages (launch order on this SM), laid out like `ready`.
    pub ages: Vec<u64>,
    /// Warp slots per sub-partition: `ready` and `ages` hold sub-partition
    /// `s`'s warps at `s * per_sp ..`, slot `pos * num_subpartitions + s` at
    /// `s * per_sp + pos`.
    pub per_sp: usize,
    /// Per warp slot, its index in the hot arrays and its sub-partition
    /// (worked out once: the scheduler's inner loop has no divisions).
    pub hot_of: Vec<(u32, u32)>,
    /// Per sub-partition, one past the highest position that has held a
    /// warp this launch: beyond it every `ready` is `NEVER`, so a
    /// scheduling pass need not look there.
    pub scan_len: Vec<usize>,
    /// Free warp slots, one bit each.
    free: Vec<u64>,
    /// Scratch: the eligible warps of one scheduling pass.
    pub eligible: Vec<u16>,
    pub blocks: Vec<BlockSlot>,
    pub sps: Vec<SubPartition>,
    /// Per sub-partition, the next cycle anything can happen there: apart
    /// from `sps` so that finding the SM's next event reads one line.
    pub next_at: Vec<u64>,
    /// The next cycle the SM's shared-memory pipe (shared accesses and
    /// shuffles) accepts an instruction.
    pub smem_free_at: u64,
    /// Per sub-partition, the next cycle it can start a warp's
    /// special-register read (`S2R`, [`crate::s2r`]): apart from
    /// `smem_free_at`, as blocks are placed at their start cycle, which may
    /// be ahead of the warps issuing.
    pub s2r_free_at: Vec<u64>,
    /// The next cycle the SM's LSU accepts a global request.
    pub lsu_free_at: u64,
    /// The next cycle the SM's L1 data stage can pass a returning load's
    /// wavefront ([`crate::lsu_pipe`]).
    pub data_free_at: u64,
    /// Per warp slot, its staging quads ([`crate::store_staging`]): apart
    /// from [`Warp`], whose fields are laid out for the issue's cache lines,
    /// as only a staged store reads them.
    pub quads: Vec<crate::store_staging::Quads>,
    /// What a request costs the SM's port to L2 ([`crate::l2_port`]).
    pub(crate) port: crate::l2_port::Port,
    /// When its stores have left it, as far as the L2 took them
    /// ([`crate::store_drain`]).
    pub(crate) drain: crate::store_drain::Drain,
    /// When the SM takes in the next sector from L2 ([`crate::l1_fill`]).
    pub(crate) fill: crate::l1_fill::Fill,
    /// The next cycle the SM's barrier unit can take a warp's arrival: one
    /// unit serves every block of the SM ([`Sm::release_barrier`]).
    pub bar_free_at: u64,
    /// Scratch for [`Sm::release_barrier`]: the arrival cycles of the
    /// block's warps, kept to spare an allocation per barrier.
    bar_arrivals: Vec<u64>,
    /// Cycles a warp instruction occupies a sub-partition's ALU and the
    /// shuffle unit ([`GpuConfig::occupancy_cycles`]): worked out once, as
    /// every issue needs one and a division is slow.
    pub alu_occupancy: u64,
    pub shfl_occupancy: u64,
    /// Cycles one warp's `S2R` occupies the SM's special-register read
    /// (`s2r_lanes_per_cycle`, [`crate::s2r`]).
    pub s2r_occupancy: u64,
    /// [`GpuConfig::line_sector_shift`], worked out once: every global
    /// load counts its lines ([`crate::line_return::lines`]).
    pub line_shift: u32,
    resident_warps: u32,
    active_since: u64,
    age_counter: u64,
    /// A block retired at this cycle and its slot waits for the block queue.
    pub retire_at: Option<u64>,
    /// When the SM's first and last blocks started this launch: block
    /// starts on one SM are `block_dispatch_cycles` apart, or less in a
    /// first wave ([`Self::start_block`]).
    starts: Option<(u64, u64)>,
    /// The global requests issued since the last quantum boundary, in
    /// issue order, waiting for their partition timing, and their sectors
    /// ([`crate::engine`]): the SM's own, so any host thread may run it.
    pub requests: Vec<crate::engine::Pending>,
    /// Sector numbers, with [`crate::store_combine::PARTIAL`] on those a
    /// store writes in part.
    pub request_sectors: Vec<u64>,
    /// Where the SM's partial-sector stores merge before L2.
    pub combine: crate::store_combine::StoreCombiner,
    /// The SM's instruction caches ([`crate::icache`]).
    pub icache: crate::icache::ICache,
    /// The SM's L1 data cache for global loads ([`crate::l1`]), the
    /// sequence number of its next load request, and the completion of its
    /// last [`LANDED`] landed loads (sequence number and cycle, at
    /// `sequence % LANDED`).
    pub l1: crate::l1::L1,
    pub load_seq: u64,
    pub landed: Vec<(u64, u64)>,
}

/// Landed loads an SM remembers the completion of: more than it can have
/// in flight (64 warps' loads of one quantum).
pub(crate) const LANDED: usize = 4096;

impl Sm {
    pub fn new(id: u32, cfg: &GpuConfig) -> Sm {
        let per_sp = cfg.max_warps_per_sm.div_ceil(cfg.num_subpartitions) as usize;
        Sm {
            id,
            warps: (0..cfg.max_warps_per_sm).map(|_| Warp::default()).collect(),
            ready: vec![crate::scheduler::NEVER; per_sp * cfg.num_subpartitions as usize],
            pcs: vec![0; per_sp * cfg.num_subpartitions as usize],
            pipes: vec![0; per_sp * cfg.num_subpartitions as usize],
            sels: vec![0; per_sp * cfg.num_subpartitions as usize],
            ages: vec![0; per_sp * cfg.num_subpartitions as usize],
            per_sp,
            hot_of: (0..cfg.max_warps_per_sm as usize)
                .map(|slot| {
                    let nsp = cfg.num_subpartitions as usize;
                    (
                        ((slot % nsp) * per_sp + slot / nsp) as u32,
                        (slot % nsp) as u32,
                    )
                })
                .collect(),
            scan_len: vec![0; cfg.num_subpartitions as usize],
            free: Vec::new(),
            eligible: Vec::new(),
            blocks: Vec::new(),
            sps: (0..cfg.num_subpartitions)
                .map(|_| SubPartition::new(cfg.mio_queue_depth, cfg.lsu_queue_depth))
                .collect(),
            next_at: vec![u64::MAX; cfg.num_subpartitions as usize],
            smem_free_at: 0,
            s2r_free_at: vec![0; cfg.num_subpartitions as usize],
            lsu_free_at: 0,
            data_free_at: 0,
            quads: vec![Default::default(); cfg.max_warps_per_sm as usize],
            port: crate::l2_port::Port::new(cfg),
            drain: crate::store_drain::Drain::new(cfg),
            fill: crate::l1_fill::Fill::new(cfg),
            bar_free_at: 0,
            bar_arrivals: Vec::new(),
            alu_occupancy: cfg.occupancy_cycles(cfg.alu_lanes_per_cycle),
            shfl_occupancy: cfg.occupancy_cycles(cfg.shfl_lanes_per_cycle),
            // The SM's rate, shared out: each sub-partition reads for its
            // own warps.
            s2r_occupancy: cfg.occupancy_cycles(cfg.s2r_lanes_per_cycle)
                * u64::from(cfg.num_subpartitions),
            line_shift: cfg.line_sector_shift(),
            resident_warps: 0,
            active_since: 0,
            age_counter: 0,
            retire_at: None,
            starts: None,
            requests: Vec::new(),
            request_sectors: Vec::new(),
            combine: crate::store_combine::StoreCombiner::new(
                cfg.store_combine_lines,
                cfg.store_combine_cycles,
                cfg.line_sector_shift(),
                cfg.sector_bytes,
            ),
            icache: crate::icache::ICache::default(),
            l1: crate::l1::L1::default(),
            load_seq: 0,
            landed: vec![(crate::l1::NO_LOAD, 0); LANDED],
        }
    }

    /// Prepares for the launch `l`: room for its resident blocks and their
    /// shared memory, its program, and its share of the L2's store rate.
    pub fn reset(&mut self, l: &Launch<'_>) {
        let (blocks, prog, cfg) = (l.blocks_per_sm, l.prog, l.cfg);
        let shared = u64::from(l.kernel.kernel().shared_bytes);
        let sass = *prog.sass_at.last().expect("one entry past the end");
        self.icache.reset(sass, cfg);
        self.blocks.clear();
        self.blocks.resize_with(blocks as usize, BlockSlot::default);
        self.warps.iter_mut().for_each(|w| {
            w.state = State::Free;
            // A new launch: its specials' rows may be other specials.
            w.specials_of = 0;
        });
        self.ready
            .iter_mut()
            .for_each(|r| *r = crate::scheduler::NEVER);
        let n = self.warps.len();
        self.free = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            *self.free.last_mut().expect("at least one warp slot") = (1 << (n % 64)) - 1;
        }
        self.sps.iter_mut().for_each(SubPartition::reset);
        self.next_at.iter_mut().for_each(|n| *n = u64::MAX);
        self.scan_len.iter_mut().for_each(|n| *n = 0);
        self.smem_free_at = 0;
        self.s2r_free_at.iter_mut().for_each(|f| *f = 0);
        self.lsu_free_at = 0;
        self.data_free_at = 0;
        self.port.reset(l.busy_sms());
        self.drain = crate::store_drain::Drain::new(cfg);
        self.fill.reset();
        self.bar_free_at = 0;
        self.resident_warps = 0;
        self.age_counter = 0;
        self.retire_at = None;
        self.starts = None;
        // A launch that failed may have left requests untimed.
        self.requests.clear();
        self.request_sectors.clear();
        self.combine.clear();
        self.l1 = crate::l1::L1::new(
            cfg.l1_data_bytes(blocks, shared),
            cfg.sector_bytes,
            cfg.line_sector_shift(),
        );
        self.load_seq = 0;
        self.landed.fill((crate::l1::NO_LOAD, 0));
    }

    /// When the load request `seq` of this SM completes: `Some` once it
    /// has landed (or long ago), `None` while it is still being timed.
    #[inline]
    pub fn load_done(&self, seq: u64) -> Option<u64> {
        let (s, t) = self.landed[seq as usize % LANDED];
        if s == seq {
            Some(t)
        } else if s != crate::l1::NO_LOAD && s > seq {
            // Overwritten by a later landed load: long done.
            Some(0)
        } else {
            None
        }
    }

    /// The next cycle anything can happen, if anything is resident.
    pub fn next_event(&self) -> Option<u64> {
        let t = self.next_at.iter().copied().min().unwrap_or(u64::MAX);
        (t != u64::MAX).then_some(t)
    }

    /// Whether a block slot is free for the next block of the grid.
    pub fn has_free_block_slot(&self) -> bool {
        self.blocks.iter().any(|b| !b.used)
    }

    /// Starts block `id` of the grid at cycle `t` in a free block slot
    /// ([`Self::has_free_block_slot`]); its warps start once the dispatcher
    /// reaches it (`block_dispatch_cycles` after the SM's previous block).
    ///
    /// The blocks an SM takes at the launch's start come faster, a
    /// block's warps over `first_wave_warps_per_cycle` after the one
    /// before, within `first_wave_window_cycles` of the SM's first block:
    /// on the H200 (`hw/burst.cu`) an SM's first blocks start 2-18 cycles
    /// apart for about 20 cycles, where later ones come 40-300 apart.
    /// Started 160 cycles apart, an SM's first blocks had their loads
    /// served one after another across the GPU (every SM's first block,
    /// then every SM's second), each then running alone: mergesort's
    /// `merge` and bitonic's `step` ran 5-20% fast.
    ///
    /// A block the SM holds at the launch's start (`t` 0: the engine's
    /// first dispatch) has its warps wait `warp_start_fetch_cycles` for
    /// their first instructions, in `no_instruction`. The H200's warps of
    /// a first wave spend about 140 cycles there (ncu; those of later
    /// waves almost none, their SM's caches being warm), time the model
    /// had only in the launch's fixed cost; [`crate::gpu`] takes it out
    /// of that cost, so the launch's cycles stay what they were and the
    /// stall reasons say what the hardware's do.
    pub fn start_block(&mut self, t: u64, id: u64, ctx: &mut Ctx<'_, '_>) {
        let b = self
            .blocks
            .iter()
            .position(|b| !b.used)
            .expect("a free block slot");
        let fetch = if t == 0 {
            u64::from(ctx.cfg.warp_start_fetch_cycles)
        } else {
            0
        };
        // The dispatcher's turns count from when the block's warps can
        // issue, so the whole launch runs `fetch` later than without it,
        // as it did when the fixed cost carried the wait.
        let (first, issue) = match self.starts {
            Some((first, last)) => (
                first,
                (t + fetch).max(last + dispatch_gap(t, first, last, ctx)),
            ),
            None => (t + fetch, t + fetch),
        };
        self.starts = Some((first, issue));
        let t = issue - fetch;
        let (gx, gy) = (u64::from(ctx.grid.x), u64::from(ctx.grid.y));
        let ctaid = [
            (id % gx) as u32,
            ((id / gx) % gy) as u32,
            (id / (gx * gy)) as u32,
        ];
        let nwarps = ctx.warps_per_block;
        let threads = ctx.block.count();
        let w = ctx.cfg.warp_size as usize;
        // The block's id first: a warp's start may trace a stall, which
        // names the block its slot holds.
        self.blocks[b].id = id;
        let mut slots = std::mem::take(&mut self.blocks[b].warps);
        slots.clear();
        // Every warp slot first, each asked for at once: a slot is cold (its
        // last warp left long ago) and starting a warp writes its first
        // three lines, so the misses overlap instead of each store waiting.
        for _ in 0..nwarps {
            let slot = self.take_free_slot();
            slots.push(slot as u16);
            let w: *const u8 = (&raw const self.warps[slot]).cast();
            for line in 0..3 {
                crate::aligned::prefetch(w.wrapping_add(64 * line));
            }
        }
        for (index, &slot) in (0..nwarps).zip(&slots) {
            let slot = usize::from(slot);
            let first = u64::from(index) * w as u64;
            let lanes = (threads - first).min(w as u64) as usize;
            self.age_counter += 1;
            let warp = &mut self.warps[slot];
            init_warp(warp, ctx, b as u16, index, lanes, ctaid);
            warp.age = self.age_counter;
            warp.start = t;
            self.quads[slot] = Default::default();
            let (h, sp) = self.hot_of[slot];
            let (h, sp) = (h as usize, sp as usize);
            self.scan_len[sp] = self.scan_len[sp].max(h - sp * self.per_sp + 1);
            self.ages[h] = self.age_counter;
            self.set_pc(slot as u16, ctx.prog.entry, ctx.prog);
            self.start_warp(slot as u16, t, fetch, ctx);
        }
        if self.resident_warps == 0 {
            self.active_since = t;
        }
        self.resident_warps += nwarps;
        let block = &mut self.blocks[b];
        block.used = true;
        block.id = id;
        block.ctaid = ctaid;
        block.smem.clear();
        block.smem.resize(ctx.prog_shared_bytes(), 0);
        block.live_warps = nwarps;
        block.arrived = 0;
        block.warps = slots;
        ctx.stats.blocks += 1;
        ctx.tracer.block_start(t, self.id, id);
    }

    /// Makes the `S2R`s of the warp just placed in `slot` at cycle `t`
    /// ([`crate::s2r`]): each takes the sub-partition's special-register
    /// read for `s2r_occupancy` cycles, in the order warps start, and each
    /// special's scoreboard entry holds when its value is there. The warp
    /// first waits `fetch` cycles for its first instructions
    /// ([`Self::start_block`]), charged to `no_instruction`.
    fn start_warp(&mut self, slot: u16, t: u64, fetch: u64, ctx: &mut Ctx<'_, '_>) {
        use crate::scoreboard::pack;
        if fetch > 0 {
            let pc = self.pcs[self.hot(slot)];
            ctx.charge(self.id, pc, StallReason::NoInstruction, t, fetch);
            if ctx.tracer.on() {
                ctx.tracer
                    .stall(t, self, slot, pc, StallReason::NoInstruction, fetch);
            }
        }
        let t = t + fetch;
        let reads = &ctx.prog.s2r;
        let latency = u64::from(ctx.cfg.s2r_latency_cycles);
        if reads.count == 0 || latency == 0 {
            self.set_ready(slot, t);
            return;
        }
        let sp = self.hot_of[slot as usize].1 as usize;
        let occ = self.s2r_occupancy;
        let start = t.max(self.s2r_free_at[sp]);
        self.s2r_free_at[sp] = start + u64::from(reads.count) * occ;
        let base = ctx.prog.special_sb();
        let sb = self.warps[slot as usize].rf.sb_mut();
        for (i, &upto) in reads.upto.iter().enumerate() {
            if upto > 0 {
                let ready = start + u64::from(upto) * occ - 1 + latency;
                sb[base + i] = pack(ready, StallReason::ShortScoreboard);
            }
        }
        self.wait_for_operands(slot, pack(t, StallReason::Selected), t, ctx);
    }

    /// Runs every sub-partition that can do something at cycle `t`
    /// (see [`Self::schedule`] for `GTO` and `LAZY`).
    #[inline(always)]
    pub fn step<const GTO: bool, const LAZY: bool>(
        &mut self,
        t: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), SimError> {
        for sp in 0..self.next_at.len() {
            if self.next_at[sp] <= t {
                self.schedule::<GTO, LAZY>(sp, t, ctx)?;
            }
        }
        Ok(())
    }

    /// Removes the warp in `slot`, which left the machine at `end` (the
    /// first cycle it is no longer resident), and retires its block if it
    /// was the last; a retired block makes room for the next one.
    pub fn finish_warp(&mut self, slot: u16, end: u64, ctx: &mut Ctx<'_, '_>) {
        let w = &mut self.warps[slot as usize];
        ctx.stats.warp_cycles += end - w.start;
        ctx.last_exit = ctx.last_exit.max(end);
        w.state = State::Free;
        let b = w.block as usize;
        self.set_ready(slot, u64::MAX);
        self.free[slot as usize / 64] |= 1 << (slot % 64);
        self.resident_warps -= 1;
        if self.resident_warps == 0 {
            ctx.stats.sm_cycles_active += end - self.active_since;
        }
        let block = &mut self.blocks[b];
        block.live_warps -= 1;
        if block.live_warps == 0 {
            block.used = false;
            ctx.tracer.block_end(end, self.id, block.id);
            if ctx.blocks_left {
                self.retire_at = Some(self.retire_at.map_or(end, |r| r.min(end)));
            }
        } else if block.arrived == block.live_warps {
            self.release_barrier(b, end.saturating_sub(1), ctx);
        }
    }

    /// Every live warp of block slot `b` has arrived at the barrier, the
    /// last at cycle `t`: the SM's barrier unit takes their arrivals in
    /// order, one every `bar_release_cycles_per_warp` cycles, and releases
    /// them all `bar_latency_cycles` after the last it took.
    pub fn release_barrier(&mut self, b: usize, t: u64, ctx: &mut Ctx<'_, '_>) {
        // One barrier unit per SM serves every block. Measured
        // (hw/calib/suite.txt, `bar_loop`): one block of 16 warps costs
        // 46.6 cycles an iteration and one of 32 warps 78.5 (two more per
        // warp), and four blocks of 16 on one SM 133.6, the 64 warps' two
        // cycles each: blocks do not pass it in parallel. The H200's
        // warps leave together: with 32 warps a block they wait to issue
        // (`not_selected`, 7,289 cycles a warp over the loop's 1,000
        // trips) where a release one warp every 2 cycles hardly lets them
        // meet at the scheduler (1,004), and bitonic's 64K-key `tail` and
        // sample sort's 64K-key `scan` wait after their barriers as the
        // H200's do only when their warps come out together
        // (docs/calibration.md, "A barrier's warps leave together").
        let stagger = u64::from(ctx.cfg.bar_release_cycles_per_warp);
        let mut arrivals = std::mem::take(&mut self.bar_arrivals);
        arrivals.clear();
        arrivals.extend(self.blocks[b].warps.iter().filter_map(|&slot| {
            let w = &self.warps[slot as usize];
            (w.state == State::Barrier).then_some(w.barrier_since)
        }));
        arrivals.sort_unstable();
        let mut unit = self.bar_free_at;
        for &a in &arrivals {
            unit = unit.max(a) + stagger;
        }
        self.bar_arrivals = arrivals;
        self.bar_free_at = unit;
        let release = (unit + u64::from(ctx.cfg.bar_latency_cycles)).max(t);
        ctx.stats.barriers += 1;
        self.blocks[b].arrived = 0;
        ctx.tracer.barrier_release(t, self.id, self.blocks[b].id);
        // A warp that finishes here may retire the block and start the
        // next one in the same slot: its warps are not at a barrier.
        for i in 0..self.blocks[b].warps.len() {
            let slot = self.blocks[b].warps[i];
            let w = &mut self.warps[slot as usize];
            if w.state != State::Barrier {
                continue;
            }
            w.state = State::Ready;
            let pc = w.pc();
            let at = release;
            let since = w.barrier_since;
            ctx.charge(self.id, pc, StallReason::Barrier, since, at - since);
            if ctx.tracer.on() {
                ctx.tracer
                    .stall(since, self, slot, pc, StallReason::Barrier, at - since);
            }
            let w = &mut self.warps[slot as usize];
            if !w.normalize(ctx.prog.end) {
                self.finish_warp(slot, at, ctx);
                continue;
            }
            let pc = w.pc();
            self.set_pc(slot, pc, ctx.prog);
            let mut floor = crate::scoreboard::pack(at, StallReason::Selected);
            if self.icache.on && pc > 0 {
                // The instruction after the barrier may start a line.
                let sp = self.hot_of[slot as usize].1 as usize;
                floor = floor.max(self.fetch_line(sp, ctx.prog, pc - 1, pc, at));
            }
            self.wait_for_operands(slot, floor, at, ctx);
        }
    }

    /// When a warp of sub-partition `sp` going on at `to` after `from`, at
    /// cycle `t`, has its instruction, as a packed floor charged to
    /// `no_instruction`: `to`'s line fetched ([`crate::icache`]) if it is
    /// not `from`'s, else 0.
    pub(crate) fn fetch_line(
        &mut self,
        sp: usize,
        prog: &Program,
        from: u32,
        to: u32,
        t: u64,
    ) -> u64 {
        let shift = self.icache.shift;
        let line = prog.sass_at[to as usize] >> shift;
        if line == prog.sass_at[from as usize] >> shift {
            return 0;
        }
        let ready = self.icache.fetch(sp, line, t);
        crate::scoreboard::pack(ready, StallReason::NoInstruction)
    }

    /// Sets the ready cycle of the warp in `slot` from `floor` (a packed
    /// cycle and reason: when control lets it go on) and its next
    /// instruction's operands, charging the cycles from `from` on to the
    /// reason of the latest.
    pub fn wait_for_operands(&mut self, slot: u16, floor: u64, from: u64, ctx: &mut Ctx<'_, '_>) {
        use crate::scoreboard::{cycle, latest, reason};
        let pc = self.pcs[self.hot(slot)];
        self.prefetch_operands(slot, pc, ctx.prog);
        let l = latest(
            self.warps[slot as usize].rf.sb(),
            ctx.prog.insts[pc as usize].deps(),
            floor,
        );
        let ready = cycle(l);
        if ready >= crate::engine::UNRESOLVED {
            // Waits for a load whose timing is not known yet (see `engine`).
            self.warps[slot as usize].blocked = Some((floor, from));
            self.set_ready(slot, u64::MAX);
            return;
        }
        if ready > from {
            ctx.charge(self.id, pc, reason(l), from, ready - from);
            if ctx.tracer.on() {
                ctx.tracer
                    .stall(from, self, slot, pc, reason(l), ready - from);
            }
        }
        self.set_ready(slot, ready.max(from));
    }

    /// Asks the host CPU to bring in the register rows the instruction at
    /// `pc` reads and writes in the warp in `slot` (its per-warp specials
    /// included), which issues it a few cycles on. A warp's registers are
    /// touched only a few times per quantum and the other SMs' runs push
    /// them out of the host's caches, so without this its issue waits for
    /// memory (in `perf annotate` most of `cmpx`'s time was its first
    /// register load).
    ///
    /// The scoreboard entries the instruction after it (most often the
    /// next one) depends on are asked for too: they are read once it has
    /// issued, to work out the warp's next wait.
    #[inline]
    fn prefetch_operands(&self, slot: u16, pc: u32, prog: &Program) {
        let rf = &self.warps[slot as usize].rf;
        let inst = &prog.insts[pc as usize];
        rf.prefetch_rows(inst.rows());
        if let Some(next) = prog.insts.get(inst.next as usize) {
            let sb = rf.sb();
            for &r in next.deps() {
                crate::aligned::prefetch((&raw const sb[r as usize]).cast());
            }
        }
    }

    /// At the start of a run, when the SM's state has been out of the
    /// host's caches since its last quantum: for every warp that may issue
    /// before `horizon`, the rows of its next instruction, its predicates
    /// and its scoreboard (reading the warp's state brings its slot in too).
    pub fn prefetch_due(&self, horizon: u64, prog: &Program) {
        // First the lines of every due warp's slot that an issue reads
        // (`Warp`'s layout), which needs no load: the rows' addresses
        // below are read from them, and asking for them all at once lets
        // their misses overlap instead of waiting for each in turn.
        // `NEVER`: no warp, or none that can issue.
        let horizon = horizon.min(crate::scheduler::NEVER);
        for (slot, &(h, _)) in self.hot_of.iter().enumerate() {
            if self.ready[h as usize] < horizon {
                let w: *const u8 = (&raw const self.warps[slot]).cast();
                crate::aligned::prefetch(w);
                crate::aligned::prefetch(w.wrapping_add(64));
            }
        }
        for (slot, &(h, _)) in self.hot_of.iter().enumerate() {
            let h = h as usize;
            if self.ready[h] < horizon {
                let rows = prog.insts[self.pcs[h] as usize].rows();
                self.warps[slot].rf.prefetch_all(rows);
            }
        }
    }

    /// Moves the warp in `slot` to `pc` in the scheduler's view.
    #[inline]
    pub fn set_pc(&mut self, slot: u16, pc: u32, prog: &Program) {
        let h = self.hot(slot);
        self.pcs[h] = pc;
        let class = prog.insts[pc as usize].class;
        self.pipes[h] = class;
        self.sels[h] = u64::from(class) << 62;
    }

    /// The lowest free warp slot (occupancy guarantees one).
    fn take_free_slot(&mut self) -> usize {
        let (i, word) = self
            .free
            .iter_mut()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .expect("occupancy");
        let bit = word.trailing_zeros() as usize;
        *word &= !(1 << bit);
        i * 64 + bit
    }

    /// The first cycle some resident warp has not been charged for yet
    /// (at most `t`): counter samples before it are complete.
    pub fn charged_until(&self, t: u64) -> u64 {
        let mut done = t;
        for (slot, w) in self.warps.iter().enumerate() {
            let c = match (w.state, w.blocked) {
                (State::Free, _) => continue,
                (State::Barrier, _) => w.barrier_since,
                (State::Ready, Some((_, from))) => from,
                (State::Ready, None) => self.ready[self.hot(slot as u16)],
            };
            done = done.min(c);
        }
        done
    }

    /// Up to `n` resident warps and their pcs, barrier waiters first.
    pub fn resident(&self, n: usize) -> Vec<(u64, u32, u32)> {
        let mut out: Vec<(u64, u32, u32)> = Vec::new();
        for state in [State::Barrier, State::Ready] {
            for w in self.warps.iter().filter(|w| w.state == state) {
                if out.len() < n {
                    let pc = w.current().map_or(0, |e| e.pc);
                    out.push((self.blocks[w.block as usize].id, w.index, pc));
                }
            }
        }
        out
    }
}

/// Resets a warp slot for warp `index` of a block with `lanes` live lanes.
fn init_warp(
    w: &mut Warp,
    ctx: &Ctx<'_, '_>,
    block: u16,
    index: u32,
    lanes: usize,
    ctaid: [u32; 3],
) {
    let prog = ctx.prog;
    let width = ctx.cfg.warp_size as usize;
    let live = crate::regfile::lane_mask(lanes);
    w.state = State::Ready;
    w.block = block;
    w.index = index;
    w.live = live;
    w.begin(Entry {
        pc: prog.entry,
        mask: live,
        rpc: prog.end,
    });
    let reshaped =
        w.rf.reset(prog.nslots, prog.npreds, prog.nsb, width, &prog.zero_slots);
    w.blocked = None;
    w.smem_issue_at = 0;
    w.lines = Default::default();
    // What the slot's special rows already hold (see `Warp::specials_of`).
    let (same_index, any_index) = if reshaped {
        (false, false)
    } else {
        (w.specials_of == index + 1, w.specials_of != 0)
    };
    w.specials_of = index + 1;
    let (bx, by) = (u64::from(ctx.block.x), u64::from(ctx.block.y));
    let first = u64::from(index) * width as u64;
    // Thread t = first + lane of the block is (t % bx, t / bx % by,
    // t / (bx * by)): divide once, then count up.
    let (x0, y0, z0) = (first % bx, (first / bx) % by, first / (bx * by));
    // The warp's lanes share one row of the block: `%tid.x` counts up
    // from `x0`, `%tid.y` and `%tid.z` are the same in every lane.
    let one_row = x0 + width as u64 <= bx;
    for s in &prog.specials {
        let uniform = |v: u64| v as u32;
        match s.special {
            Special::LaneId if !any_index => {
                w.rf.r32_mut(s.slot)
                    .iter_mut()
                    .enumerate()
                    .for_each(|(lane, v)| *v = uniform(lane as u64))
            }
            Special::LaneId => {}
            Special::CtaidX => w.rf.r32_mut(s.slot).fill(uniform(ctaid[0].into())),
            Special::CtaidY => w.rf.r32_mut(s.slot).fill(uniform(ctaid[1].into())),
            Special::CtaidZ => w.rf.r32_mut(s.slot).fill(uniform(ctaid[2].into())),
            Special::WarpId | Special::TidX | Special::TidY | Special::TidZ if same_index => {}
            Special::WarpId => w.rf.r32_mut(s.slot).fill(uniform(index.into())),
            Special::TidX if one_row => {
                w.rf.r32_mut(s.slot)
                    .iter_mut()
                    .enumerate()
                    .for_each(|(lane, v)| *v = uniform(x0 + lane as u64))
            }
            Special::TidY if one_row => w.rf.r32_mut(s.slot).fill(uniform(y0)),
            Special::TidZ if one_row => w.rf.r32_mut(s.slot).fill(uniform(z0)),
            Special::TidX | Special::TidY | Special::TidZ => {
                let (mut x, mut y, mut z) = (x0, y0, z0);
                for v in w.rf.r32_mut(s.slot).iter_mut() {
                    *v = uniform(match s.special {
                        Special::TidX => x,
                        Special::TidY => y,
                        _ => z,
                    });
                    x += 1;
                    if x == bx {
                        x = 0;
                        y += 1;
                        if y == by {
                            y = 0;
                            z += 1;
                        }
                    }
                }
            }
            other => unreachable!("{other:?} is decoded as a constant"),
        }
    }
    let runs = w.normalize(prog.end);
    debug_assert!(
        runs,
        "a program has at least one instruction and a warp one lane"
    );
}

/// Cycles between an SM's last block start (`last`; its first this launch
/// at `first`) and that of a block of `ctx.warps_per_block` warps
/// dispatched at `t` ([`Sm::start_block`]).
fn dispatch_gap(t: u64, first: u64, last: u64, ctx: &Ctx<'_, '_>) -> u64 {
    let cfg = ctx.cfg;
    if t == 0 && cfg.first_wave_warps_per_cycle > 0 {
        let gap = u64::from(ctx.warps_per_block.div_ceil(cfg.first_wave_warps_per_cycle));
        if last + gap - first <= u64::from(cfg.first_wave_window_cycles) {
            return gap;
        }
    }
    u64::from(cfg.block_dispatch_cycles)
}
