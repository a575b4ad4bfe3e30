//! The vectorised bitonic merge sort of the seed (patent CN102750131A,
//! `peers.md` 2), generated in our IR for any warp width, vector length
//! `L`, block size `G` and key width: one thread holds two vectors of `L`
//! keys in registers and acts as `L` comparators; the stages whose
//! partners lie in one block's tile (`T = 2 G L` keys) run in shared memory
//! inside one launch, with barriers; only the steps at larger distance are
//! global launches. The plain bitonic sort the seed improves on (one launch
//! per step, every step through global memory) is the same `step` kernel
//! launched for every step (`fused: false`).
//!
//! Kernels: [`fill`] (padding), [`head`] (case 1), [`step`] (case 2),
//! [`tail`] (case 3); [`tile`] holds the shared-memory step protocol,
//! [`schedule`] the launch sequence, [`host`] runs it on any
//! [`kernels_ir::Device`].
//!
//! ```
//! use kernels_ir::interp::Interp;
//! use sorts::bitonic::{BitonicConfig, sort};
//! let cfg = BitonicConfig::new(8, 4, 16);
//! let keys: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1000).collect();
//! let mut dev = Interp::new(8).unwrap();
//! let run = sort(&mut dev, &cfg, &keys).unwrap();
//! let mut want = keys.clone();
//! want.sort_unstable();
//! assert_eq!(run.sorted, want);
//! ```

pub mod algorithm;
pub mod config;
pub mod emit;
pub mod fill;
pub mod head;
pub mod host;
pub mod schedule;
pub mod step;
pub mod tail;
pub mod tile;

#[cfg(test)]
mod tests;

pub use algorithm::configure;
pub use config::{BitonicConfig, BitonicOptions};
pub use host::{Bitonic, sort};

use crate::KernelMarks;
use kernels_ir::Kernel;

/// The names of the kernels, in launch order (the plain sort has `fill`
/// and `step` only).
pub const KERNEL_NAMES: [&str; 4] = ["fill", "head", "step", "tail"];

/// Every kernel of `cfg` with its marks, in launch order: `fill`, then
/// `head`, `step`, `tail` (the seed's method) or `step` alone (the plain
/// sort).
pub fn generate_marked(cfg: &BitonicConfig) -> Vec<(Kernel, KernelMarks)> {
    if cfg.fused {
        vec![
            fill::generate(cfg),
            head::generate(cfg),
            step::generate(cfg),
            tail::generate(cfg),
        ]
    } else {
        vec![fill::generate(cfg), step::generate(cfg)]
    }
}

/// Every kernel of `cfg`, unverified, in launch order.
pub fn generate(cfg: &BitonicConfig) -> Vec<Kernel> {
    generate_marked(cfg).into_iter().map(|(k, _)| k).collect()
}
