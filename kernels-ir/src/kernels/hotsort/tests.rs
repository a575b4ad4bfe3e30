//! Sorting on the reference interpreter across the configuration matrix.

use super::*;
use crate::interp::Interp;

fn check(cfg: &HotSortConfig, keys: &[u32]) {
    let mut dev = Interp::new(cfg.warp).unwrap();
    let run = sort(&mut dev, cfg, keys).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert_eq!(
        run.sorted,
        want,
        "W={} H={} P={} {} {} n={}",
        cfg.warp,
        cfg.slab_height,
        cfg.block_slabs,
        cfg.layout,
        cfg.merge,
        keys.len()
    );
}

fn uniform(n: usize, seed: u64) -> Vec<u32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32
        })
        .collect()
}

#[test]
fn default_config_sorts_small_inputs() {
    let cfg = HotSortConfig::default();
    for n in [0usize, 1, 2, 3, 511, 512, 513] {
        check(&cfg, &uniform(n, n as u64));
    }
}

#[test]
fn scratch_matrix() {
    for (w, h) in [
        (4u32, 1u32),
        (4, 3),
        (8, 2),
        (8, 4),
        (16, 8),
        (32, 16),
        (32, 3),
        (64, 4),
    ] {
        for layout in Layout::ALL {
            for merge in MergeExchange::ALL {
                let cfg = HotSortConfig {
                    layout,
                    merge,
                    ..HotSortConfig::new(w, h)
                };
                let bk = cfg.block_keys() as usize;
                for n in [bk - 1, bk, bk + 1, 3 * bk + 5] {
                    check(&cfg, &uniform(n, n as u64 + u64::from(w)));
                }
            }
        }
    }
}
