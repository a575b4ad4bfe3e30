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
//! multiples of `Q`). On several host threads the SMs of a quantum run on
//! all of them, and at the boundary the memory partitions are timed on all
//! of them too, each thread a group of partitions ([`run_parallel`]); that
//! changes no result.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Mutex;

use crate::error::SimError;
use crate::global_mem::MemTiming;
use crate::ids::{BlockId, WarpAt, WarpId};
use crate::launch::{Ctx, Launch, Worker};
use crate::line_return::Arrivals;
use crate::memory::GlobalMem;
use crate::phases::Phase;
use crate::resolve::Batch;
use crate::scheduler::Mode;
use crate::scoreboard::pack;
use crate::sm::Sm;
use crate::stats::{KernelStats, StallReason};
use crate::store_log::StoreLog;
use crate::team::{Claims, Team, exclusive, into_inner, lock, take};
use crate::team_batch::{MAX_SPAN, TeamBatch};
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
    /// A load's L2 lines (0 for a store), which return one after another
    /// ([`crate::line_return`]).
    pub lines: u32,
    /// A load's wavefronts through the SM's L1 data stage as its data
    /// returns beyond what its issue charged ([`crate::lsu_pipe::Pipe::at_return`]).
    pub wavefronts: u8,
    /// The warp (slot and age, to tell a reused slot) and what it loads into.
    pub slot: u16,
    pub age: u64,
    pub pc: u32,
    /// A load that fetches into the SM's L1: its sequence number on its SM
    /// ([`crate::l1::NO_LOAD`]: none); the load fetching sectors it hits
    /// in L1 that had not landed when it issued (`NO_LOAD`: none); and the
    /// cycle its L1 hits are ready (0: none).
    pub seq: u64,
    pub after: u64,
    pub floor: u64,
    /// Cycles it waited for the SM's port to L2 ([`crate::l2_port`]): its
    /// data (a load) or its writes (a store) come that much later than
    /// the partitions, which see it from `start`, time them.
    pub delay: u64,
}

impl Pending {
    /// The earliest cycle a launch can end with this store's writes done:
    /// one past the cycle its port to L2 sent them. A launch ends no
    /// earlier than its last store's (`Share::list`, `Batch::gather`).
    #[inline]
    pub fn store_floor(&self) -> u64 {
        self.start + self.delay + 1
    }
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
        every: &[usize],
    ) {
        let n = sms.len() as u64;
        let total = l.total_blocks;
        let first_total = (u64::from(l.blocks_per_sm) * n).min(total);
        let mem: &GlobalMem = self.mem;
        on_team(team, workers, sms, self.logs, every, |sm, log, w, off| {
            sm.reset(l);
            let mut id = u64::from(sm.id);
            while id < first_total {
                let mut ctx = Ctx::new(l, true, mem, log, off, w);
                sm.start_block(0, id, &mut ctx);
                id += n;
            }
            None::<()>
        });
        self.next_block = first_total;
    }

    /// A boundary's memory work on a team of several members
    /// ([`TeamBatch`]): each member lists its own SMs' requests per group
    /// of partitions and writes a slice of the SMs' stores to memory; then
    /// each member times a group. The SMs keep their requests and land
    /// them as they start their next runs.
    fn memory_phase(
        &mut self,
        team: &Team,
        sms: &mut [Sm],
        tb: &mut TeamBatch,
        per_cycle: u64,
        stats: &mut KernelStats,
    ) {
        let requests = tb.begin(sms);
        let cuts = crate::store_log::cuts(self.logs, team.threads());
        if !requests && cuts.is_none() {
            self.apply_logs();
            return;
        }
        let slices = cuts
            .as_ref()
            .map(|c| exclusive(self.mem.slices(c).into_iter()));
        let map = self.timing.group_map();
        let (shares, span) = tb.shares();
        let mut rest = sms;
        let mut lists = Vec::new();
        for share in shares.iter_mut() {
            let (own, tail) = std::mem::take(&mut rest).split_at_mut(share.sms().len());
            rest = tail;
            lists.push((share, own));
        }
        let lists = exclusive(lists.into_iter().filter(|_| requests));
        let logs = &*self.logs;
        team.run(&|m| {
            if let Some(job) = lists.get(m) {
                let _listing = crate::phases::start(Phase::Listing);
                let (share, own) = take(job);
                share.list(own, span, map);
            }
            if let (Some(cuts), Some(slot)) = (&cuts, slices.as_ref().and_then(|s| s.get(m))) {
                let _slices = crate::phases::start(Phase::StoreSlices);
                crate::store_log::write_slice(logs, cuts, m, take(slot));
            }
        });
        drop((lists, slices));
        if requests {
            let stamp = self.timing.stamp(0);
            let (sectors, outs) = tb.bases(per_cycle as u32);
            let groups = exclusive(self.timing.groups().into_iter().zip(outs));
            team.run(&|m| {
                if let Some(job) = groups.get(m) {
                    let _timing = crate::phases::start(Phase::Timing);
                    let (mut g, out) = take(job);
                    sectors.time_group(&mut g, m, stamp, out);
                }
            });
            drop(groups);
            let stores = tb.finish(self.timing, stats);
            self.last_store_done = self.last_store_done.max(stores);
        }
        match cuts {
            Some(_) => self.logs.iter_mut().for_each(StoreLog::clear),
            None => self.apply_logs(),
        }
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
        self.batch.gather(sms);
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
        if l.cfg.loads_wait_for_stores != 0 {
            for (p, done) in self.batch.stores() {
                sms[p.sm as usize].drain.taken(p.start + p.delay, done.last);
            }
        }
        let stores = self.batch.finish(&mut worker.stats);
        self.last_store_done = self.last_store_done.max(stores);
    }
}

/// The quantum: the shortest global-memory latency (1 cycle in lockstep),
/// at most [`MAX_SPAN`] cycles, the most one batch of requests may span
/// ([`TeamBatch`] sorts a batch by issue cycle with a bucket per cycle).
/// Any quantum up to the latency is exact; the cap only matters for
/// latencies no GPU has.
fn quantum(l: &Launch<'_>, lockstep: bool) -> u64 {
    if lockstep {
        1
    } else {
        u64::from(l.cfg.l2_latency_cycles.min(l.cfg.dram_latency_cycles)).clamp(1, MAX_SPAN)
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
            if sms.iter().all(|sm| sm.requests.is_empty()) && next.is_none() {
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
        sm.run(boundary.min(limit.0.saturating_add(1)), &mut ctx)?;
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

/// Runs every SM until the grid is done, quantum by quantum (`Q`, the
/// shortest global-memory latency), on the team's members; returns the
/// cycle after the last warp exit. Per quantum:
/// 1. every SM lands its loads timed at the last boundary, then runs up
///    to the boundary or its first block retirement, the members at once
///    (each takes its own SMs first, [`Claims`]);
/// 2. the freed block slots take the next blocks of the grid in (cycle,
///    SM) order, and their SMs run on to the boundary or their next
///    retirement, in rounds ([`start_retired`]);
/// 3. with one member, the quantum's global requests are gathered, put in
///    cycle-by-cycle order and timed through the memory partitions
///    ([`Batch`]), and the loads land at once. With several, each member
///    lists its own SMs' requests per group of partitions in that order
///    and writes a slice of the SMs' store logs to memory; then each
///    member times a group ([`TeamBatch`], [`MemTiming::groups`]).
///
/// With several members, loads land at the start of their SM's next run,
/// which is exact:
/// a load issued before the boundary `B` completes at or after `B`, and
/// nothing of its SM runs between. Before a skip over idle quanta, or the
/// end, every SM lands them at once instead, so the skip sees every SM's
/// schedule.
///
/// The results are those of [`run_ordered`] for any number of members:
/// within a quantum an SM reads and writes nothing another SM can see
/// (stores wait in its log, requests in its own list), blocks start in
/// the same order, and each partition sees its sectors in the same order.
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
    // Every SM's index, for the jobs that run them all.
    let every: Vec<usize> = (0..sms.len()).collect();
    let first_blocks = crate::phases::start(Phase::FirstBlocks);
    sh.dispatch_first_parallel(sms, l, workers, team, &every);
    first_blocks.stop();
    crate::interrupt::publish(0, sh.next_block);
    let q = quantum(l, false);
    let per_cycle = u64::from(l.cfg.lsu_sectors_per_cycle);
    let bounds = crate::lookahead::finish_bounds(l.prog, l.cfg);
    let mut boundary = q;
    // The requests of the last boundary, timed by the team, which each SM
    // lands as it starts its next run (with several members).
    let starts: Vec<usize> = (0..=members).map(|m| sms.len() * m / members).collect();
    let mut tb = TeamBatch::new(&starts);
    let mut mem_stats = KernelStats::default();
    let mut prev_end = 0;
    loop {
        // Every SM has made its passes before `start`.
        let start = prev_end;
        prev_end = boundary;
        let horizon = boundary.min(limit.0.saturating_add(1));
        let left = sh.next_block < l.total_blocks;
        let mem: &GlobalMem = sh.mem;
        let landing = &tb;
        // One SM's run to the boundary; its error ranked by where a
        // pass-by-pass scheduler would place the SM.
        let run_one = |sm: &mut Sm,
                       log: &mut StoreLog,
                       w: &mut Worker,
                       tracer: &mut Tracer<'_>|
         -> Option<(u64, u32, SimError)> {
            if landing.timed() {
                let mut ctx = Ctx::new(l, false, mem, log, tracer, w);
                landing.land(sm, |sm, p, done| {
                    sm.land_load(p, done, &mut ctx);
                });
            }
            let k = sm.next_event()?;
            if sm.retire_at.is_some() || k >= boundary || k > limit.0 {
                return None;
            }
            // The passes `run` skips would not change what it does.
            let k = sm.rank_key(start).unwrap_or(k);
            let mut ctx = Ctx::new(l, left, mem, log, tracer, w);
            let e = sm.run(horizon, &mut ctx).err()?;
            Some((k, sm.id, e))
        };
        let runs = crate::phases::start(Phase::SmRuns);
        let first = on_team(team, workers, sms, sh.logs, &every, |sm, log, w, tracer| {
            run_one(sm, log, w, tracer)
        });
        runs.stop();
        // Every SM landed its loads first thing.
        tb.landed();
        // The error of the SM that would have run first.
        if let Some((_, _, e)) = first.into_iter().min_by_key(|e| (e.0, e.1)) {
            return Err(e);
        }
        let starts = crate::phases::start(Phase::BlockStarts);
        start_retired(l, sms, sh, workers, team, &bounds, boundary, horizon, limit)?;
        starts.stop();
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
        let memory = crate::phases::start(Phase::Memory);
        if members == 1 {
            // Nothing to spread: the loads land here, in timing order.
            sh.boundary(sms, l, &mut off, workers, |_| {});
        } else {
            sh.memory_phase(team, sms, &mut tb, per_cycle, &mut mem_stats);
        }
        memory.stop();
        let mut low = sms.iter().filter_map(Sm::key).min();
        if tb.timed() && low.is_none_or(|k| k >= boundary + q) {
            // A skip, or the end: every SM's schedule must be known.
            let _skip = crate::phases::start(Phase::SkipLanding);
            let landing = &tb;
            let mem: &GlobalMem = sh.mem;
            on_team(team, workers, sms, sh.logs, &every, |sm, log, w, tracer| {
                let mut ctx = Ctx::new(l, false, mem, log, tracer, w);
                landing.land(sm, |sm, p, done| {
                    sm.land_load(p, done, &mut ctx);
                });
                None::<()>
            });
            tb.landed();
            low = sms.iter().filter_map(Sm::key).min();
        }
        if low.is_none() {
            break;
        }
        crate::interrupt::publish(boundary, sh.next_block);
        if crate::interrupt::stop_requested() {
            return Err(SimError::Interrupted {
                kernel: l.kernel.kernel().name.clone(),
                cycle: Cycle(boundary),
            });
        }
        boundary = next_boundary(low, boundary, q);
    }
    workers[0].stats.add_part(&mem_stats);
    finish(l, sms, sh, workers)
}

/// Runs `run(sm, log, worker, tracer)` for the SMs `which` (ascending
/// indices), on the team's members when there are several SMs (each
/// member its own worker), on this thread otherwise; returns what the
/// runs returned.
fn on_team<T: Send>(
    team: &Team,
    workers: &mut [Worker],
    sms: &mut [Sm],
    logs: &mut [StoreLog],
    which: &[usize],
    run: impl Fn(&mut Sm, &mut StoreLog, &mut Worker, &mut Tracer<'_>) -> Option<T> + Sync,
) -> Vec<T> {
    let mut tracer = Tracer::new(None);
    if which.len() == 1 || team.threads() == 1 {
        let w = &mut workers[0];
        return which
            .iter()
            .filter_map(|&i| run(&mut sms[i], &mut logs[i], w, &mut tracer))
            .collect();
    }
    let mut wanted = which.iter().peekable();
    let items = exclusive(
        sms.iter_mut()
            .zip(logs.iter_mut())
            .enumerate()
            .filter(|(i, _)| wanted.next_if_eq(&i).is_some())
            .map(|(_, x)| x),
    );
    let own: Vec<Mutex<&mut Worker>> = workers.iter_mut().map(Mutex::new).collect();
    let out: Vec<Mutex<Vec<T>>> = own.iter().map(|_| Mutex::default()).collect();
    let claims = Claims::even(items.len(), own.len());
    team.run(&|m| {
        let mut w = lock(&own[m]);
        let mut tracer = Tracer::new(None);
        let mut got = Vec::new();
        while let Some(i) = claims.next(m) {
            let (sm, log) = take(&items[i]);
            got.extend(run(sm, log, &mut w, &mut tracer));
        }
        *lock(&out[m]) = got;
    });
    out.into_iter().flat_map(into_inner).collect()
}

/// Step 2 of a quantum ([`run_parallel`]): the SMs whose runs stopped at
/// a block retirement before the boundary take the next blocks of the
/// grid, in (cycle, SM) order, and run on to the boundary or their next
/// retirement, until none is left.
///
/// A block start is final only once no SM can retire a block before it
/// any more, since such a retirement takes the earlier block. The SMs
/// that have not retired are at the boundary, and those waiting to start
/// their blocks cannot run before they do; so the earliest retirement can
/// start its blocks, and each following one too while every SM started
/// so far provably retires nothing earlier ([`Sm::retire_bound`]). Those
/// SMs then run at once, on the team's members when there are several;
/// their next retirements join the queue. The blocks start where the
/// one-SM-at-a-time order starts them, and each SM runs exactly as it
/// would there.
#[allow(clippy::too_many_arguments)]
fn start_retired(
    l: &Launch<'_>,
    sms: &mut [Sm],
    sh: &mut Shared<'_>,
    workers: &mut [Worker],
    team: &Team,
    bounds: &[u64],
    boundary: u64,
    horizon: u64,
    limit: Cycle,
) -> Result<(), SimError> {
    let mut off = Tracer::new(None);
    let stops = |sm: &Sm| {
        let r = sm.retire_at?;
        (r < boundary && r <= limit.0).then_some(Reverse((r, sm.id)))
    };
    let mut retired: BinaryHeap<Reverse<(u64, u32)>> = sms.iter().filter_map(stops).collect();
    // Per SM, its bound when it last started blocks (checked in tests).
    let mut lbs = vec![0u64; sms.len()];
    // Per SM, whether blocks were left after its start, and the
    // retirement that started it: the key of its error.
    let (mut round, mut left_of) = (Vec::new(), vec![(false, 0); sms.len()]);
    while !retired.is_empty() {
        round.clear();
        // The least (retirement, SM) an SM started in this round could
        // reach next.
        let mut bound = (u64::MAX, u32::MAX);
        while let Some(&Reverse((r, i))) = retired.peek() {
            // On one thread a round of one SM is the one-by-one order.
            if !round.is_empty() && (bound <= (r, i) || team.threads() == 1) {
                break;
            }
            retired.pop();
            let sm = &mut sms[i as usize];
            sm.retire_at = None;
            sh.dispatch(sm, r, l, &mut off, &mut workers[0]);
            left_of[i as usize] = (sh.next_block < l.total_blocks, r);
            if team.threads() > 1 {
                let lb = sm.retire_bound(bounds);
                lbs[i as usize] = lb;
                bound = bound.min((lb, i));
            }
            round.push(i as usize);
        }
        round.sort_unstable();
        let mem: &GlobalMem = sh.mem;
        let left_of = &left_of;
        // The error of the SM that would have run first.
        let failed = on_team(team, workers, sms, sh.logs, &round, |sm, log, w, tracer| {
            let (left, r) = left_of[sm.id as usize];
            let mut ctx = Ctx::new(l, left, mem, log, tracer, w);
            sm.run(horizon, &mut ctx).err().map(|e| (r, sm.id, e))
        });
        if let Some((_, _, e)) = failed.into_iter().min_by_key(|e| (e.0, e.1)) {
            return Err(e);
        }
        if cfg!(debug_assertions) {
            for &i in &round {
                let r = sms[i].retire_at.unwrap_or(u64::MAX);
                debug_assert!(
                    r >= lbs[i],
                    "SM {i} retired at {r}, before its bound {}",
                    lbs[i]
                );
            }
        }
        retired.extend(round.iter().filter_map(|&i| stops(&sms[i])));
    }
    Ok(())
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
    fn land_load(&mut self, p: &Pending, seen: Arrivals, ctx: &mut Ctx<'_, '_>) -> bool {
        let seen = seen.later(p.delay);
        let per_line = ctx.cfg.load_line_cycles;
        let alone = seen.complete(p.lines, per_line).max(p.floor);
        let w = &mut self.warps[p.slot as usize];
        // Whether the warp that issued it is still there to take its data.
        let waiting = w.state != State::Free && w.age == p.age;
        // A scattered load's lines return after those of the warp's
        // scattered loads in flight with it
        // ([`crate::line_return::WarpLines`]).
        let mut done = if waiting {
            (w.lines).join(&seen, (p.n, p.lines), alone, per_line, ctx.cfg.warp_size)
        } else {
            alone
        };
        if p.after != crate::l1::NO_LOAD {
            // Its L1 hits come with the load fetching them, landed before
            // it (the same SM's, issued earlier), and their data pass the
            // data stage once that fetch is complete: in the order loads
            // land, as the stage serves them ([`Sm::data_stage`]), not
            // from this load's issue. ncu on the ts64k `step`
            // (`hw/data/h200/ncu/ts64k_head_step_tail_full.csv`) counts 32
            // data-stage wavefronts for every one of its 128 loads an SM,
            // the half that hit the sectors the other half fetch included.
            // Booked from their issue, those passed while the stage waited
            // for L2: the step ran 7-12% fast and `xb_l_p` of
            // `hw/calib/suite_xbar.txt` (these loads alone) 3.9%, now 1.3%
            // (docs/calibration.md, "GPUTeraSort"). Booked from the fetch's
            // first data instead, the stage never idles behind the fetch
            // and nothing moved.
            done = done.max(self.load_done(p.after).unwrap_or(0));
        }
        // The SM takes its sectors from L2 one after another
        // ([`crate::l1_fill`]).
        let done = done.max(self.fill.take(seen.first, p.n));
        let done = self.data_stage(done, &seen, p.wavefronts);
        if p.seq != crate::l1::NO_LOAD {
            self.landed[p.seq as usize % crate::sm::LANDED] = (p.seq, done);
        }
        if !waiting {
            return false; // the warp exited without waiting for its load
        }
        let w = &mut self.warps[p.slot as usize];
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
    use super::next_boundary;

    #[test]
    fn boundaries_are_multiples_of_q_after_the_next_event() {
        assert_eq!(next_boundary(Some(10), 300, 300), 600, "no skip");
        assert_eq!(next_boundary(Some(1000), 300, 300), 1200, "a skip");
        assert_eq!(next_boundary(None, 300, 300), 600);
    }
}
