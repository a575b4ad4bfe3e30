//! The main job: `simsort [SORT OPTIONS]` sorts keys on the simulated GPU,
//! checks the result against a reference sort and prints the report.

use std::io::Write;

use clap::Args;
use sim::SimError;
use simsort::experiment::SortOptions;
use simsort::experiment::options::SortOptionArgs;
use simsort::experiment::sort::{ExperimentError, prepare};
use simsort::experiment::trace::{TraceSpec, run_recorded};
use std::path::{Path, PathBuf};
use traces::{Focus, TraceLevel, TraceOptions};

use super::machine::MachineOverrides;
use super::progress::SortBar;
use super::{Failure, output_error};

/// The sort options of `cli.md`.
#[derive(Debug, Clone, Args)]
pub struct SortArgs {
    /// The sort options (declared once, in `experiment::options`).
    #[command(flatten)]
    pub opts: SortOptionArgs,
    /// Print the report as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar and no closing line on stderr.
    #[arg(short, long)]
    pub quiet: bool,
    /// Record a replay trace of the run into FILE (`simsort replay FILE`).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Which block (and warp) the trace records in detail: `block=B[,warp=W]`.
    #[arg(long, value_name = "SPEC", default_value = "block=0", value_parser = parse_focus, requires = "trace")]
    pub trace_focus: Focus,
    /// How much the trace keeps beyond the focus: `counters-only` or `full`.
    #[arg(long, value_name = "LEVEL", default_value = "counters-only", value_parser = parse_level, requires = "trace")]
    pub trace_level: TraceLevel,
    /// Draw the run's plot into FILE (.svg or .png): cycles and where the
    /// warps' time goes, per kernel.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Host threads that simulate the SMs (default: `SIMSORT_THREADS`,
    /// else one per core); the report is the same for any count.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Machine config overrides.
    #[command(flatten)]
    pub machine: MachineOverrides,
}

fn parse_focus(s: &str) -> Result<Focus, String> {
    s.parse::<Focus>().map_err(|e| e.to_string())
}

fn parse_level(s: &str) -> Result<TraceLevel, String> {
    s.parse::<TraceLevel>().map_err(|e| e.to_string())
}

impl SortArgs {
    /// The experiment these arguments describe.
    pub fn options(&self) -> SortOptions {
        self.opts.options(self.machine.0.clone())
    }
}

/// Runs the sort and prints its report; with `report`, writes the HTML
/// report there too.
pub fn run(args: &SortArgs, report: Option<&Path>, out: &mut dyn Write) -> Result<(), Failure> {
    let opts = args.options();
    let need = simsort::host_memory::sort_bytes_of(&opts);
    simsort::host_memory::check(&simsort::host_memory::sort_flag(&opts), need)
        .map_err(Failure::input)?;
    if let Some(path) = &args.trace {
        simsort::atomic::check_output(path).map_err(|why| {
            Failure::input(format!(
                "error: cannot write the trace (--trace {}): {why}",
                path.display()
            ))
        })?;
    }
    if let Some(p) = report {
        simsort::report_html::check_path("--report", p)
            .map_err(|why| Failure::input(format!("error: {why}")))?;
    }
    let threads = super::threads::host_threads(args.threads)?;
    if let Some(p) = &args.plot {
        if simsort::chart::Format::of(p).is_none() {
            return Err(Failure::input(format!(
                "error: --plot {}: the file name must end in .svg or .png",
                p.display()
            )));
        }
        if let Err(why) = simsort::atomic::check_output(p) {
            return Err(Failure::input(format!("error: {}: {why}", p.display())));
        }
    }
    let bar = SortBar::new(args.quiet);
    let outcome = match &args.trace {
        None => prepare(&args.options()).and_then(|mut prepared| {
            prepared.threads = threads;
            prepared.run(&mut |p| bar.update(p))
        }),
        Some(path) => prepare(&args.options()).and_then(|prepared| {
            let spec = TraceSpec {
                path: path.clone(),
                focus: args.trace_focus,
                level: args.trace_level,
                counter_interval_cycles: TraceOptions::default().counter_interval_cycles,
            };
            run_recorded(&prepared, &spec, &mut |p| bar.update(p))
        }),
    };
    bar.finish();
    let outcome = outcome.map_err(|e| sort_failure(&e, args.trace.is_some()))?;
    let text = if args.json {
        outcome.report.to_json()
    } else {
        let config = super::run_config::run_config(&outcome.report);
        let legend = super::run_config::legend(&outcome.report);
        format!("{config}\n{}\n{legend}", outcome.report.to_table())
    };
    writeln!(out, "{text}").map_err(output_error)?;
    if let Some(path) = report {
        let about = super::run_config::run_config(&outcome.report);
        let legend = super::run_config::legend(&outcome.report);
        let provenance = simsort::report_html::Provenance::of_process();
        let page = simsort::report_html::sort::page(&outcome.report, &about, &legend, provenance);
        simsort::report_html::write(path, &page)
            .map_err(|e| Failure::run(format!("error: cannot write {}: {e}", path.display())))?;
    }
    if let Some(path) = &args.plot {
        simsort::experiment::run_plot::plot(path, &outcome.report).map_err(|e| {
            Failure::run(format!(
                "error: cannot draw the plot (--plot {}): {e}",
                path.display()
            ))
        })?;
    }
    if !args.quiet {
        let rate = outcome.warp_instructions as f64 / outcome.host_seconds.max(1e-9);
        eprintln!(
            "sorted {} keys: verified against the reference sort; simulated {} warp instructions \
             in {:.2} s ({:.1} M warp instructions per host second)",
            args.opts.keys,
            outcome.warp_instructions,
            outcome.host_seconds,
            rate / 1e6
        );
        for note in &outcome.notes {
            eprintln!("{note}");
        }
        // Only in a build with the `phase-timer` feature.
        let phases = sim::phases::totals();
        if !phases.is_empty() {
            eprintln!("host wall time per phase of the simulator's event loop:");
            for (name, seconds, times) in phases {
                eprintln!("  {name:28} {:9.1} ms ({times} times)", seconds * 1e3);
            }
        }
    }
    Ok(())
}

/// The failure of a sort: its error with the status `docs/cli.md` gives it,
/// or, when a signal stopped it, what was interrupted and what was not
/// written, with status 130 (as `run` and every command that writes nothing
/// once stopped).
fn sort_failure(e: &ExperimentError, traced: bool) -> Failure {
    match e {
        ExperimentError::Sim(SimError::Interrupted { kernel, cycle }) => Failure {
            status: 130,
            message: format!(
                "error: interrupted ({}): kernel `{kernel}` stopped at cycle {}; no report{} was \
                 written",
                simsort::signals::reason(),
                cycle.0,
                if traced { " or trace" } else { "" }
            ),
        },
        e => Failure {
            status: e.exit_status(),
            message: format!("error: {e}"),
        },
    }
}
