//! The launch's event loop: SMs run in *quanta*, and the only two things
//! SMs share, the block queue and the memory partitions, are served in
//! exactly the order a cycle-by-cycle loop over all SMs would serve them.
//!
//! **Why quanta.** Stepping 132 SMs one cycle at a time touches every SM's
//! warps and registers every cycle, which is slow (the state does not fit
//! in a host cache). Instead each SM runs on its own for up to `Q` cycles,
//! `Q` = the shortest global-memory latency, with its warps and registers
//! hot in cache.
//!
//! **Why it is exact.** A global request's sectors need the memory
//! partitions and the L2, which every SM shares; the order requests reach
//! them matters. So a request only records itself while its SM runs ahead;
//! its load's registers are marked *unresolved*. At each quantum boundary
//! `B` (when every SM has simulated up to `B`), all requests issued before
//! `B` are sent to the partitions in cycle-by-cycle order: by issue cycle,
//! then SM, then issue order. A load issued at `t >= B - Q` completes no
//! earlier than `t + Q >= B`, so no warp can have needed its data before
//! the boundary: a warp that wanted it waited as *blocked* and now gets its
//! exact ready cycle and stall charge. A block that retires stops its SM's
//! run; the freed slot takes the next block of the grid only when every SM
//! has reached that cycle (a queue ordered by cycle, then SM).
//! The results equal those of a cycle-by-cycle run (a test checks it with
//! [`crate::RunOptions::lockstep`]); only kernels whose blocks race on
//! global memory within a launch can see a different, but still
//! deterministic, interleaving.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::SimError;
use crate::ids::{BlockId, WarpAt, WarpId};
use crate::scoreboard::pack;
use crate::sm::{Ctx, Sm};
use crate::stats::StallReason;
use crate::time::Cycle;
use crate::warp::State;

/// The cycle an unresolved load's registers are marked ready at.
pub(crate) const UNRESOLVED: u64 = 1 << 58;

/// A global request waiting for its partition timing.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    /// Issue cycle, SM and issue order: the cycle-by-cycle order.
    pub t: u64,
    pub sm: u32,
    pub seq: u64,
    /// When the LSU sends its first sector.
    pub start: u64,
    /// Its sectors: `sectors[first..first + n]` of the pending pool.
    pub first: u32,
    pub n: u32,
    pub store: bool,
    /// The warp (slot and age, to tell a reused slot) and what it loads into.
    pub slot: u16,
    pub age: u64,
    pub pc: u32,
}

/// Runs every SM until the grid is done; returns the cycle after the last
/// warp exit.
pub(crate) fn run(
    sms: &mut [Sm],
    ctx: &mut Ctx<'_>,
    limit: Cycle,
    lockstep: bool,
) -> Result<u64, SimError> {
    let per_sm = sms.first().map_or(0, |sm| sm.blocks.len());
    for _ in 0..per_sm {
        for sm in sms.iter_mut() {
            sm.start_block(0, ctx);
        }
    }
    crate::interrupt::publish(0, ctx.next_block);
    let q = if lockstep {
        1
    } else {
        u64::from(ctx.cfg.l2_latency_cycles.min(ctx.cfg.dram_latency_cycles)).max(1)
    };
    let mut queue: BinaryHeap<Reverse<(u64, u32)>> = sms
        .iter()
        .filter_map(|sm| sm.key().map(|k| Reverse((k, sm.id))))
        .collect();
    let mut boundary = q;
    loop {
        let next = queue.peek().map(|Reverse((k, _))| *k);
        if next.is_none_or(|k| k >= boundary) {
            if ctx.pending.is_empty() && next.is_none() {
                break;
            }
            crate::interrupt::publish(boundary, ctx.next_block);
            if crate::interrupt::stop_requested() {
                return Err(SimError::Interrupted {
                    kernel: ctx.kernel.kernel().name.clone(),
                    cycle: Cycle(boundary),
                });
            }
            resolve(sms, ctx, &mut queue);
            let low = queue.peek().map_or(boundary, |Reverse((k, _))| *k);
            boundary = (low.max(boundary) / q + 1) * q;
            continue;
        }
        let Some(Reverse((k, i))) = queue.pop() else {
            break;
        };
        let sm = &mut sms[i as usize];
        if sm.key() != Some(k) {
            continue; // a stale entry
        }
        if k > limit.0 {
            let kernel = ctx.kernel.kernel().name.clone();
            return Err(SimError::CycleLimit {
                kernel,
                limit,
                warps: stuck(sms, 8),
            });
        }
        if sm.retire_at == Some(k) {
            sm.retire_at = None;
            while sm.start_block(k, ctx) {}
        }
        sm.run(boundary.min(limit.0 + 1), ctx)?;
        if let Some(key) = sm.key() {
            queue.push(Reverse((key, i)));
        }
    }
    if ctx.next_block < ctx.total_blocks || sms.iter().any(|sm| !sm.resident(1).is_empty()) {
        return Err(SimError::Deadlock {
            kernel: ctx.kernel.kernel().name.clone(),
            cycle: Cycle(ctx.last_exit),
            warps: stuck(sms, 64),
        });
    }
    Ok(ctx.last_exit)
}

/// Sends every pending request to the memory partitions in cycle-by-cycle
/// order and wakes the warps that waited for their loads.
fn resolve(sms: &mut [Sm], ctx: &mut Ctx<'_>, queue: &mut BinaryHeap<Reverse<(u64, u32)>>) {
    let mut pending = std::mem::take(&mut ctx.pending);
    let mut order = std::mem::take(&mut ctx.order);
    sort_pending(&pending, &mut order);
    let per_cycle = u64::from(ctx.cfg.lsu_sectors_per_cycle);
    for &i in &order {
        let p = &pending[i as usize];
        let mut done = p.start + 1;
        // The LSU sends `per_cycle` sectors a cycle.
        let (mut depart, mut sent) = (p.start, 0);
        for &sector in &ctx.pending_sectors[p.first as usize..(p.first + p.n) as usize] {
            done = done.max(ctx.timing.sector(depart, sector, p.store, ctx.stats));
            sent += 1;
            if sent == per_cycle {
                (depart, sent) = (depart + 1, 0);
            }
        }
        if p.store {
            ctx.last_store_done = ctx.last_store_done.max(done);
            continue;
        }
        let sm = &mut sms[p.sm as usize];
        if sm.land_load(p, done, ctx)
            && let Some(key) = sm.key()
        {
            queue.push(Reverse((key, p.sm)));
        }
    }
    pending.clear();
    ctx.pending = pending;
    ctx.order = order;
    ctx.pending_sectors.clear();
}

/// Bits of an order key that hold the request's index.
const INDEX_BITS: u32 = 24;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
/// Bits that hold the SM, above the index; the cycle is above both.
const SM_BITS: u32 = 16;

/// Fills `order` with the indices of the requests in cycle-by-cycle order
/// (by issue cycle, then SM, then `seq`).
///
/// Requests are pushed in `seq` order, so the index breaks ties as `seq`
/// would. Sorting packed keys moves 8 bytes a request instead of the whole
/// request; a batch too large or too long for the packing (never seen in
/// practice) falls back to sorting the requests' keys directly.
fn sort_pending(pending: &[Pending], order: &mut Vec<u64>) {
    debug_assert!(pending.windows(2).all(|w| w[0].seq < w[1].seq));
    order.clear();
    let first = pending.iter().map(|p| p.t).min().unwrap_or(0);
    let span = pending.iter().map(|p| p.t - first).max().unwrap_or(0);
    let packs = pending.len() as u64 <= INDEX_MASK
        && pending.iter().all(|p| p.sm < 1 << SM_BITS)
        && span < 1 << (64 - INDEX_BITS - SM_BITS);
    if packs {
        order.extend(pending.iter().enumerate().map(|(i, p)| {
            ((p.t - first) << (INDEX_BITS + SM_BITS)) | (u64::from(p.sm) << INDEX_BITS) | i as u64
        }));
        order.sort_unstable();
        order.iter_mut().for_each(|k| *k &= INDEX_MASK);
    } else {
        order.extend(0..pending.len() as u64);
        order.sort_by_key(|&i| {
            let p = &pending[i as usize];
            (p.t, p.sm, p.seq)
        });
    }
}

impl Sm {
    /// The cycle this SM next needs the event loop: a freed block slot
    /// waiting for the block queue, or its next event.
    pub fn key(&self) -> Option<u64> {
        self.retire_at.or_else(|| self.next_event())
    }

    /// Runs this SM's cycles before `horizon`, stopping early when a block
    /// retires while the grid still has blocks (the slot must wait for the
    /// block queue).
    pub fn run(&mut self, horizon: u64, ctx: &mut Ctx<'_>) -> Result<(), SimError> {
        while let Some(t) = self.next_event() {
            if t >= horizon || self.retire_at.is_some() {
                break;
            }
            if ctx
                .tracer
                .next_sample_end(self.id)
                .is_some_and(|end| t >= end)
            {
                let complete = self.charged_until(t);
                ctx.tracer.flush_samples(self.id, complete);
            }
            self.step(t, ctx)?;
        }
        Ok(())
    }

    /// A load of this SM's warp completes at `done`: marks its registers
    /// and, if the warp was waiting for them, works out when it can go on.
    /// Returns whether the warp's schedule changed.
    fn land_load(&mut self, p: &Pending, done: u64, ctx: &mut Ctx<'_>) -> bool {
        let w = &mut self.warps[p.slot as usize];
        if w.state == State::Free || w.age != p.age {
            return false; // the warp exited without waiting for its load
        }
        let packed = pack(done, StallReason::LongScoreboard);
        for &r in ctx.prog.insts[p.pc as usize].writes() {
            w.rf.sb_mut()[r as usize] = packed;
        }
        let block = self.blocks[w.block as usize].id;
        if ctx.tracer.on() && ctx.tracer.registers(block, w.index) {
            self.trace_load(p.slot, p.pc, done, ctx);
        }
        let w = &mut self.warps[p.slot as usize];
        let Some((floor, from)) = w.blocked.take() else {
            return false;
        };
        self.wait_for_operands(p.slot, floor, from, ctx);
        true
    }
}

/// Up to `n` resident warps of the machine and their pcs, barrier waiters first.
pub(crate) fn stuck(sms: &[Sm], n: usize) -> Vec<WarpAt> {
    let mut out = Vec::new();
    for sm in sms {
        for (block, warp, pc) in sm.resident(n - out.len()) {
            out.push(WarpAt {
                block: BlockId(block),
                warp: WarpId(warp),
                pc,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(t: u64, sm: u32, seq: u64) -> Pending {
        Pending {
            t,
            sm,
            seq,
            start: t,
            first: 0,
            n: 0,
            store: false,
            slot: 0,
            age: 0,
            pc: 0,
        }
    }

    /// The (t, sm, seq) of `pending` in the order `sort_pending` gives.
    fn sorted(pending: &[Pending]) -> Vec<(u64, u32, u64)> {
        let mut order = Vec::new();
        sort_pending(pending, &mut order);
        order
            .iter()
            .map(|&i| {
                let p = &pending[i as usize];
                (p.t, p.sm, p.seq)
            })
            .collect()
    }

    #[test]
    fn requests_resolve_by_cycle_then_sm_then_issue_order() {
        // Two SMs' runs, pushed one after the other, ties within a cycle.
        let pending = [
            request(12, 1, 0),
            request(12, 1, 1),
            request(15, 1, 2),
            request(10, 0, 3),
            request(12, 0, 4),
            request(15, 0, 5),
        ];
        let want = [
            (10, 0, 3),
            (12, 0, 4),
            (12, 1, 0),
            (12, 1, 1),
            (15, 0, 5),
            (15, 1, 2),
        ];
        assert_eq!(sorted(&pending), want);
        // Cycles too far apart to pack: the same order, unpacked.
        let far: Vec<Pending> = pending
            .iter()
            .map(|p| request(p.t << 40, p.sm, p.seq))
            .collect();
        let order: Vec<_> = sorted(&far)
            .iter()
            .map(|&(t, sm, seq)| (t >> 40, sm, seq))
            .collect();
        assert_eq!(order, want);
    }
}
