//! The merge schedule after `bs`: which `fm`, `hm` and `bc` launches merge
//! the sorted blocks into one run, worked out from the slab count alone (no
//! device), so the host runs it and tests and reports can list it.
//!
//! Each round doubles the run length `R` (in slabs, from `block_slabs`):
//! `fm` flip-merges pairs of runs, a thread taking `K = fm_rows()` slabs of
//! each run at a distance of `R/K` slabs, which leaves sub-spans of `R/K`
//! slabs to clean; while those are larger than a block, `hm` half-merges
//! them (`K' = hm_rows()` slabs per thread, sub-spans shrink `K'`-fold);
//! `bc` cleans what is left.
//!
//! The two [`Schedule`]s differ in that last step and in `K`, `K'`. The
//! shipped HotSort (google/skia `src/compute/hs`, its CUDA and OpenCL
//! launchers) keeps a block-clean kernel for every power-of-two number of
//! warps up to the block sort's and launches the one that matches the
//! sub-span left, so a round whose `fm` leaves 2-slab sub-spans launches
//! 2-warp blocks. Its `fm` threads load half a block sort's slabs from each
//! run and its `hm` threads a whole block's, so sub-spans shrink faster and
//! fewer `hm` rounds are needed. [`Schedule::FullBlock`] always cleans with
//! full blocks (cleaning at distances larger than the sub-spans changes
//! nothing, so it is correct, only wasteful).

use super::config::{HotSortConfig, Schedule};

/// One merge launch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `fm` over `spans` pairs of runs of `run` slabs; each thread's slabs
    /// are `stride` slabs apart.
    Fm {
        /// Slabs per run.
        run: u64,
        /// `run / fm_rows()`.
        stride: u64,
        /// Pairs of runs that hold keys.
        spans: u64,
    },
    /// `hm` over `spans` spans of `span` slabs, each thread's slabs
    /// `stride` slabs apart.
    Hm {
        /// Slabs per span.
        span: u64,
        /// `span / hm_rows()`.
        stride: u64,
        /// Spans to half-merge.
        spans: u64,
    },
    /// `bc` with blocks of `slabs` warps, one per `slabs`-slab span.
    Bc {
        /// Warps (slabs) per block.
        slabs: u32,
        /// Blocks.
        blocks: u64,
    },
}

/// The merge launches for `bs_slabs` sorted slabs (a whole number of
/// blocks, padded so every pair of runs that holds keys is complete).
pub fn merge_steps(cfg: &HotSortConfig, bs_slabs: u64) -> Vec<Step> {
    let p = u64::from(cfg.block_slabs);
    let (k, hk) = (u64::from(cfg.fm_rows()), u64::from(cfg.hm_rows()));
    let mut steps = Vec::new();
    let mut r = p;
    while r < bs_slabs {
        let spans = (bs_slabs - r).div_ceil(2 * r);
        steps.push(Step::Fm {
            run: r,
            stride: r / k,
            spans,
        });
        let covered = spans * 2 * r;
        let mut clean = r / k;
        while clean > p {
            steps.push(Step::Hm {
                span: clean,
                stride: clean / hk,
                spans: covered / clean,
            });
            clean /= hk;
        }
        let slabs = match cfg.schedule {
            Schedule::Sized => clean,
            Schedule::FullBlock => p,
        };
        steps.push(Step::Bc {
            slabs: slabs as u32,
            blocks: covered / slabs,
        });
        r *= 2;
    }
    steps
}

/// Every block size (in slabs) a `bc` launch of `cfg` can have, ascending,
/// and always the full block (`bc`, which the register budget and `simsort
/// kernels` name): the kernels the host builds. Walks the rounds of a sort
/// as long as `R` can grow (run lengths up to 2^40 slabs, past any sort's).
pub fn bc_sizes(cfg: &HotSortConfig) -> Vec<u32> {
    let p = u64::from(cfg.block_slabs);
    let mut sizes: Vec<u32> = merge_steps(cfg, p << 40)
        .iter()
        .filter_map(|s| match s {
            Step::Bc { slabs, .. } => Some(*slabs),
            _ => None,
        })
        .chain([cfg.block_slabs])
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// The name of a `bc` launch of `slabs` warps: `bc` for a full block (the
/// name the calibration data and the snapshots know), `bc_N` for a block
/// of `N` warps.
pub fn bc_name(cfg: &HotSortConfig, slabs: u32) -> &'static str {
    const NAMES: [&str; 8] = [
        "bc_1", "bc_2", "bc_4", "bc_8", "bc_16", "bc_32", "bc_64", "bc_128",
    ];
    if slabs == cfg.block_slabs {
        "bc"
    } else {
        NAMES[slabs.trailing_zeros() as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(cfg: &HotSortConfig, slabs: u64) -> Vec<String> {
        merge_steps(cfg, slabs)
            .iter()
            .map(|s| match s {
                Step::Fm { .. } => "fm".to_string(),
                Step::Hm { .. } => "hm".to_string(),
                Step::Bc { slabs, .. } => bc_name(cfg, *slabs).to_string(),
            })
            .collect()
    }

    #[test]
    fn full_blocks_clean_with_the_block_sort_s_block() {
        let cfg = HotSortConfig {
            schedule: Schedule::FullBlock,
            fm_slabs: 4,
            hm_slabs: 8,
            ..HotSortConfig::default()
        };
        // 1M keys at W=32, H=16: 2048 slabs, 128 blocks of 16: seven
        // rounds, five hm.
        let want = [
            "fm", "bc", "fm", "bc", "fm", "bc", "fm", "hm", "bc", "fm", "hm", "bc", "fm", "hm",
            "bc", "fm", "hm", "hm", "bc",
        ];
        assert_eq!(names(&cfg, 2048), want);
        assert_eq!(bc_sizes(&cfg), [16]);
        // 16M keys: eleven rounds, fifteen hm.
        let n = names(&cfg, 32768);
        assert_eq!(n.iter().filter(|s| *s == "hm").count(), 15);
    }

    #[test]
    fn sized_blocks_follow_the_span_left() {
        // The default: the shipped schedule at W=32, H=16, 16 slabs a block.
        let cfg = HotSortConfig::default();
        assert_eq!(
            (cfg.schedule, cfg.fm_rows(), cfg.hm_rows()),
            (Schedule::Sized, 8, 16)
        );
        let n = names(&cfg, 2048);
        let want = [
            "fm", "bc_2", "fm", "bc_4", "fm", "bc_8", "fm", "bc", "fm", "hm", "bc_2", "fm", "hm",
            "bc_4", "fm", "hm", "bc_8",
        ];
        assert_eq!(n, want);
        assert_eq!(bc_sizes(&cfg), [2, 4, 8, 16]);
        let n = names(&cfg, 32768);
        assert_eq!(n.iter().filter(|s| *s == "hm").count(), 10);
        // Every bc block covers the keys exactly once.
        for s in merge_steps(&cfg, 2048) {
            if let Step::Bc { slabs, blocks } = s {
                assert_eq!(u64::from(slabs) * blocks, 2048);
            }
        }
    }
}
