//! Host wall time per phase of the event loop ([`crate::engine::run_parallel`]):
//! what divides over host threads and what does not (the README's *Host
//! threads*). Compiled in only with the `phase-timer` feature (`cargo build
//! --release --features phase-timer`, then `simsort` prints the totals after
//! a sort): without it every timer is an empty value the compiler removes,
//! so the loop pays nothing. Wall times differ from run to run, so they
//! never enter a report.

/// A phase of the event loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Resetting the SMs and starting each launch's first blocks.
    FirstBlocks,
    /// The quantum's SM runs, landing included (the whole team's job).
    SmRuns,
    /// Freed block slots taking the grid's next blocks, in rounds.
    BlockStarts,
    /// The boundary's memory work, as the launching thread waits for it.
    Memory,
    /// One member listing its SMs' requests (summed over the members).
    Listing,
    /// One member timing its group of partitions (summed over the members).
    Timing,
    /// One member writing its slice of the SMs' stores (summed).
    StoreSlices,
    /// Landing every SM's loads before a skip or the end.
    SkipLanding,
}

/// The phases, in [`Phase`] order, with their names.
#[cfg(feature = "phase-timer")]
const PHASES: [(Phase, &str); 8] = [
    (Phase::FirstBlocks, "first blocks"),
    (Phase::SmRuns, "SM runs"),
    (Phase::BlockStarts, "block starts"),
    (Phase::Memory, "memory phase"),
    (Phase::Listing, "  listing (all members)"),
    (Phase::Timing, "  timing (all members)"),
    (Phase::StoreSlices, "  store slices (all members)"),
    (Phase::SkipLanding, "landing before skips"),
];

#[cfg(feature = "phase-timer")]
mod clock {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Instant;

    use super::{PHASES, Phase};

    /// Per phase, nanoseconds and times timed, since the process started.
    static NANOS: [AtomicU64; PHASES.len()] = [const { AtomicU64::new(0) }; PHASES.len()];
    static COUNT: [AtomicU64; PHASES.len()] = [const { AtomicU64::new(0) }; PHASES.len()];

    /// Adds its lifetime to its phase when dropped.
    pub struct Timer(Phase, Instant);

    pub fn start(p: Phase) -> Timer {
        Timer(p, Instant::now())
    }

    impl Timer {
        /// Ends the phase here rather than at the end of the scope.
        pub fn stop(self) {}
    }

    impl Drop for Timer {
        fn drop(&mut self) {
            let ns = u64::try_from(self.1.elapsed().as_nanos()).unwrap_or(u64::MAX);
            NANOS[self.0 as usize].fetch_add(ns, Ordering::Relaxed);
            COUNT[self.0 as usize].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn totals() -> Vec<(&'static str, f64, u64)> {
        PHASES
            .iter()
            .map(|&(p, name)| {
                let ns = NANOS[p as usize].load(Ordering::Relaxed);
                (
                    name,
                    ns as f64 / 1e9,
                    COUNT[p as usize].load(Ordering::Relaxed),
                )
            })
            .collect()
    }
}

#[cfg(not(feature = "phase-timer"))]
mod clock {
    use super::Phase;

    /// Nothing: the feature is off.
    pub struct Timer;

    impl Timer {
        /// Ends the phase here rather than at the end of the scope.
        #[inline(always)]
        pub fn stop(self) {}
    }

    #[inline(always)]
    pub fn start(_: Phase) -> Timer {
        Timer
    }

    pub fn totals() -> Vec<(&'static str, f64, u64)> {
        Vec::new()
    }
}

pub use clock::Timer;

/// Times `phase` until the returned value is dropped.
#[inline(always)]
pub fn start(phase: Phase) -> Timer {
    clock::start(phase)
}

/// Per phase, its name, its wall seconds and how many times it was timed,
/// since the process started; empty without the `phase-timer` feature.
pub fn totals() -> Vec<(&'static str, f64, u64)> {
    clock::totals()
}

#[cfg(all(test, feature = "phase-timer"))]
mod tests {
    #[test]
    fn a_timer_adds_its_time_and_a_count_to_its_phase() {
        let before = super::totals()[1].2;
        super::start(super::Phase::SmRuns).stop();
        assert!(super::totals()[1].2 > before);
    }
}

#[cfg(all(test, not(feature = "phase-timer")))]
mod tests {
    #[test]
    fn without_the_feature_nothing_is_timed() {
        super::start(super::Phase::SmRuns).stop();
        assert!(super::totals().is_empty());
    }
}
