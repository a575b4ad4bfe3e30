//! Sample sort on the simulated `h200`: the counter matrix (one insta
//! snapshot per configuration: k x C for 32-bit keys, and the defaults with
//! 64-bit keys (`_k64`) and key-value pairs (`_kv`)), and the checks the
//! seed invites: the tree walk never diverges, and `scatter`'s stores touch
//! about one sector per lane for uniform keys.
//!
//! Each configuration sorts 20,001 uniform keys (seed 1): one distribution
//! level (N > M = 8192), then small sorts of ~160-key buckets.

use std::fmt::Write as _;

use kernels_ir::InstData;
use rayon::prelude::*;
use sim::{Gpu, KernelStats, RunOptions};
use simsort::experiment::sort::{Algo, algo_config, machine_config};
use simsort::experiment::{Distribution, SortOptions, run_sort};
use sorts::samplesort::Samplesort;

use crate::snapshot_files::leftovers;
use crate::snapshots_hotsort::{check_snapshot, counter_lines};

/// (k, C) pairs of the matrix: the defaults, fewer copies, more, fewer buckets.
const SHAPES: [(u32, u32); 4] = [(128, 4), (128, 1), (128, 16), (32, 4)];

fn options(k: u32, c: u32, key_bits: u32, values: bool) -> SortOptions {
    SortOptions {
        algo: Algo::Samplesort,
        buckets: Some(k),
        counter_copies: Some(c),
        key_bits,
        values,
        keys: 20_001,
        dist: Distribution::Uniform,
        seed: 1,
        ..SortOptions::default()
    }
}

fn snapshot(opts: &SortOptions) -> Result<String, String> {
    let outcome = run_sort(opts).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# h200, samplesort k={} C={}, {} uniform {}-bit keys{} (seed 1)",
        opts.buckets.unwrap_or(0),
        opts.counter_copies.unwrap_or(0),
        opts.keys,
        opts.key_bits,
        if opts.values {
            " with 32-bit values"
        } else {
            ""
        }
    );
    for note in &outcome.notes {
        let _ = writeln!(out, "# {note}");
    }
    for row in &outcome.report.kernels {
        let _ = writeln!(out, "\n[{}]", row.name);
        for line in counter_lines(&row.stats) {
            let _ = writeln!(out, "{line}");
        }
    }
    Ok(out)
}

#[test]
fn samplesort_counter_matrix() {
    let mut cases = Vec::new();
    for (k, c) in SHAPES {
        cases.push((format!("k{k}_c{c}"), options(k, c, 32, false)));
    }
    cases.push(("k128_c4_k64".to_string(), options(128, 4, 64, false)));
    cases.push(("k128_c4_kv".to_string(), options(128, 4, 32, true)));
    let texts: Vec<Result<String, String>> =
        cases.par_iter().map(|(_, opts)| snapshot(opts)).collect();
    let mut failed = Vec::new();
    for ((name, _), text) in cases.iter().zip(texts) {
        match text {
            Ok(text) => failed.extend(check_snapshot!(name, &text)),
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    let produced: Vec<String> = cases.into_iter().map(|(name, _)| name).collect();
    failed.extend(leftovers("snapshots_samplesort", |_| true, &produced));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Runs sample sort on the simulated `h200` directly: the algorithm and
/// every launch with its stats.
fn launches(opts: &SortOptions) -> (Samplesort, Vec<sorts::Launch<KernelStats>>) {
    let gpu_cfg = machine_config(opts).expect("machine");
    let cfg = algo_config::<Samplesort>(opts, &gpu_cfg).expect("config");
    let ss = Samplesort::new::<std::convert::Infallible>(&cfg).expect("kernels");
    let mut gpu = Gpu::new(gpu_cfg, RunOptions::default()).expect("gpu");
    let keys: Vec<u32> = (0..opts.keys)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32)
        .collect();
    let launches = ss.sort(&mut gpu, &keys).expect("sorts").launches;
    (ss, launches)
}

/// The pcs of a kernel's stage `name`, from its mark to the loop's branch.
fn loop_pcs(ss: &Samplesort, kernel: &str, stage: &str) -> Vec<usize> {
    let (vk, marks) = ss
        .marked_kernels()
        .into_iter()
        .find(|(k, _)| k.kernel().name == kernel)
        .expect("kernel");
    let start = marks
        .stages
        .iter()
        .find(|(_, s)| s == stage)
        .expect("stage")
        .0 as usize;
    let insts = &vk.kernel().insts;
    let end = (start..insts.len())
        .find(|&pc| matches!(insts[pc].data, InstData::Branch { .. }))
        .expect("the loop's branch");
    (start..=end).collect()
}

#[test]
fn the_tree_walk_never_diverges_and_scatter_stores_touch_a_sector_per_lane() {
    let opts = options(128, 4, 32, false);
    let (ss, runs) = launches(&opts);
    for (kernel, stage) in [("find_buckets", "find"), ("scatter", "scatter")] {
        let stats = &runs.iter().find(|l| l.name == kernel).expect(kernel).stats;
        let pcs = loop_pcs(&ss, kernel, stage);
        // Every instruction of the loop body issues once per warp and key
        // round: a divergent branch would issue part of it twice. (The
        // packing of a 64-bit address, a register rename in SASS, issues
        // none: `sim/src/rename.rs`.)
        let counts: Vec<u64> = pcs
            .iter()
            .map(|&pc| stats.per_pc[pc].inst_executed)
            .collect();
        let issued = counts.iter().copied().max().unwrap_or(0);
        assert!(
            issued > 0 && counts.iter().all(|&c| c == issued || c == 0),
            "{kernel}: {counts:?}"
        );
    }
    // scatter's key store: (bucket, copy) ranges are disjoint, so a warp's
    // 32 stores touch about C k (1 - (1 - 1/k)^(W/C)) = 31.1 sectors.
    let scatter = &runs.iter().find(|l| l.name == "scatter").unwrap().stats;
    let (req, sectors) = loop_pcs(&ss, "scatter", "scatter")
        .iter()
        .map(|&pc| &scatter.per_pc[pc])
        .rfind(|p| p.gmem_requests > 0)
        .map(|p| (p.gmem_requests, p.gmem_sectors))
        .unwrap();
    let per_request = sectors as f64 / req as f64;
    assert!((28.0..=32.0).contains(&per_request), "{per_request}");
}
