//! Sample sort on the reference interpreter across the configuration
//! matrix: sizes 0, 1, odd, around `M` and powers of two, every
//! distribution, warp widths 8..64, 32- and 64-bit words, several k, a, M,
//! C and t. The 2^20-key cases are `#[ignore]`d: run them with
//! `cargo test -p sorts --release samplesort -- --ignored`.

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

/// A configuration from options (k, a, M, C, t); panics if invalid.
fn config(warp: u32, key_bits: u32, k: u32, a: u32, m: u32, c: u32, t: u32) -> SamplesortConfig {
    let opts = SamplesortOptions {
        buckets: Some(k),
        oversample: Some(a),
        small_size: Some(m),
        counter_copies: Some(c),
        block_threads: Some(t),
        ..SamplesortOptions::new(warp, key_bits)
    };
    configure(&opts, &limits(warp)).unwrap_or_else(|e| panic!("{opts:?}: {e:?}"))
}

fn run<K: Key>(cfg: &SamplesortConfig, keys: &[K]) -> (SortRun<InterpStats, K>, SamplesortSummary) {
    let mut dev = Interp::new(cfg.warp).expect("warp width");
    let ss = Samplesort::new::<std::convert::Infallible>(cfg).expect("kernels verify");
    let run = ss
        .sort(&mut dev, keys)
        .unwrap_or_else(|e| panic!("{cfg:?} n={}: {e}", keys.len()));
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert!(run.sorted == want, "wrong result: {cfg:?} n={}", keys.len());
    (run, ss.summary())
}

/// Sizes 0, 1, odd, `M` and `2^k` each -1/0/+1, up to `max`.
fn sizes(m: u32, max: usize) -> Vec<usize> {
    let m = m as usize;
    let mut n = vec![0, 1, 2, 3, 7, m - 1, m, m + 1, 3 * m + 1];
    let mut p = 64;
    while p <= max {
        n.extend([p - 1, p, p + 1]);
        p *= 4;
    }
    n.retain(|&x| x <= max + 1);
    n.sort_unstable();
    n.dedup();
    n
}

#[test]
fn sorts_every_distribution_and_size() {
    let cfg = config(8, 32, 8, 4, 64, 4, 32);
    for n in sizes(64, 1 << 14) {
        for (name, keys) in distributions(n, n as u64 + 1) {
            let (run, s) = run(&cfg, &keys);
            assert_eq!(s.launches, run.launches.len() as u64, "{name} n={n}");
            if n <= 64 {
                assert_eq!(s.levels, 0, "{name} n={n}: no level for n <= M");
            }
        }
    }
}

#[test]
fn warp_widths_key_widths_and_shapes() {
    // (W, bits, k, a, M, C, t)
    let shapes = [
        (8, 32, 2, 1, 16, 1, 8),
        (8, 64, 16, 8, 128, 2, 16),
        (16, 32, 32, 16, 256, 4, 64),
        (16, 64, 4, 3, 100, 16, 32),
        (32, 32, 128, 16, 1024, 4, 256),
        (32, 64, 64, 5, 500, 8, 128),
        (64, 32, 128, 16, 2048, 4, 128),
        (64, 64, 32, 2, 300, 64, 64),
    ];
    for (w, bits, k, a, m, c, t) in shapes {
        let cfg = config(w, bits, k, a, m, c, t);
        for n in [m as usize + 1, 5 * m as usize - 3, 6_000] {
            for (name, keys) in distributions(n, u64::from(w + k) + n as u64) {
                if bits == 64 {
                    // The high words of 64-bit keys carry the pattern.
                    let wide: Vec<u64> = keys
                        .iter()
                        .zip(uniform64(n, 7))
                        .map(|(&k, r)| (u64::from(k) << 32) | (r & 0xFF))
                        .collect();
                    run(&cfg, &wide);
                    let _ = name;
                } else {
                    run(&cfg, &keys);
                }
            }
        }
    }
}

#[test]
fn items_per_thread_fixed() {
    for l in [1, 3, 16] {
        let cfg = SamplesortConfig {
            items_per_thread: Some(l),
            ..config(16, 32, 16, 4, 128, 4, 64)
        };
        run(&cfg, &uniform(10_001, u64::from(l)));
    }
}

#[test]
fn degenerate_inputs_end_with_few_levels() {
    let cfg = config(8, 32, 16, 4, 64, 4, 32);
    let n = 10_000;
    // All equal: one degenerate sample, found constant: no scatter.
    let (run1, s) = run(&cfg, &vec![5u32; n]);
    assert_eq!((s.levels, s.degenerate, s.constant, s.splits), (1, 1, 1, 0));
    assert!(run1.launches.iter().all(|l| !l.name.starts_with("scatter")));
    // Two values: a three-way split whose `=` bucket is final.
    let two: Vec<u32> = uniform(n, 9).iter().map(|k| k & 1).collect();
    let (_, s) = run(&cfg, &two);
    assert!(s.levels <= 3, "{s:?}");
    // Few unique values: each ends in its own bucket, then degenerate.
    let few: Vec<u32> = uniform(n, 10).iter().map(|k| k % 5).collect();
    let (_, s) = run(&cfg, &few);
    assert!(s.degenerate >= 1 && s.levels <= 4, "{s:?}");
    // Zipf-like: many copies of small keys, a uniform tail.
    let zipf: Vec<u32> = uniform(n, 11)
        .iter()
        .map(|&k| if k % 2 == 0 { k % 3 } else { k })
        .collect();
    let (_, s) = run(&cfg, &zipf);
    assert!(s.levels <= 5, "{s:?}");
}

#[test]
fn uniform_keys_take_the_expected_levels() {
    let cfg = config(8, 32, 16, 8, 256, 4, 32);
    for n in [257, 4096, 50_000] {
        let (_, s) = run(&cfg, &uniform(n, n as u64));
        let expect = s.expected_levels(&cfg);
        assert!(
            s.levels >= expect && s.levels <= expect + 1,
            "n={n}: {} levels, expected {expect}",
            s.levels
        );
    }
}

#[test]
fn bad_options_are_all_reported() {
    let opts = SamplesortOptions {
        buckets: Some(100),
        counter_copies: Some(3),
        block_threads: Some(48),
        small_size: Some(0),
        items_per_thread: Some(0),
        ..SamplesortOptions::new(32, 32)
    };
    let e = configure(&opts, &limits(32)).unwrap_err();
    assert_eq!(e.len(), 5, "{e:?}");
    let opts = SamplesortOptions {
        small_size: Some(1 << 20),
        ..SamplesortOptions::new(32, 32)
    };
    let e = configure(&opts, &limits(32)).unwrap_err();
    assert!(e[0].contains("--small-size 1048576"), "{e:?}");
}

#[test]
fn defaults_fit_a_small_machine() {
    let tiny = Limits {
        smem_bytes_per_block: 2048,
        max_threads_per_block: 64,
        ..limits(8)
    };
    let cfg = configure(&SamplesortOptions::new(8, 32), &tiny).unwrap();
    assert_eq!((cfg.block_threads, cfg.small_size), (64, 512));
    assert!(cfg.buckets >= 2 && cfg.find_smem_bytes(cfg.buckets) <= 2048);
    run(&cfg, &uniform(5000, 1));
}

#[test]
#[ignore = "2^20 keys on the interpreter: run with --release -- --ignored"]
fn sorts_a_million_keys() {
    for bits in [32, 64] {
        let cfg = config(32, bits, 128, 16, 8192 * 32 / bits, 4, 256);
        for n in [(1 << 20) - 1, 1 << 20, (1 << 20) + 1] {
            if bits == 32 {
                for (_, keys) in distributions(n, 5) {
                    run(&cfg, &keys);
                }
            } else {
                run(&cfg, &uniform64(n, 5));
            }
        }
    }
}

#[test]
fn both_level_launch_forms_sort_every_distribution() {
    // A level of several large buckets: 40,000 keys, M = 256, k = 16.
    let batched = config(16, 32, 16, 4, 256, 4, 64);
    let per_bucket = SamplesortConfig {
        level_launches: LevelLaunches::PerBucket,
        ..batched.clone()
    };
    for n in [257, 4097, 40_000] {
        for (name, keys) in distributions(n, n as u64) {
            let (b, sb) = run(&batched, &keys);
            let (p, sp) = run(&per_bucket, &keys);
            // Batched: at most one find of each kind per level.
            for (kind, done) in [("find_buckets", sb.splits), ("find_3way", sb.three_way)] {
                let finds = b.launches.iter().filter(|l| l.name == kind).count() as u64;
                assert!(
                    finds <= u64::from(sb.levels).min(done),
                    "{name} n={n}: {kind}"
                );
            }
            // Per bucket: one of each per split.
            let finds = p
                .launches
                .iter()
                .filter(|l| l.name == "find_buckets")
                .count();
            assert_eq!(finds as u64, sp.splits, "{name} n={n}");
        }
    }
}

#[test]
fn a_level_mixing_three_way_and_k_way_splits() {
    // Each 1/8 of the key range holds one heavy value among uniform keys:
    // level 1 leaves buckets that are mostly one value (three-way at level
    // 2) between uniform ones (k-way at level 2), in both orders.
    let cfg = config(8, 32, 8, 4, 64, 4, 32);
    let keys: Vec<u32> = uniform(6_000, 3)
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            if i % 3 == 0 {
                (k >> 29) << 29 | 12_345
            } else {
                k
            }
        })
        .collect();
    let (run, s) = run(&cfg, &keys);
    assert!(s.three_way >= 2 && s.splits > s.levels.into(), "{s:?}");
    // Some level runs both chains (its bounds read back in one piece).
    let mut kway = false;
    let mut mixed = false;
    for l in &run.launches {
        match l.name {
            "create_bst" => kway = false,
            "find_buckets" => kway = true,
            "find_3way" => mixed |= kway,
            _ => {}
        }
    }
    assert!(mixed, "{s:?}");
}
