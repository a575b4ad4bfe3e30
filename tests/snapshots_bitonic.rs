//! The bitonic counter matrix: every kernel's counters on the `h200`
//! preset, one insta snapshot per configuration (vector length L 1/4/8/16,
//! the seed's method and the plain sort, 32-bit keys, 64-bit keys (`_k64`)
//! and key-value pairs (`_kv`)), plus the store swizzle switched off for
//! two fused configurations (`_noswizzle`).
//!
//! Each configuration sorts the smallest fixed input that launches every
//! kernel: two and a half tiles and one key (the fill pads a partial tile,
//! two stages need global steps and tails), uniform keys, seed 1.

use std::fmt::Write as _;

use rayon::prelude::*;
use simsort::experiment::sort::{algo_config, machine_config};
use simsort::experiment::{Distribution, KernelRow, SortOptions, run_sort};
use sorts::bitonic::Bitonic;

use crate::snapshot_files::leftovers;
use crate::snapshots_hotsort::{check_snapshot, counter_lines};

/// One configuration of the matrix.
#[derive(Clone, Copy, Debug)]
struct Case {
    vector: u32,
    fused: bool,
    swizzle: bool,
    /// 32 or 64-bit words; `values`: 32-bit keys with 32-bit values.
    key_bits: u32,
    values: bool,
}

impl Case {
    /// The snapshot name: `l4_fused`, `l16_plain_k64`, `l8_fused_noswizzle`.
    fn name(&self) -> String {
        format!(
            "l{}_{}{}{}",
            self.vector,
            if self.fused { "fused" } else { "plain" },
            match (self.key_bits, self.values) {
                (_, true) => "_kv",
                (64, _) => "_k64",
                _ => "",
            },
            if self.swizzle { "" } else { "_noswizzle" }
        )
    }

    fn options(&self) -> SortOptions {
        SortOptions {
            algo: simsort::experiment::sort::Algo::Bitonic,
            vector: self.vector,
            bitonic_fused: self.fused,
            bitonic_swizzle: self.swizzle,
            key_bits: self.key_bits,
            values: self.values,
            dist: Distribution::Uniform,
            seed: 1,
            gpu: "h200".to_string(),
            ..SortOptions::default()
        }
    }
}

fn matrix() -> Vec<Case> {
    let mut cases = Vec::new();
    for (key_bits, values) in [(32, false), (64, false), (32, true)] {
        for vector in [1, 4, 8, 16] {
            for fused in [true, false] {
                cases.push(Case {
                    vector,
                    fused,
                    swizzle: true,
                    key_bits,
                    values,
                });
            }
        }
    }
    for vector in [4, 8] {
        cases.push(Case {
            vector,
            fused: true,
            swizzle: false,
            key_bits: 32,
            values: false,
        });
    }
    cases
}

/// Two and a half tiles and one key.
fn matrix_keys(opts: &SortOptions) -> u64 {
    let gpu = machine_config(opts).expect("h200");
    let cfg = algo_config::<Bitonic>(opts, &gpu).expect("a valid configuration");
    5 * cfg.tile() / 2 + 1
}

fn snapshot_text(case: &Case, keys: u64, rows: &[KernelRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# h200, W=32 bitonic L={} {} swizzle={}, {keys} uniform {}-bit keys{} (seed 1)",
        case.vector,
        if case.fused { "fused" } else { "plain" },
        case.swizzle,
        case.key_bits,
        if case.values {
            " with 32-bit values"
        } else {
            ""
        }
    );
    for row in rows {
        let _ = writeln!(out, "\n[{}]", row.name);
        for line in counter_lines(&row.stats) {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

fn run_case(case: &Case) -> Result<(String, Vec<KernelRow>), String> {
    let mut opts = case.options();
    opts.keys = matrix_keys(&opts);
    let outcome = run_sort(&opts).map_err(|e| e.to_string())?;
    let rows = outcome.report.kernels;
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    // The plain sort pads only a partial vector: with L = 1, nothing.
    let want: &[&str] = match (case.fused, case.vector) {
        (true, _) => &["fill", "head", "step", "tail"],
        (false, 1) => &["step"],
        (false, _) => &["fill", "step"],
    };
    if names != want {
        return Err(format!("launched {names:?}, not {want:?}"));
    }
    Ok((snapshot_text(case, opts.keys, &rows), rows))
}

fn store_conflicts(rows: &[KernelRow]) -> u64 {
    rows.iter().map(|r| r.stats.smem_st_bank_conflicts).sum()
}

#[test]
fn bitonic_counter_matrix() {
    let cases = matrix();
    let runs: Vec<_> = cases.par_iter().map(run_case).collect();
    let mut failed = Vec::new();
    let mut conflicts = Vec::new();
    for (case, run) in cases.iter().zip(runs) {
        match run {
            Ok((text, rows)) => {
                failed.extend(check_snapshot!(&case.name(), &text));
                if case.key_bits == 32 && !case.values && case.fused && case.vector >= 4 {
                    conflicts.push((case.vector, case.swizzle, store_conflicts(&rows)));
                }
            }
            Err(e) => failed.push(format!("{}: {e}", case.name())),
        }
    }
    // The seed's swizzle removes store conflicts (claims 6 and 7).
    for &(vector, _, with) in conflicts.iter().filter(|c| c.1) {
        if let Some(&(_, _, without)) = conflicts.iter().find(|c| c.0 == vector && !c.1)
            && with >= without
        {
            failed.push(format!(
                "L={vector}: {with} store conflicts with the swizzle, {without} without"
            ));
        }
    }
    let produced: Vec<String> = cases.iter().map(Case::name).collect();
    failed.extend(leftovers("snapshots_bitonic", |_| true, &produced));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
