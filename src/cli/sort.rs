//! The main job: `simsort [SORT OPTIONS]` sorts keys on the simulated GPU,
//! checks the result against a reference sort and prints the report.

use std::io::Write;

use clap::Args;
use kernels_ir::kernels::hotsort::{Layout, MergeExchange};
use simsort::experiment::sort::prepare;
use simsort::experiment::trace::{TraceSpec, run_recorded};
use simsort::experiment::{Algo, Distribution, SortOptions, run_sort_with};
use std::path::PathBuf;
use traces::{Focus, TraceLevel, TraceOptions};

use super::machine::MachineOverrides;
use super::progress::SortBar;
use super::{Failure, output_error};

/// Shared-memory layout names for the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutArg {
    /// No conflict avoidance.
    Plain,
    /// One pad word per row of banks (the patent's COLUMN-PAD).
    Pad,
    /// XOR-hashed columns.
    Xor,
}

impl From<LayoutArg> for Layout {
    fn from(l: LayoutArg) -> Layout {
        match l {
            LayoutArg::Plain => Layout::Plain,
            LayoutArg::Pad => Layout::Pad,
            LayoutArg::Xor => Layout::Xor,
        }
    }
}

/// Warp-merge exchange names for the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MergeArg {
    /// Shuffle-xor between lanes.
    Shuffle,
    /// Through shared memory.
    Shared,
}

impl From<MergeArg> for MergeExchange {
    fn from(m: MergeArg) -> MergeExchange {
        match m {
            MergeArg::Shuffle => MergeExchange::Shuffle,
            MergeArg::Shared => MergeExchange::Shared,
        }
    }
}

/// The sort options of `cli.md`.
#[derive(Debug, Clone, Args)]
pub struct SortArgs {
    /// Sorting algorithm.
    #[arg(long, value_enum, default_value = "hotsort")]
    pub algo: Algo,
    /// Lanes per warp: a power of two, 4..=64.
    #[arg(long, default_value_t = 32)]
    pub warp: u32,
    /// Key registers per lane (the slab height).
    #[arg(long, default_value_t = 16)]
    pub slab_height: u32,
    /// Slabs (warps) per block in the block sort [default: the largest that fits].
    #[arg(long)]
    pub block_slabs: Option<u32>,
    /// Number of keys (any N >= 0).
    #[arg(long, default_value_t = 65536)]
    pub keys: u64,
    /// Key width in bits: 32 or 64.
    #[arg(long, default_value_t = 32, value_parser = key_bits)]
    pub key_bits: u32,
    /// Input key distribution.
    #[arg(long, value_enum, default_value = "uniform")]
    pub dist: Distribution,
    /// Input generator seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Machine preset: h200 (the reference machine) or tiny (a small one for tests).
    #[arg(long, default_value = "h200")]
    pub gpu: String,
    /// Shared-memory layout (bank-conflict avoidance).
    #[arg(long, value_enum, default_value = "pad")]
    pub smem_layout: LayoutArg,
    /// How lanes exchange keys in warp merges.
    #[arg(long, value_enum, default_value = "shuffle")]
    pub merge: MergeArg,
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
    #[arg(long, value_name = "SPEC", default_value = "block=0", value_parser = parse_focus)]
    pub trace_focus: Focus,
    /// How much the trace keeps beyond the focus: `counters-only` or `full`.
    #[arg(long, value_name = "LEVEL", default_value = "counters-only", value_parser = parse_level)]
    pub trace_level: TraceLevel,
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

/// Parses `--key-bits`: 32 or 64.
pub(super) fn key_bits(s: &str) -> Result<u32, String> {
    match s {
        "32" => Ok(32),
        "64" => Ok(64),
        _ => Err(format!("`{s}` is not a key width: use 32 or 64")),
    }
}

impl SortArgs {
    /// The experiment these arguments describe.
    pub fn options(&self) -> SortOptions {
        SortOptions {
            algo: self.algo,
            warp: self.warp,
            slab_height: self.slab_height,
            block_slabs: self.block_slabs,
            keys: self.keys,
            key_bits: self.key_bits,
            dist: self.dist,
            seed: self.seed,
            gpu: self.gpu.clone(),
            overrides: self.machine.0.clone(),
            smem_layout: self.smem_layout.into(),
            merge: self.merge.into(),
        }
    }
}

/// Runs the sort and prints its report.
pub fn run(args: &SortArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let need = simsort::host_memory::sort_bytes(args.keys);
    simsort::host_memory::check(&format!("--keys {}", args.keys), need).map_err(Failure::input)?;
    let bar = SortBar::new(args.quiet);
    let outcome = match &args.trace {
        None => run_sort_with(&args.options(), &mut |p| bar.update(p)),
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
    let outcome = outcome.map_err(|e| Failure {
        status: e.exit_status(),
        message: format!("error: {e}"),
    })?;
    let text = if args.json {
        outcome.report.to_json()
    } else {
        let config = super::run_config::run_config(&outcome.report);
        let legend = super::run_config::stall_legend();
        format!("{config}\n{}\n{legend}", outcome.report.to_table())
    };
    writeln!(out, "{text}").map_err(output_error)?;
    if !args.quiet {
        let rate = outcome.warp_instructions as f64 / outcome.host_seconds.max(1e-9);
        eprintln!(
            "sorted {} keys: verified against the reference sort; simulated {} warp instructions \
             in {:.2} s ({:.1} M warp instructions per host second)",
            args.keys,
            outcome.warp_instructions,
            outcome.host_seconds,
            rate / 1e6
        );
    }
    Ok(())
}
