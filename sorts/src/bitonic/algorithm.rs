//! The bitonic sort behind the [`Algorithm`] seam.

use std::convert::Infallible;

use kernels_ir::{Device, Kernel, VerifiedKernel};

use super::config::{BitonicConfig, BitonicOptions};
use super::host::Bitonic;
use crate::{Algorithm, KernelMarks, Key, Limits, SortError, SortRun};

pub use super::config::configure;

impl Algorithm for Bitonic {
    const NAME: &'static str = "bitonic";
    type Options = BitonicOptions;
    type Config = BitonicConfig;

    fn configure(opts: &BitonicOptions, limits: &Limits) -> Result<BitonicConfig, Vec<String>> {
        configure(opts, limits)
    }

    fn describe(cfg: &BitonicConfig) -> String {
        format!(
            "bitonic kernels for W={} L={} G={} (tile {} keys) {} swizzle={} {}-bit",
            cfg.warp,
            cfg.vector,
            cfg.block_threads,
            cfg.tile(),
            if cfg.fused { "fused" } else { "plain" },
            cfg.swizzle,
            cfg.key_bits
        )
    }

    fn generate(cfg: &BitonicConfig) -> Vec<Kernel> {
        super::generate(cfg)
    }

    fn build(cfg: &BitonicConfig) -> Result<Bitonic, SortError<Infallible>> {
        Bitonic::new(cfg)
    }

    fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        Bitonic::marked_kernels(self)
    }

    fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        Bitonic::sort(self, dev, keys)
    }
}
