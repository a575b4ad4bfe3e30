//! Whole sorts: a suite entry of more than one launch is a sort (a
//! microbenchmark is one launch), and what a user of the simulator asks of
//! it is first how long the whole sort takes. Per-launch errors can cancel
//! or add up over a sort's launches, so the sum is checked on its own
//! (issue 31's "whole-sort cycles within 10% for every algorithm").

use serde::Serialize;

use super::compare::Pair;

/// One entry's launches, their cycles summed on each side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WholeSort {
    /// The suite entry (empty for a single bundle).
    pub entry: String,
    /// Its launches.
    pub launches: usize,
    /// Hardware cycles, summed over its launches.
    pub hw_cycles: f64,
    /// Simulated cycles, summed.
    pub sim_cycles: f64,
}

impl WholeSort {
    /// Simulated over hardware cycles.
    pub fn ratio(&self) -> f64 {
        self.sim_cycles / self.hw_cycles.max(1.0)
    }

    /// The relative error in percent, signed (simulated against hardware).
    pub fn error_percent(&self) -> f64 {
        (self.ratio() - 1.0) * 100.0
    }
}

/// The entries of more than one launch, in the order they first appear.
pub fn whole_sorts(pairs: &[Pair]) -> Vec<WholeSort> {
    let mut sums: Vec<WholeSort> = Vec::new();
    for p in pairs {
        match sums.iter_mut().find(|s| s.entry == p.entry) {
            Some(s) => {
                s.launches += 1;
                s.hw_cycles += p.hw_cycles;
                s.sim_cycles += p.sim_cycles;
            }
            None => sums.push(WholeSort {
                entry: p.entry.clone(),
                launches: 1,
                hw_cycles: p.hw_cycles,
                sim_cycles: p.sim_cycles,
            }),
        }
    }
    sums.retain(|s| s.launches > 1);
    sums
}

/// The whole sort furthest from the hardware's cycles.
pub fn worst(sorts: &[WholeSort]) -> Option<&WholeSort> {
    sorts
        .iter()
        .max_by(|a, b| a.error_percent().abs().total_cmp(&b.error_percent().abs()))
}

/// The summary line of the text report: how many whole sorts, and the
/// range of their simulated over hardware cycles with the entries at its
/// ends; `None` when there is none.
pub fn line(sorts: &[WholeSort]) -> Option<String> {
    let by_ratio = |a: &&WholeSort, b: &&WholeSort| a.ratio().total_cmp(&b.ratio());
    let low = sorts.iter().min_by(by_ratio)?;
    let high = sorts.iter().max_by(by_ratio)?;
    if let [one] = sorts
        && one.entry.is_empty()
    {
        return Some(format!(
            "whole sort ({} launches): simulated/hardware cycles {:.3} ({:+.1}%)",
            one.launches,
            one.ratio(),
            one.error_percent()
        ));
    }
    Some(format!(
        "{} whole sorts (entries of more than one launch): simulated/hardware cycles {:.3} ({}) to {:.3} ({})",
        sorts.len(),
        low.ratio(),
        low.entry,
        high.ratio(),
        high.entry
    ))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn pair(entry: &str, hw: f64, sim: f64) -> Pair {
        Pair {
            entry: entry.into(),
            index: 0,
            kernel: "k".into(),
            hw_cycles: hw,
            sim_cycles: sim,
            hw_insts: 0.0,
            sim_insts: 0.0,
            exact: BTreeMap::new(),
            hw_top_stall: "-".into(),
            sim_top_stall: "-".into(),
            hw_stalls: BTreeMap::new(),
            sim_stalls: BTreeMap::new(),
        }
    }

    #[test]
    fn launches_of_an_entry_add_up_and_single_launches_are_not_sorts() {
        let pairs = [
            pair("a", 100.0, 120.0),
            pair("copy", 100.0, 200.0),
            pair("a", 100.0, 90.0),
            pair("b", 200.0, 185.0),
            pair("b", 200.0, 185.0),
        ];
        let sorts = whole_sorts(&pairs);
        assert_eq!(sorts.len(), 2, "copy is one launch: {sorts:?}");
        assert_eq!((sorts[0].entry.as_str(), sorts[0].launches), ("a", 2));
        assert!((sorts[0].ratio() - 1.05).abs() < 1e-12);
        assert!((sorts[1].error_percent() + 7.5).abs() < 1e-9);
        assert_eq!(worst(&sorts).map(|s| s.entry.as_str()), Some("b"));
        assert_eq!(
            line(&sorts).unwrap(),
            "2 whole sorts (entries of more than one launch): simulated/hardware cycles \
             0.925 (b) to 1.050 (a)"
        );
    }

    #[test]
    fn a_single_bundle_is_one_sort_and_microbenchmarks_have_none() {
        let bundle = [pair("", 100.0, 110.0), pair("", 300.0, 330.0)];
        assert_eq!(
            line(&whole_sorts(&bundle)).unwrap(),
            "whole sort (2 launches): simulated/hardware cycles 1.100 (+10.0%)"
        );
        let micro = [pair("x", 1.0, 2.0), pair("y", 1.0, 2.0)];
        assert!(whole_sorts(&micro).is_empty());
        assert_eq!(line(&[]), None);
        assert!(worst(&[]).is_none());
    }
}
