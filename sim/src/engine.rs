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
//! deterministic, interleaving (other SMs' stores become visible at
//! multiples of `Q`). On several host threads each `Q` is split in two
//! quanta so the partitions' timing of one runs beside the SMs' next
//! ([`run_parallel`]); that changes no result.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::SimError;
use crate::global_mem::MemTiming;
use crate::ids::{BlockId, WarpAt, WarpId};
use crate::landing::Landing;
use crate::launch::{Ctx, Launch, Worker};
use crate::memory::GlobalMem;
use crate::resolve::Batch;
use crate::scheduler::Mode;
use crate::scoreboard::pack;
use crate::sm::Sm;
use crate::stats::{KernelStats, StallReason};
use crate::store_log::StoreLog;
use crate::team::{Claims, Team, exclusive, into_inner, lock, take};
use crate::time::Cycle;
use crate::trace::Tracer;
use crate::warp::State;

/// The cycle an unresolved load's registers are marked ready at.
pub(crate) const UNRESOLVED: u64 = 1 << 58;

/// A global request waiting for its partition timing.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    /// Issue cycle and SM: with the issue order on the SM (the order of a
    /// worker's list), the cycle-by-cycle order.
    pub t: u64,
    pub sm: u32,
    /// When the LSU sends its first sector.
    pub start: u64,
    /// Its sectors: `sectors[first..first + n]` of its worker's pool.
    pub first: u32,
    pub n: u32,
    pub store: bool,
    /// The warp (slot and age, to tell a reused slot) and what it loads into.
    pub slot: u16,
    pub age: u64,
    pub pc: u32,
}

/// What SMs share, served between their runs: device memory (with each
/// SM's store log), the memory partitions' timing, and the block queue.
pub(crate) struct Shared<'m> {
    pub mem: &'m mut GlobalMem,
    pub timing: &'m mut MemTiming,
    /// Per SM, its stores of the running quantum.
    pub logs: &'m mut [StoreLog],
    /// The next block of the grid to start.
    pub next_block: u64,
    /// When the last global store lands in L2.
    pub last_store_done: u64,
    /// Requests gathered at a boundary, waiting to be timed and landed.
    batch: Batch,
}

impl<'m> Shared<'m> {
    pub fn new(
        mem: &'m mut GlobalMem,
        timing: &'m mut MemTiming,
        logs: &'m mut [StoreLog],
    ) -> Shared<'m> {
        Shared {
            mem,
            timing,
            logs,
            next_block: 0,
            last_store_done: 0,
            batch: Batch::default(),
        }
    }

    /// Starts blocks in `sm`'s free slots at cycle `t`, in grid order,
    /// while the grid has any left.
    fn dispatch(
        &mut self,
        sm: &mut Sm,
        t: u64,
        l: &Launch<'_>,
        tracer: &mut Tracer<'_>,
        worker: &mut Worker,
    ) {
        while self.next_block < l.total_blocks && sm.has_free_block_slot() {
            let log = &mut self.logs[sm.id as usize];
            let mut ctx = Ctx::new(l, true, self.mem, log, tracer, worker);
            sm.start_block(t, self.next_block, &mut ctx);
            self.next_block += 1;
        }
    }

    /// The first blocks: breadth first (block 0 on SM 0, block 1 on SM 1,
    /// ...), as many rounds as an SM holds blocks.
    fn dispatch_first(
        &mut self,
        sms: &mut [Sm],
        l: &Launch<'_>,
        tracer: &mut Tracer<'_>,
        worker: &mut Worker,
    ) {
        let per_sm = sms.first().map_or(0, |sm| sm.blocks.len());
        for _ in 0..per_sm {
            for sm in sms.iter_mut() {
                if self.next_block < l.total_blocks && sm.has_free_block_slot() {
                    let log = &mut self.logs[sm.id as usize];
                    let mut ctx = Ctx::new(l, true, self.mem, log, tracer, worker);
                    sm.start_block(0, self.next_block, &mut ctx);
                    self.next_block += 1;
                }
            }
        }
    }

    /// [`Self::dispatch_first`] for freshly reset SMs, each SM starting
    /// its own blocks on the team (member `m` for the SMs it owns, see
    /// [`Claims::even`]): SM `i` takes blocks `i`, `i + n`, `i + 2n`, ...
    /// (`n` SMs), as many as it holds, which is what the breadth-first
    /// rounds give when every SM starts empty. A block start touches only
    /// its SM and its member's counters, so the SMs may start in any
    /// order; on 2 threads this was about a third of the main thread's
    /// serial work at 1M keys. The member that starts an SM's blocks is
    /// the one that runs it next, so its state is in that core's caches.
    fn dispatch_first_parallel(
        &mut self,
        sms: &mut [Sm],
        l: &Launch<'_>,
        workers: &mut [Worker],
        team: &Team,
        ran_on: &[AtomicUsize],
    ) {
        let n = sms.len() as u64;
        let total = l.total_blocks;
        let first_total = (u64::from(l.blocks_per_sm) * n).min(total);
        let mem: &GlobalMem = self.mem;
        let items = exclusive(sms.iter_mut().zip(self.logs.iter_mut()));
        let workers: Vec<Mutex<&mut Worker>> = workers.iter_mut().map(Mutex::new).collect();
        let claims = Claims::even(items.len(), team.threads());
        team.run(&|m| {
            let mut off = Tracer::new(None);
            let mut w = lock(&workers[m]);
            while let Some(i) = claims.next(m) {
                let (sm, log) = take(&items[i]);
                ran_on[i].store(m, Ordering::Relaxed);
                sm.reset(l.blocks_per_sm);
                let mut id = u64::from(sm.id);
                while id < first_total {
                    let mut ctx = Ctx::new(l, true, mem, log, &mut off, &mut w);
                    sm.start_block(0, id, &mut ctx);
                    id += n;
                }
            }
        });
        self.next_block = first_total;
    }

    /// The end of a quantum, every SM having run up to it: writes the SMs'
    /// stores to memory (in SM order), sends every pending request to the
    /// memory partitions in cycle-by-cycle order and wakes the warps that
    /// waited for their loads; `woke` hears of each SM whose schedule
    /// changed.
    fn boundary(
        &mut self,
        sms: &mut [Sm],
        l: &Launch<'_>,
        tracer: &mut Tracer<'_>,
        workers: &mut [Worker],
        woke: impl FnMut(&Sm),
    ) {
        self.apply_logs();
        self.batch.gather(workers);
        self.batch
            .time(self.timing, l.cfg.lsu_sectors_per_cycle.into());
        self.land(sms, l, tracer, &mut workers[0], woke);
    }

    /// Writes the SMs' stores of the quantum to memory, in SM order.
    fn apply_logs(&mut self) {
        for log in self.logs.iter_mut() {
            log.apply(self.mem);
        }
    }

    /// Lands the timed batch's loads in their SMs, in the order they were
    /// timed, and empties the batch; `woke` hears of each SM whose
    /// schedule changed.
    fn land(
        &mut self,
        sms: &mut [Sm],
        l: &Launch<'_>,
        tracer: &mut Tracer<'_>,
        worker: &mut Worker,
        mut woke: impl FnMut(&Sm),
    ) {
        for (p, done) in self.batch.loads() {
            let sm = &mut sms[p.sm as usize];
            let log = &mut self.logs[p.sm as usize];
            let mut ctx = Ctx::new(l, false, self.mem, log, tracer, worker);
            if sm.land_load(p, done, &mut ctx) {
                woke(sm);
            }
        }
        let stores = self.batch.finish(&mut worker.stats);
        self.last_store_done = self.last_store_done.max(stores);
    }
}

/// The quantum: the shortest global-memory latency (1 cycle in lockstep).
fn quantum(l: &Launch<'_>, lockstep: bool) -> u64 {
    if lockstep {
        1
    } else {
        u64::from(l.cfg.l2_latency_cycles.min(l.cfg.dram_latency_cycles)).max(1)
    }
}

/// The next quantum boundary after `boundary`, skipping idle quanta up to
/// the first event `low`.
fn next_boundary(low: Option<u64>, boundary: u64, q: u64) -> u64 {
    (low.unwrap_or(boundary).max(boundary) / q + 1) * q
}

/// Runs every SM until the grid is done, one SM at a time in global event
/// order (every SM event at cycle `t` before any at `t + 1`, SMs in index
/// order), so trace events come out in that order; returns the cycle after
/// the last warp exit. Traced and lockstep launches run here.
pub(crate) fn run_ordered(
    l: &Launch<'_>,
    sms: &mut [Sm],
    sh: &mut Shared<'_>,
    tracer: &mut Tracer<'_>,
    worker: &mut Worker,
    limit: Cycle,
    lockstep: bool,
) -> Result<u64, SimError> {
    let workers = std::slice::from_mut(worker);
    sh.dispatch_first(sms, l, tracer, &mut workers[0]);
    crate::interrupt::publish(0, sh.next_block);
    let q = quantum(l, lockstep);
    let mut queue: BinaryHeap<Reverse<(u64, u32)>> = sms
        .iter()
        .filter_map(|sm| sm.key().map(|k| Reverse((k, sm.id))))
        .collect();
    let mut boundary = q;
    loop {
        let next = queue.peek().map(|Reverse((k, _))| *k);
        if next.is_none_or(|k| k >= boundary) {
            if workers[0].pending.is_empty() && next.is_none() {
                break;
            }
            crate::interrupt::publish(boundary, sh.next_block);
            if crate::interrupt::stop_requested() {
                return Err(SimError::Interrupted {
                    kernel: l.kernel.kernel().name.clone(),
                    cycle: Cycle(boundary),
                });
            }
            sh.boundary(sms, l, tracer, workers, |sm| {
                if let Some(key) = sm.key() {
                    queue.push(Reverse((key, sm.id)));
                }
            });
            let low = queue.peek().map(|Reverse((k, _))| *k);
            boundary = next_boundary(low, boundary, q);
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
            let kernel = l.kernel.kernel().name.clone();
            return Err(SimError::CycleLimit {
                kernel,
                limit,
                warps: stuck(sms, 8),
            });
        }
        if sm.retire_at == Some(k) {
            sm.retire_at = None;
            sh.dispatch(sm, k, l, tracer, &mut workers[0]);
        }
        let left = sh.next_block < l.total_blocks;
        let log = &mut sh.logs[i as usize];
        let mut ctx = Ctx::new(l, left, sh.mem, log, tracer, &mut workers[0]);
        sm.run(boundary.min(limit.0 + 1), &mut ctx)?;
        if let Some(key) = sm.key() {
            queue.push(Reverse((key, i)));
        }
    }
    finish(l, sms, sh, workers)
}

/// The end of a launch: a grid not done is a deadlock.
fn finish(
    l: &Launch<'_>,
    sms: &[Sm],
    sh: &mut Shared<'_>,
    workers: &[Worker],
) -> Result<u64, SimError> {
    for log in sh.logs.iter_mut() {
        log.apply(sh.mem);
    }
    let last_exit = workers.iter().map(|w| w.last_exit).max().unwrap_or(0);
    if sh.next_block < l.total_blocks || sms.iter().any(|sm| !sm.resident(1).is_empty()) {
        return Err(SimError::Deadlock {
            kernel: l.kernel.kernel().name.clone(),
            cycle: Cycle(last_exit),
            warps: stuck(sms, 64),
        });
    }
    Ok(last_exit)
}

/// The boundaries of [`run_parallel`]'s quanta: every multiple of `full`
/// and, when `split`, also `half` after each, so two quanta in a row
/// always span `full` cycles.
#[derive(Clone, Copy)]
struct Grid {
    full: u64,
    half: u64,
    split: bool,
}

impl Grid {
    /// The first boundary after `x`.
    fn after(self, x: u64) -> u64 {
        let base = x - x % self.full;
        if self.split && x % self.full < self.half {
            base + self.half
        } else {
            base + self.full
        }
    }
}

/// One SM's share of a quantum, as a team member takes it: the SM, its
/// store log, and its rank key when the running `Q` quantum began.
type SmItem<'a> = (&'a mut Sm, &'a mut StoreLog, &'a mut Option<u64>);

/// Runs every SM until the grid is done, each quantum in two steps: every
/// SM runs up to the boundary or its first block retirement, on the
/// team's members at once (each takes its own SMs first, [`Claims`]); then,
/// on this thread, the retirements take the next blocks in (cycle, SM)
/// order and their SMs run on, and the quantum's global requests are timed
/// in the memory partitions ([`Batch`]) and its loads land.
///
/// **Overlap.** With several members, quanta are half as long (`Q/2`,
/// then the rest of `Q`), and the last member gathers and times the
/// previous quantum's requests, before its SMs, while the others run the
/// next quantum's; its loads land one quantum late, each SM landing its
/// own at the start of its next run ([`Landing`]). That is exact: a
/// request issued in the quantum that ends at `B` completes at least `Q`
/// after it issued, so no earlier than the end of the next quantum (two
/// quanta in a row span `Q`), and while a batch is in flight no idle
/// quantum is skipped. Loads wait for the SMs' next run only when the
/// next quantum follows at once (requests are waiting to be timed); before
/// a skip to the next event, or the end, they land on this thread, so the
/// skip sees every SM's schedule. Stores still become visible to other
/// SMs at multiples of `Q` only, and an SM's error is chosen as if quanta
/// were `Q` long, so a launch gives the same results with and without a
/// team.
///
/// The results are those of [`run_ordered`] for any number of members:
/// within a quantum an SM reads and writes nothing another SM can see
/// (stores wait in its log), and blocks start in the same order. Each
/// member has its own [`Worker`] (`workers[m]`); an SM's requests of one
/// quantum all go to the worker of the member that ran it (`ran_on`), in
/// issue order, which is all the batch's ordering needs. Returns the cycle
/// after the last warp exit.
pub(crate) fn run_parallel(
    l: &Launch<'_>,
    sms: &mut [Sm],
    sh: &mut Shared<'_>,
    workers: &mut [Worker],
    team: &Team,
    limit: Cycle,
) -> Result<u64, SimError> {
    let members = team.threads();
    debug_assert_eq!(workers.len(), members, "one worker per member");
    let mut off = Tracer::new(None);
    // Per SM, the member that ran it in the running quantum.
    let ran_on: Vec<AtomicUsize> = (0..sms.len()).map(|_| AtomicUsize::new(0)).collect();
    sh.dispatch_first_parallel(sms, l, workers, team, &ran_on);
    crate::interrupt::publish(0, sh.next_block);
    let full = quantum(l, false);
    let grid = Grid {
        full,
        half: full / 2,
        split: members > 1 && full >= 2,
    };
    // The member that times the partitions (split quanta only).
    let timer = members - 1;
    let per_cycle = u64::from(l.cfg.lsu_sectors_per_cycle);
    let mut boundary = grid.after(0);
    let mut retired: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    // Per SM, its next event when the running `Q` quantum began, and
    // whether it failed in the quantum's first half (split quanta only).
    let mut keys_at_full: Vec<Option<u64>> = vec![None; sms.len()];
    let mut failed = vec![false; sms.len()];
    let mut first_error: Option<(u64, u32, SimError)> = None;
    // Split quanta: per member, the requests its SMs issued in the last
    // quantum, handed to the timing member while the SMs fill the
    // workers' own lists again; the loads the SMs land at the start of the
    // next quantum, and those the timing member is sorting for the one
    // after; the memory counters of the timed batches.
    let mut handed: Vec<Worker> = match grid.split {
        true => (0..members)
            .map(|_| Worker::new(KernelStats::default()))
            .collect(),
        false => Vec::new(),
    };
    let (mut to_land, mut timed) = (Landing::default(), Landing::default());
    let mut mem_stats = KernelStats::default();
    let mut prev_end = 0;
    loop {
        // Every SM has made its passes before `start`.
        let start = prev_end;
        let first_half = grid.split && prev_end <= (boundary - 1) / full * full;
        prev_end = boundary;
        let horizon = boundary.min(limit.0 + 1);
        let left = sh.next_block < l.total_blocks;
        let mem: &GlobalMem = sh.mem;
        let (failed_ref, landing) = (&failed, &to_land);
        // One SM's run to the boundary; its error ranked by the SM's place
        // in a `Q` quantum.
        let run_one = |(sm, log, at_full): SmItem<'_>,
                       w: &mut Worker,
                       tracer: &mut Tracer<'_>|
         -> Option<(u64, u32, SimError)> {
            if failed_ref[sm.id as usize] {
                return None;
            }
            if !landing.is_empty() {
                let mut ctx = Ctx::new(l, false, mem, log, tracer, w);
                for (p, done) in landing.of(sm.id) {
                    sm.land_load(p, done, &mut ctx);
                }
            }
            if first_half {
                // The first quantum run in this `Q` quantum.
                *at_full = sm.rank_key(start);
            }
            let k = sm.next_event()?;
            if sm.retire_at.is_some() || k >= boundary || k > limit.0 {
                return None;
            }
            // Where a pass-by-pass scheduler would place the SM (the passes
            // `run` skips would not change what it does).
            let k = sm.rank_key(start).unwrap_or(k);
            let mut ctx = Ctx::new(l, left, mem, log, tracer, w);
            let e = sm.run(horizon, &mut ctx).err()?;
            let k = match grid.split {
                true => at_full.unwrap_or(k).min(k),
                false => k,
            };
            Some((k, sm.id, e))
        };
        if grid.split {
            // Hand the last quantum's requests to the timing member.
            for (w, h) in workers.iter_mut().zip(&mut handed) {
                std::mem::swap(&mut w.pending, &mut h.pending);
                std::mem::swap(&mut w.pending_sectors, &mut h.pending_sectors);
            }
        }
        let n_sms = sms.len();
        let items = exclusive(
            sms.iter_mut()
                .zip(sh.logs.iter_mut())
                .zip(keys_at_full.iter_mut())
                .map(|((sm, log), key)| (sm, log, key)),
        );
        let own: Vec<Mutex<&mut Worker>> = workers.iter_mut().map(Mutex::new).collect();
        let timing = Mutex::new(grid.split.then_some((
            &mut sh.batch,
            &mut *sh.timing,
            &mut sh.last_store_done,
            &mut handed,
            &mut timed,
            &mut mem_stats,
        )));
        // Every SM that failed must stop (an SM stops mid-issue), not only
        // the first of a member.
        let errors: Vec<Mutex<Vec<(u64, u32, SimError)>>> =
            (0..members).map(|_| Mutex::new(Vec::new())).collect();
        let claims = Claims::even(n_sms, members);
        team.run(&|m| {
            if m == timer
                && let Some((batch, timing, last_store_done, handed, timed, mem_stats)) =
                    lock(&timing).take()
            {
                batch.gather(handed);
                batch.time(timing, per_cycle);
                timed.fill(batch, n_sms);
                let stores = batch.finish(mem_stats);
                *last_store_done = (*last_store_done).max(stores);
            }
            let mut w = lock(&own[m]);
            let mut tracer = Tracer::new(None);
            let mut failures = Vec::new();
            while let Some(i) = claims.next(m) {
                ran_on[i].store(m, Ordering::Relaxed);
                failures.extend(run_one(take(&items[i]), &mut w, &mut tracer));
            }
            *lock(&errors[m]) = failures;
        });
        drop((items, own, timing));
        // Every SM has landed its loads (the failed ones need none).
        to_land.clear();
        // The error of the SM that would have run first.
        for e in errors.into_iter().flat_map(into_inner) {
            failed[e.1 as usize] = true;
            if first_error.as_ref().is_none_or(|f| (e.0, e.1) < (f.0, f.1)) {
                first_error = Some(e);
            }
        }
        if let Some((_, _, e)) =
            first_error.take_if(|_| !grid.split || boundary.is_multiple_of(full))
        {
            return Err(e);
        }
        if first_error.is_some() {
            // Finish the `Q` quantum (the failed SMs stopped) to rank the
            // errors as a `Q` quantum would.
            boundary = grid.after(boundary);
            continue;
        }
        // Freed block slots, in (cycle, SM) order.
        retired.extend(sms.iter().filter_map(|sm| {
            let r = sm.retire_at?;
            (r < boundary && r <= limit.0).then_some(Reverse((r, sm.id)))
        }));
        while let Some(Reverse((r, i))) = retired.pop() {
            let sm = &mut sms[i as usize];
            // The worker that holds the SM's requests of this quantum.
            let w = &mut workers[ran_on[i as usize].load(Ordering::Relaxed)];
            sm.retire_at = None;
            sh.dispatch(sm, r, l, &mut off, w);
            let left = sh.next_block < l.total_blocks;
            let log = &mut sh.logs[i as usize];
            let mut ctx = Ctx::new(l, left, sh.mem, log, &mut off, w);
            sm.run(horizon, &mut ctx)?;
            if let Some(r) = sm.retire_at
                && r < boundary
                && r <= limit.0
            {
                retired.push(Reverse((r, i)));
            }
        }
        let low = sms.iter().filter_map(Sm::key).min();
        if low.is_some_and(|k| k < boundary) {
            // Only SMs past the cycle limit are left behind.
            let kernel = l.kernel.kernel().name.clone();
            return Err(SimError::CycleLimit {
                kernel,
                limit,
                warps: stuck(sms, 8),
            });
        }
        let waiting = match grid.split {
            true => workers.iter().any(|w| !w.pending.is_empty()),
            false => {
                sh.batch.gather(workers);
                sh.batch.time(sh.timing, per_cycle);
                sh.land(sms, l, &mut off, &mut workers[0], |_| {});
                !sh.batch.is_empty()
            }
        };
        // The loads just timed complete at `boundary` or later: the SMs land
        // them as they start the next quantum, or here before a skip.
        std::mem::swap(&mut to_land, &mut timed);
        if !waiting && !to_land.is_empty() {
            for (p, done) in to_land.loads() {
                let sm = &mut sms[p.sm as usize];
                let log = &mut sh.logs[p.sm as usize];
                let mut ctx = Ctx::new(l, false, sh.mem, log, &mut off, &mut workers[0]);
                sm.land_load(p, done, &mut ctx);
            }
            to_land.clear();
        }
        let low = sms.iter().filter_map(Sm::key).min();
        if !waiting && low.is_none() {
            break;
        }
        crate::interrupt::publish(boundary, sh.next_block);
        if crate::interrupt::stop_requested() {
            return Err(SimError::Interrupted {
                kernel: l.kernel.kernel().name.clone(),
                cycle: Cycle(boundary),
            });
        }
        if boundary.is_multiple_of(full) {
            crate::store_log::apply_all(sh.logs, sh.mem, team);
        }
        boundary = if waiting {
            grid.after(boundary)
        } else {
            grid.after(low.unwrap_or(boundary).max(boundary))
        };
    }
    workers[0].stats.add_part(&mem_stats);
    finish(l, sms, sh, workers)
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
    pub fn run(&mut self, horizon: u64, ctx: &mut Ctx<'_, '_>) -> Result<(), SimError> {
        self.prefetch_due(horizon, ctx.prog);
        match Mode::of(ctx) {
            Mode::GtoLazy => self.run_as::<true, true>(horizon, ctx),
            Mode::LrrLazy => self.run_as::<false, true>(horizon, ctx),
            Mode::Gto => self.run_as::<true, false>(horizon, ctx),
            Mode::Lrr => self.run_as::<false, false>(horizon, ctx),
        }
    }

    /// [`Self::run`] in one scheduling mode ([`Mode`]).
    fn run_as<const GTO: bool, const LAZY: bool>(
        &mut self,
        horizon: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), SimError> {
        while let Some(t) = self.next_event() {
            if t >= horizon || self.retire_at.is_some() {
                break;
            }
            // Lazy runs keep no counter samples.
            if !LAZY
                && ctx
                    .tracer
                    .next_sample_end(self.id)
                    .is_some_and(|end| t >= end)
            {
                let complete = self.charged_until(t);
                ctx.tracer.flush_samples(self.id, complete);
            }
            self.step::<GTO, LAZY>(t, ctx)?;
        }
        Ok(())
    }

    /// A load of this SM's warp completes at `done`: marks its registers
    /// and, if the warp was waiting for them, works out when it can go on.
    /// Returns whether the warp's schedule changed.
    fn land_load(&mut self, p: &Pending, done: u64, ctx: &mut Ctx<'_, '_>) -> bool {
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
    use super::Grid;

    #[test]
    fn split_quanta_alternate_so_two_in_a_row_span_q() {
        let grid = Grid {
            full: 301,
            half: 150,
            split: true,
        };
        let mut b = 0;
        let points: Vec<u64> = (0..5)
            .map(|_| {
                b = grid.after(b);
                b
            })
            .collect();
        assert_eq!(points, [150, 301, 451, 602, 752]);
        // From inside a quantum (a skip to the first event), the next point.
        assert_eq!(
            (grid.after(149), grid.after(150), grid.after(300)),
            (150, 301, 301)
        );
        let whole = Grid {
            split: false,
            ..grid
        };
        assert_eq!(
            (whole.after(0), whole.after(150), whole.after(301)),
            (301, 301, 602)
        );
    }
}
