//! `simsort sweep`: every sort option takes a comma list; every combination
//! runs (in parallel); a summary goes to stdout, `--out` writes CSV and JSON,
//! `--plot` draws the picture. Configurations that do not fit the machine
//! are skipped and named on stderr; a list value with which nothing fits is
//! a bad flag (exit 2) and nothing runs. `--shard I/N` runs one slice of the
//! grid and `sweep merge` combines the slices (`experiment::shard`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use simsort::atomic::{AtomicFile, check_distinct, check_output, commit_all};
use simsort::experiment::options::SweepOptionArgs;
use simsort::experiment::plot::{Format, check_choice, plot_with};
use simsort::experiment::plot_axes::PlotChoice;
use simsort::experiment::shard::{self, Shard};
use simsort::experiment::sweep::{self, Axis, RunResult, SweepRun, SweepSpec, axis_value};
use simsort::experiment::sweep_out::{Results, axes_json, csv_of, reports, summary, to_csv};
use simsort::experiment::{ExperimentError, SortOptions};

use super::machine::MachineOverrides;
use super::progress::sweep_bar;
use super::{Failure, output_error};

/// The options of `simsort sweep`: the sort options, each a comma list.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SweepArgs {
    /// `merge`: combine the parts of a sharded sweep.
    #[command(subcommand)]
    pub action: Option<SweepAction>,
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
    /// Write a self-contained HTML report into FILE.html: the tables, the
    /// charts (hover a point for its counters), the command and version.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// The plot's x axis: any swept option or machine field [default: the
    /// one with most values].
    #[arg(long, value_name = "AXIS")]
    pub plot_x: Option<String>,
    /// The swept axis that gives the plot one line per value [default: the
    /// next with most values].
    #[arg(long, value_name = "AXIS")]
    pub plot_series: Option<String>,
    /// Swept axes that give the plot one panel per value (a comma list)
    /// [default: every other swept axis].
    #[arg(long, value_name = "AXIS", value_delimiter = ',')]
    pub plot_facet: Vec<String>,
    /// The plot's y: cycles, cycles/key, warp instructions, conflicts,
    /// conflicts/key, sectors/request, DRAM bytes, IPC, a stall reason
    /// (its share) or a counter by its Nsight Compute name [default:
    /// cycles/key].
    #[arg(long, value_name = "METRIC")]
    pub plot_metric: Option<String>,
    /// Plot each configuration against the one with AXIS=VALUE, in
    /// percent (for example smem-layout=plain).
    #[arg(long, value_name = "AXIS=VALUE")]
    pub plot_relative: Option<String>,
    /// Configurations run at once [default: one per core; at most the
    /// cores and the configurations].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Print the sweep as JSON on stdout instead of the summary table.
    #[arg(long)]
    pub json: bool,
    /// Run only the I-th of N slices of the grid (0 <= I < N, grid order),
    /// for job arrays; `sweep merge` combines the parts' --out files.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// No progress bar and no closing summary line on stderr.
    #[arg(short, long)]
    pub quiet: bool,
    /// Machine config overrides, each a comma list.
    #[command(flatten)]
    pub machine: MachineOverrides,
}

/// What `simsort sweep` does besides running a grid.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum SweepAction {
    /// Combine the parts of a sweep run with `--shard I/N` into the CSV
    /// and JSON one run of the whole grid writes.
    Merge(MergeArgs),
}

/// The options of `simsort sweep merge`.
#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// The merged results: OUT.csv and OUT.json (a .csv or .json ending is
    /// replaced), as `sweep --out`.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// Every part's `--out` file (FILE, FILE.csv or FILE.json: its JSON is
    /// read), one per shard, in any order.
    #[arg(value_name = "PART", required = true)]
    pub parts: Vec<PathBuf>,
}

/// The CSV and JSON paths that `--out FILE` (or `merge OUT`) names.
fn out_pair(flag: &str, out: &Path) -> Result<(PathBuf, PathBuf), String> {
    let stem = match out.extension().and_then(|e| e.to_str()) {
        Some("csv" | "json") => out.with_extension(""),
        None => out.to_path_buf(),
        Some(other) => {
            return Err(format!(
                "{flag} {}: the extension `.{other}` is neither .csv nor .json",
                out.display()
            ));
        }
    };
    Ok((stem.with_extension("csv"), stem.with_extension("json")))
}

impl SweepArgs {
    /// The lists as a sweep specification.
    pub fn spec(&self) -> SweepSpec {
        self.opts.spec(&self.machine.0)
    }

    /// The plot options.
    pub fn plot_choice(&self) -> PlotChoice {
        PlotChoice {
            x: self.plot_x.clone(),
            series: self.plot_series.clone(),
            facets: (!self.plot_facet.is_empty()).then(|| self.plot_facet.clone()),
            metric: self.plot_metric.clone(),
            relative: self.plot_relative.clone(),
        }
    }

    /// The CSV and JSON paths of `--out`.
    fn out_paths(&self) -> Result<Option<(PathBuf, PathBuf)>, String> {
        self.out
            .as_deref()
            .map(|out| out_pair("--out", out))
            .transpose()
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
        problems.extend(check_choice(&self.spec().axes(), &self.plot_choice()));
        if let Some(out) = &self.out
            && out.exists()
            && !out.is_file()
        {
            problems.push(format!(
                "--out {}: not a regular file; --out names the results' stem (FILE.csv and \
                 FILE.json are written beside it)",
                out.display()
            ));
        }
        if let Ok(Some((_, json))) = &outs {
            paths.push(json);
        }
        let named: Vec<(&str, &Path)> = paths.iter().map(|p| ("output", *p)).collect();
        if let Err(why) = check_distinct(&named, &[]) {
            problems.extend(why.split("\nerror: ").map(str::to_string));
        }
        if let Some(p) = &self.report
            && let Err(why) = simsort::report_html::check_path("--report", p)
        {
            problems.push(why);
        }
        for path in paths {
            if let Err(why) = check_output(path) {
                problems.push(format!("{}: {why}", path.display()));
            }
        }
        if self.jobs == Some(0) {
            problems.push("--jobs 0: at least one configuration must run at a time".into());
        }
        problems
    }
}

pub(super) fn invalid(problems: &[String]) -> Failure {
    Failure::input(format!("error: {}", problems.join("\nerror: ")))
}

/// A configuration in one line, by the axes that vary.
pub(super) fn describe(opts: &SortOptions, varying: &[String]) -> String {
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

pub(super) fn cannot(path: &Path, e: std::io::Error) -> Failure {
    Failure::run(format!(
        "error: cannot write {}: {e}; no output written (old files are kept)",
        path.display()
    ))
}

fn nothing_finished() -> Failure {
    Failure::run(
        "error: no configuration of the sweep finished: no output written (old files are kept)",
    )
}

/// Writes `(path, text)` pairs each to a temporary file, then renames them
/// all into place: all are written or none.
fn write_texts(texts: [(PathBuf, String); 2]) -> Result<Vec<AtomicFile>, Failure> {
    let mut files = Vec::new();
    for (path, text) in texts {
        let mut file = AtomicFile::create(&path).map_err(|e| cannot(&path, e))?;
        file.write_all(text.as_bytes())
            .map_err(|e| cannot(&path, e))?;
        files.push(file);
    }
    Ok(files)
}

/// Writes every output file of the sweep, or none: each is written to a
/// temporary file first and all are renamed into place only when every one
/// is complete. With no finished configuration nothing is written, except
/// by a shard (`grid` is then the whole grid's size), whose part the merge
/// needs even when all its configurations were skipped.
fn write_outputs(
    args: &SweepArgs,
    axes: &[Axis],
    runs: &[SweepRun],
    grid: usize,
) -> Result<(), Failure> {
    let outs = args.out_paths().ok().flatten();
    if outs.is_none() && args.plot.is_none() && args.report.is_none() {
        return Ok(());
    }
    if args.shard.is_none() && reports(runs).next().is_none() {
        return Err(nothing_finished());
    }
    let mut files = Vec::new();
    if let Some((csv, json)) = outs {
        let shard = args.shard.map(|s| s.json(grid));
        let json_text = Results::of(runs).to_json(&axes_json(axes), shard);
        files = write_texts([(csv, to_csv(runs)), (json, json_text)])?;
    }
    if let Some(path) = &args.plot {
        let file = AtomicFile::create(path).map_err(|e| cannot(path, e))?;
        plot_with(&file, axes, runs, &args.plot_choice()).map_err(|e| {
            Failure::run(format!(
                "error: {e}; no output written (old files are kept)"
            ))
        })?;
        files.push(file);
    }
    if let Some(path) = &args.report {
        let provenance = simsort::report_html::Provenance::of_process();
        let page = simsort::report_html::sweep::page(axes, runs, provenance);
        let mut file = AtomicFile::create(path).map_err(|e| cannot(path, e))?;
        file.write_all(page.to_html().as_bytes())
            .map_err(|e| cannot(path, e))?;
        files.push(file);
    }
    commit_set(files)
}

/// Renames a set of written files into place at once (`commit_all`: a
/// concurrent sweep with the same names never mixes its files with these).
fn commit_set(files: Vec<AtomicFile>) -> Result<(), Failure> {
    let first = files.first().map(|f| f.target().to_path_buf());
    commit_all(files).map_err(|e| cannot(first.as_deref().unwrap_or(Path::new(".")), e))
}

/// The worker threads for `runnable` configurations: `--jobs` (default:
/// one per core), but never more than the configurations or the cores.
pub(super) fn worker_threads(jobs: Option<usize>, runnable: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    jobs.unwrap_or(cores).min(cores).min(runnable).max(1)
}

/// Refuses a grid of `configurations` whose runs, `jobs` at once, need
/// more host memory than there is. Checking prepares every configuration's
/// input, so this comes first.
pub(super) fn check_memory(
    spec: &SweepSpec,
    jobs: Option<usize>,
    configurations: usize,
) -> Result<(), Failure> {
    use simsort::host_memory::{sort_bytes_of, sort_flag};
    let at_once = worker_threads(jobs, configurations);
    // The largest run: the most keys, with each algorithm and record size.
    let keys = spec.keys.iter().copied().max().unwrap_or(0);
    let largest = spec
        .algo
        .iter()
        .flat_map(|&algo| {
            spec.record_bytes
                .iter()
                .map(move |&record_bytes| SortOptions {
                    algo,
                    keys,
                    record_bytes,
                    ..SortOptions::default()
                })
        })
        .max_by_key(sort_bytes_of)
        .unwrap_or_default();
    let need = sort_bytes_of(&largest).saturating_mul(at_once as u64);
    let flag = format!(
        "{} with {at_once} configuration(s) at once (-j)",
        sort_flag(&largest)
    );
    simsort::host_memory::check(&flag, need).map_err(Failure::input)
}

/// Runs the sweep (or `sweep merge`).
pub fn run(args: &SweepArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if let Some(SweepAction::Merge(merge)) = &args.action {
        return run_merge(merge);
    }
    let mut problems = args.output_problems();
    let spec = args.spec();
    let axes = spec.axes();
    let varying: Vec<String> = axes
        .iter()
        .filter(|a| a.values.len() > 1)
        .map(|a| a.name.clone())
        .collect();
    let start = Instant::now();
    let grid = usize::try_from(spec.size()).unwrap_or(usize::MAX);
    check_memory(&spec, args.jobs, grid)?;
    let checked = match sweep::check(&spec) {
        Ok(mut checked) => match args.shard {
            Some(shard) => checked.drain(shard.range(grid)).collect(),
            None => checked,
        },
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
    let jobs = worker_threads(args.jobs, runnable);
    let bar = sweep_bar(runnable as u64, args.quiet);
    let on_done = |_: usize, opts: &SortOptions| {
        bar.set_message(describe(opts, &varying));
        bar.inc(1);
    };
    let runs = sweep::run(checked, jobs, &on_done).map_err(Failure::run)?;
    bar.finish_and_clear();
    report_problems(&runs, &varying);
    let text = if args.json {
        Results::of(&runs).to_json(&axes_json(&axes), args.shard.map(|s| s.json(grid)))
    } else {
        summary(&axes, &runs)
    };
    write!(out, "{text}").map_err(output_error)?;
    if let Err(e) = write_outputs(args, &axes, &runs, grid) {
        let kept = "nothing was written (old files are kept)";
        return Err(interrupted(&runs, kept).unwrap_or(e));
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
    if let Some(failure) = interrupted(&runs, "--out and --plot hold the finished ones") {
        return Err(failure);
    }
    if failed > 0 {
        return Err(Failure::run(format!(
            "error: {failed} configuration(s) failed"
        )));
    }
    Ok(())
}

/// After Ctrl-C (or SIGTERM, SIGHUP): one message with what finished,
/// what was stopped part way and what never started, and `kept` (what
/// became of the outputs); `None` when no stop was asked for.
pub(super) fn interrupted(runs: &[SweepRun], kept: &str) -> Option<Failure> {
    if !sim::stop_requested() {
        return None;
    }
    let count = |f: &dyn Fn(&RunResult) -> bool| runs.iter().filter(|r| f(&r.result)).count();
    let done = count(&|r| matches!(r, RunResult::Done(_)));
    let not_started = count(&|r| matches!(r, RunResult::Failed(e) if e == sweep::NOT_STARTED));
    let stopped = count(&|r| matches!(r, RunResult::Failed(e) if e != sweep::NOT_STARTED));
    Some(Failure::run(format!(
        "error: interrupted ({}): {done} configuration(s) finished, {stopped} stopped part way, \
         {not_started} not started; {kept}",
        simsort::signals::reason()
    )))
}

/// `sweep merge`: reads every part, checks they are the shards of one
/// grid, and writes the merged CSV and JSON (all or nothing).
fn run_merge(args: &MergeArgs) -> Result<(), Failure> {
    let (csv, json) = out_pair("sweep merge", &args.out).map_err(Failure::input)?;
    let mut problems = Vec::new();
    if args.out.exists() && !args.out.is_file() {
        problems.push(format!(
            "OUT {}: not a regular file; OUT names the results' stem (OUT.csv and OUT.json are \
             written beside it)",
            args.out.display()
        ));
    }
    let inputs: Vec<PathBuf> = args.parts.iter().map(|p| shard::part_json(p)).collect();
    let named: Vec<(&str, &Path)> = inputs.iter().map(|p| ("PART", p.as_path())).collect();
    if let Err(why) = check_distinct(&[("OUT", &csv), ("OUT", &json)], &named) {
        problems.extend(why.split("\nerror: ").map(str::to_string));
    }
    for path in [&csv, &json] {
        if let Err(why) = check_output(path) {
            problems.push(format!("{}: {why}", path.display()));
        }
    }
    let mut parts = Vec::new();
    for arg in &args.parts {
        let path = shard::part_json(arg);
        match std::fs::read_to_string(&path) {
            Ok(text) => match shard::parse_part(&path, &text) {
                Ok(part) => parts.push(part),
                Err(e) => problems.push(e),
            },
            Err(e) => problems.push(format!("{}: cannot read: {e}", path.display())),
        }
    }
    if problems.is_empty() {
        match shard::merge(parts) {
            Ok((axes, results)) => {
                if results.runs.is_empty() {
                    return Err(nothing_finished());
                }
                let text = results.to_json(&axes, None);
                let files = write_texts([(csv, csv_of(&results.runs)), (json, text)])?;
                commit_set(files)?;
                if !results.failed.is_empty() {
                    return Err(Failure::run(format!(
                        "error: {} configuration(s) of the merged sweep failed",
                        results.failed.len()
                    )));
                }
                return Ok(());
            }
            Err(more) => problems.extend(more),
        }
    }
    let list: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
    Err(Failure::input(format!(
        "error: cannot merge the sweep's parts:\n{}",
        list.join("\n")
    )))
}

/// Names every skipped and failed configuration on stderr.
pub(super) fn report_problems(runs: &[SweepRun], varying: &[String]) {
    for r in runs {
        match &r.result {
            RunResult::Skipped(problems) => eprintln!(
                "skipped {}: {}",
                describe(&r.opts, varying),
                problems.join("; ")
            ),
            // Counted in the closing "interrupted" message instead.
            RunResult::Failed(error) if error == sweep::NOT_STARTED => {}
            RunResult::Failed(error) => {
                eprintln!("FAILED {}: {error}", describe(&r.opts, varying))
            }
            RunResult::Done(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_are_clamped_to_the_configurations_and_the_cores() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(worker_threads(Some(100_000), 1), 1);
        assert_eq!(worker_threads(Some(100_000), 100_000), cores);
        assert_eq!(worker_threads(None, 0), 1);
        assert_eq!(worker_threads(Some(1), 8), 1);
    }
}
