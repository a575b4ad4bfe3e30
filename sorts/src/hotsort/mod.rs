//! HotSort (the patent "Sorting for data-parallel computing devices" and
//! Google's shipped implementation), generated in our IR for any warp width,
//! slab height, block size, shared-memory layout and warp-merge exchange.
//!
//! Keys live in *slabs*: `W` lanes by `H` registers, key `lane*H + r` of a
//! sorted slab in register `r` of lane `lane`, stored at
//! `slab_base + r*W + lane` so every row is one coalesced access. The block
//! sort `bs` sorts blocks of slabs; the streaming flip merge `fm`, half merge
//! `hm` and block clean `bc` double the sorted run length until one run is
//! left; `transpose` turns slab order into linear order. [`host`] holds the
//! schedule, generic over [`kernels_ir::Device`].
//!
//! ```
//! use kernels_ir::interp::Interp;
//! use sorts::hotsort::{HotSortConfig, sort};
//! let cfg = HotSortConfig { block_slabs: 2, ..HotSortConfig::new(8, 4) };
//! let keys: Vec<u32> = (0..300).map(|i| (i * 7919) % 1000).collect();
//! let mut dev = Interp::new(8).unwrap();
//! let run = sort(&mut dev, &cfg, &keys).unwrap();
//! let mut want = keys.clone();
//! want.sort_unstable();
//! assert_eq!(run.sorted, want);
//! ```

pub mod algorithm;
pub mod bc;
pub mod bs;
pub mod columns;
pub mod config;
pub mod emit;
pub mod fill;
pub mod fm;
pub mod hm;
pub mod hoist;
pub mod host;
pub mod lanes;
pub mod layout;
pub mod networks;
pub mod schedule;
pub mod smem;
pub mod transpose;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_values;

pub use crate::{Launch, SortError, SortRun};
pub use algorithm::{HotSortOptions, configure};
pub use config::{ConfigError, HotSortConfig, Layout, MergeExchange, Schedule};
pub use host::{HotSort, sort};

use kernels_ir::Kernel;
use kernels_ir::verify::MAX_WORDS_PER_THREAD;

/// The names of the kernels every configuration has, in launch order. The
/// [`Schedule::Sized`] schedule adds block cleans smaller than a block,
/// `bc_N` for `N` warps, before `bc` (see [`schedule::bc_sizes`]).
pub const KERNEL_NAMES: [&str; 7] = ["fill_in", "fill_out", "bs", "fm", "hm", "bc", "transpose"];

/// Every kernel of `cfg`, in [`KERNEL_NAMES`] order with the smaller block
/// cleans before `bc` (unverified; the host verifies them once per
/// configuration).
pub fn generate(cfg: &HotSortConfig) -> Vec<Kernel> {
    let mut out = vec![
        fill::generate(cfg, "fill_in"),
        fill::generate(cfg, "fill_out"),
        bs::generate(cfg),
        fm::generate(cfg),
        hm::generate(cfg),
    ];
    let sizes = schedule::bc_sizes(cfg);
    out.extend(sizes.into_iter().map(|p| bc::generate_marked(cfg, p).0));
    out.push(transpose::generate(cfg));
    out
}

/// Checks `cfg` completely and reports every violation at once: the rules of
/// [`HotSortConfig::check_rules`] and then, when those hold, the register
/// budget of [`check_register_budget`].
pub fn validate(cfg: &HotSortConfig) -> Result<(), Vec<ConfigError>> {
    cfg.check_rules()?;
    check_register_budget(cfg)
}

/// The one check that generates kernels: the largest kernels (`bs` and
/// `bc`) must fit the IR's per-thread register limit. Call it only on a
/// configuration whose [`HotSortConfig::check_rules`] holds.
pub fn check_register_budget(cfg: &HotSortConfig) -> Result<(), Vec<ConfigError>> {
    // One message: what each kernel over the limit needs, and the tallest
    // slab that fits.
    let over: Vec<String> = register_words(cfg)
        .into_iter()
        .filter(|&(_, words)| words > MAX_WORDS_PER_THREAD)
        .map(|(name, words)| format!("`{name}` {words}"))
        .collect();
    if over.is_empty() {
        return Ok(());
    }
    let needs = format!("it needs {} register words per thread", over.join(" and "));
    // The register budget is monotone in the slab height: search the
    // tallest that fits, so the message can name it.
    let fits = |h: u32| {
        let c = HotSortConfig {
            slab_height: h,
            ..cfg.clone()
        };
        register_words(&c)
            .iter()
            .all(|&(_, w)| w <= MAX_WORDS_PER_THREAD)
    };
    let (mut lo, mut hi) = (0, cfg.slab_height);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    Err(vec![ConfigError(if lo == 0 {
        format!(
            "--slab-height: no slab height fits the register limit of {MAX_WORDS_PER_THREAD} \
             words per thread with {} ({needs})",
            key_words(cfg)
        )
    } else {
        format!(
            "--slab-height {}: with {} the tallest slab that fits the register limit of \
             {MAX_WORDS_PER_THREAD} words per thread is {lo} ({needs})",
            cfg.slab_height,
            key_words(cfg)
        )
    })])
}

/// What each key holds, for messages: `64-bit keys`, or `64-bit keys and
/// 32-bit values`.
fn key_words(cfg: &HotSortConfig) -> String {
    if cfg.values {
        format!("{}-bit keys and 32-bit values", cfg.key_bits)
    } else {
        format!("{}-bit keys", cfg.key_bits)
    }
}

/// The register words per thread of the largest kernels, `bs` and `bc`.
fn register_words(cfg: &HotSortConfig) -> [(&'static str, u32); 2] {
    [
        ("bs", bs::generate(cfg).regs.words_per_thread()),
        ("bc", bc::generate(cfg).regs.words_per_thread()),
    ]
}
