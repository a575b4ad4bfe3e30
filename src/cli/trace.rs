//! `simsort trace export TRACE --format perfetto -o OUT.json` and
//! `simsort trace info TRACE`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use traces::{ExportOptions, TimeUnit, TraceReader, estimate_perfetto, export_perfetto_with};

use simsort::atomic::{AtomicFile, check_distinct, check_output};

use super::{Failure, output_error};

/// Arguments of `simsort trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// What to do with the trace.
    #[command(subcommand)]
    pub command: TraceCommand,
}

/// The `simsort trace` subcommands.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Convert a trace for another viewer.
    Export(ExportArgs),
    /// Print what a trace holds: header, kernels, launches, size.
    Info(InfoArgs),
}

/// Arguments of `simsort trace export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The trace file.
    pub trace: PathBuf,
    /// The output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// The output file (`-` for standard output).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// The unit of the events' `ts` and `dur`: `ns` (simulated time at the
    /// trace's machine clock, what the viewer's labels mean) or `cycles`.
    /// Either way each event's `args.cycle` holds its cycle.
    #[arg(long, value_enum, default_value = "ns")]
    pub time: TimeArg,
    /// Only these launches: `N` or `A-B` (launch numbers, inclusive).
    #[arg(long, value_name = "RANGE", value_parser = parse_span)]
    pub launch: Option<(u32, u32)>,
    /// Only events of these SMs: `N` or `A-B`.
    #[arg(long, value_name = "RANGE", value_parser = parse_span)]
    pub sm: Option<(u32, u32)>,
    /// Only the per-block events of these blocks: `N` or `A-B`.
    #[arg(long, value_name = "RANGE", value_parser = parse_span)]
    pub block: Option<(u32, u32)>,
}

/// `--time`'s values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum TimeArg {
    /// Simulated time at the machine's clock.
    Ns,
    /// Cycles (the viewer labels them microseconds).
    Cycles,
}

/// `N` or `A-B` (inclusive, `A <= B`).
fn parse_span(s: &str) -> Result<(u32, u32), String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{t}` is not a whole number (a range is N or A-B)"))
    };
    let (lo, hi) = match s.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => {
            let n = num(s)?;
            (n, n)
        }
    };
    if lo > hi {
        return Err(format!("the range {lo}-{hi} is empty (A-B needs A <= B)"));
    }
    Ok((lo, hi))
}

/// Exports estimated above this many bytes say so before writing.
const LARGE_EXPORT: u64 = 64 << 20;

/// Export formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Chrome trace-event JSON, for ui.perfetto.dev and chrome://tracing
    /// (pid = SM, one track per warp, ts = cycle).
    Perfetto,
}

/// Arguments of `simsort trace info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The trace file.
    pub trace: PathBuf,
}

impl TraceArgs {
    /// Whether this is `trace export` (long on big traces; it stops on
    /// Ctrl-C between writes).
    pub fn is_export(&self) -> bool {
        matches!(self.command, TraceCommand::Export(_))
    }
}

/// Runs `simsort trace ...`.
pub fn run(args: &TraceArgs, out: &mut dyn Write) -> Result<(), Failure> {
    match &args.command {
        TraceCommand::Export(a) => export(a, out),
        TraceCommand::Info(a) => info(a, out),
    }
}

fn open(path: &PathBuf) -> Result<TraceReader<std::io::BufReader<File>>, Failure> {
    TraceReader::open(path)
        .map_err(|e| Failure::input(format!("error: cannot read trace {}: {e}", path.display())))
}

/// A writer that fails once Ctrl-C was pressed, so a long export stops
/// cleanly: the temporary file is dropped and the target left as it was.
struct StopOnCtrlC<W>(W);

impl<W: Write> Write for StopOnCtrlC<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if sim::stop_requested() {
            return Err(std::io::Error::other(format!(
                "interrupted ({})",
                simsort::signals::reason()
            )));
        }
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn export(args: &ExportArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if args.output.as_os_str() != "-" {
        check_distinct(&[("-o", &args.output)], &[("TRACE", &args.trace)])
            .map_err(|why| Failure::input(format!("error: {why}")))?;
        check_output(&args.output).map_err(|why| {
            Failure::input(format!(
                "error: cannot write {} (-o): {why}",
                args.output.display()
            ))
        })?;
    }
    let mut reader = open(&args.trace)?;
    let ExportFormat::Perfetto = args.format;
    let opts = ExportOptions {
        time: match args.time {
            TimeArg::Ns => TimeUnit::Ns,
            TimeArg::Cycles => TimeUnit::Cycles,
        },
        launches: args.launch,
        sms: args.sm,
        blocks: args.block,
    };
    if let Some((lo, _)) = args.launch
        && lo as usize >= reader.launches().len()
    {
        return Err(Failure::input(format!(
            "error: --launch {lo}: the trace has {} launches (0-{})",
            reader.launches().len(),
            reader.launches().len().saturating_sub(1)
        )));
    }
    let bad_trace = |e: traces::TraceError| match e {
        _ if sim::stop_requested() => Failure {
            status: 130,
            message: format!(
                "error: interrupted ({}): the export stopped part way; {} was not written \
                 (an old file there is as it was)",
                simsort::signals::reason(),
                args.output.display()
            ),
        },
        // `-o - | head`: a closed pipe ends the export quietly.
        traces::TraceError::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe => {
            output_error(io)
        }
        traces::TraceError::Io(io) if io.kind() != std::io::ErrorKind::UnexpectedEof => {
            Failure::run(format!(
                "error: cannot write {}: {io}",
                args.output.display()
            ))
        }
        other => Failure::input(format!(
            "error: cannot read trace {}: {other}",
            args.trace.display()
        )),
    };
    // What it will cost, said before a large export is written.
    let estimate = estimate_perfetto(&mut reader, &opts).map_err(bad_trace)?;
    if estimate.bytes > LARGE_EXPORT {
        eprintln!(
            "simsort: this export is about {} MB of JSON ({} recorded events); \
             --launch, --sm and --block keep less",
            estimate.bytes.div_ceil(1 << 20),
            estimate.events_in
        );
    }
    if args.output.as_os_str() == "-" {
        export_perfetto_with(&mut reader, StopOnCtrlC(&mut *out), &opts).map_err(bad_trace)?;
        return Ok(());
    }
    let file = AtomicFile::create(&args.output)
        .map_err(|e| Failure::run(format!("cannot create {}: {e}", args.output.display())))?;
    let mut writer = BufWriter::new(file);
    let summary =
        export_perfetto_with(&mut reader, StopOnCtrlC(&mut writer), &opts).map_err(bad_trace)?;
    // Only a complete export replaces the file; a failure above drops the
    // temporary file and leaves the old one as it was.
    let cannot =
        |e: std::io::Error| Failure::run(format!("cannot write {}: {e}", args.output.display()));
    writer
        .into_inner()
        .map_err(|e| cannot(e.into_error()))?
        .commit()
        .map_err(cannot)?;
    writeln!(
        out,
        "wrote {} ({} trace events from {} recorded events, time in {}); open it at \
         https://ui.perfetto.dev",
        args.output.display(),
        summary.events_out,
        summary.events_in,
        match args.time {
            TimeArg::Ns => "ns",
            TimeArg::Cycles => "cycles",
        }
    )
    .map_err(output_error)
}

fn info(args: &InfoArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let mut r = open(&args.trace)?;
    // Decoding every event checks every chunk, and gives the counts.
    let mut counts: std::collections::BTreeMap<&str, u64> = Default::default();
    for e in r.events() {
        let e = e.map_err(|e| {
            Failure::input(format!("cannot read trace {}: {e}", args.trace.display()))
        })?;
        *counts.entry(e.kind_name()).or_default() += 1;
    }
    let h = r.header();
    let size = std::fs::metadata(&args.trace).map(|m| m.len()).unwrap_or(0);
    let mut text = format!(
        "trace {}: format {}, written by simsort {}\n\
         level {}, focus {}, counters every {} cycles\n\
         {} bytes, {} events in {} chunks\n",
        args.trace.display(),
        r.format_version(),
        h.simsort_version,
        h.options.level,
        h.options.focus,
        h.options.counter_interval_cycles,
        size,
        r.event_count(),
        r.chunks().len()
    );
    if !h.sort_options.is_empty() {
        let opts: Vec<String> = h
            .sort_options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        text.push_str(&format!("sort options: {}\n", opts.join(" ")));
    }
    text.push_str(&format!("config: {} fields\n", h.config.len()));
    for (i, l) in r.launches().iter().enumerate() {
        let name = r
            .kernels()
            .get(l.kernel as usize)
            .map_or("?", |k| k.name.as_str());
        let end = l
            .end_cycle
            .map_or("unfinished".to_string(), |c| c.to_string());
        let label = if l.label.is_empty() {
            String::new()
        } else {
            format!(" · {}", l.label)
        };
        text.push_str(&format!(
            "launch {i}: {name} grid {:?} block {:?} cycles {}..{end}, {} chunks{label}\n",
            l.grid,
            l.block,
            l.start_cycle,
            l.end_chunk - l.first_chunk
        ));
    }
    let counts: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    text.push_str(&format!("events: {}\n", counts.join(", ")));
    out.write_all(text.as_bytes()).map_err(output_error)
}
