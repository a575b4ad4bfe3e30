//! GPUTeraSort behind the [`Algorithm`] seam.

use std::convert::Infallible;

use kernels_ir::{Device, Kernel, VerifiedKernel};

use super::config::{TeraSortConfig, TeraSortOptions};
use super::host::TeraSort;
use crate::{Algorithm, KernelMarks, Key, Limits, SortError, SortRun};

pub use super::config::configure;

impl Algorithm for TeraSort {
    const NAME: &'static str = "terasort";
    type Options = TeraSortOptions;
    type Config = TeraSortConfig;

    fn configure(opts: &TeraSortOptions, limits: &Limits) -> Result<TeraSortConfig, Vec<String>> {
        configure(opts, limits)
    }

    fn describe(cfg: &TeraSortConfig) -> String {
        format!(
            "GPUTeraSort kernels for W={} records of {} bytes with {}-byte keys, {} network, {} \
             threads per block, phase 2 {}",
            cfg.warp,
            cfg.record_bytes,
            cfg.key_bytes,
            match &cfg.network {
                super::Network::Fused(b) =>
                    format!("fused (bitonic L={} G={})", b.vector, b.block_threads),
                super::Network::Steps => format!("{} steps", cfg.mode.name()),
            },
            cfg.block_threads,
            cfg.phase2.name()
        )
    }

    fn generate(cfg: &TeraSortConfig) -> Vec<Kernel> {
        super::generate(cfg)
    }

    fn build(cfg: &TeraSortConfig) -> Result<TeraSort, SortError<Infallible>> {
        TeraSort::new(cfg)
    }

    fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        TeraSort::marked_kernels(self)
    }

    fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        TeraSort::sort(self, dev, keys)
    }

    fn dry_run<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        TeraSort::dry_run(self, dev, keys)
    }
}
