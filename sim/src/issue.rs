//! Issuing one warp instruction: its functional effect (at issue, so a
//! register's new value exists at once and the scoreboard alone decides
//! when it may be read), its pipe and memory timing, its counters, and the
//! warp's control flow.

use kernels_ir::Space;

use crate::coalescer;
use crate::decode::{Kind, MemOp, Pipe};
use crate::engine::{Pending, UNRESOLVED};
use crate::error::{Fault, FaultKind, SimError};
use crate::exec;
use crate::ids::{BlockId, SmId, WarpId};
use crate::l1::{Lookup, NO_LOAD};
use crate::launch::Ctx;
use crate::line_return;
use crate::regfile::MAX_LANES;
use crate::scheduler::throttle_class;
use crate::scoreboard::pack;
use crate::shared_mem;
use crate::sm::Sm;
use crate::stats::StallReason;
use crate::store_combine::{self, Merge, PARTIAL, StoreCombiner};
use crate::time::Cycle;
use crate::warp::State;

/// The throttle class of the ALU's instructions.
const ALU_CLASS: u8 = throttle_class(Pipe::Alu);

impl Sm {
    /// Issues the next instruction of the warp in `slot` (sub-partition
    /// `sp`) at cycle `t`.
    pub(crate) fn issue(
        &mut self,
        sp: usize,
        slot: u16,
        t: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), SimError> {
        let prog = ctx.prog;
        let cfg = ctx.cfg;
        let w = &mut self.warps[slot as usize];
        let top = w.top();
        let pc = top.pc;
        let inst = &prog.insts[pc as usize];
        let exec = w.guarded(top.mask, inst.guard);
        let slots = u64::from(inst.issue_slots);
        // Active threads, predicated off or not (Nsight's `thread_inst_executed`).
        ctx.stats.thread_inst_executed += u64::from(top.mask.count_ones()) * slots;
        // The issue counts follow from this charge (`KernelStats::count_issues`).
        ctx.stats.charge(pc, StallReason::Selected, slots);
        if ctx.tracer.sampling() || ctx.tracer.on() {
            let (block, index) = (self.blocks[w.block as usize].id, w.index);
            trace_issue(self.id, sp, block, index, pc, t, slots, exec, ctx);
        }
        self.sps[sp].issue_free_at = t + slots;
        // The earliest the warp's next instruction may issue, and why.
        let mut floor = pack(t + slots, StallReason::Selected);
        // Whether it went to the ALU.
        let mut alu = false;
        match inst.kind {
            Kind::Unary { .. } | Kind::Binary { .. } | Kind::Select { .. } | Kind::Cmpx { .. } => {
                alu = true;
                exec::execute(&inst.kind, &mut w.rf, &prog.consts, exec, &mut ctx.scratch);
                let occ = self.alu_occupancy;
                self.sps[sp].alu_free_at = t + occ * slots;
                let ready = t + (slots - 1) * occ + u64::from(cfg.alu_latency_cycles);
                write_sb(w.rf.sb_mut(), inst.writes(), pack(ready, StallReason::Wait));
                w.set_pc(inst.next);
            }
            Kind::Shfl { .. } => {
                exec::execute(&inst.kind, &mut w.rf, &prog.consts, exec, &mut ctx.scratch);
                let start = t.max(self.smem_free_at);
                self.smem_free_at = start + self.shfl_occupancy;
                self.sps[sp].mio.push(start);
                let ready = start + u64::from(cfg.shfl_latency_cycles);
                write_sb(
                    w.rf.sb_mut(),
                    inst.writes(),
                    pack(ready, StallReason::ShortScoreboard),
                );
                ctx.stats.shfl_inst += 1;
                w.set_pc(inst.next);
            }
            Kind::Mem(op) => {
                if inst.spaced {
                    w.smem_issue_at = t + u64::from(cfg.smem_issue_interval_cycles);
                }
                self.memory(sp, slot, t, &op, exec, ctx)?;
                self.warps[slot as usize].set_pc(inst.next);
            }
            Kind::Bra { target, rpc } => {
                w.branch(exec, target, inst.next, rpc);
                let mut wait = u64::from(cfg.branch_latency_cycles);
                if inst.yields {
                    wait += u64::from(cfg.yield_cycles);
                }
                floor = pack(t + wait, StallReason::BranchResolving);
            }
            Kind::Exit => {
                w.live &= !exec;
                if exec != top.mask {
                    w.set_pc(inst.next);
                }
            }
            Kind::WarpSync => w.set_pc(inst.next),
            Kind::Bar => {
                if top.mask != w.live {
                    // No verified kernel gets here (`kernels-ir`'s
                    // `verify/barrier.rs` says why): an internal error.
                    let lane = (w.live & !top.mask).trailing_zeros();
                    let kind = FaultKind::DivergentBarrier {
                        active: top.mask,
                        live: w.live,
                    };
                    return Err(self.fault(slot, pc, lane, t, kind, ctx));
                }
                w.set_pc(inst.next);
                w.state = State::Barrier;
                w.barrier_since = t + slots;
                let (b, index) = (w.block as usize, w.index);
                self.set_ready(slot, u64::MAX);
                ctx.tracer
                    .barrier_arrive(t, self.id, self.blocks[b].id, index);
                let block = &mut self.blocks[b];
                block.arrived += 1;
                if block.arrived == block.live_warps {
                    self.release_barrier(b, t, ctx);
                }
                return Ok(());
            }
        }
        if ctx.tracer.on() {
            self.trace_writes(slot, pc, exec, ctx);
        }
        let w = &mut self.warps[slot as usize];
        if !w.normalize(prog.end) || !self.absorb_renames(slot, ctx) {
            self.finish_warp(slot, t + slots, ctx);
            return Ok(());
        }
        let w = &self.warps[slot as usize];
        let next = w.pc();
        if alu && prog.insts[next as usize].class == ALU_CLASS {
            // The warp's next instruction goes to the ALU its last one still
            // holds: ptxas's stall count spaces the two (`wait`); the pipe
            // throttles only another warp's instruction. The SASS of
            // HotSort's `bs` gives each of its 1,354 min/max followed by
            // another a stall count of 2 (the 16-lane ALU's two cycles),
            // one before a shuffle or shared access 1, and the H200
            // shows it so with one warp a sub-partition (`hs64k_h16_b4`:
            // `wait` 0.66 an issue, `math_pipe_throttle` none; the model
            // charged those cycles to the throttle, 0.43). The timing is
            // the same either way: the ALU is busy until then.
            floor = floor.max(pack(self.sps[sp].alu_free_at, StallReason::Wait));
        }
        if prog.insts[next as usize].staged {
            // A 16-byte store of computed data waits until the store before
            // it on its staging quad has read it ([`crate::store_staging`]).
            floor = floor.max(pack(
                self.quads[slot as usize].free_at(),
                StallReason::LongScoreboard,
            ));
        }
        if prog.insts[next as usize].spaced {
            // A shared access waits out the spacing after the warp's last
            // one (`GpuConfig::smem_issue_interval_cycles`).
            floor = floor.max(pack(w.smem_issue_at, StallReason::Wait));
        }
        if self.icache.on && (inst.new_line || next != pc + 1) {
            // A line crossing or a jump.
            floor = floor.max(self.fetch_line(sp, prog, pc, next, t));
        }
        // `wait_for_operands` starts its next operands toward the host core
        // while other warps issue (`Sm::prefetch_operands`).
        self.set_pc(slot, next, prog);
        self.wait_for_operands(slot, floor, t + slots, ctx);
        Ok(())
    }

    /// Reports the registers the instruction at `pc` wrote, if the warp is
    /// focused.
    #[cold]
    #[inline(never)]
    pub(crate) fn trace_writes(&mut self, slot: u16, pc: u32, exec: u64, ctx: &mut Ctx<'_, '_>) {
        let w = &self.warps[slot as usize];
        let block = self.blocks[w.block as usize].id;
        if !ctx.tracer.registers(block, w.index) {
            return;
        }
        for &sb in ctx.prog.insts[pc as usize].writes() {
            let reg = ctx.prog.reg_of(sb);
            let values: Vec<u64> = if reg.class == traces::RegClass::Pred {
                let bits = w.rf.preds()[reg.index as usize];
                (0..w.rf.width).map(|l| (bits >> l) & 1).collect()
            } else {
                w.rf.lanes_u64(sb)
            };
            let at = crate::scoreboard::cycle(w.rf.sb()[sb as usize]);
            if at < UNRESOLVED {
                ctx.tracer.reg_write(at, block, w.index, reg, exec, values);
            }
        }
    }

    /// Reports the registers a focused warp's load at `pc` wrote, once the
    /// load's completion cycle `done` is known.
    pub(crate) fn trace_load(&mut self, slot: u16, pc: u32, done: u64, ctx: &mut Ctx<'_, '_>) {
        let w = &self.warps[slot as usize];
        let block = self.blocks[w.block as usize].id;
        let all = crate::regfile::lane_mask(w.rf.width);
        for &sb in ctx.prog.insts[pc as usize].writes() {
            let values = w.rf.lanes_u64(sb);
            let reg = ctx.prog.reg_of(sb);
            ctx.tracer.reg_write(done, block, w.index, reg, all, values);
        }
    }

    /// A load or store: functional access, counters, pipe and memory timing.
    fn memory(
        &mut self,
        sp: usize,
        slot: u16,
        t: u64,
        op: &MemOp,
        exec: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), SimError> {
        let cfg = ctx.cfg;
        let width = cfg.warp_size as usize;
        let pc = self.warps[slot as usize].pc();
        let mut addrs = [0u64; MAX_LANES];
        crate::memory::addresses(op, &self.warps[slot as usize].rf, &mut addrs[..width]);
        let addrs = &addrs[..width];
        let result = match op.space {
            Space::Shared => self.shared(sp, slot, t, op, addrs, exec, ctx),
            Space::Global => self.global(sp, slot, t, op, addrs, exec, ctx),
        };
        result.map_err(|(lane, kind)| self.fault(slot, pc, lane, t, kind, ctx))
    }

    #[allow(clippy::too_many_arguments)]
    fn shared(
        &mut self,
        sp: usize,
        slot: u16,
        t: u64,
        op: &MemOp,
        addrs: &[u64],
        exec: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), (u32, FaultKind)> {
        let w = &mut self.warps[slot as usize];
        let pc = w.pc();
        let b = w.block as usize;
        shared_mem::access(op, &mut w.rf, &mut self.blocks[b].smem, addrs, exec)?;
        let wf = if op.atom.is_some() {
            ctx.banks.atomic_wavefronts(addrs, exec)
        } else if op.store || ctx.cfg.smem_paired_loads == 0 {
            ctx.banks.wavefronts(addrs, exec, op.bytes)
        } else {
            ctx.banks.load_wavefronts(addrs, exec, op.bytes)
        };
        let s = &mut ctx.stats;
        // Nsight counts a shared load or store in
        // `smsp__sass_inst_executed_op_shared_{ld,st}` only when a lane of
        // the warp has its guard on: `hw/calib/suite_guard.txt`'s warps
        // issue 100 `LDS` guarded off in every lane and count 0 (100 with
        // the guard on), and sample sort's `scan_sums` counts 12 of its
        // block's 64 tree loads, those of warps with a lane below the
        // step's distance. The guarded-off access is timed all the same:
        // on the H200 it costs the warp what a real one does (35.2 cycles
        // a step against 35.9, docs/calibration.md).
        let on = u64::from(exec != 0);
        if op.atom.is_some() {
            s.smem_atom_inst += 1;
            s.smem_atom_wavefronts += u64::from(wf.wavefronts);
            s.smem_atom_bank_conflicts += u64::from(wf.conflicts);
        } else if op.store {
            s.smem_st_inst += on;
            s.smem_st_wavefronts += u64::from(wf.wavefronts);
            s.smem_st_bank_conflicts += u64::from(wf.conflicts);
        } else {
            s.smem_ld_inst += on;
            s.smem_ld_wavefronts += u64::from(wf.wavefronts);
            s.smem_ld_bank_conflicts += u64::from(wf.conflicts);
        }
        if let Some(p) = s.per_pc.get_mut(pc as usize) {
            p.smem_wavefronts += u64::from(wf.wavefronts);
            p.smem_bank_conflicts += u64::from(wf.conflicts);
        }
        ctx.tracer.sample(self.id, t, |c| {
            c.smem_wavefronts += u64::from(wf.wavefronts);
            c.smem_bank_conflicts += u64::from(wf.conflicts);
        });
        let busy = u64::from(wf.wavefronts.max(1));
        let start = t.max(self.smem_free_at);
        self.smem_free_at = start + busy;
        self.sps[sp].mio.push(start);
        // A load's data wait for the SM's stores sent before it to leave
        // ([`crate::store_drain`], `loads_wait_for_stores`); the pipe goes on
        // meanwhile.
        let start_data = if op.store || ctx.cfg.loads_wait_for_stores == 0 {
            start
        } else {
            start.max(self.drain.left())
        };
        if op.atom.is_some() {
            // The old value returns after the atomic's own latency, and
            // each wavefront after the first (a replay) delays it further.
            let cfg = ctx.cfg;
            let replays = busy - 1;
            let ready = start_data
                + u64::from(cfg.smem_atom_latency_cycles)
                + replays * u64::from(cfg.smem_atom_replay_cycles);
            let inst = &ctx.prog.insts[pc as usize];
            write_sb(
                w.rf.sb_mut(),
                inst.writes(),
                pack(ready, StallReason::ShortScoreboard),
            );
        } else if !op.store {
            let ready = start_data + busy - 1 + u64::from(ctx.cfg.smem_latency_cycles);
            let inst = &ctx.prog.insts[pc as usize];
            write_sb(
                w.rf.sb_mut(),
                inst.writes(),
                pack(ready, StallReason::ShortScoreboard),
            );
        }
        let block = self.blocks[b].id;
        ctx.tracer.shared_access(
            start,
            self.id,
            block,
            w.index,
            pc,
            access_kind(op),
            wf,
            crate::trace::SharedLanes {
                addrs,
                exec,
                bytes: op.bytes,
            },
            || ctx.banks.words_per_bank(addrs, exec, op.bytes),
        );
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn global(
        &mut self,
        sp: usize,
        slot: u16,
        t: u64,
        op: &MemOp,
        addrs: &[u64],
        exec: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), (u32, FaultKind)> {
        let w = &mut self.warps[slot as usize];
        let pc = w.pc();
        ctx.mem.access(op, &mut w.rf, addrs, exec, ctx.log)?;
        coalescer::sectors(
            addrs,
            exec,
            op.bytes,
            ctx.cfg.sector_bytes,
            &mut ctx.sectors,
        );
        let n = ctx.sectors.len() as u64;
        let requests = u64::from(n > 0);
        ctx.tracer.sample(self.id, t, |c| {
            c.gmem_requests += requests;
            c.gmem_sectors += n;
        });
        let s = &mut ctx.stats;
        if op.store {
            s.gmem_st_requests += requests;
            s.gmem_st_sectors += n;
        } else {
            s.gmem_ld_requests += requests;
            s.gmem_ld_sectors += n;
        }
        if let Some(p) = s.per_pc.get_mut(pc as usize) {
            p.gmem_requests += requests;
            p.gmem_sectors += n;
        }
        let per_cycle = u64::from(ctx.cfg.lsu_sectors_per_cycle);
        let start = t.max(self.lsu_free_at);
        let pipe = crate::lsu_pipe::Pipe::of(
            &ctx.sectors,
            self.line_shift,
            per_cycle,
            &ctx.banks,
            (addrs, exec, op.bytes),
        );
        // A request's data pass the L1's data stage, where the L1 holds its
        // lines, in the wavefronts `held` counts (none where they are no
        // more than its tag cycles).
        let held = if self.l1.is_on() {
            let l1 = &self.l1;
            pipe.l1_hits(
                &ctx.banks,
                (addrs, exec, op.bytes),
                ctx.cfg.sector_bytes,
                |s| l1.holds(s),
            )
        } else {
            0
        };
        if op.store {
            // A store's data go through the stage as the LSU sends them:
            // the pipe is held that long.
            self.lsu_free_at = start + pipe.at_issue().max(held);
        } else {
            // A load's hits pass the stage that feeds the port its stores'
            // data: the next store waits for them ([`crate::l2_port`]).
            self.lsu_free_at = start + pipe.at_issue();
            self.port.hits(held);
        }
        // A store whose data pass the data stage keeps its place in the
        // queue until the port to L2 takes it (`store_port_hold`): the
        // sub-partition's later global accesses wait behind it.
        let held_for_port = op.store && held > 0 && ctx.cfg.store_port_hold != 0;
        if !held_for_port {
            self.sps[sp].lsu.push(start);
        }
        // When the store reads its data registers: as it leaves the queue.
        let mut read_at = t;
        let writes = ctx.prog.insts[pc as usize].writes();
        if n == 0 {
            // Nothing leaves the SM: the (guarded-off) load is done at once.
            write_sb(
                w.rf.sb_mut(),
                writes,
                pack(start + 1, StallReason::LongScoreboard),
            );
        } else if !op.store && self.l1.is_on() {
            self.l1_load(slot, t, start, pc, pipe.at_return(false), ctx);
        } else {
            // The partitions are shared: timing is resolved in order later.
            let first = self.request_sectors.len() as u32;
            self.request_sectors.extend_from_slice(&ctx.sectors);
            if op.store {
                let (out, combine) = (&mut self.request_sectors, &mut self.combine);
                mark_partial(
                    out,
                    combine,
                    first as usize,
                    (addrs, exec, op.bytes),
                    start,
                    ctx,
                );
                // What leaves for L2 after the merges.
                ctx.stats.gmem_st_l2_sectors +=
                    (self.request_sectors.len() - first as usize) as u64;
            }
            let lines = if op.store {
                0
            } else {
                line_return::lines(&ctx.sectors, self.line_shift)
            };
            // It waits for the port to L2, which sends one request at a
            // time ([`crate::l2_port`]).
            let sent = if op.store {
                let sent = self
                    .port
                    .store(start, &self.request_sectors[first as usize..]);
                self.drain.sent(sent);
                sent
            } else {
                let sent = self.port.load(start, lines);
                behind_stores(&self.drain, sent, ctx.cfg)
            };
            if held_for_port {
                self.sps[sp].lsu.push(sent);
                read_at = sent;
                // Its data registers are read then: an instruction that
                // writes one waits for that (the scoreboard holds readers
                // too, which the sorts' stored values never have).
                let read = pack(sent, StallReason::LongScoreboard);
                for &(slot, bytes) in &op.regs[..usize::from(op.nregs)] {
                    let e = &mut w.rf.sb_mut()[ctx.prog.value_sb(slot, bytes) as usize];
                    *e = (*e).max(read);
                }
            }
            self.requests.push(Pending {
                t,
                sm: self.id,
                start,
                first,
                n: self.request_sectors.len() as u32 - first,
                store: op.store,
                lines,
                wavefronts: pipe.at_return(op.store),
                slot,
                age: w.age,
                pc,
                seq: NO_LOAD,
                after: NO_LOAD,
                floor: 0,
                delay: sent - start,
            });
            if !op.store {
                write_sb(
                    w.rf.sb_mut(),
                    writes,
                    pack(UNRESOLVED, StallReason::LongScoreboard),
                );
            }
        }
        let quads = ctx.cfg.store_staging_quads;
        if quads > 0 && ctx.prog.insts[pc as usize].staged {
            self.quads[slot as usize].take(quads, read_at);
        }
        let w = &self.warps[slot as usize];
        let block = self.blocks[w.block as usize].id;
        ctx.tracer
            .global_request(start, self.id, block, w.index, pc, op.store, n as u32);
        Ok(())
    }

    /// Sends the load of the warp in `slot` at `pc` (issued at `t`, its
    /// sectors `ctx.sectors` leaving the LSU from `start`) through the L1
    /// ([`crate::l1`]): only the sectors it misses go to L2; the ones it
    /// hits are ready `l1_latency_cycles` after `start`, or with the load
    /// that fetches them. A load that misses nothing and waits for no load
    /// still in flight is done here.
    #[allow(clippy::too_many_arguments)]
    fn l1_load(
        &mut self,
        slot: u16,
        t: u64,
        start: u64,
        pc: u32,
        wavefronts: u8,
        ctx: &mut Ctx<'_, '_>,
    ) {
        let seq = self.load_seq;
        let first = self.request_sectors.len() as u32;
        let (mut floor, mut after) = (0, NO_LOAD);
        for &s in &ctx.sectors {
            match self.l1.load(s, seq) {
                Lookup::Miss => self.request_sectors.push(s),
                Lookup::Hit(parent) => {
                    floor = floor.max(start + u64::from(ctx.cfg.l1_latency_cycles));
                    if parent != NO_LOAD {
                        match self.load_done(parent) {
                            Some(done) => floor = floor.max(done),
                            None if after == NO_LOAD || parent > after => after = parent,
                            None => {}
                        }
                    }
                }
            }
        }
        let n = self.request_sectors.len() as u32 - first;
        let w = &mut self.warps[slot as usize];
        let writes = ctx.prog.insts[pc as usize].writes();
        if n == 0 && after == NO_LOAD {
            write_sb(
                w.rf.sb_mut(),
                writes,
                pack(floor, StallReason::LongScoreboard),
            );
            return;
        }
        let lines = line_return::lines(&self.request_sectors[first as usize..], self.line_shift);
        // Its misses wait for the port to L2 (see `global`).
        let sent = if n > 0 {
            self.load_seq += 1;
            let sent = self.port.load(start, lines);
            behind_stores(&self.drain, sent, ctx.cfg)
        } else {
            start
        };
        self.requests.push(Pending {
            t,
            sm: self.id,
            start,
            first,
            n,
            store: false,
            lines,
            wavefronts,
            slot,
            age: w.age,
            pc,
            seq: if n > 0 { seq } else { NO_LOAD },
            after,
            floor,
            delay: sent - start,
        });
        write_sb(
            w.rf.sb_mut(),
            writes,
            pack(UNRESOLVED, StallReason::LongScoreboard),
        );
    }

    /// The error for a fault of the warp in `slot` at `pc`.
    pub(crate) fn fault(
        &self,
        slot: u16,
        pc: u32,
        lane: u32,
        t: u64,
        kind: FaultKind,
        ctx: &Ctx<'_, '_>,
    ) -> SimError {
        let w = &self.warps[slot as usize];
        let block = &self.blocks[w.block as usize];
        SimError::Fault(Box::new(Fault {
            kernel: ctx.kernel.kernel().name.clone(),
            sm: SmId(self.id),
            block: BlockId(block.id),
            ctaid: block.ctaid,
            warp: WarpId(w.index),
            lane,
            pc,
            inst: crate::inst_text(ctx.kernel, pc),
            cycle: Cycle(t),
            kind,
        }))
    }
}

/// The cycle a global load's request the port sends at `sent` leaves the
/// SM: with `loads_wait_for_stores` 2, no earlier than the SM's stores sent
/// before it (`drain`, [`crate::store_drain`]).
#[inline]
fn behind_stores(drain: &crate::store_drain::Drain, sent: u64, cfg: &crate::GpuConfig) -> u64 {
    if cfg.loads_wait_for_stores == 2 {
        sent.max(drain.left())
    } else {
        sent
    }
}

/// The samples' and the trace's part of issuing the instruction at `pc`
/// (`slots` issue slots, lanes `exec`) of warp `index` of block `block` on
/// SM `sm`, sub-partition `sp`, at cycle `t`: out of line, so an untraced
/// issue keeps its values in registers instead of saving them around calls
/// it never makes.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn trace_issue(
    sm: u32,
    sp: usize,
    block: u64,
    index: u32,
    pc: u32,
    t: u64,
    slots: u64,
    exec: u64,
    ctx: &mut Ctx<'_, '_>,
) {
    ctx.tracer.sample_stall(sm, StallReason::Selected, t, slots);
    ctx.tracer.sample(sm, t, |c| c.inst_issued += slots);
    if ctx.tracer.on() {
        ctx.tracer
            .issue(t, sm, sp as u32, block, index, pc, exec, slots);
    }
}

/// How a shared access appears in traces.
fn access_kind(op: &MemOp) -> traces::AccessKind {
    if op.atom.is_some() {
        traces::AccessKind::Atomic
    } else if op.store {
        traces::AccessKind::Store
    } else {
        traces::AccessKind::Load
    }
}

/// Records that `writes` land as `packed` (cycle and reason).
#[inline]
fn write_sb(sb: &mut [u64], writes: &[u32], packed: u64) {
    for &r in writes {
        sb[r as usize] = packed;
    }
}

/// Marks the sectors of the store request at `out[at..]` (sent from cycle
/// `start`, its lanes writing `bytes` each at `addrs`) that it writes only
/// in part, and drops the parts that merge in the SM's store-combining
/// buffer ([`crate::store_combine`]): they reach L2 with an earlier part.
/// A merge that completes its sector makes the earlier part's write a whole
/// sector's, where that part still waits in `out` (its quantum's).
fn mark_partial(
    out: &mut Vec<u64>,
    combine: &mut StoreCombiner,
    at: usize,
    (addrs, exec, bytes): (&[u64], u64, u32),
    start: u64,
    ctx: &Ctx<'_, '_>,
) {
    let sectors = &mut out[at..];
    let mut covers = [0u64; crate::regfile::MAX_LANES];
    let mut any = false;
    store_combine::partial_sectors(
        addrs,
        exec,
        bytes,
        ctx.cfg.sector_bytes,
        &ctx.sectors,
        |k, cover| {
            sectors[k] |= PARTIAL;
            covers[k] = cover;
            any = true;
        },
    );
    if !any || !combine.is_on() {
        return;
    }
    let per_cycle = u64::from(ctx.cfg.lsu_sectors_per_cycle);
    let mut kept = at;
    for k in at..out.len() {
        let s = out[k];
        // The LSU sends `per_cycle` of the request's sectors a cycle.
        let depart = start + (k - at) as u64 / per_cycle;
        if s & PARTIAL != 0 {
            match combine.merge(s & !PARTIAL, depart, covers[k - at], kept as u32) {
                Merge::Sent => {}
                Merge::Merged => continue,
                Merge::Completed(carrier) => {
                    // The carrier is an earlier request's part of this
                    // sector, if its quantum is still this one.
                    let c = carrier as usize;
                    if c < at && out[c] == s {
                        out[c] = s & !PARTIAL;
                    }
                    continue;
                }
            }
        }
        out[kept] = s;
        kept += 1;
    }
    out.truncate(kept);
}
