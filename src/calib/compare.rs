//! Hardware against simulator, launch by launch: cycles (the clock the
//! model must get right), warp instructions (SASS against IR: different
//! instruction sets, so a ratio), the counters the model must get exactly
//! (shared wavefronts and conflicts, global requests and sectors), and the
//! top stall reason. The summary gives the cycle MAPE, Pearson's r over
//! cycles, how many launches each exact counter matched, and how often
//! the top stall reasons agree.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ncu::NcuLaunch;
use super::stall_shares::{StallShares, shares};
use super::whole::{WholeSort, whole_sorts};

/// The cycle metric both sides report.
pub const CYCLES: &str = "sm__cycles_elapsed.max";
/// Warp instructions (SASS on hardware, IR in the simulator).
pub const INSTS: &str = "smsp__inst_executed.sum";

/// The counters the simulator must reproduce exactly.
pub const EXACT: [&str; 10] = [
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
];

/// A stall ratio's metric is its reason between these.
pub(crate) const STALL_PREFIX: &str = "smsp__average_warps_issue_stalled_";
pub(crate) const STALL_SUFFIX: &str = "_per_issue_active.ratio";

/// One simulated launch: its kernel name and its metrics under Nsight
/// Compute's names.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimLaunch {
    /// The kernel's name.
    pub name: String,
    /// Metrics by Nsight Compute name.
    pub metrics: BTreeMap<String, f64>,
}

/// One launch on both sides.
#[derive(Clone, Debug, Serialize)]
pub struct Pair {
    /// Which entry of a suite (empty for a single bundle).
    pub entry: String,
    /// The launch's index in its sequence.
    pub index: usize,
    /// The kernel.
    pub kernel: String,
    /// Hardware cycles (`sm__cycles_elapsed.max`).
    pub hw_cycles: f64,
    /// Simulated cycles.
    pub sim_cycles: f64,
    /// SASS warp instructions.
    pub hw_insts: f64,
    /// IR warp instructions.
    pub sim_insts: f64,
    /// Exact counters as (hardware, simulator), for those hardware reports.
    pub exact: BTreeMap<String, (f64, f64)>,
    /// The largest stall reason (other than `selected`) on each side.
    pub hw_top_stall: String,
    /// The simulator's largest.
    pub sim_top_stall: String,
    /// The hardware's warp-cycles by reason, in percent
    /// ([`super::stall_shares::shares`]; empty without stall metrics).
    pub hw_stalls: BTreeMap<String, f64>,
    /// The simulator's.
    pub sim_stalls: BTreeMap<String, f64>,
}

impl Pair {
    /// The launch's name: `entry/index:kernel` (`index:kernel` outside a
    /// suite).
    pub fn name(&self) -> String {
        if self.entry.is_empty() {
            format!("{}:{}", self.index, self.kernel)
        } else {
            format!("{}/{}:{}", self.entry, self.index, self.kernel)
        }
    }

    /// Relative cycle error, simulator against hardware.
    pub fn error(&self) -> f64 {
        (self.sim_cycles - self.hw_cycles) / self.hw_cycles.max(1.0)
    }
}

/// The summary of a comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Launches compared.
    pub launches: usize,
    /// Mean absolute percentage error of cycles.
    pub cycle_mape_percent: f64,
    /// Pearson's r of simulated against hardware cycles.
    pub cycle_pearson_r: f64,
    /// Per exact counter: launches equal, launches compared.
    pub exact: BTreeMap<String, (usize, usize)>,
    /// Launches whose top stall reasons agree.
    pub top_stall_agree: usize,
    /// SASS over IR warp instructions, summed over launches.
    pub inst_ratio: f64,
    /// Per kernel name: launches and cycle MAPE.
    pub per_kernel: BTreeMap<String, (usize, f64)>,
    /// The entries of more than one launch (sorts), their cycles summed.
    pub whole_sorts: Vec<WholeSort>,
    /// The launch furthest from the hardware's cycles.
    pub worst_launch: Option<Worst>,
    /// Launches more than 25% off the hardware's cycles.
    pub launches_beyond_25_percent: usize,
    /// Both sides' warp-cycles by stall reason, averaged over launches.
    pub stall_shares: StallShares,
}

impl Summary {
    /// The report line of the worst launch and of the launches beyond
    /// 25% (`worst launch entry/index:kernel +E%; N beyond 25%`); `None`
    /// with no launch.
    pub fn worst_line(&self) -> Option<String> {
        let w = self.worst_launch.as_ref()?;
        Some(format!(
            "worst launch {} {:+.1}%; {} beyond 25%",
            w.launch, w.error_percent, self.launches_beyond_25_percent
        ))
    }
}

/// A launch and its cycle error.
#[derive(Clone, Debug, Serialize)]
pub struct Worst {
    /// `entry/index:kernel` ([`Pair::name`]).
    pub launch: String,
    /// Simulated against hardware cycles, percent, signed.
    pub error_percent: f64,
}

/// Pairs hardware and simulated launches of one sequence, in order.
pub fn pair(entry: &str, hw: &[NcuLaunch], sim: &[SimLaunch]) -> Result<Vec<Pair>, String> {
    if hw.len() != sim.len() {
        return Err(format!(
            "{}the hardware profile has {} launches, the simulator's report {}",
            prefix(entry),
            hw.len(),
            sim.len()
        ));
    }
    hw.iter()
        .zip(sim)
        .enumerate()
        .map(|(index, (h, s))| {
            if h.kernel != s.name {
                return Err(format!(
                    "{}launch {index} is `{}` on the hardware but `{}` in the simulator's report",
                    prefix(entry),
                    h.kernel,
                    s.name
                ));
            }
            let get = |m: &BTreeMap<String, f64>, k: &str| m.get(k).copied().unwrap_or(0.0);
            let hw_cycles = h.metrics.get(CYCLES).copied().ok_or_else(|| {
                format!(
                    "{}launch {index} has no {CYCLES} on the hardware",
                    prefix(entry)
                )
            })?;
            if let Some(why) = impossible(&h.metrics) {
                return Err(format!(
                    "{}launch {index} (`{}`) on the hardware: {why}; the CSV is damaged",
                    prefix(entry),
                    h.kernel
                ));
            }
            let exact = EXACT
                .iter()
                .filter(|k| h.metrics.contains_key(**k))
                .map(|k| (k.to_string(), (get(&h.metrics, k), get(&s.metrics, k))))
                .collect();
            Ok(Pair {
                entry: entry.to_string(),
                index,
                kernel: h.kernel.clone(),
                hw_cycles,
                sim_cycles: get(&s.metrics, CYCLES),
                hw_insts: get(&h.metrics, INSTS),
                sim_insts: get(&s.metrics, INSTS),
                exact,
                hw_top_stall: top_stall(&h.metrics),
                sim_top_stall: top_stall(&s.metrics),
                hw_stalls: shares(&h.metrics),
                sim_stalls: shares(&s.metrics),
            })
        })
        .collect()
}

/// The most cycles a profiled launch can take: about six days at 2 GHz.
pub const MAX_HW_CYCLES: f64 = 1e15;

/// Why a hardware launch's counters cannot be real, if they cannot: no
/// launch takes zero, negative or more than [`MAX_HW_CYCLES`] cycles, and
/// no counter the comparison reads is negative or not finite (a summary of
/// such data would print `Pearson r NaN` as if it were a result).
pub fn impossible(metrics: &BTreeMap<String, f64>) -> Option<String> {
    let cycles = metrics.get(CYCLES).copied().unwrap_or(f64::NAN);
    if !(cycles > 0.0 && cycles <= MAX_HW_CYCLES) {
        return Some(format!(
            "{CYCLES} is {cycles}, but a launch takes between 1 and {MAX_HW_CYCLES:e} cycles"
        ));
    }
    std::iter::once(INSTS).chain(EXACT).find_map(|k| {
        let v = *metrics.get(k)?;
        (!(v.is_finite() && v >= 0.0)).then(|| format!("{k} is {v}: a count is 0 or more"))
    })
}

fn prefix(entry: &str) -> String {
    if entry.is_empty() {
        String::new()
    } else {
        format!("{entry}: ")
    }
}

/// Each stall reason of `metrics` with its ratio (warps stalled there per
/// issue-active cycle), in name order.
pub(crate) fn stall_ratios(metrics: &BTreeMap<String, f64>) -> impl Iterator<Item = (&str, f64)> {
    metrics.iter().filter_map(|(k, v)| {
        let reason = k.strip_prefix(STALL_PREFIX)?.strip_suffix(STALL_SUFFIX)?;
        Some((reason, *v))
    })
}

/// The reason with the largest stall ratio, `selected` left out (it is
/// issuing, not stalling); `-` when every ratio is zero.
pub fn top_stall(metrics: &BTreeMap<String, f64>) -> String {
    stall_ratios(metrics)
        .filter(|&(reason, v)| reason != "selected" && v > 0.0)
        .fold(None::<(&str, f64)>, |best, (r, v)| match best {
            Some((_, bv)) if bv >= v => best,
            _ => Some((r, v)),
        })
        .map_or("-".to_string(), |(r, _)| r.to_string())
}

/// The summary of compared launches.
pub fn summarize(pairs: &[Pair]) -> Summary {
    let n = pairs.len();
    let mape = mean(pairs.iter().map(|p| p.error().abs())) * 100.0;
    let xs: Vec<f64> = pairs.iter().map(|p| p.hw_cycles).collect();
    let ys: Vec<f64> = pairs.iter().map(|p| p.sim_cycles).collect();
    let mut exact: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for p in pairs {
        for (k, (h, s)) in &p.exact {
            let e = exact.entry(k.clone()).or_default();
            e.1 += 1;
            if h == s {
                e.0 += 1;
            }
        }
    }
    let mut per_kernel: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for p in pairs {
        let e = per_kernel.entry(p.kernel.clone()).or_default();
        e.0 += 1;
        e.1 += p.error().abs() * 100.0;
    }
    for e in per_kernel.values_mut() {
        e.1 /= e.0 as f64;
    }
    let (hw_i, sim_i): (f64, f64) = pairs
        .iter()
        .fold((0.0, 0.0), |(a, b), p| (a + p.hw_insts, b + p.sim_insts));
    Summary {
        launches: n,
        cycle_mape_percent: mape,
        cycle_pearson_r: pearson(&xs, &ys),
        exact,
        top_stall_agree: pairs
            .iter()
            .filter(|p| p.hw_top_stall == p.sim_top_stall)
            .count(),
        inst_ratio: if sim_i > 0.0 { hw_i / sim_i } else { 0.0 },
        per_kernel,
        whole_sorts: whole_sorts(pairs),
        worst_launch: (pairs.iter())
            .max_by(|a, b| a.error().abs().total_cmp(&b.error().abs()))
            .map(|p| Worst {
                launch: p.name(),
                error_percent: p.error() * 100.0,
            }),
        launches_beyond_25_percent: pairs.iter().filter(|p| p.error().abs() > 0.25).count(),
        stall_shares: super::stall_shares::summarize(pairs),
    }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// Pearson's correlation coefficient; 0 when either side is constant.
pub fn pearson(xs: &[f64], ys: &[f64]) -> f64 {
    let (mx, my) = (mean(xs.iter().copied()), mean(ys.iter().copied()));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        0.0
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hw(kernel: &str, cycles: f64, stalls: &[(&str, f64)]) -> NcuLaunch {
        let mut metrics: BTreeMap<String, f64> = stalls
            .iter()
            .map(|(r, v)| (format!("{STALL_PREFIX}{r}{STALL_SUFFIX}"), *v))
            .collect();
        metrics.insert(CYCLES.into(), cycles);
        metrics.insert(EXACT[2].into(), 8.0);
        NcuLaunch {
            id: 0,
            kernel: kernel.into(),
            metrics,
        }
    }

    fn sim(name: &str, cycles: f64, wavefronts: f64) -> SimLaunch {
        let mut metrics = BTreeMap::new();
        metrics.insert(CYCLES.to_string(), cycles);
        metrics.insert(EXACT[2].to_string(), wavefronts);
        metrics.insert(format!("{STALL_PREFIX}barrier{STALL_SUFFIX}"), 2.0);
        SimLaunch {
            name: name.into(),
            metrics,
        }
    }

    #[test]
    fn impossible_hardware_counts_are_refused() {
        for cycles in [-5.0, 0.0, 1e308, 1e25] {
            let e = pair("e", &[hw("bs", cycles, &[])], &[sim("bs", 10.0, 8.0)]).unwrap_err();
            assert!(e.contains("the CSV is damaged"), "{cycles}: {e}");
        }
        let mut negative = hw("bs", 100.0, &[]);
        negative.metrics.insert(EXACT[0].into(), -1.0);
        assert!(pair("", &[negative], &[sim("bs", 10.0, 8.0)]).is_err());
        assert!(pair("", &[hw("bs", 4001.0, &[])], &[sim("bs", 10.0, 8.0)]).is_ok());
    }

    #[test]
    fn mape_r_exactness_and_stalls_over_two_launches() {
        let h = [
            hw("bs", 1000.0, &[("barrier", 3.0), ("selected", 9.0)]),
            hw("fm", 2000.0, &[("long_scoreboard", 1.0)]),
        ];
        let s = [sim("bs", 1100.0, 8.0), sim("fm", 1500.0, 7.0)];
        let pairs = pair("", &h, &s).unwrap();
        let sum = summarize(&pairs);
        assert!((sum.cycle_mape_percent - 17.5).abs() < 1e-9);
        assert!(
            (sum.cycle_pearson_r - 1.0).abs() < 1e-9,
            "two points always correlate"
        );
        assert_eq!(sum.exact[EXACT[2]], (1, 2));
        assert_eq!(sum.top_stall_agree, 1);
        assert_eq!(
            sum.worst_line().as_deref(),
            Some("worst launch 1:fm -25.0%; 0 beyond 25%")
        );
        let worst = sum.worst_launch.expect("two launches");
        assert_eq!(worst.launch, "1:fm");
        assert!((worst.error_percent + 25.0).abs() < 1e-9);
        assert_eq!(
            sum.launches_beyond_25_percent, 0,
            "exactly 25% is not beyond"
        );
        assert_eq!(pairs[0].hw_top_stall, "barrier");
    }

    #[test]
    fn different_launch_sequences_are_refused_by_name() {
        let h = [hw("bs", 1.0, &[])];
        let err = pair("e", &h, &[sim("fm", 1.0, 0.0)]).unwrap_err();
        assert!(err.contains("launch 0 is `bs`"), "{err}");
        let err = pair("e", &h, &[]).unwrap_err();
        assert!(
            err.contains("1 launches, the simulator's report 0"),
            "{err}"
        );
    }

    #[test]
    fn pearson_of_anticorrelated_points_is_minus_one() {
        assert!((pearson(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert_eq!(pearson(&[1.0, 1.0], &[2.0, 3.0]), 0.0);
    }
}
