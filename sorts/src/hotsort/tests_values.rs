//! 64-bit keys carrying 32-bit values, on the reference interpreter: the
//! same matrix as the 64-bit keys (shapes, layouts, exchanges, sizes that
//! launch `fm`, `hm` and `bc`, distributions), checked as the experiment
//! checks pairs: keys ascending and the multiset of (key, value) pairs
//! equal to the input's.

use super::*;
use crate::test_keys::{uniform, xorshift};
use kernels_ir::interp::Interp;

/// 64-bit keys whose high word comes from a small set (so equal high words
/// make the low word decide), and a distinct value per key.
fn pairs(n: usize, seed: u64) -> (Vec<u64>, Vec<u32>) {
    let hi = uniform(n, seed);
    let lo = uniform(n, seed ^ 0x5555);
    let keys = hi
        .iter()
        .zip(&lo)
        .map(|(&h, &l)| (u64::from(h % 5) << 32) | u64::from(l))
        .collect();
    (keys, values(n, seed))
}

/// Distinct values (a permutation of `0..n` XORed with a seed's word), so
/// a value that stays behind or is duplicated shows.
fn values(n: usize, seed: u64) -> Vec<u32> {
    let x = xorshift(1, seed)[0] as u32;
    (0..n as u32).map(|i| i ^ x).collect()
}

fn values_cfg(w: u32, h: u32, p: u32, layout: Layout, merge: MergeExchange) -> HotSortConfig {
    HotSortConfig {
        layout,
        merge,
        block_slabs: p,
        key_bits: 64,
        values: true,
        ..HotSortConfig::new(w, h)
    }
}

fn run_pairs(cfg: &HotSortConfig, keys: &[u64], vals: &[u32]) -> Vec<&'static str> {
    let mut dev = Interp::new(cfg.warp).expect("warp width");
    let hs: HotSort = HotSort::new(cfg)
        .unwrap_or_else(|e: SortError<std::convert::Infallible>| panic!("{cfg:?}: {e}"));
    let run = hs
        .sort_pairs(&mut dev, keys, vals)
        .unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    let what = format!(
        "W={} H={} P={} {} {} n={}",
        cfg.warp,
        cfg.slab_height,
        cfg.block_slabs,
        cfg.layout,
        cfg.merge,
        keys.len()
    );
    assert!(
        run.sorted.windows(2).all(|w| w[0].0 <= w[1].0),
        "keys not ascending: {what}"
    );
    let mut got = run.sorted.clone();
    got.sort_unstable();
    let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(vals.iter().copied()).collect();
    want.sort_unstable();
    assert!(got == want, "the pairs differ from the input's: {what}");
    run.launches.iter().map(|l| l.name).collect()
}

#[test]
fn pairs_sort_in_every_layout_and_exchange() {
    let shapes = [
        (32, 8, 4),
        (32, 16, 2),
        (8, 3, 4),
        (4, 1, 8),
        (16, 4, 4),
        (64, 2, 4),
    ];
    let mut kernels = Vec::new();
    for (w, h, p) in shapes {
        for layout in Layout::ALL {
            for merge in MergeExchange::ALL {
                let cfg = values_cfg(w, h, p, layout, merge);
                validate(&cfg).unwrap_or_else(|e| panic!("{cfg:?}: {e:?}"));
                let b = cfg.block_keys() as usize;
                for n in [0, 1, cfg.slab_keys() as usize + 1, b + 1, 9 * b + 5] {
                    let (k, v) = pairs(n, n as u64);
                    kernels.extend(run_pairs(&cfg, &k, &v));
                }
            }
        }
    }
    for name in ["fill_in", "fill_out", "bs", "fm", "hm", "bc", "transpose"] {
        assert!(kernels.contains(&name), "{name} never ran");
    }
}

#[test]
fn pairs_sort_around_a_slab_and_a_block_for_every_warp() {
    let mut ran = 0;
    for w in [4, 8, 16, 32, 64] {
        for h in [1, 2, 3, 4, 8] {
            let cfg = HotSortConfig {
                key_bits: 64,
                values: true,
                ..HotSortConfig::new(w, h)
            };
            if validate(&cfg).is_err() {
                continue;
            }
            let (s, b) = (cfg.slab_keys() as usize, cfg.block_keys() as usize);
            for n in [2, s - 1, s, b - 1, b + 1] {
                let (k, v) = pairs(n, u64::from(w * 100 + h) + n as u64);
                run_pairs(&cfg, &k, &v);
            }
            ran += 1;
        }
    }
    // 21 of the 25: a 64-bit key with its value in registers leaves too
    // few registers for the tallest slabs of the narrow warps.
    assert_eq!(ran, 21, "configurations sorted");
}

#[test]
fn pairs_of_every_distribution_sort() {
    for merge in MergeExchange::ALL {
        let cfg = values_cfg(8, 4, 4, Layout::Xor, merge);
        let n = 5 * cfg.block_keys() as usize + 3;
        let (u, v) = pairs(n, 3);
        let mut sorted = u.clone();
        sorted.sort_unstable();
        let reverse: Vec<u64> = sorted.iter().rev().copied().collect();
        let few: Vec<u64> = u
            .iter()
            .map(|k| [3, 1, u64::MAX, 7][(k % 4) as usize])
            .collect();
        for keys in [u, sorted, reverse, few, vec![1 << 40; n], vec![u64::MAX; n]] {
            run_pairs(&cfg, &keys, &v);
        }
    }
}

#[test]
fn values_take_registers_so_fewer_rows_fit() {
    let tallest = |values: bool| {
        (1..=HotSortConfig::MAX_SLAB_HEIGHT)
            .rev()
            .find(|&h| {
                validate(&HotSortConfig {
                    key_bits: 64,
                    values,
                    block_slabs: 2,
                    smem_bytes_max: 1 << 24,
                    ..HotSortConfig::new(32, h)
                })
                .is_ok()
            })
            .expect("some height fits")
    };
    let (keys_only, with_values) = (tallest(false), tallest(true));
    // Three register words per key instead of two.
    assert_eq!((keys_only, with_values), (72, 50));
    let too_tall = HotSortConfig {
        key_bits: 64,
        values: true,
        block_slabs: 2,
        smem_bytes_max: 1 << 24,
        ..HotSortConfig::new(32, with_values + 1)
    };
    let e = validate(&too_tall).unwrap_err();
    let last = &e.last().expect("a message").0;
    assert!(
        last.contains("64-bit keys and 32-bit values")
            && last.contains(&format!("is {with_values}")),
        "{e:?}"
    );
}

#[test]
fn pairs_and_keys_go_to_their_own_kernels() {
    let with = values_cfg(8, 4, 2, Layout::Pad, MergeExchange::Shuffle);
    let without = HotSortConfig {
        values: false,
        ..with.clone()
    };
    let mut dev = Interp::new(8).unwrap();
    let hs: HotSort = HotSort::new::<std::convert::Infallible>(&with).unwrap();
    let e = hs.sort(&mut dev, &[1u64, 2]).unwrap_err();
    assert!(matches!(e, SortError::Values(_)), "{e}");
    let hs: HotSort = HotSort::new::<std::convert::Infallible>(&without).unwrap();
    let e = hs.sort_pairs(&mut dev, &[1, 2], &[5, 6]).unwrap_err();
    assert!(matches!(e, SortError::Values(_)), "{e}");
    let hs: HotSort = HotSort::new::<std::convert::Infallible>(&with).unwrap();
    let e = hs.sort_pairs(&mut dev, &[1, 2], &[5]).unwrap_err();
    assert!(e.to_string().contains("2 keys but 1 values"), "{e}");
    let bad = HotSortConfig {
        key_bits: 32,
        ..with
    };
    let e = bad.check_rules().unwrap_err();
    assert!(e[0].0.contains("one 64-bit word"), "{e:?}");
}
