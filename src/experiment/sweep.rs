//! Sweeps: a list of values for every sort option, expanded to the grid of
//! every combination, checked up front, run in parallel, and written as CSV
//! and JSON (see [`super::sweep_out`]).
//!
//! Rules (`docs/report.md`):
//! - the grid is the product of the lists in a fixed axis order (outermost
//!   first: gpu, machine overrides, algo, keys, key bits, dist, seed, merge,
//!   layout, warp, slab height, block slabs); duplicates in a list are dropped;
//! - every configuration is checked before any runs. A configuration that does
//!   not fit the machine is skipped and reported, but a list value with which
//!   *no* configuration is valid is a bad flag and rejects the whole sweep;
//! - results come back in grid order and are the same as running each
//!   configuration alone: runs share nothing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

pub use super::options::{Axis, SweepSpec, axis_value};
use super::report::Report;
use super::sort::{ExperimentError, Prepared, SortOptions, prepare};

/// Most configurations one sweep may have: the grid is built in memory
/// before anything runs, and a runaway product of lists (`--keys` and
/// `--seed` with a thousand values each) must be refused, not allocated.
pub const MAX_CONFIGURATIONS: u64 = 100_000;

/// The error of a configuration that never started because the sweep was
/// stopped (Ctrl-C) first.
pub const NOT_STARTED: &str = "not started: the sweep was interrupted first";

/// A configuration of the grid, checked against its machine.
pub struct Checked {
    /// The options.
    pub opts: SortOptions,
    /// Ready to run, or every reason it cannot.
    pub prepared: Result<Prepared, Vec<String>>,
}

/// Checks every configuration of `spec` (in parallel on the current rayon
/// pool). Fails when a list value has no valid configuration at all: that
/// value is a bad flag, and every problem of its configurations is listed.
pub fn check(spec: &SweepSpec) -> Result<Vec<Checked>, ExperimentError> {
    let size = spec.size();
    if size > MAX_CONFIGURATIONS {
        let lists: Vec<String> = spec
            .axes()
            .iter()
            .filter(|a| a.values.len() > 1)
            .map(|a| format!("--{}", a.name.replace('_', "-")))
            .collect();
        return Err(ExperimentError::Invalid(vec![format!(
            "sweep too large ({}): the lists make {size} configurations; at most \
             {MAX_CONFIGURATIONS} (split the sweep)",
            lists.join(", ")
        )]));
    }
    check_grid(spec.expand(), &spec.axes())
}

/// [`check`] for any list of configurations whose values are those of
/// `axes` (`simsort compare` normalises its grid before checking).
pub fn check_grid(grid: Vec<SortOptions>, axes: &[Axis]) -> Result<Vec<Checked>, ExperimentError> {
    check_grid_with(grid, axes, true)
}

/// [`check_grid`]; with `none_is_error` false a grid of which nothing is
/// valid is returned as it is, every configuration skipped with its
/// reasons (`simsort compare` shows a row for each algorithm).
pub fn check_grid_with(
    grid: Vec<SortOptions>,
    axes: &[Axis],
    none_is_error: bool,
) -> Result<Vec<Checked>, ExperimentError> {
    let checked: Vec<Checked> = grid
        .into_par_iter()
        .map(|opts| {
            let prepared = prepare(&opts).map_err(|e| match e {
                ExperimentError::Invalid(problems) => problems,
                other => vec![other.to_string()],
            });
            Checked { opts, prepared }
        })
        .collect();
    let mut problems: Vec<String> = Vec::new();
    // A value of a list is hopeless when no configuration with it is
    // valid; a list of one value is every configuration, said below.
    for axis in axes.iter().filter(|a| a.values.len() > 1) {
        for value in &axis.values {
            let mut with_value = checked
                .iter()
                .filter(|c| axis_value(&c.opts, &axis.name) == *value);
            if with_value.clone().all(|c| c.prepared.is_err()) {
                let flag = axis.name.replace('_', "-");
                let why = with_value
                    .next()
                    .and_then(|c| c.prepared.as_ref().err())
                    .map(|p| p.join("; "))
                    .unwrap_or_default();
                let line = format!(
                    "no valid configuration (--{flag} {value}): every configuration with it \
                     fails: {why}"
                );
                if !problems.contains(&line) {
                    problems.push(line);
                }
            }
        }
    }
    // Nothing at all is valid: every distinct reason, once.
    if none_is_error && checked.iter().all(|c| c.prepared.is_err()) {
        for c in &checked {
            for p in c.prepared.as_ref().err().into_iter().flatten() {
                if !problems.iter().any(|line| line.contains(p.as_str())) {
                    problems.push(p.clone());
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(ExperimentError::Invalid(problems))
    }
}

/// What became of one configuration.
#[derive(Debug, Clone)]
pub enum RunResult {
    /// It ran and its output was verified.
    Done(Box<Report>),
    /// It does not fit the machine (every reason); it was not run.
    Skipped(Vec<String>),
    /// It ran and failed: a fault on the simulated GPU or a wrong result.
    Failed(String),
}

/// One configuration's options and result.
#[derive(Debug, Clone)]
pub struct SweepRun {
    /// The options.
    pub opts: SortOptions,
    /// The result.
    pub result: RunResult,
}

/// Runs every valid configuration on `jobs` threads and returns the
/// results in grid order. `done` is called after each run with the number
/// finished so far and that run's options, from whichever thread ran it.
pub fn run(
    checked: Vec<Checked>,
    jobs: usize,
    done: &(dyn Fn(usize, &SortOptions) + Sync),
) -> Result<Vec<SweepRun>, String> {
    run_with(checked, jobs, 1, done)
}

/// [`run`], each run simulating its SMs on `sim_threads` host threads.
/// Runs start longest first (by their plan's work): a long run that starts
/// last would leave the other threads idle at the end (`simsort compare`:
/// GPUTeraSort's run is most of the work). The order of starts changes
/// only the wall time: runs share nothing, results come in grid order.
pub fn run_with(
    mut checked: Vec<Checked>,
    jobs: usize,
    sim_threads: usize,
    done: &(dyn Fn(usize, &SortOptions) + Sync),
) -> Result<Vec<SweepRun>, String> {
    for c in &mut checked {
        if let Ok(p) = &mut c.prepared {
            p.threads = sim_threads.max(1);
        }
    }
    let work = |c: &Checked| {
        c.prepared
            .as_ref()
            .map_or(0, |p| p.plan.iter().map(|l| l.work).sum::<u64>())
    };
    let mut order: Vec<usize> = (0..checked.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(work(&checked[i])), i));
    // A slot per configuration: a worker takes the configuration out (it
    // is `Send`, not `Sync`) and puts the run back in its place.
    let slots: Vec<Mutex<Slot>> = checked
        .into_iter()
        .map(|c| Mutex::new(Slot::Todo(Box::new(c))))
        .collect();
    let lock = |i: usize| slots[i].lock().unwrap_or_else(PoisonError::into_inner);
    let (next, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let worker = || {
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let Slot::Todo(c) = std::mem::replace(&mut *lock(i), Slot::Taken) else {
                continue;
            };
            let result = match &c.prepared {
                Err(problems) => RunResult::Skipped(problems.clone()),
                // After Ctrl-C nothing new starts.
                Ok(_) if sim::stop_requested() => RunResult::Failed(NOT_STARTED.to_string()),
                Ok(p) => match p.run(&mut |_| {}) {
                    Ok(outcome) => RunResult::Done(Box::new(outcome.report)),
                    Err(e) => RunResult::Failed(e.to_string()),
                },
            };
            if !matches!(result, RunResult::Skipped(_)) {
                done(finished.fetch_add(1, Ordering::Relaxed) + 1, &c.opts);
            }
            *lock(i) = Slot::Done(Box::new(SweepRun {
                opts: c.opts,
                result,
            }));
        }
    };
    std::thread::scope(|s| {
        for started in 0..jobs.max(1).min(order.len().max(1)) {
            if let Err(e) = std::thread::Builder::new().spawn_scoped(s, worker) {
                // Fewer workers than asked: those started take every run.
                return if started == 0 {
                    Err(format!("cannot start worker threads: {e}"))
                } else {
                    Ok(())
                };
            }
        }
        Ok(())
    })?;
    Ok(slots
        .into_iter()
        .map(
            |m| match m.into_inner().unwrap_or_else(PoisonError::into_inner) {
                Slot::Done(run) => *run,
                _ => unreachable!("every configuration ran"),
            },
        )
        .collect())
}

/// A configuration of [`run_with`]: waiting, running, or run.
enum Slot {
    Todo(Box<Checked>),
    Taken,
    Done(Box<SweepRun>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use sorts::hotsort::Layout;

    fn tiny_spec() -> SweepSpec {
        SweepSpec {
            gpu: vec!["tiny".into()],
            keys: vec![300],
            warp: vec![4, 8],
            slab_height: vec![Some(2), Some(4)],
            smem_layout: vec![Layout::Plain, Layout::Xor],
            ..SweepSpec::default()
        }
    }

    #[test]
    fn the_grid_is_the_product_with_the_last_axis_fastest() {
        let spec = SweepSpec {
            warp: vec![8, 16, 8],
            slab_height: vec![Some(4), Some(8), Some(16)],
            smem_layout: vec![Layout::Plain, Layout::Pad],
            overrides: vec![("num_sms".into(), vec!["1".into(), "2".into()])],
            ..SweepSpec::default()
        };
        let grid = spec.expand();
        assert_eq!(grid.len(), 2 * 2 * 2 * 3, "duplicates are dropped");
        let key = |o: &SortOptions| (o.overrides.clone(), o.smem_layout, o.warp, o.slab_height);
        assert_eq!(
            key(&grid[0]),
            (
                vec![("num_sms".into(), "1".into())],
                Layout::Plain,
                8,
                Some(4)
            )
        );
        assert_eq!(key(&grid[1]).3, Some(8));
        assert_eq!(key(&grid[3]).2, 16);
        assert_eq!(key(&grid[6]).1, Layout::Pad);
        assert_eq!(key(&grid[12]).0, vec![("num_sms".into(), "2".into())]);
        let axes = spec.axes();
        let warp = axes.iter().find(|a| a.name == "warp").unwrap();
        assert_eq!(warp.values, ["8", "16"]);
        for o in &grid {
            for a in &axes {
                assert!(a.values.contains(&axis_value(o, &a.name)), "{}", a.name);
            }
        }
    }

    #[test]
    fn parallel_runs_equal_serial_runs_in_grid_order() {
        let serial = run(check(&tiny_spec()).unwrap(), 1, &|_, _| {}).unwrap();
        let parallel = run(check(&tiny_spec()).unwrap(), 3, &|_, _| {}).unwrap();
        assert_eq!(serial.len(), 8);
        for (s, p) in serial.iter().zip(&parallel) {
            assert_eq!(s.opts, p.opts);
            match (&s.result, &p.result) {
                (RunResult::Done(a), RunResult::Done(b)) => assert_eq!(a.to_json(), b.to_json()),
                (a, b) => panic!("{a:?} / {b:?}"),
            }
        }
    }

    #[test]
    fn configurations_that_do_not_fit_are_skipped_and_hopeless_values_rejected() {
        let spec = SweepSpec {
            warp: vec![3, 8],
            ..tiny_spec()
        };
        let Err(ExperimentError::Invalid(problems)) = check(&spec) else {
            panic!("a 3-lane warp must be rejected");
        };
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("no valid configuration (--warp 3): "),
            "{problems:?}"
        );
        // Blocks of 8 slabs of 8 x 8 keys fill the tiny machine's 2 KiB per
        // block exactly with the plain layout; padding pushes them over.
        // With 4-lane warps they fit either way.
        let spec = SweepSpec {
            warp: vec![4, 8],
            slab_height: vec![Some(2), Some(8)],
            block_slabs: vec![Some(8)],
            smem_layout: vec![Layout::Plain, Layout::Pad],
            ..tiny_spec()
        };
        let checked = check(&spec).unwrap_or_else(|e| panic!("{e}"));
        let runs = run(checked, 2, &|_, _| {}).unwrap();
        for r in &runs {
            let o = &r.opts;
            let too_big = o.warp == 8 && o.slab_height == Some(8) && o.smem_layout == Layout::Pad;
            match &r.result {
                RunResult::Skipped(p) if too_big => {
                    assert!(p[0].contains("shared memory"), "{p:?}")
                }
                RunResult::Done(_) if !too_big => {}
                other => panic!("{o:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_runaway_grid_is_refused_before_it_is_built() {
        let spec = SweepSpec {
            keys: (1..=1000).collect(),
            seed: (1..=1000).collect(),
            ..tiny_spec()
        };
        // Times 2 warps x 2 slab heights x 2 layouts.
        assert_eq!(spec.size(), 8_000_000);
        let Err(ExperimentError::Invalid(problems)) = check(&spec) else {
            panic!("eight million configurations must be refused");
        };
        assert!(
            problems[0].starts_with("sweep too large (--keys, --seed, "),
            "{problems:?}"
        );
        assert!(
            problems[0].contains("make 8000000 configurations"),
            "{problems:?}"
        );
    }
}
