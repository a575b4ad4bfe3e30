//! Sorting on the reference interpreter across the configuration matrix.
//!
//! The default run samples the matrix so it stays fast: every (W, H) pair
//! with sizes around a slab and a block, every layout and exchange with a
//! few shapes and sizes that need `fm`, `hm` and `bc`, every distribution.
//! The large sizes (up to 2^20 keys) are `#[ignore]`d: run them with
//! `cargo test -p sorts --release hotsort -- --ignored`.

use super::*;
use crate::test_keys::{distributions, uniform};
use kernels_ir::interp::{Interp, InterpStats};

const WARPS: [u32; 5] = [4, 8, 16, 32, 64];
const HEIGHTS: [u32; 7] = [1, 2, 3, 4, 8, 16, 32];

fn run(cfg: &HotSortConfig, keys: &[u32]) -> SortRun<InterpStats> {
    let mut dev = Interp::new(cfg.warp).expect("warp width");
    let run = sort(&mut dev, cfg, keys).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert!(
        run.sorted == want,
        "wrong result: W={} H={} P={} {} {} n={}",
        cfg.warp,
        cfg.slab_height,
        cfg.block_slabs,
        cfg.layout,
        cfg.merge,
        keys.len()
    );
    run
}

fn sizes(cfg: &HotSortConfig) -> Vec<usize> {
    let (s, b) = (cfg.slab_keys() as usize, cfg.block_keys() as usize);
    let mut n = vec![0, 1, 2, 3, s - 1, s, s + 1, b - 1, b, b + 1, 3 * b + 7];
    n.sort_unstable();
    n.dedup();
    n
}

fn valid(cfg: HotSortConfig) -> Option<HotSortConfig> {
    validate(&cfg).is_ok().then_some(cfg)
}

#[test]
fn every_warp_and_height_sorts_around_a_slab_and_a_block() {
    let mut ran = 0;
    for w in WARPS {
        for h in HEIGHTS {
            let Some(cfg) = valid(HotSortConfig::new(w, h)) else {
                continue;
            };
            for n in sizes(&cfg) {
                run(&cfg, &uniform(n, u64::from(w * 100 + h) + n as u64));
            }
            ran += 1;
        }
    }
    // Every pair is valid: a loop that skipped them all would pass.
    assert_eq!(ran, WARPS.len() * HEIGHTS.len(), "configurations sorted");
}

#[test]
fn the_measured_schedule_sorts_through_fm_hm_and_bc() {
    for (w, h, p) in [(32, 16, 16), (8, 3, 4), (4, 1, 8), (16, 32, 2)] {
        for merge in MergeExchange::ALL {
            let cfg = HotSortConfig {
                merge,
                block_slabs: p,
                schedule: Schedule::FullBlock,
                fm_slabs: 4,
                hm_slabs: 8,
                ..HotSortConfig::new(w, h)
            };
            let b = cfg.block_keys() as usize;
            for n in [4 * b - 3, 9 * b + 5] {
                run(&cfg, &uniform(n, n as u64));
            }
        }
    }
}

#[test]
fn blocks_follow_the_machine_s_thread_limit() {
    // The tiny preset's 64 threads per block: every launch, `fm`, `hm` and
    // `fill` included, stays within it, and the sort is still right.
    for (w, h, p) in [(8, 16, 8), (32, 8, 2), (64, 4, 1)] {
        let cfg = HotSortConfig {
            block_slabs: p,
            max_block_threads: 64,
            ..HotSortConfig::new(w, h)
        };
        // More than 2 * fm_rows blocks, so `hm` runs too, and not a power
        // of two, so `fill_out` does.
        let b = cfg.block_keys() as usize;
        let n = (2 * cfg.fm_rows() as usize + 2) * b + 5;
        let run = run(&cfg, &uniform(n, 3));
        let names: Vec<&str> = run.launches.iter().map(|l| l.name).collect();
        for kernel in ["fill_in", "fill_out", "fm", "hm"] {
            assert!(names.contains(&kernel), "W={w}: {names:?}");
        }
        for l in &run.launches {
            let threads = l.block.x * l.block.y * l.block.z;
            assert!(threads <= 64, "W={w}: {} has {threads} threads", l.name);
        }
    }
    let too_big = HotSortConfig {
        block_slabs: 16,
        max_block_threads: 64,
        ..HotSortConfig::new(8, 4)
    };
    let e = too_big.check_rules().unwrap_err();
    assert!(e[0].0.contains("128 threads, more than 64"), "{e:?}");
}

#[test]
fn every_layout_and_exchange_sorts_through_fm_hm_and_bc() {
    let shapes = [
        (32, 16, 16),
        (64, 8, 8),
        (8, 3, 4),
        (4, 1, 8),
        (16, 32, 2),
        (32, 5, 2),
    ];
    for (w, h, p) in shapes {
        for layout in Layout::ALL {
            for merge in MergeExchange::ALL {
                let cfg = HotSortConfig {
                    layout,
                    merge,
                    block_slabs: p,
                    ..HotSortConfig::new(w, h)
                };
                let b = cfg.block_keys() as usize;
                // 9 blocks and more take run lengths past fm_rows * P, so
                // `hm` runs too.
                for n in [b + 1, 4 * b - 3, 9 * b + 5] {
                    run(&cfg, &uniform(n, n as u64));
                }
            }
        }
    }
}

#[test]
fn every_distribution_sorts() {
    let configs = [
        HotSortConfig::default(),
        HotSortConfig {
            block_slabs: 4,
            ..HotSortConfig::new(8, 3)
        },
        HotSortConfig {
            merge: MergeExchange::Shared,
            layout: Layout::Xor,
            block_slabs: 4,
            ..HotSortConfig::new(16, 4)
        },
    ];
    for cfg in configs {
        let b = cfg.block_keys() as usize;
        for n in [1, cfg.slab_keys() as usize + 3, b, 5 * b + 1] {
            for (name, keys) in distributions(n, 7) {
                let got = run(&cfg, &keys);
                assert_eq!(got.sorted.len(), n, "{name}");
            }
        }
    }
}

#[test]
fn powers_of_two_around_the_default_config() {
    for cfg in [
        HotSortConfig::default(),
        HotSortConfig {
            block_slabs: 2,
            ..HotSortConfig::new(16, 2)
        },
    ] {
        for k in 4..=14 {
            for n in [(1usize << k) - 1, 1 << k, (1 << k) + 1] {
                run(&cfg, &uniform(n, k as u64));
            }
        }
    }
}

#[test]
fn every_generated_kernel_verifies() {
    let mut checked = 0;
    for w in WARPS {
        for h in HEIGHTS.into_iter().chain([5, 64]) {
            for layout in Layout::ALL {
                for merge in MergeExchange::ALL {
                    let cfg = HotSortConfig {
                        layout,
                        merge,
                        ..HotSortConfig::new(w, h)
                    };
                    if validate(&cfg).is_err() {
                        continue;
                    }
                    let kernels = generate(&cfg);
                    let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
                    // The sized block cleans `bc_N` come just before `bc`.
                    let base: Vec<&str> = names
                        .iter()
                        .copied()
                        .filter(|n| !n.starts_with("bc_"))
                        .collect();
                    assert_eq!(base, KERNEL_NAMES);
                    let sized: Vec<String> = schedule::bc_sizes(&cfg)
                        .into_iter()
                        .filter(|&p| p != cfg.block_slabs)
                        .map(|p| format!("bc_{p}"))
                        .collect();
                    assert_eq!(names[5..5 + sized.len()], sized);
                    for k in kernels {
                        let name = k.name.clone();
                        if let Err(e) = kernels_ir::verify_kernel(k) {
                            panic!("{name} for {cfg:?}: {e}");
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    // 5 widths x 9 heights x 3 layouts x 2 exchanges, all valid (H=64
    // too, with 4-lane warps' small blocks).
    assert_eq!(checked, 270, "configurations whose kernels were verified");
}

fn launch_names(cfg: &HotSortConfig, n: usize) -> Vec<&'static str> {
    run(cfg, &uniform(n, 1))
        .launches
        .iter()
        .map(|l| l.name)
        .collect()
}

#[test]
fn the_full_block_schedule_is_the_measured_one() {
    let cfg = HotSortConfig {
        schedule: Schedule::FullBlock,
        fm_slabs: 4,
        hm_slabs: 8,
        ..HotSortConfig::default()
    };
    let b = cfg.block_keys() as usize;
    // One block: pad, sort the block, transpose.
    assert_eq!(launch_names(&cfg, b - 1), ["fill_in", "bs", "transpose"]);
    assert_eq!(launch_names(&cfg, b), ["bs", "transpose"]);
    // Three blocks: padded to four; two rounds of fm + bc.
    assert_eq!(
        launch_names(&cfg, 3 * b),
        ["fill_out", "bs", "fm", "bc", "fm", "bc", "transpose"]
    );
    // Sixteen blocks: the fourth round leaves 32 slabs to clean, more than a
    // bc block: one hm first.
    let n = launch_names(&cfg, 16 * b);
    assert_eq!(n.iter().filter(|&&k| k == "fm").count(), 4);
    assert_eq!(n.iter().filter(|&&k| k == "hm").count(), 1);
    assert_eq!(n.iter().filter(|&&k| k == "bc").count(), 4);
    let mut dev = Interp::new(16).unwrap();
    let err = sort(&mut dev, &cfg, &[1u32, 2]).unwrap_err();
    assert!(err.to_string().contains("16-lane warps"), "{err}");
}

#[test]
fn the_sized_schedule_cleans_with_blocks_of_the_span_left() {
    let cfg = HotSortConfig::default();
    assert_eq!(cfg.schedule, Schedule::Sized);
    let b = cfg.block_keys() as usize;
    assert_eq!(launch_names(&cfg, b), ["bs", "transpose"]);
    // Sixteen blocks: four rounds, each bc block as wide as the sub-spans
    // the round's fm (and hm) leave; every launch's blocks cover the keys
    // once.
    let launches = run(&cfg, &uniform(16 * b, 1)).launches;
    let names: Vec<&str> = launches.iter().map(|l| l.name).collect();
    let want = [
        "bs",
        "fm",
        "bc_2",
        "fm",
        "bc_4",
        "fm",
        "bc_8",
        "fm",
        "bc",
        "transpose",
    ];
    assert_eq!(names, want);
    for l in &launches {
        if l.name.starts_with("bc") {
            let threads = u64::from(l.grid.x) * u64::from(l.block.x);
            assert_eq!(threads * u64::from(cfg.slab_height), 16 * b as u64);
        }
    }
}

#[test]
fn slab_loads_are_one_row_per_instruction() {
    // The bs kernel's global loads are exactly H rows at immediate offsets
    // r*W*4 from one per-lane address: the coalesced slab load.
    let cfg = HotSortConfig::default();
    let bs = &generate(&cfg)[2];
    let offsets: Vec<i32> = bs
        .insts
        .iter()
        .filter_map(|i| match i.data {
            kernels_ir::InstData::Load {
                opcode: kernels_ir::Opcode::LdGlobalB32,
                addr,
                ..
            } => Some(addr.offset),
            _ => None,
        })
        .collect();
    let want: Vec<i32> = (0..16).map(|r| r * 32 * 4).collect();
    assert_eq!(offsets, want);
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn large_inputs_sort_in_every_layout_and_exchange() {
    for layout in Layout::ALL {
        for merge in MergeExchange::ALL {
            let cfg = HotSortConfig {
                layout,
                merge,
                ..HotSortConfig::default()
            };
            for n in [(1 << 20) - 1, 1 << 20, 777_777] {
                run(&cfg, &uniform(n, n as u64));
            }
        }
    }
}

/// Powers of two up to 2^20 keys in every slab height of warp width `w`:
/// one test per width, so the test harness runs the widths side by side.
fn large_powers_of_two_in_every_height(w: u32) {
    let mut ran = 0;
    for h in HEIGHTS {
        let Some(cfg) = valid(HotSortConfig::new(w, h)) else {
            continue;
        };
        ran += 1;
        // 2^20 keys for the wide warps; the narrow ones take longer per key
        // on the interpreter.
        let top = if w >= 32 { 20 } else { 17 };
        for k in [15, top] {
            for n in [(1usize << k) - 1, (1 << k) + 1] {
                run(&cfg, &uniform(n, k as u64));
            }
        }
    }
    assert_eq!(ran, HEIGHTS.len(), "W={w}: heights sorted");
}

#[test]
fn the_large_cases_cover_every_warp_width() {
    // One `large_powers_of_two_at_warp_*` test per width below: a width
    // added here needs its own.
    assert_eq!(WARPS, [4, 8, 16, 32, 64]);
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn large_powers_of_two_at_warp_4() {
    large_powers_of_two_in_every_height(4);
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn large_powers_of_two_at_warp_8() {
    large_powers_of_two_in_every_height(8);
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn large_powers_of_two_at_warp_16() {
    large_powers_of_two_in_every_height(16);
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn large_powers_of_two_at_warp_32() {
    large_powers_of_two_in_every_height(32);
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn large_powers_of_two_at_warp_64() {
    large_powers_of_two_in_every_height(64);
}

#[test]
fn the_register_budget_bounds_the_slab_height() {
    let ok = HotSortConfig {
        block_slabs: 2,
        ..HotSortConfig::new(32, 64)
    };
    assert!(validate(&ok).is_ok(), "{:?}", validate(&ok));
    let c = HotSortConfig {
        layout: Layout::Xor,
        ..HotSortConfig::new(32, 128)
    };
    assert!(c.check_rules().is_ok(), "no rule but the budget is broken");
    let e = validate(&c).unwrap_err();
    assert!(e[0].0.contains("register words per thread"), "{e:?}");
}

/// 64-bit keys from two uniform streams, with the high word taken from a
/// small set so equal high words make the low word decide.
fn uniform64(n: usize, seed: u64) -> Vec<u64> {
    let hi = uniform(n, seed);
    let lo = uniform(n, seed ^ 0x5555);
    hi.iter()
        .zip(&lo)
        .map(|(&h, &l)| (u64::from(h % 5) << 32) | u64::from(l))
        .collect()
}

fn run64(cfg: &HotSortConfig, keys: &[u64]) {
    let mut dev = Interp::new(cfg.warp).expect("warp width");
    let run = sort(&mut dev, cfg, keys).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert!(
        run.sorted == want,
        "wrong 64-bit result: W={} H={} P={} {} {} n={}",
        cfg.warp,
        cfg.slab_height,
        cfg.block_slabs,
        cfg.layout,
        cfg.merge,
        keys.len()
    );
}

#[test]
fn sixty_four_bit_keys_sort_in_every_layout_and_exchange() {
    let shapes = [
        (32, 8, 4),
        (32, 16, 2),
        (8, 3, 4),
        (4, 1, 8),
        (16, 4, 4),
        (64, 2, 4),
    ];
    let mut ran = 0;
    for (w, h, p) in shapes {
        for layout in Layout::ALL {
            for merge in MergeExchange::ALL {
                let cfg = HotSortConfig {
                    layout,
                    merge,
                    block_slabs: p,
                    key_bits: 64,
                    ..HotSortConfig::new(w, h)
                };
                let Some(cfg) = valid(cfg) else {
                    continue;
                };
                let b = cfg.block_keys() as usize;
                for n in [0, 1, cfg.slab_keys() as usize + 1, b + 1, 9 * b + 5] {
                    run64(&cfg, &uniform64(n, n as u64));
                }
                ran += 1;
            }
        }
    }
    assert_eq!(ran, shapes.len() * 3 * 2, "configurations sorted");
}

#[test]
fn sixty_four_bit_keys_of_every_distribution_sort() {
    let cfg = HotSortConfig {
        block_slabs: 4,
        key_bits: 64,
        ..HotSortConfig::new(8, 4)
    };
    let n = 5 * cfg.block_keys() as usize + 3;
    let u = uniform64(n, 3);
    let mut sorted = u.clone();
    sorted.sort_unstable();
    let reverse: Vec<u64> = sorted.iter().rev().copied().collect();
    for keys in [u, sorted, reverse, vec![u64::MAX; n], vec![1 << 40; n]] {
        run64(&cfg, &keys);
    }
}

#[test]
fn keys_of_the_wrong_width_are_refused() {
    let cfg = HotSortConfig {
        key_bits: 64,
        ..HotSortConfig::new(8, 4)
    };
    let mut dev = Interp::new(8).unwrap();
    let e = sort(&mut dev, &cfg, &[1u32, 2]).unwrap_err();
    assert!(
        matches!(
            e,
            SortError::KeyWidth {
                keys: 32,
                config: 64
            }
        ),
        "{e}"
    );
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn large_sixty_four_bit_inputs_sort_in_every_layout_and_exchange() {
    let mut ran = 0;
    for layout in Layout::ALL {
        for merge in MergeExchange::ALL {
            for h in [8, 16] {
                let cfg = HotSortConfig {
                    layout,
                    merge,
                    key_bits: 64,
                    ..HotSortConfig::new(32, h)
                };
                let Some(cfg) = valid(cfg) else {
                    continue;
                };
                for n in [(1 << 18) - 1, 1 << 18, 333_333] {
                    run64(&cfg, &uniform64(n, n as u64));
                }
                ran += 1;
            }
        }
    }
    // 6 of the 12: `HotSortConfig::new` sizes the block for 32-bit keys,
    // and with 64-bit ones a block of 16 slabs of H=16 needs 64 KiB of
    // shared memory, over the 48 KiB allowed, so only H=8 runs here (H=16
    // with 64-bit keys is sorted, in 2-slab blocks, by
    // `sixty_four_bit_keys_sort_in_every_layout_and_exchange`).
    assert_eq!(ran, 6, "configurations sorted");
}
