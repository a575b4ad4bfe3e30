//! Sorting on the reference interpreter across the configuration matrix:
//! sizes around a tile and powers of two, every distribution, warp widths
//! 8..64, 32- and 64-bit words, odd and even VT, several NT. The large
//! sizes (up to 2^20 keys) are `#[ignore]`d: run them with
//! `cargo test -p sorts --release mergesort -- --ignored`.

use super::*;
use crate::test_keys::{distributions, uniform, xorshift as uniform64};
use crate::{Key, Limits, SortRun};
use kernels_ir::interp::{Interp, InterpStats};

fn limits(warp: u32) -> Limits {
    Limits {
        warp_size: warp,
        smem_banks: 32,
        smem_bytes_per_block: 48 * 1024,
        max_threads_per_block: 1024,
        max_warps_per_sm: 64,
        regs_per_sm: 65536,
        reg_alloc_unit: 256,
        max_regs_per_thread: 255,
        reg_words_beyond_live: 255,
        reg_words_beyond_live_b128: 0,
    }
}

fn config(warp: u32, nt: u32, vt: u32, key_bits: u32) -> MergesortConfig {
    let opts = MergesortOptions {
        warp,
        block_threads: Some(nt),
        items_per_thread: Some(vt),
        key_bits,
    };
    configure(&opts, &limits(warp)).unwrap_or_else(|e| panic!("{opts:?}: {e:?}"))
}

fn run<K: Key>(cfg: &MergesortConfig, keys: &[K]) -> SortRun<InterpStats, K> {
    let mut dev = Interp::new(cfg.warp).expect("warp width");
    let ms = Mergesort::new::<std::convert::Infallible>(cfg).expect("kernels verify");
    let run = ms
        .sort(&mut dev, keys)
        .unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert!(run.sorted == want, "wrong result: {cfg:?} n={}", keys.len());
    let tiles = (keys.len() as u64).div_ceil(u64::from(cfg.tile_keys()));
    let expected = if keys.is_empty() {
        0
    } else {
        1 + 2 * passes(tiles) as usize
    };
    assert_eq!(run.launches.len(), expected, "{cfg:?} n={}", keys.len());
    run
}

fn sizes(cfg: &MergesortConfig) -> Vec<usize> {
    let nv = cfg.tile_keys() as usize;
    let mut n = vec![
        0,
        1,
        2,
        3,
        nv - 1,
        nv,
        nv + 1,
        2 * nv + 1,
        3 * nv - 1,
        5 * nv + 7,
    ];
    n.sort_unstable();
    n.dedup();
    n
}

#[test]
fn every_warp_sorts_around_a_tile() {
    for w in [8, 16, 32, 64] {
        for (nt, vt) in [(w, 3), (2 * w, 4), (4 * w, 7)] {
            let cfg = config(w, nt, vt, 32);
            for n in sizes(&cfg) {
                run(&cfg, &uniform(n, n as u64 + 1));
            }
        }
    }
}

#[test]
fn odd_and_even_keys_per_thread_sort() {
    for vt in [1, 2, 5, 8, 11, 12] {
        let cfg = config(32, 64, vt, 32);
        for n in sizes(&cfg) {
            run(&cfg, &uniform(n, 7 * n as u64 + 3));
        }
    }
}

#[test]
fn every_distribution_sorts() {
    let cfg = config(32, 64, 5, 32);
    for n in [cfg.tile_keys() as usize * 6 + 13, 1000] {
        for (name, keys) in distributions(n, 5) {
            let got = run(&cfg, &keys);
            assert!(got.sorted.windows(2).all(|w| w[0] <= w[1]), "{name}");
        }
    }
}

#[test]
fn powers_of_two_around_the_default_tile() {
    let cfg = config(32, 128, 11, 32);
    for k in [10, 12, 14] {
        for n in [(1 << k) - 1, 1 << k, (1 << k) + 1] {
            run(&cfg, &uniform(n, k as u64));
        }
    }
}

#[test]
fn sixty_four_bit_words_sort_and_keep_pairs() {
    for (nt, vt) in [(32, 7), (64, 8)] {
        let cfg = config(32, nt, vt, 64);
        for n in sizes(&cfg) {
            run(&cfg, &uniform64(n, n as u64 + 9));
        }
        // Key-value pairs as words: few distinct keys in the high half,
        // the input position as the value, so the sort must be stable.
        let n = cfg.tile_keys() as usize * 5 + 3;
        let pairs: Vec<u64> = uniform(n, 4)
            .iter()
            .enumerate()
            .map(|(i, k)| (u64::from(k % 5) << 32) | i as u64)
            .collect();
        run(&cfg, &pairs);
    }
}

#[test]
fn keys_of_the_wrong_width_are_refused() {
    let cfg = config(32, 64, 3, 64);
    let ms = Mergesort::new::<std::convert::Infallible>(&cfg).expect("kernels verify");
    let mut dev = Interp::new(32).expect("warp");
    assert!(ms.sort(&mut dev, &[1u32, 2]).is_err());
}

#[test]
fn bad_options_are_all_reported() {
    let opts = MergesortOptions {
        warp: 32,
        block_threads: Some(48),
        items_per_thread: Some(0),
        key_bits: 32,
    };
    let errors = configure(&opts, &limits(32)).unwrap_err();
    assert_eq!(errors.len(), 2, "{errors:?}");
    let big = MergesortOptions {
        warp: 32,
        block_threads: Some(1024),
        items_per_thread: Some(63),
        key_bits: 64,
    };
    let errors = configure(&big, &limits(32)).unwrap_err();
    assert!(
        errors.iter().any(|e| e.contains("shared memory")),
        "{errors:?}"
    );
}

#[test]
fn the_default_block_is_clamped_to_the_machine() {
    let opts = MergesortOptions {
        warp: 8,
        block_threads: None,
        items_per_thread: None,
        key_bits: 32,
    };
    let mut small = limits(8);
    small.max_threads_per_block = 32;
    let cfg = configure(&opts, &small).expect("fits");
    assert_eq!((cfg.block_threads, cfg.items_per_thread), (32, 11));
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn large_powers_of_two_sort() {
    for (bits, nt, vt) in [(32, 128, 11), (32, 256, 7), (64, 128, 11)] {
        let cfg = config(32, nt, vt, bits);
        for k in [16, 18, 20] {
            for n in [(1usize << k) - 1, 1 << k, (1 << k) + 1] {
                if bits == 32 {
                    run(&cfg, &uniform(n, k));
                } else {
                    run(&cfg, &uniform64(n, k));
                }
            }
        }
    }
}

#[test]
fn marks_name_every_stage_and_the_key_registers() {
    let cfg = config(32, 128, 7, 32);
    let ms = Mergesort::new::<std::convert::Infallible>(&cfg).expect("kernels verify");
    let kernels = ms.marked_kernels();
    let names =
        |i: usize| -> Vec<String> { kernels[i].1.stages.iter().map(|s| s.1.clone()).collect() };
    let bs = names(0);
    for coop in [2, 4, 8, 16, 32, 64, 128] {
        assert!(
            bs.contains(&format!("blocksort round coop={coop}")),
            "{bs:?}"
        );
    }
    assert_eq!(kernels[0].1.key_regs.len(), 7);
    assert_eq!(names(1), ["partition search"]);
    assert_eq!(
        names(2),
        [
            "merge ranges",
            "merge load",
            "merge path",
            "merge serial",
            "merge store"
        ]
    );
    for (k, marks) in kernels {
        assert!(
            marks.stages.windows(2).all(|w| w[0].0 < w[1].0),
            "{}",
            k.kernel().name
        );
    }
}
