//! Mergesort behind the [`Algorithm`] seam: the option check adds the
//! register budget (which needs the generated kernels) to the rules of
//! [`super::config`].

use std::convert::Infallible;

use kernels_ir::{Device, Kernel, VerifiedKernel};

use super::config::{MergesortConfig, MergesortOptions};
use super::host::Mergesort;
use crate::{Algorithm, KernelMarks, Key, Limits, SortError, SortRun};

/// [`super::config::configure`], then the register budget: a block of
/// `blocksort` and of `merge` must fit one SM's register file, and no
/// thread may need more than the IR's 255 register words.
pub fn configure(opts: &MergesortOptions, limits: &Limits) -> Result<MergesortConfig, Vec<String>> {
    let mut cfg = super::config::configure(opts, limits)?;
    // Without --block-threads, the default block also shrinks until its
    // registers fit the SM.
    if opts.block_threads.is_none() {
        while cfg.block_threads > cfg.warp && !regs_fit(&cfg, limits) {
            cfg.block_threads /= 2;
        }
    }
    let mut problems = Vec::new();
    for k in [
        super::blocksort::generate(&cfg),
        super::merge::generate(&cfg),
    ] {
        let regs = k.regs.words_per_thread();
        if regs > 255 || !limits.kernel_block_fits(u64::from(cfg.block_threads), &k) {
            problems.push(format!(
                "--block-threads {} --items-per-thread {}: `{}` needs {} registers per \
                 thread ({regs} declared), too many for a block of {} threads on this machine \
                 (fewer keys per thread or threads per block fit)",
                cfg.block_threads,
                cfg.items_per_thread,
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

/// Whether a block of `blocksort` and of `merge` fits one SM's registers.
fn regs_fit(cfg: &MergesortConfig, limits: &Limits) -> bool {
    [super::blocksort::generate(cfg), super::merge::generate(cfg)]
        .iter()
        .all(|k| limits.block_regs_fit(u64::from(cfg.block_threads), k.regs.words_per_thread()))
}

impl Algorithm for Mergesort {
    const NAME: &'static str = "mergesort";
    type Options = MergesortOptions;
    type Config = MergesortConfig;

    fn configure(opts: &MergesortOptions, limits: &Limits) -> Result<MergesortConfig, Vec<String>> {
        configure(opts, limits)
    }

    fn describe(cfg: &MergesortConfig) -> String {
        format!(
            "mergesort kernels for W={} NT={} VT={} ({}-bit words, NV={})",
            cfg.warp,
            cfg.block_threads,
            cfg.items_per_thread,
            cfg.key_bits,
            cfg.tile_keys()
        )
    }

    fn generate(cfg: &MergesortConfig) -> Vec<Kernel> {
        super::generate(cfg)
    }

    fn build(cfg: &MergesortConfig) -> Result<Mergesort, SortError<Infallible>> {
        Mergesort::new(cfg)
    }

    fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        Mergesort::marked_kernels(self)
    }

    fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        Mergesort::sort(self, dev, keys)
    }
}
