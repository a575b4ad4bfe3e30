//! How each side splits a launch's warp-cycles over the stall reasons, and
//! how far apart the two splits are.
//!
//! **Why.** The top stall reason says only which reason is largest. A launch
//! whose two largest reasons are close on the hardware flips with a few
//! cycles (sample sort's `minmax`: `no_instruction` 462 cycles a warp against
//! `long_scoreboard` 566). Another can agree on its top reason while the model
//! puts half its waits elsewhere. A user deciding whether to trust the
//! simulator's stall breakdown needs the whole split, on both sides. Nsight
//! Compute gives each reason as warps stalled per issue-active cycle
//! (`smsp__average_warps_issue_stalled_R_per_issue_active.ratio`), and the
//! simulator reports the same metrics. Each launch's ratios, divided by
//! their sum, are its warp-cycles' shares, issue slots (`selected`)
//! included.

use std::collections::BTreeMap;

use serde::Serialize;

use super::compare::{Pair, stall_ratios};

/// A launch's warp-cycles by reason in percent of all of them, from its
/// metrics. Reasons at zero are left out; empty when no ratio is positive
/// (a launch recorded without stall metrics).
pub fn shares(metrics: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    let ratios: Vec<(&str, f64)> = stall_ratios(metrics)
        .filter(|&(_, v)| v > 0.0 && v.is_finite())
        .collect();
    let total: f64 = ratios.iter().map(|(_, v)| v).sum();
    ratios
        .into_iter()
        .map(|(r, v)| (r.to_string(), 100.0 * v / total))
        .collect()
}

/// How far apart two splits are, in percent of warp-cycles: half their
/// summed absolute differences, the share that would have to move from one
/// reason to another to make them equal (0: the same split, 100: no
/// reason in common).
pub fn difference(a: &BTreeMap<String, f64>, b: &BTreeMap<String, f64>) -> f64 {
    let share = |m: &BTreeMap<String, f64>, r: &str| m.get(r).copied().unwrap_or(0.0);
    let reasons: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    reasons
        .into_iter()
        .map(|r| (share(a, r) - share(b, r)).abs())
        .sum::<f64>()
        / 2.0
}

/// The splits of a comparison's launches, averaged.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StallShares {
    /// Launches with stall metrics on both sides (the means are over these).
    pub launches: usize,
    /// Per reason: its mean share of a launch's warp-cycles on the hardware
    /// and in the simulator, in percent.
    pub reasons: BTreeMap<String, (f64, f64)>,
    /// The mean over those launches of [`difference`], in percent.
    pub difference_percent: f64,
}

/// The mean splits of `pairs`, each launch weighing the same (a short launch
/// says as much about the model as a long one, as in the cycle MAPE).
pub fn summarize(pairs: &[Pair]) -> StallShares {
    let both: Vec<&Pair> = pairs
        .iter()
        .filter(|p| !p.hw_stalls.is_empty() && !p.sim_stalls.is_empty())
        .collect();
    let n = both.len();
    let mut reasons: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    let mut difference_sum = 0.0;
    for p in &both {
        for (r, v) in &p.hw_stalls {
            reasons.entry(r.clone()).or_default().0 += v;
        }
        for (r, v) in &p.sim_stalls {
            reasons.entry(r.clone()).or_default().1 += v;
        }
        difference_sum += difference(&p.hw_stalls, &p.sim_stalls);
    }
    if n > 0 {
        for v in reasons.values_mut() {
            *v = (v.0 / n as f64, v.1 / n as f64);
        }
    }
    StallShares {
        launches: n,
        reasons,
        difference_percent: if n > 0 {
            difference_sum / n as f64
        } else {
            0.0
        },
    }
}

/// The reasons worth a row: at least 1% on either side, the hardware's
/// largest first (ties by name).
pub fn rows(s: &StallShares) -> Vec<(&str, f64, f64)> {
    let mut rows: Vec<(&str, f64, f64)> = (s.reasons.iter())
        .filter(|(_, (h, m))| *h >= 1.0 || *m >= 1.0)
        .map(|(r, (h, m))| (r.as_str(), *h, *m))
        .collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    rows
}

/// The sentence under the rows: how far apart the launches' splits are.
pub fn difference_line(s: &StallShares) -> String {
    format!(
        "a launch's split differs by {:.1}% of its warp-cycles on average (half its summed \
         differences; {} launches)",
        s.difference_percent, s.launches
    )
}

/// The text block `calibrate` prints: a line per reason of [`rows`] and
/// [`difference_line`]; `None` when no launch had stall metrics on both
/// sides.
pub fn block(s: &StallShares) -> Option<String> {
    if s.launches == 0 {
        return None;
    }
    let mut out =
        String::from("stall reasons (share of a launch's warp-cycles, mean over launches):\n");
    out += &format!("  {:<20} {:>8} {:>9}\n", "reason", "hardware", "simulated");
    for (r, h, m) in rows(s) {
        out += &format!("  {r:<20} {h:>7.1}% {m:>8.1}%\n");
    }
    out += &format!("  {}\n", difference_line(s));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calib::compare::{STALL_PREFIX, STALL_SUFFIX};

    fn metrics(ratios: &[(&str, f64)]) -> BTreeMap<String, f64> {
        ratios
            .iter()
            .map(|(r, v)| (format!("{STALL_PREFIX}{r}{STALL_SUFFIX}"), *v))
            .chain([("sm__cycles_elapsed.max".to_string(), 1000.0)])
            .collect()
    }

    fn pair(hw: &[(&str, f64)], sim: &[(&str, f64)]) -> Pair {
        Pair {
            entry: "e".into(),
            index: 0,
            kernel: "k".into(),
            hw_cycles: 100.0,
            sim_cycles: 100.0,
            hw_insts: 0.0,
            sim_insts: 0.0,
            exact: BTreeMap::new(),
            hw_top_stall: "-".into(),
            sim_top_stall: "-".into(),
            hw_stalls: shares(&metrics(hw)),
            sim_stalls: shares(&metrics(sim)),
        }
    }

    #[test]
    fn shares_are_the_ratios_over_their_sum_selected_included() {
        let s = shares(&metrics(&[
            ("selected", 1.0),
            ("long_scoreboard", 3.0),
            ("barrier", 0.0),
        ]));
        assert_eq!(s.len(), 2, "a reason at zero is left out: {s:?}");
        assert_eq!(s["selected"], 25.0);
        assert_eq!(s["long_scoreboard"], 75.0);
        assert!(shares(&metrics(&[])).is_empty());
    }

    #[test]
    fn the_difference_is_the_share_that_would_have_to_move() {
        let a = shares(&metrics(&[("selected", 1.0), ("long_scoreboard", 1.0)]));
        let b = shares(&metrics(&[("selected", 1.0), ("mio_throttle", 1.0)]));
        assert_eq!(difference(&a, &a), 0.0);
        assert_eq!(difference(&a, &b), 50.0);
        let c = shares(&metrics(&[("barrier", 1.0)]));
        assert_eq!(difference(&a, &c), 100.0);
    }

    #[test]
    fn launches_weigh_the_same_and_those_without_stalls_are_left_out() {
        let pairs = [
            pair(&[("long_scoreboard", 1.0)], &[("long_scoreboard", 1.0)]),
            pair(&[("long_scoreboard", 1.0)], &[("mio_throttle", 1.0)]),
            pair(&[], &[("barrier", 1.0)]),
        ];
        let s = summarize(&pairs);
        assert_eq!(s.launches, 2);
        assert_eq!(s.reasons["long_scoreboard"], (100.0, 50.0));
        assert_eq!(s.reasons["mio_throttle"], (0.0, 50.0));
        assert!(!s.reasons.contains_key("barrier"));
        assert_eq!(s.difference_percent, 50.0);
        let text = block(&s).unwrap();
        assert!(
            text.contains("  long_scoreboard        100.0%     50.0%\n"),
            "{text}"
        );
        assert!(
            text.contains("differs by 50.0% of its warp-cycles"),
            "{text}"
        );
        assert_eq!(block(&summarize(&pairs[2..])), None);
    }

    #[test]
    fn rows_leave_out_small_reasons_and_put_the_hardwares_largest_first() {
        let s = summarize(&[pair(
            &[("wait", 10.0), ("barrier", 89.5), ("drain", 0.5)],
            &[("wait", 50.0), ("barrier", 50.0)],
        )]);
        let names: Vec<&str> = rows(&s).iter().map(|r| r.0).collect();
        assert_eq!(names, ["barrier", "wait"]);
    }
}
