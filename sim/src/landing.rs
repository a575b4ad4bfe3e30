//! A timed batch's loads sorted by SM, so each SM lands its own at the
//! start of its next run, on whichever host thread runs it, instead of one
//! thread landing them all between quanta.
//!
//! Landing a load touches only its SM (and its worker's counters, which
//! are sums), and an SM's loads land in the order they were timed, so
//! landing SM by SM gives what landing the whole batch in timing order
//! gives ([`crate::engine::run_parallel`] says when the delay is exact).

use crate::engine::Pending;
use crate::resolve::Batch;

/// One batch's timed loads, grouped by SM, each SM's in timing order.
#[derive(Default)]
pub(crate) struct Landing {
    /// The loads and when each completes, in timing order.
    loads: Vec<(Pending, u64)>,
    /// Indices into `loads`, SM by SM (a stable counting sort).
    by_sm: Vec<u32>,
    /// Per SM, where its indices start in `by_sm` (one more entry: the end).
    starts: Vec<u32>,
}

impl Landing {
    /// Takes `batch`'s timed loads for `sms` SMs, replacing what it held.
    pub fn fill(&mut self, batch: &Batch, sms: usize) {
        self.loads.clear();
        self.loads
            .extend(batch.loads().map(|(p, done)| (p.clone(), done)));
        self.group(sms);
    }

    /// Sorts the indices of `loads` by SM, keeping each SM's in order.
    fn group(&mut self, sms: usize) {
        self.starts.clear();
        self.starts.resize(sms + 1, 0);
        for (p, _) in &self.loads {
            self.starts[p.sm as usize + 1] += 1;
        }
        for i in 0..sms {
            self.starts[i + 1] += self.starts[i];
        }
        self.by_sm.clear();
        self.by_sm.resize(self.loads.len(), 0);
        let mut next = self.starts.clone();
        for (j, (p, _)) in self.loads.iter().enumerate() {
            let at = &mut next[p.sm as usize];
            self.by_sm[*at as usize] = j as u32;
            *at += 1;
        }
    }

    /// SM `sm`'s loads, in timing order.
    pub fn of(&self, sm: u32) -> impl Iterator<Item = (&Pending, u64)> {
        let range = match self.starts.get(sm as usize..sm as usize + 2) {
            Some(&[a, b]) => a as usize..b as usize,
            _ => 0..0,
        };
        self.by_sm[range].iter().map(|&j| {
            let (p, done) = &self.loads[j as usize];
            (p, *done)
        })
    }

    /// Every SM's loads, in timing order.
    pub fn loads(&self) -> impl Iterator<Item = (&Pending, u64)> {
        self.loads.iter().map(|(p, done)| (p, *done))
    }

    /// Whether it holds no loads.
    pub fn is_empty(&self) -> bool {
        self.loads.is_empty()
    }

    /// Forgets its loads (once every SM has landed its own).
    pub fn clear(&mut self) {
        self.loads.clear();
        self.by_sm.clear();
        self.starts.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::Landing;
    use crate::engine::Pending;

    fn load(sm: u32, pc: u32) -> (Pending, u64) {
        let p = Pending {
            t: 0,
            sm,
            start: 0,
            first: 0,
            n: 0,
            store: false,
            slot: 0,
            age: 0,
            pc,
        };
        (p, u64::from(pc) * 10)
    }

    #[test]
    fn each_sm_gets_its_loads_in_timing_order() {
        let mut l = Landing {
            loads: vec![load(2, 0), load(0, 1), load(2, 2), load(0, 3), load(1, 4)],
            ..Landing::default()
        };
        l.group(4);
        let pcs = |sm| l.of(sm).map(|(p, done)| (p.pc, done)).collect::<Vec<_>>();
        assert_eq!(pcs(0), [(1, 10), (3, 30)]);
        assert_eq!(pcs(1), [(4, 40)]);
        assert_eq!(pcs(2), [(0, 0), (2, 20)]);
        assert_eq!(pcs(3), []);
        assert_eq!(pcs(9), [], "an SM out of range has none");
        l.clear();
        assert!(l.is_empty() && l.of(0).next().is_none());
    }
}
