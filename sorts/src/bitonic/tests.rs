//! Sorting on the reference interpreter across the configuration matrix:
//! every vector length, fused and plain, with and without the swizzle, warp
//! widths 8 to 64, 32- and 64-bit words, sizes around a vector, a tile and
//! powers of two, every distribution. The large sizes (up to 2^20 + 1 keys)
//! are `#[ignore]`d: `cargo test -p sorts --release bitonic -- --ignored`.

use super::schedule::{Planned, plan};
use super::*;
use crate::Key;
use crate::test_keys::{distributions, uniform as u32s, xorshift as uniform};
use kernels_ir::interp::Interp;

fn check<K: Key>(cfg: &BitonicConfig, keys: &[K]) -> usize {
    let mut dev = Interp::new(cfg.warp).expect("warp width");
    let run = sort(&mut dev, cfg, keys).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert!(run.sorted == want, "wrong result: {cfg:?} n={}", keys.len());
    run.launches.len()
}

fn cfg(warp: u32, vector: u32, g: u32, fused: bool, key_bits: u32) -> BitonicConfig {
    BitonicConfig {
        fused,
        key_bits,
        ..BitonicConfig::new(warp, vector, g)
    }
}

/// Sizes around a vector pair, a tile and the powers of two up to 4 tiles.
fn sizes(c: &BitonicConfig) -> Vec<usize> {
    let (l, t) = (c.vector as usize, c.tile() as usize);
    let mut out = vec![0, 1, 2, 3, 2 * l - 1, 2 * l, 2 * l + 1, t - 1, t, t + 1];
    out.extend([2 * t - 1, 2 * t + 1, 4 * t, 4 * t + 3, 3 * t + 5]);
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
fn every_vector_fused_and_plain_32_bit() {
    for vector in config::VECTORS {
        for fused in [true, false] {
            let c = cfg(8, vector, 16, fused, 32);
            for n in sizes(&c) {
                check(&c, &u32s(n, n as u64));
            }
        }
    }
}

#[test]
fn every_vector_64_bit_words() {
    for vector in config::VECTORS {
        for fused in [true, false] {
            let c = cfg(8, vector, 8, fused, 64);
            for n in sizes(&c) {
                check(&c, &uniform(n, n as u64 + 7));
            }
        }
    }
}

#[test]
fn key_value_pairs_keep_their_values() {
    // The seam's pair: the 32-bit key in the high half over its value;
    // equal keys with distinct values must all survive.
    let keys = u32s(1000, 3);
    let pairs: Vec<u64> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (u64::from(k % 17) << 32) | i as u64)
        .collect();
    for fused in [true, false] {
        check(&cfg(8, 4, 8, fused, 64), &pairs);
    }
}

#[test]
fn every_distribution_and_warp() {
    for warp in [8, 16, 32, 64] {
        for (vector, g) in [(1, warp), (4, 2 * warp), (16, warp)] {
            for fused in [true, false] {
                let c = cfg(warp, vector, g, fused, 32);
                let n = 3 * c.tile() as usize + 17;
                for (_, keys) in distributions(n, u64::from(warp)) {
                    check(&c, &keys);
                }
            }
        }
    }
}

#[test]
fn without_the_swizzle_the_result_is_the_same() {
    for vector in [1, 4, 16] {
        let c = BitonicConfig {
            swizzle: false,
            ..cfg(16, vector, 32, true, 32)
        };
        check(&c, &u32s(5 * c.tile() as usize + 9, 5));
    }
}

#[test]
fn launches_follow_the_seed_formula() {
    // The seed's host loop: 1 + m(m+3)/2 launches, m = lg(P/T); the plain
    // sort launches once per step at distance >= L.
    let c = cfg(32, 4, 256, true, 32);
    for m in 0..5u64 {
        let n = c.tile() << m;
        let launches = plan(&c, n).len() as u64;
        assert_eq!(launches, 1 + m * (m + 3) / 2, "m={m}");
    }
    let p = cfg(32, 1, 256, false, 32);
    let lg = 20u64;
    assert_eq!(plan(&p, 1 << lg).len() as u64, lg * (lg + 1) / 2);
}

#[test]
fn padding_past_the_filled_words_is_never_launched() {
    let c = cfg(32, 4, 256, true, 32);
    let t = c.tile();
    let launches = plan(&c, 4 * t + 1);
    let Some(Planned::Fill { start, end }) = launches.first() else {
        panic!("a fill first: {launches:?}");
    };
    assert_eq!((*start, *end), (4 * t + 1, 5 * t));
    for l in &launches {
        match l {
            Planned::Head { tiles, .. } | Planned::Tail { tiles, .. } => assert_eq!(*tiles, 5),
            // At most the pairs whose lower vector holds keys.
            Planned::Step { blocks, .. } => assert!(*blocks * 256 <= 5 * t / 4),
            Planned::Fill { .. } => {}
        }
    }
}

/// 2^k - 1, 2^k, 2^k + 1 with the default block (a tile of 2048 keys).
fn powers_of_two(lgs: &[u64]) {
    for fused in [true, false] {
        let c = cfg(32, 4, 256, fused, 32);
        for &lg in lgs {
            for n in [(1usize << lg) - 1, 1 << lg, (1 << lg) + 1] {
                check(&c, &u32s(n, lg));
            }
        }
    }
}

#[test]
fn powers_of_two_up_to_2_14() {
    powers_of_two(&[10, 11, 12, 14]);
}

#[test]
#[ignore]
fn powers_of_two_up_to_2_20() {
    powers_of_two(&[16, 18, 20]);
}

#[test]
fn segments_sort_independently_and_words_sort_in_place() {
    // What GPUTeraSort's fused network launches: spans from one vector
    // pair to several tiles, each aligned span sorted on its own; and a
    // sort of words another kernel left in device memory.
    use kernels_ir::Device;
    for (warp, vector, g) in [(8, 2, 8), (32, 4, 32)] {
        let c = cfg(warp, vector, g, true, 64);
        let b = Bitonic::new::<std::convert::Infallible>(&c).unwrap();
        let mut span = schedule::min_span(&c);
        while span <= 4 * c.tile() {
            for count in [1, 3] {
                let words = uniform((span * count) as usize, span + count);
                let mut dev = Interp::new(warp).unwrap();
                let buf = dev.alloc(span * count * 8);
                dev.write_u64s(buf, &words).unwrap();
                b.sort_segments(&mut dev, buf, span, count, "").unwrap();
                let got = dev.read_u64s(buf, words.len()).unwrap();
                for (g, w) in got.chunks(span as usize).zip(words.chunks(span as usize)) {
                    let mut want = w.to_vec();
                    want.sort_unstable();
                    assert_eq!(g, want, "span {span} count {count}");
                }
            }
            span *= 2;
        }
        for n in [2, 2 * c.tile() + 3] {
            let words = uniform(n as usize, n);
            let mut dev = Interp::new(warp).unwrap();
            let buf = dev.alloc(schedule::filled(&c, n) * 8);
            dev.write_u64s(buf, &words).unwrap();
            b.sort_words(&mut dev, buf, n, "").unwrap();
            let mut want = words.clone();
            want.sort_unstable();
            assert_eq!(dev.read_u64s(buf, n as usize).unwrap(), want);
        }
    }
}
