//! `simsort calibrate`: hardware against simulator, launch by launch.
//!
//! - `simsort calibrate DIR`: a profiled bundle (its `ncu.csv` beside the
//!   `report.json` that `simsort emit bundle` wrote);
//! - `simsort calibrate NCU.csv REPORT.json`: the same, named;
//! - `simsort calibrate --suite SUITE --data DIR`: every entry of a suite
//!   file (`NAME bundle|bundle-run ARGS...`, one a line) simulated anew with
//!   the current model and compared with `DIR/NAME.csv`: how the committed
//!   hardware data (`hw/calib/`) checks the simulator.
//!
//! `--max-mape` and `--min-r` turn the summary into a pass/fail check
//! (exit 1 when the model is worse).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Parser};
use simsort::calib::compare::{self, Pair, SimLaunch, Summary};
use simsort::calib::ncu;

use super::bundle::{Recorded, record_kernel, record_sort};
use super::run::RunArgs;
use super::sort::SortArgs;
use super::{Failure, output_error};

/// Arguments of `simsort calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// A profiled bundle directory, or NCU.csv then REPORT.json.
    #[arg(value_name = "DIR | NCU.csv REPORT.json", num_args = 0..=2)]
    pub inputs: Vec<PathBuf>,
    /// A suite file: `NAME bundle|bundle-run ARGS...` a line; each entry is
    /// simulated anew and compared with `--data`'s `NAME.csv`.
    #[arg(long, value_name = "FILE", conflicts_with = "inputs")]
    pub suite: Option<PathBuf>,
    /// The directory of the suite's ncu CSVs.
    #[arg(long, value_name = "DIR", default_value = "hw/data/calib")]
    pub data: PathBuf,
    /// Only the suite entries whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,
    /// Simulate every suite entry on this machine (a preset or a machine
    /// file) instead of the default `h200`: the machine `--data` was
    /// measured on.
    #[arg(long, value_name = "NAME|FILE", requires = "suite")]
    pub gpu: Option<String>,
    /// Draw the correlation plot (simulated against hardware cycles) here.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Write a self-contained HTML report into FILE.html: the tables, the
    /// charts (hover a point for its launch), the command and version.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// Fail (exit 1) when the cycle MAPE is above this many percent.
    #[arg(long, value_name = "PERCENT", value_parser = percent)]
    pub max_mape: Option<f64>,
    /// Fail (exit 1) when Pearson's r of cycles is below this.
    #[arg(long, value_name = "R", value_parser = correlation)]
    pub min_r: Option<f64>,
    /// Fail (exit 1) when a whole sort's cycles (an entry of more than one
    /// launch, summed) are further than this many percent from the
    /// hardware's; refused (exit 2) when the comparison has no such entry.
    #[arg(long, value_name = "PERCENT", value_parser = percent)]
    pub max_whole_sort_error: Option<f64>,
    /// Fit the timing fields of `--gpu` (default h200) to the suite's data
    /// and write the fitted machine file here (.toml or .json); prints the
    /// fitted and held-out cycle MAPE (docs/calibration.md).
    #[arg(long, value_name = "FILE.toml", requires = "suite", conflicts_with_all = ["plot", "report", "json", "max_mape", "min_r", "max_whole_sort_error"])]
    pub fit: Option<PathBuf>,
    /// The fields `--fit` moves, comma-separated timing fields [default:
    /// launch_overhead_cycles,dram_latency_cycles,alu_latency_cycles,
    /// block_dispatch_cycles,l2_bytes_per_cycle,dram_bytes_per_cycle].
    #[arg(long, value_name = "FIELD,...", requires = "fit")]
    pub fit_fields: Option<String>,
    /// The most machines `--fit` simulates the fitted entries on.
    #[arg(long, value_name = "N", default_value_t = 40, requires = "fit")]
    pub max_evals: usize,
    /// `--fit` holds out every K-th suite entry (K, 2K, ...): never fitted,
    /// their MAPE printed apart.
    #[arg(long, value_name = "K", default_value_t = 4, requires = "fit")]
    pub hold_out: usize,
    /// Also print the held-out MAPE of this machine (e.g. a measured preset).
    #[arg(long, value_name = "NAME|FILE", requires = "fit")]
    pub reference: Option<String>,
    /// Host threads `--fit` simulates entries on, one entry each (default:
    /// `SIMSORT_THREADS`, else one per core); the fit is the same for any.
    #[arg(long, value_name = "N", requires = "fit")]
    pub threads: Option<usize>,
}

/// A MAPE bound: a number of percent, 0 or more (NaN would turn the check
/// off without a word).
fn percent(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not a percentage: give a number of 0 or more, e.g. 25"
        )),
    }
}

/// A bound on Pearson's r: a number in -1..=1.
fn correlation(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (-1.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a correlation: give a number in -1..=1, e.g. 0.9"
        )),
    }
}

#[derive(Debug, Parser)]
#[command(name = "bundle", no_binary_name = true)]
pub(super) struct SuiteSort {
    #[command(flatten)]
    pub(super) sort: SortArgs,
}

#[derive(Debug, Parser)]
#[command(name = "bundle-run", no_binary_name = true)]
pub(super) struct SuiteRun {
    #[command(flatten)]
    pub(super) run: RunArgs,
    /// Whether the bundle's PTX zeroes shared memory first (the default):
    /// the simulator runs the same loop before the kernel.
    #[arg(long, action = clap::ArgAction::Set)]
    zero_shared: Option<bool>,
}

impl SuiteRun {
    /// Simulates the entry's launch as its bundle runs it: after the
    /// shared-memory zeroing loop its PTX has unless told not to.
    pub(super) fn record(&self) -> Result<Recorded, Failure> {
        record_kernel(&self.run, true, self.zero_shared.unwrap_or(true))
    }
}

/// Runs `simsort calibrate`.
pub fn run(args: &CalibrateArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if let Some(path) = &args.fit {
        return super::fit::run(args, path, out);
    }
    if let Some(p) = &args.report {
        simsort::report_html::check_path("--report", p)
            .map_err(|why| Failure::input(format!("error: {why}")))?;
    }
    check_plot(args)?;
    let gpus = super::compared_gpus::gpus(args);
    if let Some(note) = gpus.across() {
        eprintln!("{note}");
    }
    let mut missing = Vec::new();
    let pairs = match (&args.suite, args.inputs.as_slice()) {
        (Some(suite), []) => suite_pairs(
            suite,
            &args.data,
            args.only.as_deref(),
            args.gpu.as_deref(),
            &mut missing,
        )?,
        (None, [dir]) => {
            let hw = dir.join("ncu.csv");
            let sim = dir.join("report.json");
            file_pairs(&hw, &sim, "DIR")?
        }
        (None, [hw, sim]) => file_pairs(hw, sim, "")?,
        _ => {
            return Err(Failure::input(
                "error: nothing to compare (DIR | NCU.csv REPORT.json): give a profiled bundle \
                 directory, NCU.csv then REPORT.json, or --suite FILE",
            ));
        }
    };
    if pairs.is_empty() && !missing.is_empty() {
        return Err(Failure::input(format!(
            "error: no launches to compare: {}",
            missing.join("; ")
        )));
    }
    if pairs.is_empty() {
        return Err(Failure::input(match &args.only {
            Some(only) => format!(
                "error: no launches to compare (--only {only}): no suite entry's name contains it"
            ),
            None => "error: no launches to compare: the inputs hold none".to_string(),
        }));
    }
    let summary = compare::summarize(&pairs);
    let worst_whole = simsort::calib::whole::worst(&summary.whole_sorts);
    // Refused before any output is written: a plot, report or table of a
    // comparison whose check cannot run would look like a passed one.
    if args.max_whole_sort_error.is_some() && worst_whole.is_none() {
        return Err(Failure::input(
            "error: --max-whole-sort-error: the comparison has no whole sort (no suite entry \
             or bundle of more than one launch) to check"
                .to_string(),
        ));
    }
    if let Some(path) = &args.plot {
        simsort::calib::plot::plot(path, &pairs, &summary).map_err(|e| {
            Failure::run(format!(
                "error: cannot draw the plot (--plot {}): {e}",
                path.display()
            ))
        })?;
    }
    if let Some(path) = &args.report {
        let provenance = simsort::report_html::Provenance::of_process();
        let page =
            simsort::report_html::calib::page(&pairs, &summary, &gpus.sentence(), provenance);
        simsort::report_html::write(path, &page)
            .map_err(|e| Failure::run(format!("error: cannot write {}: {e}", path.display())))?;
    }
    let text = if args.json {
        let value = serde_json::json!({ "gpus": gpus, "summary": summary, "launches": pairs });
        let mut s = serde_json::to_string_pretty(&value).expect("serialises");
        s.push('\n');
        s
    } else {
        table(&pairs, &summary)
    };
    out.write_all(text.as_bytes()).map_err(output_error)?;
    let mut failed = Vec::new();
    if let Some(max) = args.max_mape
        && summary.cycle_mape_percent > max
    {
        failed.push(format!(
            "cycle MAPE {:.2}% is above --max-mape {max}%",
            summary.cycle_mape_percent
        ));
    }
    if let Some(min) = args.min_r
        && summary.cycle_pearson_r < min
    {
        failed.push(format!(
            "cycle r {:.4} is below --min-r {min}",
            summary.cycle_pearson_r
        ));
    }
    if let Some(max) = args.max_whole_sort_error
        && let Some(w) = worst_whole
        && w.error_percent().abs() > max
    {
        failed.push(format!(
            "whole sort {} is {:+.2}% off the hardware's cycles, beyond --max-whole-sort-error {max}%",
            if w.entry.is_empty() { "(the bundle)" } else { &w.entry },
            w.error_percent()
        ));
    }
    if !missing.is_empty() {
        let mut lines: Vec<String> = missing
            .iter()
            .map(|m| format!("error: {m}; the entry was left out, the others compared"))
            .collect();
        if !failed.is_empty() {
            lines.push(format!(
                "error: calibration check failed: {}",
                failed.join("; ")
            ));
        }
        return Err(Failure::input(lines.join("\n")));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::run(format!(
            "error: calibration check failed: {}",
            failed.join("; ")
        )))
    }
}

/// The files calibrate reads, with the flag that names each: the suite
/// and its entries' CSVs, or a bundle's two files.
fn input_files(args: &CalibrateArgs) -> Vec<(&'static str, PathBuf)> {
    match (&args.suite, args.inputs.as_slice()) {
        (Some(suite), _) => {
            let mut files = vec![("--suite", suite.clone())];
            let text = std::fs::read_to_string(suite).unwrap_or_default();
            for (name, _, _) in suite_entries(&text, suite).unwrap_or_default() {
                files.push(("--data", args.data.join(format!("{name}.csv"))));
            }
            files
        }
        (None, [dir]) => vec![
            ("DIR", dir.join("ncu.csv")),
            ("DIR", dir.join("report.json")),
        ],
        (None, inputs) => inputs.iter().map(|p| ("input", p.clone())).collect(),
    }
}

/// Refuses a `--plot` that cannot be written (its format, its directory,
/// an input it would overwrite) before anything is simulated.
fn check_plot(args: &CalibrateArgs) -> Result<(), Failure> {
    let Some(plot) = &args.plot else {
        return Ok(());
    };
    let bad = |why: String| {
        Failure::input(format!(
            "error: cannot write the plot (--plot {}): {why}",
            plot.display()
        ))
    };
    if simsort::experiment::plot::Format::of(plot).is_none() {
        return Err(bad("the file name must end in .svg or .png".to_string()));
    }
    let inputs = input_files(args);
    let named: Vec<(&str, &Path)> = inputs.iter().map(|(f, p)| (*f, p.as_path())).collect();
    simsort::atomic::check_distinct(&[("--plot", plot)], &named)
        .map_err(|why| Failure::input(format!("error: {why}")))?;
    simsort::atomic::check_output(plot).map_err(bad)
}

/// Where a file came from, for messages: the flag or argument that named
/// it, and the file itself, as in `(--suite FILE)`.
fn origin(flag: &str, path: &Path) -> String {
    if flag.is_empty() {
        path.display().to_string()
    } else {
        format!("{flag} {}", path.display())
    }
}

/// Reads `path`, named on the command line by `flag` (or a positional
/// argument when `flag` is empty).
pub(super) fn read(path: &Path, flag: &str) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| {
        Failure::input(format!(
            "error: cannot read a calibration input ({}): {e}",
            origin(flag, path)
        ))
    })
}

pub(super) fn hw_launches(path: &Path, flag: &str) -> Result<Vec<ncu::NcuLaunch>, Failure> {
    ncu::parse(&read(path, flag)?).map_err(|e| {
        Failure::input(format!(
            "error: not an Nsight Compute CSV ({}): {e}",
            origin(flag, path)
        ))
    })
}

/// The launches of a per-launch report (`report.json` of a bundle).
fn sim_launches(path: &Path, flag: &str) -> Result<Vec<SimLaunch>, Failure> {
    let bad = |why: &str| {
        Failure::input(format!(
            "error: not a bundle's report.json ({}): {why}",
            origin(flag, path)
        ))
    };
    let value: serde_json::Value =
        serde_json::from_str(&read(path, flag)?).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let launches = value
        .get("launches")
        .and_then(|l| l.as_array())
        .ok_or_else(|| bad("no `launches` array (a bundle's report.json has one)"))?;
    launches
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let name = l.get("name").and_then(|n| n.as_str());
            let metrics = l.get("metrics").and_then(|m| m.as_object());
            match (name, metrics) {
                (Some(name), Some(metrics)) => Ok(SimLaunch {
                    name: name.to_string(),
                    metrics: metrics
                        .iter()
                        .filter_map(|(k, v)| v.as_f64().map(|v| (k.clone(), v)))
                        .collect(),
                }),
                _ => Err(bad(&format!("launch {i} lacks `name` or `metrics`"))),
            }
        })
        .collect()
}

fn file_pairs(hw: &Path, sim: &Path, flag: &str) -> Result<Vec<Pair>, Failure> {
    compare::pair("", &hw_launches(hw, flag)?, &sim_launches(sim, flag)?).map_err(|e| {
        Failure::input(format!(
            "error: the launches do not pair ({} and {}): {e}",
            origin(flag, hw),
            sim.display()
        ))
    })
}

/// One suite entry: its name, its kind and its arguments.
pub(super) fn suite_entries(
    text: &str,
    suite: &Path,
) -> Result<Vec<(String, String, Vec<String>)>, Failure> {
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace().map(str::to_string);
        let (Some(name), Some(kind)) = (words.next(), words.next()) else {
            return Err(Failure::input(format!(
                "error: bad suite line {} (--suite {}): expected NAME bundle|bundle-run ARGS...",
                n + 1,
                suite.display()
            )));
        };
        if kind != "bundle" && kind != "bundle-run" {
            return Err(Failure::input(format!(
                "error: bad suite line {} (--suite {}): `{kind}` is neither bundle nor bundle-run",
                n + 1,
                suite.display()
            )));
        }
        entries.push((name, kind, words.collect()));
    }
    Ok(entries)
}

/// The pairs of every suite entry (those `only` selects). An entry whose
/// hardware CSV cannot be read is left out and named in `missing`, so one
/// missing file does not waste the simulation of the others.
fn suite_pairs(
    suite: &Path,
    data: &Path,
    only: Option<&str>,
    gpu: Option<&str>,
    missing: &mut Vec<String>,
) -> Result<Vec<Pair>, Failure> {
    let mut pairs = Vec::new();
    for (name, kind, mut words) in suite_entries(&read(suite, "--suite")?, suite)? {
        if only.is_some_and(|o| !name.contains(o)) {
            continue;
        }
        if let Some(gpu) = gpu {
            if words
                .iter()
                .any(|w| w == "--gpu" || w.starts_with("--gpu="))
            {
                return Err(Failure::input(format!(
                    "error: suite entry {name} names its own machine (--gpu {gpu}): drop --gpu \
                     from the entry or from the command line"
                )));
            }
            words.extend(["--gpu".to_string(), gpu.to_string()]);
        }
        let hw = match hw_launches(&data.join(format!("{name}.csv")), "--data") {
            Ok(hw) => hw,
            Err(e) => {
                let why = e.message.strip_prefix("error: ").unwrap_or(&e.message);
                missing.push(format!("suite entry {name}: {why}"));
                continue;
            }
        };
        let bad = |e: clap::Error| {
            let e = e.to_string();
            let first = e.lines().next().unwrap_or_default();
            Failure::input(format!(
                "error: bad suite entry {name} (--suite {}): {}",
                suite.display(),
                first.strip_prefix("error: ").unwrap_or(first)
            ))
        };
        let recorded = if kind == "bundle" {
            record_sort(&SuiteSort::try_parse_from(&words).map_err(bad)?.sort, true)
        } else {
            SuiteRun::try_parse_from(&words).map_err(bad)?.record()
        }
        .map_err(|e| interrupted(&name).unwrap_or(e))?;
        let sim = recorded.sim_launches();
        pairs.extend(compare::pair(&name, &hw, &sim).map_err(|e| {
            Failure::input(format!(
                "error: suite entry {name} does not pair with its hardware launches (--data {}): {e}",
                data.display()
            ))
        })?);
    }
    Ok(pairs)
}

/// The failure of a suite stopped by Ctrl-C while simulating `entry`, if
/// a stop was requested (exit status 130, as every command stopped so).
pub(super) fn interrupted(entry: &str) -> Option<Failure> {
    sim::stop_requested().then(|| Failure {
        status: 130,
        message: format!(
            "error: interrupted ({}): calibrate stopped while simulating suite entry \
             {entry}; nothing was compared",
            simsort::signals::reason()
        ),
    })
}

fn table(pairs: &[Pair], summary: &Summary) -> String {
    let mut s = String::new();
    let w = pairs
        .iter()
        .map(|p| p.entry.len() + 4 + p.kernel.len())
        .max()
        .unwrap_or(6)
        .max(6);
    s += &format!(
        "{:<w$} {:>11} {:>11} {:>7} {:>8} {:>7}  {:<16} {:<16}\n",
        "launch",
        "hw cycles",
        "sim cycles",
        "error",
        "inst",
        "exact",
        "hw top stall",
        "sim top stall"
    );
    for p in pairs {
        let exact = p.exact.values().filter(|(h, s)| h == s).count();
        let id = p.name();
        s += &format!(
            "{:<w$} {:>11.0} {:>11.0} {:>+6.1}% {:>8.2} {:>3}/{:<3}  {:<16} {:<16}\n",
            id,
            p.hw_cycles,
            p.sim_cycles,
            p.error() * 100.0,
            if p.sim_insts > 0.0 {
                p.hw_insts / p.sim_insts
            } else {
                0.0
            },
            exact,
            p.exact.len(),
            p.hw_top_stall,
            p.sim_top_stall
        );
    }
    s += &format!(
        "\n{} launches: cycle MAPE {:.1}%, Pearson r {:.4}; top stall reason agrees in {} ({:.0}%); \
         SASS/IR instructions {:.2}\n",
        summary.launches,
        summary.cycle_mape_percent,
        summary.cycle_pearson_r,
        summary.top_stall_agree,
        100.0 * summary.top_stall_agree as f64 / summary.launches.max(1) as f64,
        summary.inst_ratio
    );
    let lines = [
        summary.worst_line(),
        simsort::calib::whole::line(&summary.whole_sorts),
    ];
    for line in lines.into_iter().flatten() {
        s += &line;
        s.push('\n');
    }
    s += "per kernel (launches, cycle MAPE):";
    let per: BTreeMap<_, _> = summary.per_kernel.iter().collect();
    for (k, (n, mape)) in per {
        s += &format!(" {k} {n} {mape:.1}%;");
    }
    s += "\nexact counters (launches equal / compared):\n";
    for (k, (eq, n)) in &summary.exact {
        s += &format!("  {k}: {eq}/{n}\n");
    }
    if let Some(block) = simsort::calib::stall_shares::block(&summary.stall_shares) {
        s += &block;
    }
    s
}
