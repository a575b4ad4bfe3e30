//! GPUTeraSort (Govindaraju, Gray, Kumar, Manocha, MSR-TR-2005-183; seed
//! 004), generated in our IR for any machine: records of `R` bytes with
//! `K`-byte keys; phase 1 sorts 8-byte key-pointer words (the first 4 key
//! bytes over the record's index) with the seed's bitonic network, either
//! fused as the bitonic sort runs it (shared-memory tiles, the default) or
//! literally, one launch per step; it refines runs of equal prefixes on
//! the next key bytes (the seed's hybrid radix-bitonic sort) and gathers
//! the records by pointer; phase 2 merges the runs on the host, or on the GPU with
//! mergesort's merge-path kernels ([`gpu_merge`]). See `docs/terasort.md`.
//!
//! ```
//! use kernels_ir::interp::Interp;
//! use sorts::terasort::{TeraSort, TeraSortConfig};
//! let cfg = TeraSortConfig { record_bytes: 16, ..TeraSortConfig::new(8, 32) };
//! let ts = TeraSort::new::<std::convert::Infallible>(&cfg).unwrap();
//! let keys: Vec<u32> = (0..300).map(|i| (i * 7919) % 100).collect();
//! let run = ts.sort(&mut Interp::new(8).unwrap(), &keys).unwrap();
//! let mut want = keys.clone();
//! want.sort_unstable();
//! assert_eq!(run.sorted, want);
//! ```

pub mod algorithm;
pub mod config;
pub mod gpu_merge;
pub mod host;
pub mod kernels;
pub mod merge;
pub mod records;
pub mod reorder;

#[cfg(test)]
mod tests;

pub use algorithm::configure;
pub use config::{Network, Phase2, StepMode, TeraSortConfig, TeraSortOptions};
pub use host::{TeraSort, TeraSortSummary};

use crate::KernelMarks;
use kernels_ir::Kernel;

/// The kernels of `cfg` in launch order, with their marks: `keygen`,
/// `refine_keys`, the network's (the bitonic sort's `fill`, `head`,
/// `step`, `tail`, or the seed's step), `reorder`, and with phase 2 on
/// the GPU `rebase`, `partition` and `merge`.
pub fn generate_marked(cfg: &TeraSortConfig) -> Vec<(Kernel, KernelMarks)> {
    let mut out = vec![kernels::keygen(cfg), kernels::refine_keys(cfg)];
    match &cfg.network {
        Network::Fused(b) => out.extend(crate::bitonic::generate_marked(b)),
        Network::Steps => out.push(match cfg.mode {
            StepMode::Pair => kernels::step_pair(cfg),
            StepMode::Output => kernels::step_output(cfg),
        }),
    }
    out.push(reorder::reorder(cfg));
    if let Phase2::Gpu(m) = &cfg.phase2 {
        out.push(kernels::rebase(cfg));
        out.push(crate::mergesort::partition::generate_marked(m));
        out.push(crate::mergesort::merge::generate_marked(m));
    }
    out
}

/// Every kernel of `cfg`, in launch order (unverified).
pub fn generate(cfg: &TeraSortConfig) -> Vec<Kernel> {
    generate_marked(cfg).into_iter().map(|(k, _)| k).collect()
}

/// The names of every kernel any configuration has.
pub const KERNEL_NAMES: [&str; 12] = [
    "keygen",
    "refine_keys",
    "fill",
    "head",
    "step",
    "tail",
    "step_pair",
    "step_output",
    "reorder",
    "rebase",
    "partition",
    "merge",
];

/// A launch's name: the kernel's, as a `'static` name from [`KERNEL_NAMES`].
fn launch_name(kernel: &str) -> &'static str {
    KERNEL_NAMES
        .iter()
        .find(|&&k| k == kernel)
        .copied()
        .unwrap_or("terasort")
}
