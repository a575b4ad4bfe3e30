//! `simsort sweep`: every sort option takes a comma list; every combination
//! runs (in parallel); a summary goes to stdout, `--out` writes CSV and JSON,
//! `--plot` draws the picture. Configurations that do not fit the machine
//! are skipped and named on stderr; a list value with which nothing fits is
//! a bad flag (exit 2) and nothing runs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use simsort::experiment::options::SweepOptionArgs;
use simsort::experiment::plot::{Format, plot};
use simsort::experiment::sweep::{self, RunResult, SweepRun, SweepSpec, axis_value};
use simsort::experiment::sweep_out::{summary, to_csv, to_json};
use simsort::experiment::{ExperimentError, SortOptions};

use super::machine::MachineOverrides;
use super::progress::sweep_bar;
use super::{Failure, output_error};

/// The options of `simsort sweep`: the sort options, each a comma list.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    /// The sort options, each a comma list (declared once, in
    /// `experiment::options`).
    #[command(flatten)]
    pub opts: SweepOptionArgs,
    /// Write the results as FILE.csv and FILE.json (a .csv or .json ending
    /// is replaced).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Draw the plot into FILE (.svg or .png).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Configurations run at once [default: one per core].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Print the sweep as JSON on stdout instead of the summary table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar and no closing summary line on stderr.
    #[arg(short, long)]
    pub quiet: bool,
    /// Machine config overrides, each a comma list.
    #[command(flatten)]
    pub machine: MachineOverrides,
}

impl SweepArgs {
    /// The lists as a sweep specification.
    pub fn spec(&self) -> SweepSpec {
        self.opts.spec(&self.machine.0)
    }

    /// The CSV and JSON paths of `--out`.
    fn out_paths(&self) -> Result<Option<(PathBuf, PathBuf)>, String> {
        let Some(out) = &self.out else {
            return Ok(None);
        };
        let stem = match out.extension().and_then(|e| e.to_str()) {
            Some("csv" | "json") => out.with_extension(""),
            None => out.clone(),
            Some(other) => {
                return Err(format!(
                    "--out {}: the extension `.{other}` is neither .csv nor .json",
                    out.display()
                ));
            }
        };
        Ok(Some((
            stem.with_extension("csv"),
            stem.with_extension("json"),
        )))
    }

    /// Every problem with the output flags, found before anything runs.
    fn output_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut paths: Vec<&Path> = Vec::new();
        let outs = self.out_paths();
        match &outs {
            Ok(Some((csv, _))) => paths.push(csv),
            Ok(None) => {}
            Err(e) => problems.push(e.clone()),
        }
        if let Some(p) = &self.plot {
            if Format::of(p).is_none() {
                problems.push(format!(
                    "--plot {}: the file name must end in .svg or .png",
                    p.display()
                ));
            }
            paths.push(p);
        }
        for path in paths {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            if let Some(dir) = dir.filter(|d| !d.is_dir()) {
                problems.push(format!(
                    "{}: the directory {} does not exist",
                    path.display(),
                    dir.display()
                ));
            }
        }
        if self.jobs == Some(0) {
            problems.push("--jobs 0: at least one configuration must run at a time".into());
        }
        problems
    }
}

fn invalid(problems: &[String]) -> Failure {
    let list: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
    Failure::input(format!("error: invalid sweep:\n{}", list.join("\n")))
}

/// A configuration in one line, by the axes that vary.
fn describe(opts: &SortOptions, varying: &[String]) -> String {
    let shown: &[String] = if varying.is_empty() {
        &["warp".into(), "slab_height".into(), "smem_layout".into()]
    } else {
        varying
    };
    shown
        .iter()
        .map(|a| format!("{a}={}", axis_value(opts, a)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure::run(format!("error: cannot write {}: {e}", path.display())))
}

/// Runs the sweep.
pub fn run(args: &SweepArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let mut problems = args.output_problems();
    let spec = args.spec();
    let axes = spec.axes();
    let varying: Vec<String> = axes
        .iter()
        .filter(|a| a.values.len() > 1)
        .map(|a| a.name.clone())
        .collect();
    let start = Instant::now();
    let checked = match sweep::check(&spec) {
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
    let runnable = checked.iter().filter(|c| c.prepared.is_ok()).count();
    let bar = sweep_bar(runnable as u64, args.quiet);
    let on_done = |_: usize, opts: &SortOptions| {
        bar.set_message(describe(opts, &varying));
        bar.inc(1);
    };
    let runs = sweep::run(checked, args.jobs.unwrap_or(0), &on_done).map_err(Failure::run)?;
    bar.finish_and_clear();
    report_problems(&runs, &varying);
    let text = if args.json {
        to_json(&axes, &runs)
    } else {
        summary(&axes, &runs)
    };
    write!(out, "{text}").map_err(output_error)?;
    if let Ok(Some((csv, json))) = args.out_paths() {
        write_file(&csv, &to_csv(&runs))?;
        write_file(&json, &to_json(&axes, &runs))?;
    }
    if let Some(path) = &args.plot {
        plot(path, &axes, &runs).map_err(|e| Failure::run(format!("error: {e}")))?;
    }
    let failed = runs
        .iter()
        .filter(|r| matches!(r.result, RunResult::Failed(_)))
        .count();
    if !args.quiet {
        eprintln!(
            "swept {} configurations ({} ran, {} skipped, {failed} failed) in {:.1} s",
            runs.len(),
            runnable,
            runs.len() - runnable,
            start.elapsed().as_secs_f64()
        );
    }
    if failed > 0 {
        return Err(Failure::run(format!(
            "error: {failed} configuration(s) failed"
        )));
    }
    Ok(())
}

/// Names every skipped and failed configuration on stderr.
fn report_problems(runs: &[SweepRun], varying: &[String]) {
    for r in runs {
        match &r.result {
            RunResult::Skipped(problems) => eprintln!(
                "skipped {}: {}",
                describe(&r.opts, varying),
                problems.join("; ")
            ),
            RunResult::Failed(error) => {
                eprintln!("FAILED {}: {error}", describe(&r.opts, varying))
            }
            RunResult::Done(_) => {}
        }
    }
}
