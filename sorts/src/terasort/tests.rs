//! GPUTeraSort on the reference interpreter: sizes, key patterns, warp
//! widths, key widths, record layouts, the fused network (the bitonic
//! sort's default tile, and a tile of a few warps so that small inputs and
//! their ties span several tiles), both step modes and several runs.
//! Every sort checks its whole output records itself ([`super::records`]);
//! the tests also compare the keys with a reference sort and count the
//! launches the seed predicts.

use std::convert::Infallible;

use kernels_ir::interp::Interp;

use super::{Network, Phase2, StepMode, TeraSort, TeraSortConfig};
use crate::Key;
use crate::bitonic::BitonicConfig;
use crate::mergesort::MergesortConfig;

/// The fused network with a small tile: `G = W` threads of `L = 2`
/// words, a tile of `4W` words.
fn small_tile(cfg: TeraSortConfig) -> TeraSortConfig {
    let b = BitonicConfig {
        key_bits: 64,
        ..BitonicConfig::new(cfg.warp, 2, cfg.warp)
    };
    TeraSortConfig {
        network: Network::Fused(b),
        ..cfg
    }
}

/// The seed's steps in `mode`.
fn steps(mode: StepMode, cfg: TeraSortConfig) -> TeraSortConfig {
    TeraSortConfig {
        network: Network::Steps,
        mode,
        ..cfg
    }
}

/// `cfg` with every network: fused with the default and a small tile,
/// pair and per-output steps.
fn networks(cfg: TeraSortConfig) -> [TeraSortConfig; 4] {
    [
        small_tile(cfg.clone()),
        steps(StepMode::Pair, cfg.clone()),
        steps(StepMode::Output, cfg.clone()),
        cfg,
    ]
}

/// Phase 2 on the GPU with a small merge tile (`NT = W`, `VT = 3`), so
/// small inputs have several tiles per run slot and padded slots.
fn gpu_merge(cfg: TeraSortConfig) -> TeraSortConfig {
    let m = MergesortConfig {
        warp: cfg.warp,
        block_threads: cfg.warp,
        items_per_thread: 3,
        key_bits: 64,
        partition_threads: 64,
    };
    TeraSortConfig {
        phase2: Phase2::Gpu(m),
        ..cfg
    }
}

/// Keys of a pattern: `uniform`, `few` (3 values), `equal`, `skew`,
/// `twice`, `sorted`, `reverse`.
fn keys<K: Key>(pattern: &str, n: usize) -> Vec<K> {
    (0..n as u64)
        .map(|i| {
            let v = match pattern {
                "uniform" => i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 3,
                "few" => (i % 3) << 40 | (i % 3),
                "equal" => 42,
                // Counts n/2, n/4, ...: ties in many size classes at once.
                "skew" => u64::from((i + 1).trailing_zeros()),
                // Ties of 2: the fused network pads each to `2L` words, more
                // than the segment buffer's first size.
                "twice" => i / 2,
                "sorted" => i,
                _ => u64::MAX - i,
            };
            let v = if K::BITS == 32 { v & 0xFFFF_FFFF } else { v };
            K::try_from(v).ok().unwrap()
        })
        .collect()
}

fn sort<K: Key>(cfg: &TeraSortConfig, keys: &[K]) -> (usize, super::TeraSortSummary) {
    let ts = TeraSort::new::<Infallible>(cfg).unwrap();
    let mut dev = Interp::new(cfg.warp).unwrap();
    let run = ts
        .sort(&mut dev, keys)
        .unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert_eq!(run.sorted, want, "{cfg:?}");
    (run.launches.len(), ts.summary())
}

#[test]
fn sizes_and_patterns_sort_at_every_warp_width() {
    for warp in [8, 16, 32, 64] {
        for n in [0, 1, 2, 3, 7, 31, 32, 33, 100] {
            let patterns = [
                "uniform", "few", "equal", "skew", "twice", "sorted", "reverse",
            ];
            for pattern in patterns {
                let cfg = TeraSortConfig {
                    record_bytes: 16,
                    ..TeraSortConfig::new(warp, 32)
                };
                for cfg in networks(cfg) {
                    sort(&cfg, &keys::<u32>(pattern, n));
                }
            }
        }
    }
}

#[test]
fn layouts_key_widths_modes_and_runs() {
    for (r, k) in [(16, 10), (100, 10), (8, 8), (12, 9), (4, 4), (64, 17)] {
        for network in 0..4 {
            for run_records in [None, Some(5), Some(64)] {
                let cfg = TeraSortConfig {
                    record_bytes: r,
                    key_bytes: k,
                    run_records,
                    ..TeraSortConfig::new(16, 32)
                };
                let cfg = networks(cfg)[network].clone();
                let both = [cfg.clone(), gpu_merge(cfg)];
                for (cfg, pattern) in both
                    .iter()
                    .flat_map(|c| ["uniform", "few", "equal", "skew", "twice"].map(|p| (c, p)))
                {
                    sort(cfg, &keys::<u32>(pattern, 77));
                    if k >= 8 {
                        let cfg = TeraSortConfig {
                            key_bits: 64,
                            ..cfg.clone()
                        };
                        sort(&cfg, &keys::<u64>(pattern, 77));
                    }
                }
            }
        }
    }
}

#[test]
fn the_reorder_covers_every_block_shape() {
    // Blocks of 16 threads at W = 8 (two warps): records of 1 unit (4, 8,
    // 16 bytes: 16 records a block, a warp of 8), a few units (12: 3 units
    // of 4 bytes, 5 records a row and a thread idle; 24: 3 units of 8
    // bytes; 48: 3 of 16; 28: 7 units, 36: 9, so rows copy in groups of
    // 4, the last group partial), 25 units of 4 bytes (100) and more units than
    // the block (68 bytes: 17 units, 136: 17 of 8, 272: 17 of 16, and 200:
    // 25 of 8), so rows loop over the record. Sizes around the records a
    // block owns, a partial last block, a warp spanning three records and
    // up to 9 rows a block (100 records of 36 bytes).
    for (r, owned) in [
        (4, 16),
        (8, 16),
        (16, 16),
        (12, 15),
        (24, 15),
        (48, 15),
        (28, 14),
        (36, 9),
        (100, 16),
        (68, 16),
        (136, 16),
        (272, 16),
        (200, 16),
    ] {
        let cfg = TeraSortConfig {
            record_bytes: r,
            key_bytes: r.min(10),
            block_threads: 16,
            ..TeraSortConfig::new(8, 32)
        };
        let (x, y) = super::reorder::block(&cfg);
        assert_eq!(x * y, owned, "{r}-byte records");
        for n in [
            1,
            2,
            owned as usize - 1,
            owned as usize,
            owned as usize + 1,
            3 * owned as usize + 5,
            100,
        ] {
            sort(&cfg, &keys::<u32>("uniform", n));
        }
    }
}

#[test]
fn all_equal_keys_refine_every_round_with_the_seeds_launch_count() {
    // lg n (lg n + 1) / 2 step launches per round. 8 equal key bytes: 2
    // rounds; 10 bytes of 64-bit keys: the bytes past the key are random
    // per record, so round 3 (bytes 8..10) has no ties left to refine.
    let n = 1 << 8;
    for (key_bytes, rounds) in [(8, 2), (10, 3)] {
        for mode in [StepMode::Pair, StepMode::Output] {
            let cfg = TeraSortConfig {
                key_bits: 64,
                key_bytes,
                ..TeraSortConfig::new(8, 32)
            };
            let cfg = steps(mode, cfg);
            let (launches, summary) = sort(&cfg, &keys::<u64>("equal", n));
            assert_eq!(summary.rounds, rounds);
            // keygen, a full network per round, refine_keys per refinement
            // round, reorder.
            assert_eq!(launches as u32, 1 + 36 * rounds + (rounds - 1) + 1);
        }
    }
}

#[test]
fn all_equal_keys_refine_every_round_with_one_fused_sort_each() {
    // A tile of 4W = 32 words at W = 8: 256 words sort in a `head`, then
    // per stage 6..=8 past the tile 1, 2 and 3 global steps and a `tail`
    // (the steps at distances of a tile and more): 10 launches per round.
    let n = 1 << 8;
    for (key_bytes, rounds) in [(8, 2), (10, 3)] {
        let cfg = TeraSortConfig {
            key_bits: 64,
            key_bytes,
            ..TeraSortConfig::new(8, 32)
        };
        let (launches, summary) = sort(&small_tile(cfg), &keys::<u64>("equal", n));
        assert_eq!(summary.rounds, rounds);
        assert_eq!(launches as u32, 1 + 10 * rounds + (rounds - 1) + 1);
    }
}

#[test]
fn the_dry_run_launches_at_least_what_any_input_needs() {
    // What the plan's dry run promises: its launches bound every input's.
    // The steps: ties only add launches, all-equal keys most. The fused
    // network sorts each size class of ties with its own launches, so its
    // dry run sorts one segment of every class ("skew" spreads ties over
    // many classes at once).
    let n = 300;
    for key_bytes in [4, 10] {
        let cfg = TeraSortConfig {
            record_bytes: 16,
            key_bytes,
            ..TeraSortConfig::new(8, 32)
        };
        for cfg in networks(cfg) {
            let ts = TeraSort::new::<Infallible>(&cfg).unwrap();
            let mut dry = Interp::new(8).unwrap();
            let bound = ts
                .dry_run(&mut dry, &keys::<u32>("equal", n))
                .unwrap()
                .launches
                .len();
            let patterns = [
                "uniform", "few", "equal", "skew", "twice", "sorted", "reverse",
            ];
            for pattern in patterns {
                let (launches, _) = sort(&cfg, &keys::<u32>(pattern, n));
                assert!(launches <= bound, "{cfg:?} {pattern}: {launches} > {bound}");
            }
        }
    }
}

#[test]
fn the_gpu_merge_matches_the_host_merge_at_every_warp_width() {
    // (run records, records): runs of 1 and 5 records (slots of one tile,
    // padded), 64 (no multiple of a tile of 3 W words) and 96 (3 tiles of
    // 32: slots padded to 4 tiles at W=32); 2 to 40 runs, the last short.
    let cases = [
        (1, 2),
        (1, 33),
        (5, 33),
        (5, 200),
        (64, 300),
        (96, 97),
        (96, 300),
    ];
    for warp in [8, 16, 32, 64] {
        for (run_records, n) in cases {
            for pattern in ["uniform", "few", "equal", "sorted", "reverse"] {
                let host = TeraSortConfig {
                    record_bytes: 16,
                    run_records: Some(run_records),
                    ..TeraSortConfig::new(warp, 32)
                };
                let gpu = gpu_merge(host.clone());
                let (_, h) = sort(&host, &keys::<u32>(pattern, n));
                let (_, g) = sort(&gpu, &keys::<u32>(pattern, n));
                assert_eq!(h.runs, g.runs);
                assert_eq!(g.merge_seconds, 0.0, "nothing merges on the host");
            }
        }
    }
}

#[test]
fn the_gpu_merge_launches_rebase_per_run_and_two_kernels_per_pass() {
    let cfg = gpu_merge(TeraSortConfig {
        record_bytes: 16,
        run_records: Some(40),
        ..TeraSortConfig::new(8, 32)
    });
    let ts = TeraSort::new::<Infallible>(&cfg).unwrap();
    let run = ts
        .sort(&mut Interp::new(8).unwrap(), &keys::<u32>("uniform", 200))
        .unwrap();
    let count = |name| run.launches.iter().filter(|l| l.name == name).count();
    // 5 runs: 5 rebases, ceil(lg 5) = 3 passes, one reorder at the end.
    assert_eq!(count("rebase"), 5);
    assert_eq!(count("partition"), 3);
    assert_eq!(count("merge"), 3);
    assert_eq!(count("reorder"), 1);
    assert_eq!(run.launches.last().unwrap().name, "reorder");
}

#[test]
fn a_large_input_sorts_in_several_runs() {
    let cfg = TeraSortConfig {
        record_bytes: 16,
        run_records: Some(1 << 12),
        ..TeraSortConfig::new(32, 32)
    };
    for n in [(1 << 14) - 1, 1 << 14, (1 << 14) + 1] {
        let (_, summary) = sort(&cfg, &keys::<u32>("uniform", n));
        assert_eq!(summary.runs, (n as u64).div_ceil(1 << 12));
    }
}

/// Sizes around 2^20 on the interpreter (slow: run with `cargo test -p
/// sorts --lib terasort -- --ignored`).
#[test]
#[ignore]
fn sizes_around_a_million_sort() {
    let cfg = TeraSortConfig {
        record_bytes: 16,
        ..TeraSortConfig::new(32, 32)
    };
    for n in [(1 << 20) - 1, 1 << 20, (1 << 20) + 1] {
        sort(&cfg, &keys::<u32>("few", n));
    }
}
