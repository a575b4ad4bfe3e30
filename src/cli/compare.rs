//! `simsort compare`: every algorithm on the same input and machine, side
//! by side (`experiment::compare`). Its options are the sweep's lists; the
//! table (or `--json`) goes to stdout, `--plot` draws cycles per key
//! against the number of keys.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use simsort::atomic::{AtomicFile, check_output};
use simsort::experiment::options::SweepOptionArgs;
use simsort::experiment::plot::Format;
use simsort::experiment::sort::machine_config;
use simsort::experiment::sweep::{self, RunResult};
use simsort::experiment::{ExperimentError, SortOptions, compare, compare_plot};

use super::machine::MachineOverrides;
use super::progress::sweep_bar;
use super::sweep::{
    cannot, check_memory, describe, interrupted, invalid, report_problems, worker_threads,
};
use super::{Failure, output_error};

/// The options of `simsort compare`: the sort options, each a comma list
/// (`--algo` defaults to every algorithm).
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// The sort options, each a comma list.
    #[command(flatten)]
    pub opts: SweepOptionArgs,
    /// Print the comparison as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw cycles per key against the number of keys into FILE (.svg or
    /// .png); needs a list of `--keys`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Write a self-contained HTML report into FILE.html: the table, the
    /// charts (hover a point for its counters), the command and version.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Runs at once [default: one per core; at most the cores and the runs].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// No progress bar and no closing summary line on stderr.
    #[arg(short, long)]
    pub quiet: bool,
    /// Machine config overrides, each a comma list.
    #[command(flatten)]
    pub machine: MachineOverrides,
}

/// Runs the comparison.
pub fn run(args: &CompareArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let start = Instant::now();
    let spec = compare::spec(args.opts.spec(&args.machine.0), !args.opts.algo.is_empty());
    let axes = spec.axes();
    let grid = compare::grid(&spec);
    let mut problems = Vec::new();
    if let Some(p) = &args.plot {
        if Format::of(p).is_none() {
            problems.push(format!(
                "--plot {}: the file name must end in .svg or .png",
                p.display()
            ));
        } else if spec.keys.len() < 2 {
            problems.push(format!(
                "--plot {}: the plot shows cycles per key against the number of keys; give \
                 --keys a list (e.g. --keys 65536,1048576)",
                p.display()
            ));
        }
        if let Err(why) = check_output(p) {
            problems.push(format!("{}: {why}", p.display()));
        }
    }
    if let Some(p) = &args.report
        && let Err(why) = simsort::report_html::check_path("--report", p)
    {
        problems.push(why);
    }
    if args.jobs == Some(0) {
        problems.push("--jobs 0: at least one run must go at a time".into());
    }
    check_memory(&spec, args.jobs, grid.len())?;
    // Every algorithm runs, so an algorithm that cannot is not a bad
    // value of a list the user gave: its reasons are named instead.
    let lists: Vec<_> = axes.iter().filter(|a| a.name != "algo").cloned().collect();
    // A bad machine flag (`--warp 3`) is an input error; a machine on
    // which no algorithm fits keeps every row, skipped.
    let machine_ok = grid.iter().all(|o| machine_config(o).is_ok());
    let checked = match sweep::check_grid_with(grid, &lists, !machine_ok) {
        Ok(checked) => checked,
        Err(ExperimentError::Invalid(more)) => {
            problems.extend(more);
            Vec::new()
        }
        Err(e) => return Err(Failure::run(format!("error: {e}"))),
    };
    if !problems.is_empty() {
        return Err(invalid(&problems));
    }
    let varying = vec!["algo".to_string(), "keys".to_string()];
    let runnable = checked.iter().filter(|c| c.prepared.is_ok()).count();
    let bar = sweep_bar(runnable as u64, args.quiet);
    let on_done = |_: usize, opts: &SortOptions| {
        bar.set_message(describe(opts, &varying));
        bar.inc(1);
    };
    // Every run simulates on every core: the longest (GPUTeraSort's)
    // starts first and keeps all of them busy once the short ones are done.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let jobs = worker_threads(args.jobs, runnable);
    let runs = sweep::run_with(checked, jobs, cores, &on_done).map_err(Failure::run)?;
    bar.finish_and_clear();
    report_problems(&runs, &varying);
    let text = if args.json {
        compare::to_json(&axes, &runs)
    } else {
        compare::table(&axes, &runs)
    };
    write!(out, "{text}").map_err(output_error)?;
    if let Some(failure) = interrupted(&runs, "no plot was written (an old file is kept)") {
        return Err(failure);
    }
    if let Some(path) = &args.plot {
        let file = AtomicFile::create(path).map_err(|e| cannot(path, e))?;
        compare_plot::plot_to(&file, &axes, &runs).map_err(|e| {
            Failure::run(format!("error: {e}; no plot written (an old file is kept)"))
        })?;
        file.commit().map_err(|e| cannot(path, e))?;
    }
    if let Some(path) = &args.report {
        let provenance = simsort::report_html::Provenance::of_process();
        let page = simsort::report_html::compare::page(&axes, &runs, provenance);
        simsort::report_html::write(path, &page).map_err(|e| cannot(path, e))?;
    }
    let failed = runs
        .iter()
        .filter(|r| matches!(r.result, RunResult::Failed(_)))
        .count();
    if !args.quiet {
        eprintln!(
            "compared {runnable} runs ({failed} failed) in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
    if failed > 0 {
        return Err(Failure::run(format!("error: {failed} run(s) failed")));
    }
    if runnable == 0 {
        return Err(Failure::input(
            "error: nothing to compare: no algorithm fits this machine (every row is skipped; \
             stderr names why)",
        ));
    }
    Ok(())
}
