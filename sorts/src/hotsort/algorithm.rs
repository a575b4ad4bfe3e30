//! HotSort behind the [`Algorithm`] seam: its options, their check against
//! a machine's limits, and the machine-sized block.

use std::convert::Infallible;

use kernels_ir::{Device, Kernel, VerifiedKernel};

use super::config::{HotSortConfig, Layout, MergeExchange, Schedule};
use super::host::HotSort;
use super::layout::SmemLayout;
use crate::{Algorithm, KernelMarks, Key, Limits, SortError, SortRun};

/// What the user chooses for HotSort.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HotSortOptions {
    /// Lanes per warp.
    pub warp: u32,
    /// Key registers per lane; `None`: [`DEFAULT_SLAB_HEIGHT`], or the
    /// tallest power of two below it that fits the machine.
    pub slab_height: Option<u32>,
    /// Slabs per block in the block sort; `None`: the largest that fits.
    pub block_slabs: Option<u32>,
    /// Shared-memory layout.
    pub layout: Layout,
    /// Warp-merge exchange.
    pub merge: MergeExchange,
    /// Key width in bits.
    pub key_bits: u32,
    /// A 32-bit value beside each 64-bit key, in its own register and
    /// buffer (see [`HotSortConfig::values`]).
    pub values: bool,
    /// The merge schedule.
    pub schedule: Schedule,
}

impl Default for HotSortOptions {
    /// 32-lane warps and 32-bit keys, every choice at HotSort's default
    /// (the experiment layer's option table fills in what the user gave).
    fn default() -> HotSortOptions {
        HotSortOptions {
            warp: 32,
            slab_height: None,
            block_slabs: None,
            layout: Layout::Pad,
            merge: MergeExchange::Shuffle,
            key_bits: 32,
            values: false,
            schedule: Schedule::Sized,
        }
    }
}

/// The slab height of the real HotSort's targets, the default where it fits.
pub const DEFAULT_SLAB_HEIGHT: u32 = 16;

/// The HotSort configuration `opts` describe on a machine with `limits`:
/// shared memory is bounded by the per-block limit, and without a block
/// size the block is the largest (from HotSort's default down) that fits
/// the machine's threads and shared memory per block and warps per SM.
/// Every violation is listed. Without a slab height, the tallest of 16, 8,
/// 4, 2, 1 that fits (with some block size) is taken; if none does, the
/// problems of the default height are reported.
pub fn configure(opts: &HotSortOptions, limits: &Limits) -> Result<HotSortConfig, Vec<String>> {
    match opts.slab_height {
        Some(h) => configure_height(opts, limits, h),
        None => {
            let first = configure_height(opts, limits, DEFAULT_SLAB_HEIGHT);
            let mut h = DEFAULT_SLAB_HEIGHT / 2;
            let mut found = None;
            while first.is_err() && found.is_none() && h >= 1 {
                found = configure_height(opts, limits, h).ok();
                h /= 2;
            }
            found.map_or(first, Ok)
        }
    }
}

/// [`configure`] with slab height `h`.
fn configure_height(
    opts: &HotSortOptions,
    limits: &Limits,
    h: u32,
) -> Result<HotSortConfig, Vec<String>> {
    let mut cfg = HotSortConfig::new(opts.warp, h);
    cfg.banks = limits.smem_banks;
    cfg.smem_bytes_max = limits.smem_bytes_per_block;
    // A block must fit the machine's threads per block and one SM's warps.
    let sm_threads = limits.max_warps_per_sm.saturating_mul(limits.warp_size);
    cfg.max_block_threads = limits.max_threads_per_block.min(sm_threads).max(1);
    cfg.layout = opts.layout;
    cfg.merge = opts.merge;
    cfg.key_bits = opts.key_bits;
    cfg.values = opts.values;
    cfg.schedule = opts.schedule;
    if opts.schedule == Schedule::FullBlock {
        // The measured schedule's thread shapes (see `Schedule::FullBlock`).
        cfg.fm_slabs = 4;
        cfg.hm_slabs = 8;
    }
    match opts.block_slabs {
        Some(slabs) => cfg.block_slabs = slabs,
        None => {
            let fits = |c: &HotSortConfig| {
                let threads = u64::from(c.warp) * u64::from(c.block_slabs);
                threads <= u64::from(limits.max_threads_per_block)
                    && threads.div_ceil(u64::from(limits.warp_size.max(1)))
                        <= u64::from(limits.max_warps_per_sm)
                    && SmemLayout::new(c).block_bytes(c.block_slabs) <= u64::from(c.smem_bytes_max)
            };
            while cfg.block_slabs > 1 && !fits(&cfg) {
                cfg.block_slabs /= 2;
            }
            // Wide keys take more registers: shrink the block until `bs`
            // and `bc` also fit the SM's register file (only for a
            // configuration whose rules hold, since it generates them).
            while cfg.block_slabs > 1 && cfg.check_rules().is_ok() && !regs_fit(&cfg, limits) {
                cfg.block_slabs /= 2;
            }
        }
    }
    let mut problems: Vec<String> = match super::validate(&cfg) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    };
    let threads = u64::from(cfg.warp) * u64::from(cfg.block_slabs);
    let said = problems.iter().any(|p| p.contains(" threads, more than "));
    if threads > u64::from(limits.max_threads_per_block) && !said {
        problems.push(format!(
            "a block of {} slabs of {} lanes is {threads} threads, over the machine's {} per block",
            cfg.block_slabs, cfg.warp, limits.max_threads_per_block
        ));
    }
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(problems)
    }
}

/// Whether a block of `bs` and of `bc` fits one SM's register file.
fn regs_fit(cfg: &HotSortConfig, limits: &Limits) -> bool {
    let threads = u64::from(cfg.warp) * u64::from(cfg.block_slabs);
    [super::bs::generate(cfg), super::bc::generate(cfg)]
        .iter()
        .all(|k| limits.block_regs_fit(threads, k.regs.words_per_thread()))
}

impl Algorithm for HotSort {
    const NAME: &'static str = "hotsort";
    type Options = HotSortOptions;
    type Config = HotSortConfig;

    fn configure(opts: &HotSortOptions, limits: &Limits) -> Result<HotSortConfig, Vec<String>> {
        configure(opts, limits)
    }

    fn describe(cfg: &HotSortConfig) -> String {
        format!(
            "HotSort kernels for W={} H={} block_slabs={} layout={} merge={} schedule={}{}",
            cfg.warp,
            cfg.slab_height,
            cfg.block_slabs,
            cfg.layout,
            cfg.merge,
            cfg.schedule,
            if cfg.values {
                " key_bits=64 values"
            } else {
                ""
            }
        )
    }

    fn generate(cfg: &HotSortConfig) -> Vec<Kernel> {
        super::generate(cfg)
    }

    fn build(cfg: &HotSortConfig) -> Result<HotSort, SortError<Infallible>> {
        HotSort::new(cfg)
    }

    fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        HotSort::marked_kernels(self)
    }

    fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        HotSort::sort(self, dev, keys)
    }

    fn sort_pairs<D: Device>(
        &self,
        dev: &mut D,
        keys: &[u64],
        values: &[u32],
    ) -> Result<SortRun<D::Stats, crate::Pair>, SortError<D::Error>> {
        HotSort::sort_pairs(self, dev, keys, values)
    }
}
