//! A sub-partition: its warp scheduler and its issue-side queues.
//!
//! Each sub-partition issues at most one warp instruction per cycle from its
//! warps ([`crate::SchedulerPolicy`] decides which eligible warp). Its ALU
//! accepts a new warp instruction when the previous one has passed
//! (`alu_free_at`); its MIO and LSU queues hold the instructions that were
//! issued but have not started in the SM's shared-memory pipe or LSU.

use crate::config::SchedulerPolicy;
use crate::decode::Pipe;
use crate::error::SimError;
use crate::launch::Ctx;
use crate::sm::Sm;
use crate::stats::StallReason;

/// A FIFO of the start cycles of the last `depth` queued instructions: the
/// queue is full while the oldest of them has not started.
#[derive(Clone, Debug)]
pub(crate) struct Queue {
    starts: Vec<u64>,
    head: usize,
    /// `starts[head]`, kept beside the sub-partition's other fields: every
    /// scheduling pass reads it, and the FIFO is its own allocation, a
    /// host cache miss when the SM's run starts.
    oldest: u64,
}

impl Queue {
    pub fn new(depth: u32) -> Queue {
        Queue {
            starts: vec![0; depth as usize],
            head: 0,
            oldest: 0,
        }
    }

    /// The start cycle of the oldest of the last `depth` instructions: the
    /// queue is full before it.
    #[inline]
    pub fn oldest(&self) -> u64 {
        self.oldest
    }

    /// Records an instruction that starts at `start`.
    #[inline]
    pub fn push(&mut self, start: u64) {
        self.starts[self.head] = start;
        self.head += 1;
        if self.head == self.starts.len() {
            self.head = 0;
        }
        self.oldest = self.starts[self.head];
    }

    pub fn clear(&mut self) {
        self.starts.iter_mut().for_each(|s| *s = 0);
        self.head = 0;
        self.oldest = 0;
    }
}

/// One sub-partition of an SM.
#[derive(Clone, Debug)]
pub(crate) struct SubPartition {
    /// The next cycle it can issue (a `cmpx` takes two issue slots).
    pub issue_free_at: u64,
    /// The next cycle its ALU accepts an instruction.
    pub alu_free_at: u64,
    pub mio: Queue,
    pub lsu: Queue,
    /// Age of the warp that issued last (`u64::MAX`: none yet).
    pub last_age: u64,
    /// The first scheduling pass after the last issue (`u64::MAX`: none
    /// due yet), as a pass-by-pass scheduler would hold it: a warp whose
    /// time came at `r` was first looked at in the pass at `max(r,
    /// first_pass)`, so that is where its throttle charge begins even when
    /// the passes that found nothing to issue were skipped (`pass_lazy`).
    pub first_pass: u64,
}

impl SubPartition {
    pub fn new(mio_depth: u32, lsu_depth: u32) -> SubPartition {
        SubPartition {
            issue_free_at: 0,
            alu_free_at: 0,
            mio: Queue::new(mio_depth),
            lsu: Queue::new(lsu_depth),
            last_age: u64::MAX,
            first_pass: u64::MAX,
        }
    }

    pub fn reset(&mut self) {
        self.issue_free_at = 0;
        self.alu_free_at = 0;
        self.mio.clear();
        self.lsu.clear();
        self.last_age = u64::MAX;
        self.first_pass = u64::MAX;
    }
}

/// How an SM's run schedules: the policy, and whether stalls are charged
/// lazily. Untraced runs charge `not_selected` lazily (see
/// [`Sm::pass_lazy`]); traced and sampled ones report each stall when it
/// starts, so they charge it pass by pass.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    GtoLazy,
    LrrLazy,
    Gto,
    Lrr,
}

impl Mode {
    /// The mode of a run under `ctx`.
    pub fn of(ctx: &Ctx<'_, '_>) -> Mode {
        let lazy = !ctx.tracer.on() && !ctx.tracer.sampling();
        match (ctx.cfg.scheduler, lazy) {
            (SchedulerPolicy::Gto, true) => Mode::GtoLazy,
            (SchedulerPolicy::Lrr, true) => Mode::LrrLazy,
            (SchedulerPolicy::Gto, false) => Mode::Gto,
            (SchedulerPolicy::Lrr, false) => Mode::Lrr,
        }
    }
}

/// The `ready` cycle of a warp that cannot issue until something wakes it
/// (no warp, at a barrier, waiting for a load's timing): the largest
/// signed value, so the scans below compare `ready` cycles as `i64`, which
/// the host's vector units do in half the instructions of an unsigned
/// comparison (every real cycle is far below 2^63). What the scans return
/// maps it back to `u64::MAX`, the sentinel of `next_at` and `first_pass`.
pub(crate) const NEVER: u64 = i64::MAX as u64;

/// The throttle classes an instruction's pipe falls in: its index in a
/// pass's `busy` array (shuffles and shared accesses share the MIO queue).
#[inline]
pub(crate) const fn throttle_class(pipe: Pipe) -> u8 {
    match pipe {
        Pipe::Alu => 0,
        Pipe::Shfl | Pipe::Smem => 1,
        Pipe::Lsu => 2,
        Pipe::Ctrl => 3,
    }
}

/// The stall reason of a warp whose throttle class is busy.
const THROTTLE: [StallReason; 4] = [
    StallReason::MathPipeThrottle,
    StallReason::MioThrottle,
    StallReason::LgThrottle,
    StallReason::Selected, // never: control instructions are not throttled
];

/// Collects the eligible warps of one scheduling pass (in any order) and
/// picks one by policy and age. `GTO` is the policy (greedy-then-oldest,
/// else loose round robin), a constant so a pass has no policy branches.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Pick<const GTO: bool> {
    /// The oldest eligible warp: (age, slot).
    oldest: (u64, u16),
    /// The oldest eligible warp younger than the last one issued (`Lrr`).
    after_last: (u64, u16),
    /// The last warp issued, if eligible (`Gto`).
    last: Option<u16>,
}

impl<const GTO: bool> Pick<GTO> {
    /// An empty pick.
    pub fn new() -> Pick<GTO> {
        Pick {
            oldest: (u64::MAX, 0),
            after_last: (u64::MAX, 0),
            last: None,
        }
    }

    /// Notes an eligible warp.
    #[inline]
    pub fn offer(&mut self, slot: u16, age: u64, last_age: u64) {
        if age < self.oldest.0 {
            self.oldest = (age, slot);
        }
        if GTO {
            if age == last_age {
                self.last = Some(slot);
            }
        } else if age >= last_age.wrapping_add(1) && age < self.after_last.0 {
            // Younger than the last one issued (any age when none was):
            // `last_age + 1` wraps to 0 for `u64::MAX`.
            self.after_last = (age, slot);
        }
    }

    /// The warp to issue.
    pub fn choose(&self) -> Option<u16> {
        let found = |(age, slot): (u64, u16)| (age != u64::MAX).then_some(slot);
        if GTO {
            self.last.or(found(self.oldest))
        } else {
            found(self.after_last).or(found(self.oldest))
        }
    }
}

impl Sm {
    /// Where the warp in `slot` sits in the sub-partition-major hot arrays.
    #[inline]
    pub(crate) fn hot(&self, slot: u16) -> usize {
        self.hot_of[slot as usize].0 as usize
    }

    /// Sets when the warp in `slot` may issue next (`u64::MAX`: not until
    /// something wakes it; stored as [`NEVER`]).
    #[inline]
    pub(crate) fn set_ready(&mut self, slot: u16, ready: u64) {
        let h = self.hot(slot);
        let ready = ready.min(NEVER);
        self.ready[h] = ready;
        if ready != NEVER {
            let i = self.hot_of[slot as usize].1 as usize;
            let sp = &mut self.sps[i];
            let at = ready.max(sp.issue_free_at);
            sp.first_pass = sp.first_pass.min(at);
            self.next_at[i] = self.next_at[i].min(at);
        }
    }

    /// Per throttle class, until when sub-partition `sp`'s pipe refuses
    /// instructions: busy at `t` exactly when the entry is above `t`.
    #[inline]
    pub(crate) fn busy(&self, sp: usize) -> [u64; 4] {
        let s = &self.sps[sp];
        [s.alu_free_at, s.mio.oldest(), s.lsu.oldest(), 0]
    }

    /// One scheduling pass of sub-partition `sp` at cycle `t`: the warps
    /// whose time has come are charged for any cycles they waited unpicked
    /// (`not_selected`) or find their pipe busy (its throttle reason, until
    /// it frees); the policy picks one of the rest by age.
    ///
    /// `GTO` is the policy and `LAZY` whether the run is untraced and
    /// unsampled (see [`Mode`]): both are fixed for a run, so the SM's
    /// loop is built once per mode and a pass has no mode branches.
    #[inline(always)]
    pub(crate) fn schedule<const GTO: bool, const LAZY: bool>(
        &mut self,
        sp: usize,
        t: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), SimError> {
        if LAZY {
            // `pass_lazy` and `set_ready` never set `next_at` before the
            // issue slot frees.
            debug_assert!(self.sps[sp].issue_free_at <= t, "a pass while issuing");
        } else if self.sps[sp].issue_free_at > t {
            self.update_next(sp, t);
            return Ok(());
        }
        if LAZY {
            self.pass_lazy::<GTO>(sp, t, ctx)
        } else {
            self.pass::<GTO>(sp, t, ctx)
        }
    }

    /// [`Self::pass`] with the `not_selected` cycles charged lazily: an
    /// eligible warp that is not picked keeps its `ready` cycle (the first
    /// cycle not yet charged) and is charged `not_selected` up to the pass
    /// that issues it or finds its pipe busy, in one charge instead of one
    /// per pass. The charges and every later decision are those of
    /// [`Self::pass`]: the next pass comes at the cycle the scheduler can
    /// issue again (as there, where the waiting warps are ready then), and
    /// nothing changes the sub-partition's pipes before it, so a warp whose
    /// pipe is busy there is charged `not_selected`, then the throttle,
    /// exactly as [`Self::pass`] charges it. Without a trace nothing can
    /// see the difference in between (counter samples need `ready` to be
    /// the charged cycle at every pass, so sampled runs use [`Self::pass`]).
    ///
    /// **Passes that would issue nothing are skipped.** Only an issue here
    /// changes this sub-partition's pipes, so until the next one a warp can
    /// issue no earlier than both its `ready` cycle and the cycle its pipe
    /// frees; the next pass comes at the earliest of those (see
    /// [`Self::next_eligible`]). A pass-by-pass scheduler would have found
    /// a warp whose pipe was busy in the first pass at or after its
    /// `ready` cycle, `max(ready, first_pass)`, and charged it
    /// `not_selected` until then and the throttle from then until the pipe
    /// frees: the pass that finally looks at it charges exactly that.
    ///
    /// Lazy runs keep no counter samples, so the charges go to the
    /// kernel's and the instructions' totals only.
    fn pass_lazy<const GTO: bool>(
        &mut self,
        sp: usize,
        t: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), SimError> {
        let nsp = self.sps.len();
        let base = sp * self.per_sp;
        let mut pick = Pick::<GTO>::new();
        let last_age = self.sps[sp].last_age;
        let first_pass = self.sps[sp].first_pass;
        debug_assert!(first_pass <= t, "a pass before the first one due");
        let busy = self.busy(sp);
        let len = self.scan_len[sp];
        let mut chunk = 0;
        while chunk < len {
            let end = (chunk + 64).min(len);
            let mut due = due_mask(&self.ready[base + chunk..base + end], t);
            let at = base + chunk;
            chunk = end;
            while due != 0 {
                let h = at + due.trailing_zeros() as usize;
                due &= due - 1;
                let class = self.pipes[h] as usize & 3;
                let until = busy[class];
                let ready = self.ready[h];
                // The pass that first looked at it.
                let seen = ready.max(first_pass);
                if until > seen {
                    let pc = self.pcs[h];
                    if ready < seen {
                        let n = seen - ready;
                        ctx.stats.charge(pc, StallReason::NotSelected, n);
                    }
                    ctx.stats.charge(pc, THROTTLE[class], until - seen);
                    self.ready[h] = until;
                    if until > t {
                        continue;
                    }
                }
                let slot = ((h - base) * nsp + sp) as u16;
                pick.offer(slot, self.ages[h], last_age);
            }
        }
        if let Some(chosen) = pick.choose() {
            let h = self.hot(chosen);
            let ready = self.ready[h];
            if ready < t {
                let pc = self.pcs[h];
                ctx.stats.charge(pc, StallReason::NotSelected, t - ready);
            }
            self.sps[sp].last_age = self.ages[h];
            self.issue(sp, chosen, t, ctx)?;
            let (first, next) = self.next_eligible(sp);
            // The pass a pass-by-pass scheduler would make next.
            let s = &mut self.sps[sp];
            s.first_pass = if first == u64::MAX {
                first
            } else {
                first.max(t + 1).max(s.issue_free_at)
            };
            self.set_next(sp, t, next);
        } else {
            let (_, next) = self.next_eligible(sp);
            self.set_next(sp, t, next);
        }
        Ok(())
    }

    /// Of sub-partition `sp`'s warps, the earliest `ready` cycle and the
    /// earliest cycle one could issue if nothing issued before: its
    /// `ready` cycle or, if later, the cycle its pipe frees.
    #[inline(always)]
    fn next_eligible(&self, sp: usize) -> (u64, u64) {
        let base = sp * self.per_sp;
        let len = self.scan_len[sp];
        let [alu, mio, lsu, _] = self.busy(sp);
        let ready = &self.ready[base..base + len];
        let sels = &self.sels[base..base + len];
        // Signed: see `NEVER`.
        let (alu, mio, lsu) = (alu as i64, mio as i64, lsu as i64);
        let (mut first, mut next) = (NEVER as i64, NEVER as i64);
        // Selects on the class's bits (`Sm::sels`) instead of a `match`: a
        // `match` here compiled to a chain of jumps that mispredicted (a
        // fifth of `Sm::run`'s samples), and masks per class cost three
        // vector operations each; sign-bit selects vectorise to blends.
        for (&r, &s) in ready.iter().zip(sels) {
            let (r, s) = (r as i64, s as i64);
            let (low, high) = ((s << 1) < 0, s < 0);
            let alu_or_mio = if low { mio } else { alu };
            let lsu_or_none = if low { 0 } else { lsu };
            let until = if high { lsu_or_none } else { alu_or_mio };
            first = first.min(r);
            next = next.min(r.max(until));
        }
        let real = |c: i64| {
            if c == NEVER as i64 {
                u64::MAX
            } else {
                c as u64
            }
        };
        (real(first), real(next))
    }

    /// The cycle a pass-by-pass scheduler ([`Self::pass`]) would next
    /// need this SM, all passes before `b` done: the key that ranks the
    /// errors of SMs that ran in one quantum (see
    /// [`crate::engine::run_parallel`]). It differs from
    /// [`Self::next_event`] only where `pass_lazy` skips passes that issue
    /// nothing: such a pass would have been the next event, or moved a
    /// warp's wait to the cycle its pipe frees.
    pub(crate) fn rank_key(&self, b: u64) -> Option<u64> {
        let mut key = u64::MAX;
        for (sp, s) in self.sps.iter().enumerate() {
            let base = sp * self.per_sp;
            let [alu, mio, lsu, _] = self.busy(sp);
            let len = self.scan_len[sp];
            let ready = &self.ready[base..base + len];
            let pipes = &self.pipes[base..base + len];
            let mut next = u64::MAX;
            // Branch-free, so it vectorises: a free slot (`NEVER`) is
            // never seen before `b` and stays `NEVER`.
            for (&ready, &p) in ready.iter().zip(pipes) {
                let until = match p {
                    0 => alu,
                    1 => mio,
                    2 => lsu,
                    _ => 0,
                };
                let seen = ready.max(s.first_pass);
                next = next.min(if seen < b && until > seen {
                    until
                } else {
                    ready
                });
            }
            if next < NEVER {
                key = key.min(next.max(s.issue_free_at));
            }
        }
        (key != u64::MAX).then_some(key)
    }

    /// [`Self::schedule`] for one policy.
    ///
    /// The sub-partition's ready cycles, pcs, throttle classes and ages are
    /// contiguous arrays, so a pass over 16 warps is a short scan that
    /// mostly compares numbers.
    fn pass<const GTO: bool>(
        &mut self,
        sp: usize,
        t: u64,
        ctx: &mut Ctx<'_, '_>,
    ) -> Result<(), SimError> {
        let nsp = self.sps.len();
        let base = sp * self.per_sp;
        let mut pick = Pick::<GTO>::new();
        let last_age = self.sps[sp].last_age;
        let mut eligible = std::mem::take(&mut self.eligible);
        eligible.clear();
        let busy = self.busy(sp);
        // The earliest any warp but the eligible ones can go next.
        let mut next = u64::MAX;
        // Per chunk of 64 warps: a branch-light pass finds the warps whose
        // time has come, then only those are looked at, in order.
        let len = self.scan_len[sp];
        for chunk in (0..len).step_by(64) {
            let end = (chunk + 64).min(len);
            let mut due = due_mask_next(&self.ready[base + chunk..base + end], t, &mut next);
            while due != 0 {
                let h = base + chunk + due.trailing_zeros() as usize;
                due &= due - 1;
                let ready = self.ready[h];
                let pc = self.pcs[h];
                let slot = ((h - base) * nsp + sp) as u16;
                if ready < t {
                    ctx.charge(self.id, pc, StallReason::NotSelected, ready, t - ready);
                    self.ready[h] = t;
                    if ctx.tracer.on() {
                        let n = t - ready;
                        ctx.tracer
                            .stall(ready, self, slot, pc, StallReason::NotSelected, n);
                    }
                }
                let class = self.pipes[h] as usize;
                let until = busy[class];
                if until > t {
                    let reason = THROTTLE[class];
                    ctx.charge(self.id, pc, reason, t, until - t);
                    self.ready[h] = until;
                    next = next.min(until);
                    if ctx.tracer.on() {
                        ctx.tracer.stall(t, self, slot, pc, reason, until - t);
                    }
                    continue;
                }
                pick.offer(slot, self.ages[h], last_age);
                eligible.push(slot);
            }
        }
        if let Some(chosen) = pick.choose() {
            let h = self.hot(chosen);
            self.sps[sp].last_age = self.ages[h];
            // Whatever the issue wakes lowers `next_at` through `set_ready`.
            self.next_at[sp] = u64::MAX;
            self.issue(sp, chosen, t, ctx)?;
            next = next.min(self.next_at[sp]).min(self.ready[h]);
            // The others were not selected until the scheduler can issue
            // again, and then wait for their pipe if the issue made it busy:
            // charged now, exactly as passes at those cycles would.
            let free = self.sps[sp].issue_free_at.max(t + 1);
            let busy = self.busy(sp);
            let mut others = 0;
            for &slot in &eligible {
                if slot == chosen {
                    continue;
                }
                others += 1;
                let h = self.hot(slot);
                let pc = self.pcs[h];
                ctx.charge_pc(pc, StallReason::NotSelected, free - t);
                let class = self.pipes[h] as usize;
                let until = busy[class];
                let ready = if until > free {
                    ctx.charge(self.id, pc, THROTTLE[class], free, until - free);
                    until
                } else {
                    free
                };
                self.ready[h] = ready;
                next = next.min(ready);
                if ctx.tracer.on() {
                    let reason = StallReason::NotSelected;
                    ctx.tracer.stall(t, self, slot, pc, reason, free - t);
                    if until > free {
                        let n = until - free;
                        ctx.tracer.stall(free, self, slot, pc, THROTTLE[class], n);
                    }
                }
            }
            ctx.charge_all(self.id, StallReason::NotSelected, t, free - t, others);
        }
        self.eligible = eligible;
        self.set_next(sp, t, next);
        Ok(())
    }

    /// Recomputes when sub-partition `sp` next has something to do.
    pub(crate) fn update_next(&mut self, sp: usize, t: u64) {
        let base = sp * self.per_sp;
        let next = self.ready[base..base + self.scan_len[sp]]
            .iter()
            .copied()
            .min()
            .unwrap_or(u64::MAX);
        self.set_next(sp, t, next);
    }

    /// Sets when sub-partition `sp` next has something to do: at `next`,
    /// the earliest ready cycle of its warps (`u64::MAX` or [`NEVER`]: nothing), but not
    /// before the cycle after `t` nor before its issue slot is free.
    #[inline(always)]
    fn set_next(&mut self, sp: usize, t: u64, next: u64) {
        let s = &self.sps[sp];
        self.next_at[sp] = if next >= NEVER {
            u64::MAX
        } else {
            next.max(t + 1).max(s.issue_free_at)
        };
    }
}

/// The warps of `ready` (at most 64) whose time has come by cycle `t`, as
/// a bit mask. A branch-light scan, so that a pass only looks at the due
/// warps.
#[inline(always)]
fn due_mask(ready: &[u64], t: u64) -> u64 {
    let mut due = 0u64;
    // Signed: see `NEVER`.
    let t = t as i64;
    for (i, &r) in ready.iter().enumerate() {
        due |= u64::from(r as i64 <= t) << i;
    }
    due
}

/// [`due_mask`], and `next` becomes the earliest ready cycle of the
/// others.
#[inline(always)]
fn due_mask_next(ready: &[u64], t: u64, next: &mut u64) -> u64 {
    let mut due = 0u64;
    for (i, &r) in ready.iter().enumerate() {
        if r > t {
            *next = (*next).min(r);
        } else {
            due |= 1 << i;
        }
    }
    due
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_is_full_until_its_oldest_entry_starts() {
        let mut q = Queue::new(2);
        assert_eq!(q.oldest(), 0, "free at once");
        q.push(5);
        q.push(7);
        assert_eq!(q.oldest(), 5, "full before 5");
        q.push(9);
        assert_eq!(q.oldest(), 7);
    }

    #[test]
    fn gto_stays_greedy_and_lrr_moves_on() {
        fn pick<const GTO: bool>(warps: &[(u16, u64)], last_age: u64) -> Option<u16> {
            let mut p = Pick::<GTO>::new();
            for &(slot, age) in warps {
                p.offer(slot, age, last_age);
            }
            p.choose()
        }
        let offer = |policy, warps: &[(u16, u64)], last_age| match policy {
            SchedulerPolicy::Gto => pick::<true>(warps, last_age),
            SchedulerPolicy::Lrr => pick::<false>(warps, last_age),
        };
        let warps = [(4, 10), (1, 11), (6, 12)];
        assert_eq!(offer(SchedulerPolicy::Gto, &warps, 11), Some(1));
        assert_eq!(offer(SchedulerPolicy::Lrr, &warps, 11), Some(6));
        let warps = [(1, 11), (4, 10)];
        assert_eq!(
            offer(SchedulerPolicy::Gto, &warps, 12),
            Some(4),
            "last not eligible: oldest"
        );
        assert_eq!(
            offer(SchedulerPolicy::Lrr, &warps, 12),
            Some(4),
            "wraps around"
        );
        assert_eq!(
            offer(SchedulerPolicy::Lrr, &warps, u64::MAX),
            Some(4),
            "none issued yet"
        );
        assert_eq!(offer(SchedulerPolicy::Gto, &[], 3), None);
    }
}
