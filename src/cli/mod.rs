//! Argument parsing and dispatch: one file per subcommand, each with an
//! `Args` struct (clap derive) and a `run` function. A subcommand writes its
//! normal output to the `out` it is given and returns a [`Failure`] (the
//! message to print on stderr and the exit status) when it cannot do its job.

use std::io::{self, IsTerminal, Write};

use clap::{Parser, Subcommand};
use miette::Diagnostic;

pub mod bundle;
pub mod calibrate;
pub mod check;
pub mod compare;
mod compared_gpus;
pub mod completions;
pub mod emit;
pub mod fit;
pub mod gpu;
pub mod kernels;
pub mod machine;
pub mod progress;
pub mod replay;
pub mod run;
pub mod run_config;
pub mod sort;
pub mod sweep;
pub mod threads;
pub mod trace;

/// simsort: a cycle-level SIMT GPU simulator that runs GPU sorting kernels
/// and shows where every cycle goes.
#[derive(Debug, Parser)]
#[command(name = "simsort", version, about, long_about = None)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// What to do; without a subcommand, run one sort experiment.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The sort experiment run when no subcommand is given.
    #[command(flatten)]
    pub sort: sort::SortArgs,
    /// Write a self-contained HTML report of the sort into FILE.html: the
    /// tables, the charts (hover a bar for its counters), the command and
    /// version.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<std::path::PathBuf>,
    /// Host memory a run may use (k/M/G/T suffixes, powers of 1024)
    /// [default: the machine's available memory]. Runs estimated to need
    /// more are refused before they start.
    #[arg(long, global = true, value_name = "BYTES", value_parser = host_bytes)]
    pub max_host_memory: Option<u64>,
}

/// Parses a byte count with an optional k/M/G/T suffix (powers of 1024).
fn host_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 10),
        Some((i, 'm' | 'M')) => (&t[..i], 20),
        Some((i, 'g' | 'G')) => (&t[..i], 30),
        Some((i, 't' | 'T')) => (&t[..i], 40),
        _ => (t, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a byte count; use e.g. 512M or 8G"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("`{s}` is too large; at most 16777215T"))
}

/// The subcommands (parsed once per process, so the variants' sizes do
/// not matter).
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Parse and verify IR text, print it in canonical form.
    Check(check::CheckArgs),
    /// List the kernels simsort can generate, or print one as IR text.
    Kernels(kernels::KernelsArgs),
    /// Open the terminal UI on a recorded trace.
    Replay(replay::ReplayArgs),
    /// Run one IR kernel from a file on the simulated GPU.
    Run(run::RunArgs),
    /// Turn a kernel into code for a real GPU (`emit ptx`).
    Emit(emit::EmitArgs),
    /// Export or inspect a recorded trace.
    Trace(trace::TraceArgs),
    /// Run a grid of sort experiments: every sort option takes a comma list.
    Sweep(sweep::SweepArgs),
    /// Every algorithm on the same input and machine, side by side.
    Compare(compare::CompareArgs),
    /// Print a shell completion script (bash, zsh, fish, ...).
    Completions(completions::CompletionsArgs),
    /// Compare hardware (Nsight Compute CSV) with the simulator, launch by launch.
    Calibrate(calibrate::CalibrateArgs),
    /// The machines `--gpu` accepts: list the presets, show one as a machine file, diff two.
    Gpu(gpu::GpuArgs),
}

/// Parses the command line. Negative numbers are values, in every
/// subcommand: `--warp -1` is a bad value for `--warp` (named with its
/// range), not an unknown flag `-1`.
pub fn parse() -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut cmd = Cli::command()
        .allow_negative_numbers(true)
        .mut_subcommands(|c| c.allow_negative_numbers(true));
    let matches = cmd
        .try_get_matches_from_mut(std::env::args_os())
        .map_err(plain_counts)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    // `compare` runs every algorithm unless `--algo` is given: the sweep
    // flags' default (`hotsort`) must not count as a choice.
    if let (Some(Command::Compare(args)), Some(("compare", sub))) =
        (&mut cli.command, matches.subcommand())
        && sub.value_source("algo") == Some(clap::parser::ValueSource::DefaultValue)
    {
        args.opts.algo.clear();
    }
    Ok(cli)
}

/// Why a command failed: the message for stderr and the exit status.
#[derive(Debug)]
pub struct Failure {
    /// Exit status: 2 for bad usage or input, 1 for a failed run.
    pub status: u8,
    /// What to print on stderr (may span several lines, e.g. diagnostics).
    pub message: String,
}

impl Failure {
    /// Bad usage or input (exit status 2).
    pub fn input(message: impl Into<String>) -> Failure {
        Failure {
            status: 2,
            message: message.into(),
        }
    }

    /// A run that failed (exit status 1).
    pub fn run(message: impl Into<String>) -> Failure {
        Failure {
            status: 1,
            message: message.into(),
        }
    }
}

/// clap's integer parsers name the type's range (`-1 is not in
/// 0..=4294967295`) or Rust's parse error ("invalid digit found in
/// string"), which say nothing to a user: such an error is said again in
/// words by [`count_problem`]. Every other error is left as it is.
fn plain_counts(e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::ValueValidation {
        return e;
    }
    let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
        e.get(ContextKind::InvalidArg),
        e.get(ContextKind::InvalidValue),
    ) else {
        return e;
    };
    let cause = std::error::Error::source(&e)
        .map(|c| c.to_string())
        .unwrap_or_default();
    let range = format!("{value} is not in 0..=");
    let max = cause.strip_prefix(&range);
    let rust = [
        "invalid digit found in string",
        "number too large to fit in target type",
        "cannot parse integer from empty string",
    ];
    if max.is_none() && !rust.contains(&cause.as_str()) {
        return e;
    }
    let why = count_problem(value, max);
    // Raw, like clap's own bad values: no usage line (the root command's
    // would be the wrong one for a subcommand's flag).
    clap::Error::raw(
        ErrorKind::ValueValidation,
        format!(
            "invalid value '{value}' for '{arg}': {why}

For more information, try '--help'.
"
        ),
    )
}

/// What is wrong with `text` as an unsigned count whose parser refused
/// it, in words; `max` is the type's largest value where known.
fn count_problem(text: &str, max: Option<&str>) -> String {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if text.is_empty() {
        "empty: a whole number is needed".to_string()
    } else if text.strip_prefix('-').is_some_and(digits) {
        "negative: a whole number of 0 or more is needed (`--help` gives the range)".to_string()
    } else if digits(text) {
        match max {
            Some(max) => format!("too large: at most {max}"),
            None => "too large".to_string(),
        }
    } else {
        "not a whole number (digits only, no sign, unit or separator)".to_string()
    }
}

/// The text a failure prints: every first line reads `error: ...`.
/// Messages built from the libraries' errors (which do not know they end a
/// command) get the prefix here, once; IR diagnostics keep their own frame
/// (they begin with blanks and `×`).
pub fn error_text(message: &str) -> std::borrow::Cow<'_, str> {
    if message.starts_with("error") || message.starts_with(char::is_whitespace) {
        message.into()
    } else {
        format!("error: {message}").into()
    }
}

/// Runs the parsed command line, writing normal output to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<(), Failure> {
    if let Some(limit) = cli.max_host_memory {
        simsort::host_memory::set_limit(limit);
    }
    // Every command that runs long or writes files stops cleanly on
    // Ctrl-C, SIGTERM or SIGHUP, and on a closed output pipe; the others
    // (and the replay UI, which reads its keys itself) end at once.
    if matches!(
        cli.command,
        None | Some(Command::Run(_))
            | Some(Command::Sweep(_))
            | Some(Command::Compare(_))
            | Some(Command::Calibrate(_))
    ) || matches!(&cli.command, Some(Command::Trace(t)) if t.is_export())
        || matches!(&cli.command, Some(Command::Emit(e)) if e.is_bundle())
    {
        simsort::signals::stop_on_signals();
        simsort::signals::stop_when_stdout_closes();
        progress::lines_if_asked();
    }
    let result = match cli.command {
        Some(Command::Check(args)) => check::run(&args, out),
        Some(Command::Kernels(args)) => kernels::run(&args, out),
        Some(Command::Replay(args)) => replay::run(&args, out),
        Some(Command::Run(args)) => run::run(&args, out),
        Some(Command::Emit(args)) => emit::run(&args, out),
        Some(Command::Trace(args)) => trace::run(&args, out),
        Some(Command::Sweep(args)) => sweep::run(&args, out),
        Some(Command::Compare(args)) => compare::run(&args, out),
        Some(Command::Completions(args)) => completions::run(&args, out),
        Some(Command::Calibrate(args)) => calibrate::run(&args, out),
        Some(Command::Gpu(args)) => gpu::run(&args, out),
        None => sort::run(&cli.sort, cli.report.as_deref(), out),
    };
    result.and_then(|()| out.flush().map_err(output_error))
}

/// Maps a failed write to stdout: a closed pipe (`simsort ... | head`) is
/// not an error, anything else is.
pub fn output_error(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure {
            status: 0,
            message: String::new(),
        }
    } else {
        Failure::run(format!("cannot write the output: {e}"))
    }
}

/// Renders diagnostics as source snippets, one after another, in colour
/// only when stderr is a terminal and `NO_COLOR` is unset.
pub fn render_diagnostics<D: Diagnostic>(diagnostics: &[D], name: &str, source: &str) -> String {
    let colour = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    simsort::diagnostics::render(diagnostics, name, source, colour)
}

#[cfg(test)]
mod tests {
    use super::error_text;

    #[test]
    fn counts_say_in_words_what_is_wrong() {
        use super::count_problem;
        assert!(count_problem("-1", Some("4294967295")).starts_with("negative"));
        assert_eq!(
            count_problem("4294967296", Some("4294967295")),
            "too large: at most 4294967295"
        );
        assert!(count_problem("1e6", None).starts_with("not a whole number"));
        assert!(count_problem("", None).starts_with("empty"));
    }

    #[test]
    fn every_failure_reads_error_once_and_diagnostics_keep_their_frame() {
        assert_eq!(
            error_text("cannot replay x: gone"),
            "error: cannot replay x: gone"
        );
        assert_eq!(
            error_text("error: bad (--warp 3): no"),
            "error: bad (--warp 3): no"
        );
        assert_eq!(
            error_text("  × expected a register"),
            "  × expected a register"
        );
    }
}
