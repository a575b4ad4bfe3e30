//! Snapshots of emitted PTX: every kernel of every algorithm with its
//! default options at W=32 (what `simsort emit ptx --algo A --kernel K`
//! prints), and every example kernel of the catalogue. CI has no `ptxas`
//! (`emit_ptx`'s assembly test skips there), so these are what shows a
//! change to the emitter in CI: a changed line is reviewed as a diff.

use clap::ValueEnum;
use emit::{PtxOptions, emit_ptx};
use kernels_ir::kernels::{self, REFERENCE_WARP_SIZE};
use kernels_ir::{Kernel, verify_kernel};
use simsort::experiment::SortOptions;
use simsort::experiment::sort::{Algo, algo_kernels};

use crate::snapshot_files::leftovers;
use crate::snapshots_hotsort::check_snapshot;

/// Every kernel to snapshot, named `<algo>_<kernel>` or `example_<name>`.
fn kernels() -> Vec<(String, Kernel)> {
    let mut all = Vec::new();
    for &algo in Algo::value_variants() {
        let opts = SortOptions {
            algo,
            warp: REFERENCE_WARP_SIZE,
            ..SortOptions::default()
        };
        let (_, generated, _) = algo_kernels(&opts)
            .unwrap_or_else(|e| panic!("{}'s default options: {e}", algo.name()));
        assert!(!generated.is_empty(), "{} has no kernels", algo.name());
        for k in generated {
            all.push((format!("{}_{}", algo.name(), k.name), k));
        }
    }
    for named in kernels::catalog(REFERENCE_WARP_SIZE) {
        all.push((format!("example_{}", named.name()), named.kernel));
    }
    all
}

#[test]
fn ptx_of_every_algorithm_and_example_kernel() {
    let mut failed = Vec::new();
    let mut produced: Vec<String> = Vec::new();
    for (name, kernel) in kernels() {
        assert!(!produced.contains(&name), "two kernels named {name}");
        let kernel = verify_kernel(kernel).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ptx = emit_ptx(&kernel, &PtxOptions::default())
            .unwrap_or_else(|e| panic!("{name} does not emit: {e}"));
        failed.extend(check_snapshot!(&name, &ptx));
        produced.push(name);
    }
    // Five algorithms and the examples, each with several kernels.
    assert!(produced.len() > 30, "only {} kernels", produced.len());
    failed.extend(leftovers("snapshots_ptx", |_| true, &produced));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
