//! Sample sort behind the [`Algorithm`] seam: the option check adds the
//! register budget (which needs the generated kernels) to the rules of
//! [`super::config`].

use std::convert::Infallible;

use kernels_ir::{Device, Kernel, VerifiedKernel};

use super::config::{LevelLaunches, SamplesortConfig, SamplesortOptions};
use super::host::Samplesort;
use crate::{Algorithm, KernelMarks, Key, Limits, SortError, SortRun};

/// [`super::config::configure`], then the register budget: a block of
/// every kernel must fit one SM's register file.
pub fn configure(
    opts: &SamplesortOptions,
    limits: &Limits,
) -> Result<SamplesortConfig, Vec<String>> {
    let cfg = super::config::configure(opts, limits)?;
    let mut problems = Vec::new();
    for k in super::generate(&cfg) {
        let regs = k.regs.words_per_thread();
        if regs > 255 || !limits.kernel_block_fits(u64::from(cfg.block_threads), &k) {
            problems.push(format!(
                "--block-threads {}: `{}` needs {} registers per thread ({regs} declared), too \
                 many for a block of {} threads on this machine",
                cfg.block_threads,
                k.name,
                limits.allocated_words(&k),
                cfg.block_threads
            ));
        }
    }
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(problems)
    }
}

impl Algorithm for Samplesort {
    const NAME: &'static str = "samplesort";
    type Options = SamplesortOptions;
    type Config = SamplesortConfig;

    fn configure(
        opts: &SamplesortOptions,
        limits: &Limits,
    ) -> Result<SamplesortConfig, Vec<String>> {
        configure(opts, limits)
    }

    fn describe(cfg: &SamplesortConfig) -> String {
        format!(
            "sample sort kernels for W={} k={} a={} M={} C={} t={} l={} ({}-bit words)",
            cfg.warp,
            cfg.buckets,
            cfg.oversample,
            cfg.small_size,
            cfg.counter_copies,
            cfg.block_threads,
            cfg.items_per_thread.map_or_else(
                || match cfg.level_launches {
                    LevelLaunches::Batched => "per launch".to_string(),
                    LevelLaunches::PerBucket => "per bucket".to_string(),
                },
                |l| l.to_string()
            ),
            cfg.key_bits
        ) + match cfg.level_launches {
            LevelLaunches::Batched => "",
            LevelLaunches::PerBucket => ", one launch chain per bucket",
        }
    }

    fn generate(cfg: &SamplesortConfig) -> Vec<Kernel> {
        super::generate(cfg)
    }

    fn build(cfg: &SamplesortConfig) -> Result<Samplesort, SortError<Infallible>> {
        Samplesort::new(cfg)
    }

    fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        Samplesort::marked_kernels(self)
    }

    fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        Samplesort::sort(self, dev, keys)
    }

    fn dry_run<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        Samplesort::dry_run(self, dev, keys)
    }
}
