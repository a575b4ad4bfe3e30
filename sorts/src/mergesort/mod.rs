//! Merge-path mergesort (moderngpu's `MergesortKeys`; seed 001 and
//! `design/peers.md` section 1), generated in the IR for any machine: a
//! `blocksort` of tiles of `NV = NT * VT` keys, then `ceil(lg P)` passes of
//! `partition` (a global merge-path search per tile boundary) and `merge`
//! (per-thread merge-path search and serial merge in shared memory).
//! Every thread emits exactly VT keys whatever the data: the load is
//! balanced by construction. Keys are 32- or 64-bit words (a key-value
//! pair is one 64-bit word, key in the high half), sorted stably.

mod algorithm;
pub mod blocksort;
mod config;
mod emit;
mod host;
pub mod merge;
pub mod partition;
#[cfg(test)]
mod tests;

pub use config::{
    DEFAULT_BLOCK_THREADS, DEFAULT_ITEMS_PER_THREAD, MergesortConfig, MergesortOptions,
    PARTITION_THREADS, configure,
};
pub use host::{Mergesort, passes};

/// The kernels' names, in launch order.
pub const KERNEL_NAMES: [&str; 3] = ["blocksort", "partition", "merge"];

/// Every kernel of `cfg`, unverified, in [`KERNEL_NAMES`] order.
pub fn generate(cfg: &MergesortConfig) -> Vec<kernels_ir::Kernel> {
    vec![
        blocksort::generate(cfg),
        partition::generate(cfg),
        merge::generate(cfg),
    ]
}
