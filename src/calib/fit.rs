//! Fitting a machine's timing fields to a GPU's measurements (`simsort
//! calibrate --fit`): the search, independent of how a machine is
//! simulated.
//!
//! Only timing fields move ([`TIMING_FIELDS`]: latencies, bandwidths,
//! launch and dispatch costs, per-cycle throttles). The machine's structure
//! (SMs, warps, banks, sectors, lines, caches, the clock) is what the
//! counters are defined over: the fit never changes it, so the exact
//! counters stay what they are and only the clock moves.
//!
//! The search is argmin's Nelder-Mead simplex (derivative-free, which a
//! simulator with integer fields needs) over each field's logarithm
//! relative to the starting machine: coordinate `x` gives the value
//! `start * e^x`, rounded, so one step moves a latency of 30 cycles and a
//! bandwidth of 2,400 bytes by the same fraction. Each field stays within a
//! quarter and four times its start ([`SPAN`]); a point outside is
//! evaluated at the nearest point inside plus a penalty that grows with the
//! distance, so the simplex walks back. Rounded points the search has seen
//! are not simulated again, and the budget counts simulated points only.
//! Nothing is random: the same start, fields, budget and objective give the
//! same fit.

use std::cell::RefCell;
use std::collections::HashMap;

use argmin::core::{CostFunction, Executor};
use argmin::solver::neldermead::NelderMead;
use sim::GpuConfig;

/// The fields a fit may move: every timing field of [`GpuConfig`] (what a
/// latency, a bandwidth, a fixed cost or a per-cycle throughput is), never
/// one that shapes the counters or the machine's resources.
pub const TIMING_FIELDS: &[&str] = &[
    "alu_latency_cycles",
    "alu_lanes_per_cycle",
    "shfl_latency_cycles",
    "shfl_lanes_per_cycle",
    "smem_latency_cycles",
    "smem_atom_latency_cycles",
    "smem_atom_replay_cycles",
    "branch_latency_cycles",
    "yield_cycles",
    "bar_latency_cycles",
    "bar_release_cycles_per_warp",
    "launch_overhead_cycles",
    "memory_launch_cycles",
    "launch_all_sms_cycles",
    "block_dispatch_cycles",
    "lsu_sectors_per_cycle",
    "store_combine_cycles",
    "l1_latency_cycles",
    "l2_latency_cycles",
    "dram_latency_cycles",
    "load_line_cycles",
    "l2_port_reads_per_cycle",
    "l2_port_write_cycles",
    "l2_port_partial_write_cycles",
    "l2_store_bytes_per_cycle",
    "l1_fill_sectors_per_cycle",
    "l2_bytes_per_cycle",
    "l2_partial_write_bytes",
    "l2_partial_line_bytes",
    "l2_partial_sector_bytes",
    "dram_bytes_per_cycle",
    "dram_row_open_bytes",
    "icache_l1_latency_cycles",
    "icache_l1_line_cycles",
    "icache_l2_latency_cycles",
    "icache_cold_line_cycles",
];

/// The fields fitted when none are named. Moved one at a time by the
/// search's first step (20%, or one cycle) from the `h200` preset, the
/// fitting suite's (`hw/calib/suite_fit.txt`) cycle MAPE against the H100's
/// data moved most with a launch's fixed cost (-6.8 points: every short
/// launch), the DRAM latency (-2.1: streaming and dependent loads), the ALU
/// latency (-0.4: every dependent chain), the block dispatch interval
/// (+0.24) and the L2 bandwidth (+0.16). The DRAM bandwidth moves it
/// little (0.09) but bounds the 1M- and 16M-key streaming merges the
/// fitting suite leaves out for their cost, and is what differs most
/// between GPU generations. docs/calibration.md ("Which fields the fit
/// moves by default") gives every field's figure and the command.
pub const DEFAULT_FIELDS: &[&str] = &[
    "launch_overhead_cycles",
    "dram_latency_cycles",
    "alu_latency_cycles",
    "block_dispatch_cycles",
    "l2_bytes_per_cycle",
    "dram_bytes_per_cycle",
];

/// How far a field may move from its start: a factor of this either way.
pub const SPAN: f64 = 4.0;

/// The cost answered once the search is stopped inside argmin's first
/// simplex, whose costs argmin unwraps: above any MAPE.
const STOPPED: f64 = 1e12;

/// The simplex's first step along each field: 20% (in `e^x`), or one unit
/// where 20% rounds to no change (a latency of 2 cycles steps to 3).
const STEP: f64 = 0.2;

/// The objective a point outside the fields' bounds adds per unit of
/// log-distance outside (an objective in percent: far above any MAPE
/// difference the fields make).
const PENALTY: f64 = 1000.0;

/// One field being fitted: its name, its start and its bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The machine field.
    pub name: &'static str,
    /// Its value in the starting machine.
    pub start: u64,
    /// The smallest value tried.
    pub lo: u64,
    /// The largest value tried.
    pub hi: u64,
}

impl Field {
    /// The field `name` of `start`, with its bounds; `None` for a field
    /// that is not a timing field.
    pub fn of(name: &str, start: &GpuConfig) -> Option<Field> {
        let name = *TIMING_FIELDS.iter().find(|f| **f == name)?;
        let value: u64 = start.get(name)?.parse().ok()?;
        // A field at 0 (a machine without launch overhead) starts at 1: a
        // relative step of zero moves nothing.
        let base = value.max(1);
        Some(Field {
            name,
            start: value,
            lo: ((base as f64 / SPAN).ceil() as u64).max(1),
            hi: (base as f64 * SPAN).floor() as u64,
        })
    }

    /// The simplex's first step along this field.
    fn step(&self) -> f64 {
        let base = self.start.max(1) as f64;
        STEP.max(((base + 1.0) / base).ln())
    }

    /// The value at coordinate `x` (clamped to the bounds) and how far
    /// outside them `x` is.
    fn value(&self, x: f64) -> (u64, f64) {
        let lo = (self.lo as f64 / self.start.max(1) as f64).ln();
        let hi = (self.hi as f64 / self.start.max(1) as f64).ln();
        let inside = x.clamp(lo, hi);
        let v = (self.start.max(1) as f64 * inside.exp()).round() as u64;
        (v.clamp(self.lo, self.hi), (x - inside).abs())
    }
}

/// The fields named, each a timing field of `start`; every bad name is
/// one problem.
pub fn fields(names: &[&str], start: &GpuConfig) -> Result<Vec<Field>, Vec<String>> {
    let mut fields: Vec<Field> = Vec::new();
    let mut problems = Vec::new();
    for name in names {
        if fields.iter().any(|f| f.name == *name) {
            problems.push(format!("field `{name}` is named twice"));
        } else if let Some(f) = Field::of(name, start) {
            fields.push(f);
        } else if start.get(name).is_some() {
            problems.push(format!(
                "field `{name}` is not a timing field: a fit never changes the machine's \
                 structure; the timing fields are {}",
                TIMING_FIELDS.join(", ")
            ));
        } else {
            problems.push(format!(
                "no machine field `{name}`; the timing fields are {}",
                TIMING_FIELDS.join(", ")
            ));
        }
    }
    if names.is_empty() {
        problems.push("no field to fit".to_string());
    }
    if problems.is_empty() {
        Ok(fields)
    } else {
        Err(problems)
    }
}

/// The held-out entries of a split: every `k`-th of `n` (positions `k`,
/// `2k`, ... counting from 1), the others fitted.
pub fn held_out(n: usize, k: usize) -> Vec<bool> {
    (1..=n).map(|i| k > 0 && i % k == 0).collect()
}

/// Evaluations a fit of `fields` needs at least: the starting simplex.
pub fn min_evals(fields: usize) -> usize {
    fields + 1
}

/// One simulated point of the search, for progress.
#[derive(Clone, Debug, PartialEq)]
pub struct Eval {
    /// Its number, from 1.
    pub n: usize,
    /// The budget.
    pub max: usize,
    /// Its objective.
    pub value: f64,
    /// The best objective so far.
    pub best: f64,
}

/// Why the search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The simplex's objectives became equal (the search converged).
    Converged,
    /// The evaluation budget was spent.
    Budget,
}

/// A finished fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The starting machine with the best values found.
    pub config: GpuConfig,
    /// The fields with their best values, in the order fitted.
    pub values: Vec<(&'static str, u64)>,
    /// The objective at the start.
    pub start_objective: f64,
    /// The objective at the best point.
    pub objective: f64,
    /// Points simulated.
    pub evals: usize,
    /// Why the search ended.
    pub ended: Ended,
}

/// The search's state, shared by argmin's cost calls.
struct State<F, E> {
    objective: F,
    seen: HashMap<Vec<u64>, f64>,
    best: Option<(f64, Vec<u64>)>,
    start_objective: Option<f64>,
    evals: usize,
    max: usize,
    error: Option<E>,
    budget_spent: bool,
    /// Cost calls so far, and how many the first simplex makes.
    calls: usize,
    simplex: usize,
}

/// What argmin evaluates: the fields and a view of the search's state
/// (kept outside, so it is read after argmin's executor is done).
struct Problem<'a, F, E, P> {
    start: &'a GpuConfig,
    fields: &'a [Field],
    state: &'a RefCell<State<F, E>>,
    progress: &'a RefCell<P>,
}

/// The machine `start` with `values` in `fields`.
fn with_values(start: &GpuConfig, fields: &[Field], values: &[u64]) -> GpuConfig {
    let mut cfg = start.clone();
    for (f, v) in fields.iter().zip(values) {
        // Values within a timing field's bounds (>= 1) are valid.
        cfg.set(f.name, &v.to_string())
            .unwrap_or_else(|e| panic!("{}: {v}: {}", f.name, e.message));
    }
    cfg
}

impl<F, E, P> CostFunction for Problem<'_, F, E, P>
where
    F: FnMut(&GpuConfig) -> Result<f64, E>,
    P: FnMut(&Eval),
{
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> Result<f64, argmin::core::Error> {
        let mut outside = 0.0;
        let values: Vec<u64> = self
            .fields
            .iter()
            .zip(x)
            .map(|(f, &x)| {
                let (v, d) = f.value(x);
                outside += d;
                v
            })
            .collect();
        let mut s = self.state.borrow_mut();
        s.calls += 1;
        // argmin's Nelder-Mead unwraps the costs of its first simplex, so a
        // search stopped there answers a cost no point beats instead of an
        // error, and ends at its first iteration.
        let stop = |s: &State<F, E>| {
            if s.calls <= s.simplex {
                Ok(STOPPED)
            } else {
                Err(argmin::core::Error::msg("stopped"))
            }
        };
        if s.error.is_some() || s.budget_spent {
            return stop(&s);
        }
        let value = match s.seen.get(&values) {
            Some(&v) => v,
            None => {
                if s.evals >= s.max {
                    s.budget_spent = true;
                    return stop(&s);
                }
                let cfg = with_values(self.start, self.fields, &values);
                let v = match (s.objective)(&cfg) {
                    Ok(v) => v,
                    Err(e) => {
                        s.error = Some(e);
                        return stop(&s);
                    }
                };
                s.evals += 1;
                s.seen.insert(values.clone(), v);
                if s.start_objective.is_none() {
                    s.start_objective = Some(v);
                }
                // Ties keep the earlier point: the search stays deterministic.
                if s.best.as_ref().is_none_or(|(b, _)| v < *b) {
                    s.best = Some((v, values));
                }
                let eval = Eval {
                    n: s.evals,
                    max: s.max,
                    value: v,
                    best: s.best.as_ref().map_or(v, |b| b.0),
                };
                (self.progress.borrow_mut())(&eval);
                v
            }
        };
        Ok(value + PENALTY * outside)
    }
}

/// Fits `fields` of `start` to the lowest `objective` (a cycle MAPE in
/// percent, lower is better) within `max_evals` simulated points, calling
/// `progress` after each. An error of the objective (a stop request, a
/// failed simulation) ends the search and is returned as it is.
pub fn fit<F, E, P>(
    start: &GpuConfig,
    fields: &[Field],
    max_evals: usize,
    objective: F,
    progress: P,
) -> Result<Fitted, E>
where
    F: FnMut(&GpuConfig) -> Result<f64, E>,
    P: FnMut(&Eval),
{
    assert!(
        max_evals >= min_evals(fields.len()),
        "the budget is checked by the caller"
    );
    let n = fields.len();
    let mut simplex = vec![vec![0.0; n]];
    for i in 0..n {
        let mut v = vec![0.0; n];
        v[i] = fields[i].step();
        simplex.push(v);
    }
    let state = RefCell::new(State {
        objective,
        seen: HashMap::new(),
        best: None,
        start_objective: None,
        evals: 0,
        max: max_evals,
        error: None,
        budget_spent: false,
        calls: 0,
        simplex: n + 1,
    });
    let progress = RefCell::new(progress);
    let problem = Problem {
        start,
        fields,
        state: &state,
        progress: &progress,
    };
    let solver = NelderMead::new(simplex)
        .with_sd_tolerance(1e-6)
        .expect("a positive tolerance");
    // Every iteration that simulates a point spends budget; one that only
    // revisits rounded points does not, so the iterations are bounded too.
    let iters = 20 * max_evals as u64;
    let result = Executor::new(problem, solver)
        .configure(|s| s.max_iters(iters))
        .run();
    // The executor's result holds the problem, which borrows the state.
    let stopped_early = result.is_err();
    drop(result);
    let state = state.into_inner();
    if let Some(e) = state.error {
        return Err(e);
    }
    let ended = if state.budget_spent || stopped_early {
        Ended::Budget
    } else {
        Ended::Converged
    };
    let (objective, values) = state.best.expect("the start is always evaluated");
    Ok(Fitted {
        config: with_values(start, fields, &values),
        values: fields.iter().map(|f| f.name).zip(values).collect(),
        start_objective: state.start_objective.expect("evaluated"),
        objective,
        evals: state.evals,
        ended,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200() -> GpuConfig {
        GpuConfig::h200()
    }

    /// A made-up objective with its minimum at known values: the fit must
    /// find them from the h200's (a real check of the search and the
    /// coordinates, at no simulation cost).
    fn bowl(cfg: &GpuConfig) -> Result<f64, String> {
        let get = |f: &str| cfg.get(f).unwrap().parse::<f64>().unwrap();
        let a = (get("launch_overhead_cycles") - 5300.0) / 5300.0;
        let b = (get("dram_bytes_per_cycle") - 1900.0) / 1900.0;
        Ok(100.0 * (a.abs() + b.abs()))
    }

    #[test]
    fn the_search_finds_a_known_minimum_and_is_deterministic() {
        let start = h200();
        let f = fields(&["launch_overhead_cycles", "dram_bytes_per_cycle"], &start).unwrap();
        let run = || fit(&start, &f, 80, bowl, |_| {}).unwrap();
        let a = run();
        assert_eq!(a, run(), "the same inputs give the same fit");
        let got = |name: &str| a.values.iter().find(|v| v.0 == name).unwrap().1 as f64;
        assert!(
            (got("launch_overhead_cycles") - 5300.0).abs() < 5300.0 * 0.01,
            "{a:?}"
        );
        assert!(
            (got("dram_bytes_per_cycle") - 1900.0).abs() < 1900.0 * 0.01,
            "{a:?}"
        );
        assert!(a.objective < 2.0 && a.start_objective > 40.0, "{a:?}");
        assert!(a.evals <= 80);
        assert_eq!(a.config.get("num_sms"), start.get("num_sms"));
    }

    #[test]
    fn the_budget_bounds_the_simulations_and_the_best_point_is_kept() {
        let start = h200();
        let f = fields(&["launch_overhead_cycles", "dram_bytes_per_cycle"], &start).unwrap();
        let mut seen = Vec::new();
        let got = fit(&start, &f, 5, bowl, |e: &Eval| seen.push(e.clone())).unwrap();
        assert_eq!(got.evals, 5);
        assert_eq!(got.ended, Ended::Budget);
        assert_eq!(seen.len(), 5);
        assert_eq!(seen.last().unwrap().best, got.objective);
        assert!(seen.iter().all(|e| e.value >= got.objective && e.max == 5));
    }

    #[test]
    fn an_objective_error_ends_the_fit_with_that_error() {
        let start = h200();
        let f = fields(&["launch_overhead_cycles"], &start).unwrap();
        let mut calls = 0;
        let got = fit(
            &start,
            &f,
            20,
            |_: &GpuConfig| {
                calls += 1;
                if calls == 3 {
                    Err("interrupted")
                } else {
                    Ok(calls as f64)
                }
            },
            |_| {},
        );
        assert_eq!(got, Err("interrupted"));
        // Stopped inside the first simplex (argmin unwraps its costs there).
        let f = fields(&["launch_overhead_cycles", "dram_bytes_per_cycle"], &start).unwrap();
        let mut calls = 0;
        let got = fit(
            &start,
            &f,
            20,
            |_: &GpuConfig| {
                calls += 1;
                if calls == 2 {
                    Err("interrupted")
                } else {
                    Ok(1.0)
                }
            },
            |_| {},
        );
        assert_eq!(got, Err("interrupted"));
        assert_eq!(calls, 2, "nothing simulated after the stop");
    }

    #[test]
    fn values_stay_within_their_bounds_and_structure_is_refused() {
        let start = h200();
        let f = Field::of("l2_latency_cycles", &start).unwrap();
        assert_eq!((f.start, f.lo, f.hi), (300, 75, 1200));
        assert_eq!(f.value(0.0), (300, 0.0));
        let (v, d) = f.value(10.0);
        assert_eq!(v, 1200);
        assert!(d > 8.0);
        assert_eq!(f.value(-10.0).0, 75);
        assert_eq!(f.value(f.step()).0, 366, "a first step of 20%");
        // 20% of 2 cycles rounds to nothing: the first step is one cycle.
        let small = Field::of("smem_atom_replay_cycles", &start).unwrap();
        assert_eq!(small.value(small.step()).0, 3);
        let e = fields(
            &["num_sms", "nope", "l2_latency_cycles", "l2_latency_cycles"],
            &start,
        )
        .unwrap_err();
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e[0].contains("`num_sms` is not a timing field"), "{e:?}");
        assert!(e[1].contains("no machine field `nope`"), "{e:?}");
        assert!(e[2].contains("named twice"), "{e:?}");
        for name in TIMING_FIELDS.iter().chain(DEFAULT_FIELDS) {
            assert!(Field::of(name, &start).is_some(), "{name}");
        }
    }

    #[test]
    fn every_kth_entry_is_held_out() {
        assert_eq!(
            held_out(7, 3),
            [false, false, true, false, false, true, false]
        );
        assert_eq!(held_out(2, 4), [false, false]);
    }
}
