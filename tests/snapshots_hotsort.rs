//! The counter matrix: every HotSort kernel's counters on the `h200` preset,
//! one insta snapshot per configuration (W x H x layout x exchange, for
//! 32-bit keys, 64-bit keys (`_k64`), 32-bit key-value pairs (`_kv`) and
//! 64-bit keys carrying 32-bit values (`_k64v`)), so a
//! changed counter points at its configuration. Configurations the sort
//! refuses are listed, with the reason, in a snapshot of their own, so a
//! change in validity shows too.
//!
//! Each configuration sorts the smallest fixed input that launches every
//! kernel (see [`matrix_keys`]): uniform keys, seed 1.

use std::fmt::Write as _;

use rayon::prelude::*;
use sim::KernelStats;
use simsort::experiment::sort::{hotsort_config, machine_config};
use simsort::experiment::{Distribution, ExperimentError, KernelRow, SortOptions, run_sort};
use sorts::hotsort::{Layout, MergeExchange};

use crate::snapshot_files::leftovers;

/// Warp widths of the matrix.
const WARPS: [u32; 4] = [8, 16, 32, 64];
/// Slab heights of the matrix.
const HEIGHTS: [u32; 4] = [4, 8, 16, 32];

/// What the slabs hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Words {
    /// 32-bit keys.
    Keys32,
    /// 64-bit keys.
    Keys64,
    /// 32-bit keys, each with a 32-bit value.
    Pairs,
    /// 64-bit keys, each carrying a 32-bit value in its own register.
    Pairs64,
}

impl Words {
    /// Every kind, in matrix order.
    const ALL: [Words; 4] = [Words::Keys32, Words::Keys64, Words::Pairs, Words::Pairs64];

    /// The snapshot name suffix (none for 32-bit keys, whose names predate
    /// the others).
    fn suffix(self) -> &'static str {
        match self {
            Words::Keys32 => "",
            Words::Keys64 => "_k64",
            Words::Pairs => "_kv",
            Words::Pairs64 => "_k64v",
        }
    }

    /// The snapshot header's words.
    fn describe(self) -> &'static str {
        match self {
            Words::Keys32 => "",
            Words::Keys64 => ", 64-bit",
            Words::Pairs => ", with 32-bit values,",
            Words::Pairs64 => ", 64-bit with 32-bit values,",
        }
    }
}

/// One configuration of the matrix.
#[derive(Clone, Copy, Debug)]
struct Case {
    warp: u32,
    height: u32,
    layout: Layout,
    merge: MergeExchange,
    words: Words,
}

impl Case {
    /// The snapshot name: `w32_h16_pad_shuffle`.
    fn name(&self) -> String {
        format!(
            "w{}_h{}_{}_{}{}",
            self.warp,
            self.height,
            self.layout,
            self.merge,
            self.words.suffix()
        )
    }

    /// The sort options on `h200` with machine-sized blocks; `keys` is set
    /// later by [`matrix_keys`].
    fn options(&self) -> SortOptions {
        SortOptions {
            warp: self.warp,
            slab_height: Some(self.height),
            block_slabs: None,
            keys: 0,
            dist: Distribution::Uniform,
            seed: 1,
            gpu: "h200".to_string(),
            smem_layout: self.layout,
            merge: self.merge,
            key_bits: match self.words {
                Words::Keys64 | Words::Pairs64 => 64,
                Words::Keys32 | Words::Pairs => 32,
            },
            values: matches!(self.words, Words::Pairs | Words::Pairs64),
            ..SortOptions::default()
        }
    }
}

/// Every configuration, in a fixed order.
fn matrix() -> Vec<Case> {
    let mut cases = Vec::new();
    for words in Words::ALL {
        for warp in WARPS {
            for height in HEIGHTS {
                for layout in Layout::ALL {
                    for merge in MergeExchange::ALL {
                        cases.push(Case {
                            warp,
                            height,
                            layout,
                            merge,
                            words,
                        });
                    }
                }
            }
        }
    }
    cases
}

/// The smallest key count that launches every kernel of the sort.
///
/// With `P` slabs per block and `K = fm_rows()` slabs per `fm` thread, the
/// host runs `hm` once a merged run of `R` slabs leaves sub-spans of `R/K`
/// slabs larger than a block, i.e. once `R >= 2*K*P`; `R` only grows while it
/// is smaller than the sorted blocks, so at least `2K + 1` blocks are needed.
/// Half a slab more than `2K` full blocks gives exactly that, and the partial
/// last block makes `fill_in` pad it and `fill_out` pad the merge area.
fn matrix_keys(opts: &SortOptions) -> Result<u64, ExperimentError> {
    let gpu = machine_config(opts)?;
    let cfg = hotsort_config(opts, &gpu)?;
    let block_keys = u64::from(cfg.block_keys());
    let k = u64::from(cfg.fm_rows());
    Ok(2 * k * block_keys + u64::from(cfg.slab_keys()) / 2 + 1)
}

/// Counters left out of the snapshots because no snapshot's workload can
/// make them non-zero, so a line for them would pin nothing: the two
/// stall reasons the model never charges (`sim`'s stall tests check that
/// they stay zero), and DRAM writes, which only a dirty line evicted from
/// L2 makes (`sim`'s L2 tests pin those; these sorts fit in L2). Each must
/// be zero; the day one is not, it belongs back in the snapshots.
const NEVER_NONZERO: [&str; 3] = [
    "dram__sectors_write.sum",
    "stall_warp_cycles.dispatch_stall",
    "stall_warp_cycles.membar",
];

/// Counters left out of a kernel's snapshot where they are zero: instruction
/// fetch stalls only kernels larger than a sub-partition's instruction
/// cache (`sim`'s `icache`), a few of the snapshots' kernels.
const OMITTED_WHERE_ZERO: [&str; 1] = ["stall_warp_cycles.no_instruction"];

/// A kernel's counters as sorted `key = value` lines: every integral
/// Nsight metric (each `.sum` and `.max`), stall warp-cycles per reason,
/// shuffles and barriers, and the launch shape, less [`NEVER_NONZERO`] (and
/// [`OMITTED_WHERE_ZERO`] where zero).
/// Shared with the other families' counter snapshots.
pub fn counter_lines(stats: &KernelStats) -> Vec<String> {
    let [gx, gy, gz] = stats.grid;
    let [bx, by, bz] = stats.block;
    let mut lines = vec![
        format!("launches = {}", stats.launches),
        format!("first_launch = grid {gx}x{gy}x{gz} block {bx}x{by}x{bz}"),
        format!("sim.blocks = {}", stats.blocks),
        format!("sim.shfl_inst = {}", stats.shfl_inst),
        format!("sim.barriers = {}", stats.barriers),
    ];
    for (name, value) in stats.metrics() {
        if name.ends_with(".sum") || name.ends_with(".max") {
            assert!(
                value.fract() == 0.0 && value >= 0.0,
                "metric {name} = {value} is not a count"
            );
            lines.push(format!("{name} = {}", value as u64));
        }
    }
    for (reason, cycles) in stats.stall_map() {
        lines.push(format!("stall_warp_cycles.{reason} = {cycles}"));
    }
    lines.retain(|line| {
        let (name, value) = line.split_once(" = ").expect("key = value");
        let never = NEVER_NONZERO.contains(&name);
        assert!(
            !never || value == "0",
            "{line}: no longer always zero; take it out of NEVER_NONZERO"
        );
        let omitted = OMITTED_WHERE_ZERO.contains(&name) && value == "0";
        !(never || omitted)
    });
    lines.sort();
    lines
}

/// What one configuration's snapshot holds: the input, then one section of
/// sorted `key = value` lines per kernel, in launch order.
fn snapshot_text(case: &Case, keys: u64, rows: &[KernelRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# h200, W={} H={} layout={} exchange={}, {keys} uniform{} keys (seed 1)",
        case.warp,
        case.height,
        case.layout,
        case.merge,
        case.words.describe()
    );
    for row in rows {
        let _ = writeln!(out, "\n[{}]", row.name);
        for line in counter_lines(&row.stats) {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// The outcome of one configuration.
enum Run {
    /// The snapshot text.
    Counters(String),
    /// The configuration is refused: every reason, one per line.
    Invalid(String),
}

/// Runs one configuration; a fault or a wrong result is an error (the
/// matrix must not hide one), a refused configuration is [`Run::Invalid`].
fn run_case(case: &Case) -> Result<Run, String> {
    let mut opts = case.options();
    let keys = match matrix_keys(&opts) {
        Ok(keys) => keys,
        Err(ExperimentError::Invalid(reasons)) => return Ok(Run::Invalid(reasons.join("; "))),
        Err(e) => return Err(e.to_string()),
    };
    opts.keys = keys;
    match run_sort(&opts) {
        Ok(outcome) => {
            let rows = &outcome.report.kernels;
            let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
            for kernel in sorts::hotsort::KERNEL_NAMES {
                if !names.contains(&kernel) {
                    return Err(format!("{keys} keys did not launch `{kernel}` ({names:?})"));
                }
            }
            Ok(Run::Counters(snapshot_text(case, keys, rows)))
        }
        Err(ExperimentError::Invalid(reasons)) => Ok(Run::Invalid(reasons.join("; "))),
        Err(e) => Err(e.to_string()),
    }
}

/// Asserts snapshot `name` (an expression giving `&str`) of `text` and
/// turns a failure into `Some(line)` for a final report, so one run shows
/// every changed snapshot rather than only the first (insta prints each
/// diff as it goes). A macro, so insta names the snapshot after the calling
/// module as usual.
macro_rules! check_snapshot {
    ($name:expr, $text:expr) => {{
        let (name, text): (&str, &str) = ($name, $text);
        std::panic::catch_unwind(|| insta::assert_snapshot!(name, text))
            .is_err()
            .then(|| format!("{name}: snapshot differs or is missing"))
    }};
}
pub(crate) use check_snapshot;

#[test]
fn hotsort_counter_matrix() {
    let cases = matrix();
    // Runs in parallel; results come back in matrix order, so the
    // assertions below are in a fixed order whatever the scheduling.
    let runs: Vec<Result<Run, String>> = cases.par_iter().map(run_case).collect();
    let mut invalid: Vec<String> = vec![String::new(); Words::ALL.len()];
    let mut failed = Vec::new();
    let mut counted = Vec::new();
    for (case, run) in cases.iter().zip(runs) {
        let invalid = &mut invalid[Words::ALL.iter().position(|&w| w == case.words).unwrap()];
        match run {
            Ok(Run::Counters(text)) => {
                let name = case.name();
                counted.push(name.clone());
                failed.extend(check_snapshot!(&name, &text));
            }
            Ok(Run::Invalid(reason)) => {
                let _ = writeln!(invalid, "{} = {reason}", case.name());
            }
            Err(e) => failed.push(format!("{}: {e}", case.name())),
        }
    }
    for (words, mut invalid) in Words::ALL.into_iter().zip(invalid) {
        if invalid.is_empty() {
            invalid.push_str("(every configuration of the matrix is valid)\n");
        }
        let name = format!("invalid_configs{}", words.suffix());
        failed.extend(check_snapshot!(&name, &invalid));
        counted.push(name);
    }
    failed.extend(leftovers("snapshots_hotsort", |_| true, &counted));
    assert!(
        failed.is_empty(),
        "{} problems in the matrix of {} configurations:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n")
    );
}
