//! Per-SM counter samples for traces: every `counter_interval_cycles`, the
//! deltas of one SM's counters (`traces::Event::Counters`).
//!
//! Stall cycles are charged in bulk, often ahead of time (a warp's wait for
//! a load is charged when it issues) and sometimes afterwards (a barrier
//! wait is charged at the release), so each charge is split over the
//! intervals it spans, and an interval is emitted only once every resident
//! warp of the SM has been charged past its end.

use std::collections::BTreeMap;

use traces::{CounterSample, StallReason};

/// One SM's open intervals.
#[derive(Clone, Debug, Default)]
pub(crate) struct SmSamples {
    /// Interval number -> its counts so far.
    open: BTreeMap<u64, CounterSample>,
    /// Intervals before this one were emitted.
    pub emitted: u64,
}

impl SmSamples {
    fn at(&mut self, interval: u64) -> &mut CounterSample {
        // A charge into an emitted interval (a wait of a cycle or two that
        // began before the last emission) lands in the first open one.
        let k = interval.max(self.emitted);
        self.open.entry(k).or_insert_with(|| CounterSample {
            stall_warp_cycles: vec![0; StallReason::COUNT],
            ..CounterSample::default()
        })
    }

    /// Adds `n` warp-cycles of `reason` from cycle `from` on.
    pub fn stall(&mut self, len: u64, reason: StallReason, from: u64, n: u64) {
        let (mut c, end) = (from, from + n);
        while c < end {
            let k = c / len;
            let upto = ((k + 1) * len).min(end);
            self.at(k).stall_warp_cycles[reason.index()] += upto - c;
            c = upto;
        }
    }

    /// Counts at cycle `t` whatever `f` adds.
    pub fn count(&mut self, len: u64, t: u64, f: impl FnOnce(&mut CounterSample)) {
        f(self.at(t / len));
    }

    /// The intervals that end at or before `complete` (every warp charged
    /// up to it), in order: (last cycle, counts).
    pub fn take_complete(&mut self, len: u64, complete: u64) -> Vec<(u64, CounterSample)> {
        let done = complete / len;
        let mut out = Vec::new();
        while let Some(entry) = self.open.first_entry() {
            if *entry.key() >= done {
                break;
            }
            let k = *entry.key();
            out.push(((k + 1) * len - 1, entry.remove()));
        }
        self.emitted = self.emitted.max(done);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_split_over_intervals_and_emit_when_complete() {
        let mut s = SmSamples::default();
        s.stall(10, StallReason::Barrier, 5, 20); // 5 in [0,10), 10 in [10,20), 5 in [20,30)
        s.count(10, 12, |c| c.inst_issued += 1);
        let done = s.take_complete(10, 20);
        assert_eq!(done.len(), 2);
        assert_eq!(
            (
                done[0].0,
                done[0].1.stall_warp_cycles[StallReason::Barrier.index()]
            ),
            (9, 5)
        );
        assert_eq!((done[1].0, done[1].1.inst_issued), (19, 1));
        s.stall(10, StallReason::Wait, 18, 4); // 2 late cycles land in [20,30)
        let rest = s.take_complete(10, u64::MAX / 2);
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].1.stall_warp_cycles[StallReason::Wait.index()], 4);
        assert_eq!(rest[0].1.stall_warp_cycles[StallReason::Barrier.index()], 5);
    }
}
