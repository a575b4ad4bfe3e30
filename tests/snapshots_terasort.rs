//! GPUTeraSort's counter matrix on `h200`: every kernel's counters for
//! 16- and 100-byte records, the fused network (`fused`) and the seed's
//! pair and per-output steps (`pair`, `output`), 32- and 64-bit keys, one
//! insta snapshot per configuration. The input is few-unique, so the
//! refinement (`refine_keys` and its network) runs too; two runs of 300
//! records make phase 2 merge.

use simsort::experiment::options::{TeraMerge, TeraNetwork};
use simsort::experiment::sort::Algo;
use simsort::experiment::{Distribution, SortOptions, run_sort};

use crate::snapshot_files::leftovers;
use crate::snapshots_hotsort::{check_snapshot, counter_lines};

/// Records sorted by each configuration.
const KEYS: u64 = 600;

/// Whether snapshot `name` is `terasort_gpu_merge_counters_on_h200`'s
/// (the module's other snapshots are `terasort_counters_on_h200`'s).
fn is_gpu_merge(name: &str) -> bool {
    name.ends_with("_gpu_merge")
}

#[test]
fn terasort_counters_on_h200() {
    let mut failures = Vec::new();
    let mut produced = Vec::new();
    for record_bytes in [16, 100] {
        for (network, per_output) in [
            (TeraNetwork::Fused, false),
            (TeraNetwork::Steps, false),
            (TeraNetwork::Steps, true),
        ] {
            for key_bits in [32, 64] {
                let opts = SortOptions {
                    algo: Algo::Terasort,
                    keys: KEYS,
                    key_bits,
                    dist: Distribution::FewUnique,
                    record_bytes: Some(record_bytes),
                    run_records: Some(KEYS / 2),
                    terasort_network: network,
                    per_output,
                    ..SortOptions::default()
                };
                let outcome = run_sort(&opts).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
                let rows = &outcome.report.kernels;
                let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
                assert!(names.contains(&"refine_keys"), "{names:?}");
                let (mode, net) = match (network, per_output) {
                    (TeraNetwork::Fused, _) => ("fused", "fused network"),
                    (_, false) => ("pair", "pair steps"),
                    (_, true) => ("output", "output steps"),
                };
                let mut text = format!(
                    "# h200, W=32, {KEYS} few-unique {key_bits}-bit keys (seed 1) as \
                     {record_bytes}-byte records, 10-byte keys, runs of {}, {net}\n",
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
                produced.push(name);
            }
        }
    }
    let theirs = |n: &str| !is_gpu_merge(n);
    failures.extend(leftovers("snapshots_terasort", theirs, &produced));
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Phase 2 on the GPU: four runs of 150 records (two merge passes of
/// mergesort's kernels), the merged ties refined, one reorder.
#[test]
fn terasort_gpu_merge_counters_on_h200() {
    let mut failures = Vec::new();
    let mut produced = Vec::new();
    for (record_bytes, key_bits, network) in [
        (16, 32, TeraNetwork::Steps),
        (100, 64, TeraNetwork::Steps),
        (16, 32, TeraNetwork::Fused),
        (100, 64, TeraNetwork::Fused),
    ] {
        let opts = SortOptions {
            algo: Algo::Terasort,
            keys: KEYS,
            key_bits,
            dist: Distribution::FewUnique,
            record_bytes: Some(record_bytes),
            run_records: Some(KEYS / 4),
            terasort_merge: TeraMerge::Gpu,
            terasort_network: network,
            ..SortOptions::default()
        };
        let outcome = run_sort(&opts).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
        let (mode, net) = match network {
            TeraNetwork::Fused => ("fused", "fused network"),
            TeraNetwork::Steps => ("pair", "pair steps"),
        };
        let mut text = format!(
            "# h200, W=32, {KEYS} few-unique {key_bits}-bit keys (seed 1) as {record_bytes}-byte \
             records, 10-byte keys, runs of {}, {net}, phase 2 on the GPU\n",
            KEYS / 4
        );
        for row in &outcome.report.kernels {
            text += &format!("\n[{}] {} launches\n", row.name, row.launches);
            for line in counter_lines(&row.stats) {
                text += &line;
                text.push('\n');
            }
        }
        let name = format!("r{record_bytes}_{mode}_k{key_bits}_gpu_merge");
        failures.extend(check_snapshot!(&name, &text));
        produced.push(name);
    }
    failures.extend(leftovers("snapshots_terasort", is_gpu_merge, &produced));
    assert!(failures.is_empty(), "{failures:#?}");
}
