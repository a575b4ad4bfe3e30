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

#[test]
fn sorts_every_distribution_around_m() {
    let cfg = config(8, 32, 8, 4, 64, 8, 32);
    for n in [0, 1, 2, 3, 63, 64, 65, 127, 128, 129, 1000, 4097] {
        for (name, keys) in distributions(n, n as u64 + 1) {
            let (_, s) = run(&cfg, &keys);
            assert!(s.levels <= 12, "{name} n={n}: {s:?}");
        }
    }
}

#[test]
fn default_shape_interp() {
    let cfg = config(32, 32, 128, 16, 8192, 4, 256);
    let keys = uniform(100_000, 3);
    let (_, s) = run(&cfg, &keys);
    eprintln!("{s:?}");
}
