//! GPUTeraSort's counter matrix on `h200`: every kernel's counters for
//! 16- and 100-byte records, pair and per-output steps, 32- and 64-bit
//! keys, one insta snapshot per configuration. The input is few-unique, so
//! the refinement (`refine_keys` and its steps) runs too; two runs of 300
//! records make phase 2 merge.

use simsort::experiment::options::TeraMerge;
use simsort::experiment::sort::Algo;
use simsort::experiment::{Distribution, SortOptions, run_sort};

use crate::snapshots_hotsort::{check_snapshot, counter_lines};

/// Records sorted by each configuration.
const KEYS: u64 = 600;

#[test]
fn terasort_counters_on_h200() {
    let mut failures = Vec::new();
    for record_bytes in [16, 100] {
        for per_output in [false, true] {
            for key_bits in [32, 64] {
                let opts = SortOptions {
                    algo: Algo::Terasort,
                    keys: KEYS,
                    key_bits,
                    dist: Distribution::FewUnique,
                    record_bytes: Some(record_bytes),
                    run_records: Some(KEYS / 2),
                    per_output,
                    ..SortOptions::default()
                };
                let outcome = run_sort(&opts).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
                let rows = &outcome.report.kernels;
                let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
                assert!(names.contains(&"refine_keys"), "{names:?}");
                let mode = if per_output { "output" } else { "pair" };
                let mut text = format!(
                    "# h200, W=32, {KEYS} few-unique {key_bits}-bit keys (seed 1) as \
                     {record_bytes}-byte records, 10-byte keys, runs of {}, {mode} steps\n",
                    KEYS / 2
                );
                for row in rows {
                    text += &format!("\n[{}]\n", row.name);
                    for line in counter_lines(&row.stats) {
                        text += &line;
                        text.push('\n');
                    }
                }
                let name = format!("r{record_bytes}_{mode}_k{key_bits}");
                failures.extend(check_snapshot!(&name, &text));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Phase 2 on the GPU: four runs of 150 records (two merge passes of
/// mergesort's kernels), the merged ties refined, one reorder.
#[test]
fn terasort_gpu_merge_counters_on_h200() {
    let mut failures = Vec::new();
    for (record_bytes, key_bits) in [(16, 32), (100, 64)] {
        let opts = SortOptions {
            algo: Algo::Terasort,
            keys: KEYS,
            key_bits,
            dist: Distribution::FewUnique,
            record_bytes: Some(record_bytes),
            run_records: Some(KEYS / 4),
            terasort_merge: TeraMerge::Gpu,
            ..SortOptions::default()
        };
        let outcome = run_sort(&opts).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
        let mut text = format!(
            "# h200, W=32, {KEYS} few-unique {key_bits}-bit keys (seed 1) as {record_bytes}-byte \
             records, 10-byte keys, runs of {}, pair steps, phase 2 on the GPU\n",
            KEYS / 4
        );
        for row in &outcome.report.kernels {
            text += &format!("\n[{}] {} launches\n", row.name, row.launches);
            for line in counter_lines(&row.stats) {
                text += &line;
                text.push('\n');
            }
        }
        let name = format!("r{record_bytes}_pair_k{key_bits}_gpu_merge");
        failures.extend(check_snapshot!(&name, &text));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
