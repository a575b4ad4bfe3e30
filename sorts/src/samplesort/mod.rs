//! GPU sample sort (Leischner, Osipov, Sanders; seed 003 and `peers.md`
//! section 3, after the authors' 2010 CUDA code), generated in our IR for
//! any machine: per distribution level, over all buckets larger than `M`
//! at once, `create_bst` (sample `a * k` keys, sort them, lay the `k - 1`
//! splitters out as an implicit search tree), `find_buckets` (a
//! branch-free tree walk per key and shared-memory counters), `scan` (the
//! bucket-major prefix sum) and `scatter` (the walk again and an atomic
//! position per key); buckets of at most `M` keys are sorted in one block's shared
//! memory (`small_sort_P`) and finished buckets copied back
//! (`copy_buckets`). A bucket whose sample has equal first and last
//! splitters takes the authors' degenerate path (`minmax`; constant, or
//! split `<`, `=`, `>`), so the recursion ends on any input. Not stable;
//! keys are 32- or 64-bit words (a key-value pair is one 64-bit word, key
//! in the high half). See `docs/samplesort.md`.
//!
//! ```
//! use kernels_ir::interp::Interp;
//! use sorts::samplesort::{Samplesort, SamplesortConfig};
//! let cfg = SamplesortConfig { buckets: 8, oversample: 4, small_size: 64, block_threads: 32,
//!     ..SamplesortConfig::new(8, 32) };
//! let ss = Samplesort::new::<std::convert::Infallible>(&cfg).unwrap();
//! let keys: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1000).collect();
//! let run = ss.sort(&mut Interp::new(8).unwrap(), &keys).unwrap();
//! let mut want = keys.clone();
//! want.sort_unstable();
//! assert_eq!(run.sorted, want);
//! ```

pub mod algorithm;
pub mod batch;
pub mod bst;
pub mod config;
pub mod distribute;
pub mod emit;
pub mod host;
pub mod minmax;
mod network;
pub mod scan;
pub mod small;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod waits;

pub use algorithm::configure;
pub use config::{LevelLaunches, SamplesortConfig, SamplesortOptions};
pub use host::{Samplesort, SamplesortSummary, note};

use crate::KernelMarks;
use distribute::Split;
use kernels_ir::Kernel;

/// The names of the launches (the report's rows; every `small_sort_P`
/// kernel launches as `small_sort`).
pub const LAUNCH_NAMES: [&str; 10] = [
    "create_bst",
    "find_buckets",
    "scan",
    "scatter",
    "scan_sums",
    "minmax",
    "find_3way",
    "scatter_3way",
    "copy_buckets",
    "small_sort",
];

/// The kernels every configuration has (beside the `small_sort_P` classes).
pub const KERNEL_NAMES: [&str; 9] = [
    "create_bst",
    "find_buckets",
    "scan",
    "scatter",
    "scan_sums",
    "minmax",
    "find_3way",
    "scatter_3way",
    "copy_buckets",
];

/// The small-sort network sizes of `cfg`: powers of two from two keys per
/// lane of a warp to `M` rounded up.
pub fn small_classes(cfg: &SamplesortConfig) -> Vec<u32> {
    let (lo, hi) = (cfg.min_small_slots(), cfg.small_slots());
    (lo.trailing_zeros()..=hi.trailing_zeros())
        .map(|s| 1 << s)
        .collect()
}

/// Every kernel of `cfg` with its marks: `create_bst`, `find_buckets`,
/// `scan`, `scatter`, `scan_sums`, `minmax`, `find_3way`, `scatter_3way`,
/// `copy_buckets`, then `small_sort_P` for every class, smallest first.
pub fn generate_marked(cfg: &SamplesortConfig) -> Vec<(Kernel, KernelMarks)> {
    let mut out = vec![
        bst::generate(cfg),
        distribute::find(cfg, Split::Tree),
        scan::generate(cfg),
        distribute::scatter(cfg, Split::Tree),
        scan::generate_sums(cfg),
        minmax::generate(cfg),
        distribute::find(cfg, Split::ThreeWay),
        distribute::scatter(cfg, Split::ThreeWay),
        small::copy_buckets(cfg),
    ];
    out.extend(
        small_classes(cfg)
            .into_iter()
            .map(|p| small::small_sort(cfg, p)),
    );
    out
}

/// Every kernel of `cfg`, unverified.
pub fn generate(cfg: &SamplesortConfig) -> Vec<Kernel> {
    generate_marked(cfg).into_iter().map(|(k, _)| k).collect()
}
