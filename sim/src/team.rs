//! A fixed team of host threads that runs one job on every member at once,
//! the calling thread being member 0: the fork-join of each quantum
//! ([`crate::engine::run_parallel`]).
//!
//! **Why not rayon's `install`.** The quantum loop forks and joins about
//! 1,300 times in a 1M-key sort. `install` from the loop's own thread hands
//! the work to the pool and parks that thread until it is done: two thread
//! wake-ups per quantum (about 2,600 voluntary context switches per run),
//! each a pause of tens of microseconds on a virtual machine, and the
//! calling thread's core idles while the pool works. A team member instead
//! spins for a short while between jobs (the serial work between two
//! quanta is shorter than that) and only then parks, and the calling
//! thread does a member's share of every job.
//!
//! A job gets the member's index, so work can be placed: each member first
//! takes its own SMs ([`Claims`]), and only takes others' when it runs out,
//! so an SM's state mostly stays in one host core's caches from one
//! quantum to the next.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long an idle member spins for the next job before it parks: longer
/// than the serial work between two quanta (tens of microseconds at 1M
/// keys), short enough that an idle team costs nothing measurable.
const SPIN: Duration = Duration::from_micros(200);

/// How long of [`SPIN`] is pure spinning; the rest yields the core between
/// checks. When the host runs more threads than it has cores (the test
/// harness runs two `simsort` processes of two threads each on a 2-core
/// machine, or a user runs several sorts at once), a member that only spun
/// held a core that the thread it waited for needed: the integration tests
/// took 308 s on 2 threads per process against 163 s on one. Yielding
/// hands the core over when someone else can use it and returns at once
/// when no one can.
const HOT: Duration = Duration::from_micros(20);

/// A job as the helpers see it: a pointer to the caller's closure, valid
/// while [`Team::run`] waits for them (which is what makes the lifetime
/// erasure sound).
#[derive(Clone, Copy)]
struct JobRef(*const (dyn Fn(usize) + Sync));

// SAFETY: the closure behind it is `Sync`, and `Team::run` keeps it alive
// until every member is done with it.
unsafe impl Send for JobRef {}
unsafe impl Sync for JobRef {}

/// What the members share.
struct Inner {
    /// Bumped once per job; a helper runs each new value's job once.
    epoch: AtomicU64,
    /// The running job: written by the caller before it bumps `epoch`,
    /// read by helpers after they see the bump, and not written again
    /// before every helper has reported in `remaining`.
    job: UnsafeCell<Option<JobRef>>,
    /// Helpers that have not finished the running job.
    remaining: AtomicUsize,
    /// The first panic of a helper in the running job.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Set (with an epoch bump) when the team is dropped.
    stop: AtomicBool,
    /// The thread running the job as member 0, woken when the last helper
    /// finishes; set by every `run`.
    caller: Mutex<Option<Thread>>,
}

// SAFETY: `job` is only written by `Team::run` while no helper reads it
// (see the field's comment); everything else is atomic or locked.
unsafe impl Sync for Inner {}

/// A team of `threads` host threads: the caller of [`Team::run`] and
/// `threads - 1` helpers.
pub(crate) struct Team {
    inner: Arc<Inner>,
    helpers: Vec<JoinHandle<()>>,
}

impl Team {
    /// Starts `threads - 1` helper threads, named `{name}-1`, `{name}-2`, ...
    pub fn new(threads: usize, name: &str) -> std::io::Result<Team> {
        let inner = Arc::new(Inner {
            epoch: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            remaining: AtomicUsize::new(0),
            panic: Mutex::new(None),
            stop: AtomicBool::new(false),
            caller: Mutex::new(None),
        });
        let mut team = Team {
            inner,
            helpers: Vec::new(),
        };
        for member in 1..threads.max(1) {
            let inner = Arc::clone(&team.inner);
            let handle = std::thread::Builder::new()
                .name(format!("{name}-{member}"))
                .spawn(move || helper(&inner, member))?;
            team.helpers.push(handle);
        }
        Ok(team)
    }

    /// Members, the caller included.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Runs `job(member)` once on every member, `job(0)` on this thread,
    /// and returns when all have returned. A panic in any member is
    /// resumed here once every member is done.
    pub fn run<F: Fn(usize) + Sync>(&self, job: &F) {
        if self.helpers.is_empty() {
            job(0);
            return;
        }
        let inner = &*self.inner;
        *lock(&inner.caller) = Some(std::thread::current());
        let erased: &(dyn Fn(usize) + Sync) = job;
        // SAFETY: only the lifetime is erased; this function does not
        // return before every helper has finished calling it (below).
        let erased: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(erased) };
        // SAFETY: no helper reads `job` between jobs (see `Inner::job`).
        unsafe { *inner.job.get() = Some(JobRef(erased)) };
        inner.remaining.store(self.helpers.len(), Ordering::Relaxed);
        inner.epoch.fetch_add(1, Ordering::Release);
        for h in &self.helpers {
            // Cheap unless the helper is parked.
            h.thread().unpark();
        }
        let own = catch_unwind(AssertUnwindSafe(|| job(0)));
        wait_until(|| inner.remaining.load(Ordering::Acquire) == 0);
        // SAFETY: every helper is done with the job.
        unsafe { *inner.job.get() = None };
        if let Err(p) = own {
            resume_unwind(p);
        }
        let helper_panic = lock(&inner.panic).take();
        if let Some(p) = helper_panic {
            resume_unwind(p);
        }
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.inner.stop.store(true, Ordering::Relaxed);
        self.inner.epoch.fetch_add(1, Ordering::Release);
        for h in self.helpers.drain(..) {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

/// Spins on `done` for up to [`HOT`], then yields the core between checks
/// up to [`SPIN`], then parks between checks (the waker unparks this
/// thread after making `done` true).
fn wait_until(done: impl Fn() -> bool) {
    let start = Instant::now();
    let mut spins = 0u32;
    let mut waited = Duration::ZERO;
    while !done() {
        spins = spins.wrapping_add(1);
        // The clock only every 64 checks: reading it costs more than a spin.
        if spins.is_multiple_of(64) {
            waited = start.elapsed();
        }
        if waited < HOT {
            std::hint::spin_loop();
        } else if waited < SPIN {
            std::thread::yield_now();
        } else {
            // Woken by whoever makes `done` true; a wake-up that came
            // first makes this return at once.
            std::thread::park();
        }
    }
}

/// A helper's loop: wait for a new epoch, run its job, report.
fn helper(inner: &Inner, member: usize) {
    let mut seen = 0;
    loop {
        wait_until(|| inner.epoch.load(Ordering::Acquire) != seen);
        seen = inner.epoch.load(Ordering::Acquire);
        if inner.stop.load(Ordering::Relaxed) {
            return;
        }
        // SAFETY: the epoch bump published the job, and the caller does
        // not change it before this helper reports below.
        let job = unsafe { *inner.job.get() };
        if let Some(JobRef(f)) = job {
            // SAFETY: `Team::run` keeps the closure alive until
            // `remaining` reaches 0.
            let f = unsafe { &*f };
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(member))) {
                let mut slot = lock(&inner.panic);
                slot.get_or_insert(p);
            }
        }
        if inner.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            let caller = lock(&inner.caller);
            if let Some(t) = &*caller {
                t.unpark();
            }
        }
    }
}

/// Work items `0..n` split among a team's members: member `m` owns a
/// contiguous range and takes its items from the front; a member that has
/// run out takes other members' items from the back. So each member runs
/// the same items quantum after quantum except for a few at the edges, and
/// no member idles while another has items left.
pub(crate) struct Claims {
    /// Per member, its range's next item (low half) and end (high half).
    ranges: Vec<AtomicU64>,
}

impl Claims {
    /// Items `0..n` over `members` members, in contiguous ranges; member
    /// `m` owns `starts[m]..starts[m + 1]` (`starts` has `members + 1`
    /// entries, ascending, from 0 to `n`).
    pub fn new(starts: &[usize]) -> Claims {
        Claims {
            ranges: starts
                .windows(2)
                .map(|w| AtomicU64::new(pack(w[0], w[1])))
                .collect(),
        }
    }

    /// Items `0..n` over `members` members in near-equal ranges.
    pub fn even(n: usize, members: usize) -> Claims {
        let members = members.max(1);
        let starts: Vec<usize> = (0..=members).map(|m| n * m / members).collect();
        Claims::new(&starts)
    }

    /// The next item for `member`: its own first, then others' (the
    /// member after it first), or `None` when every item is taken.
    pub fn next(&self, member: usize) -> Option<usize> {
        let n = self.ranges.len();
        if let Some(i) = self.take(member, true) {
            return Some(i);
        }
        (1..n).find_map(|k| self.take((member + k) % n, false))
    }

    /// Takes the front (the owner) or back (a thief) item of `m`'s range.
    fn take(&self, m: usize, front: bool) -> Option<usize> {
        let range = &self.ranges[m];
        let mut cur = range.load(Ordering::Relaxed);
        loop {
            let (lo, hi) = unpack(cur);
            if lo >= hi {
                return None;
            }
            let (new, item) = if front {
                (pack(lo + 1, hi), lo)
            } else {
                (pack(lo, hi - 1), hi - 1)
            };
            match range.compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return Some(item),
                Err(now) => cur = now,
            }
        }
    }
}

fn pack(lo: usize, hi: usize) -> u64 {
    (lo as u64) | ((hi as u64) << 32)
}

fn unpack(v: u64) -> (usize, usize) {
    ((v & 0xffff_ffff) as usize, (v >> 32) as usize)
}

/// Each element behind its own lock, so a team's members can take them by
/// index: a member takes an element only after claiming its index
/// ([`Claims`]), so no lock is ever contended and each element is taken
/// once.
pub(crate) fn exclusive<T>(items: impl Iterator<Item = T>) -> Vec<Mutex<Option<T>>> {
    items.map(|x| Mutex::new(Some(x))).collect()
}

/// Takes the element of a claimed index (see [`exclusive`]).
pub(crate) fn take<T>(slot: &Mutex<Option<T>>) -> T {
    lock(slot).take().expect("each item is claimed once")
}

/// Locks `m`; a member that panicked holding it leaves its data usable
/// (the panic itself reaches [`Team::run`]'s caller).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The value behind a lock no one holds any more.
pub(crate) fn into_inner<T>(m: Mutex<T>) -> T {
    m.into_inner().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_runs_each_job_once() {
        for threads in 1..=4 {
            let team = Team::new(threads, "test").expect("threads start");
            assert_eq!(team.threads(), threads);
            for round in 0..50u64 {
                let counts: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
                team.run(&|m| {
                    counts[m].fetch_add(round + 1, Ordering::Relaxed);
                });
                for c in &counts {
                    assert_eq!(c.load(Ordering::Relaxed), round + 1);
                }
            }
        }
    }

    #[test]
    fn a_job_after_a_long_pause_still_runs_everywhere() {
        let team = Team::new(3, "test").expect("threads start");
        std::thread::sleep(SPIN * 5);
        let sum = AtomicU64::new(0);
        team.run(&|m| {
            sum.fetch_add(m as u64 + 1, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 1 + 2 + 3);
    }

    #[test]
    fn a_helper_panic_reaches_the_caller_after_the_job() {
        let team = Team::new(2, "test").expect("threads start");
        let caught = catch_unwind(AssertUnwindSafe(|| {
            team.run(&|m| assert!(m != 1, "member 1 fails"));
        }));
        assert!(caught.is_err());
        // The team still works.
        let ran = AtomicU64::new(0);
        team.run(&|_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn claims_hand_out_every_item_once_owners_first() {
        let claims = Claims::new(&[0, 3, 3, 7]);
        assert_eq!(claims.next(0), Some(0), "its own front");
        assert_eq!(
            claims.next(1),
            Some(6),
            "member 1 owns nothing: the next member's back"
        );
        let mut taken = vec![0, 6];
        while let Some(i) = claims.next(2) {
            taken.push(i);
        }
        taken.sort_unstable();
        assert_eq!(taken, (0..7).collect::<Vec<_>>());
        assert_eq!(claims.next(0), None);
    }

    #[test]
    fn claims_from_many_threads_cover_the_items_exactly() {
        let team = Team::new(3, "test").expect("threads start");
        for n in [0, 1, 5, 132] {
            let claims = Claims::even(n, 3);
            let hits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
            team.run(&|m| {
                while let Some(i) = claims.next(m) {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                }
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }
}
