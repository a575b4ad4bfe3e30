//! Input keys for an experiment: deterministic distributions from a seed.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution as _, Zipf};

/// How the input keys are distributed (`--dist`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Distribution {
    /// Independent uniform keys over the whole key range.
    Uniform,
    /// Uniform keys, already ascending.
    Sorted,
    /// Uniform keys, descending.
    Reverse,
    /// Keys drawn from 16 distinct values.
    FewUnique,
    /// One key repeated.
    AllEqual,
    /// Zipf-distributed ranks (exponent 1.1): a few keys dominate.
    Zipf,
}

impl Distribution {
    /// Every distribution, in declaration order.
    pub const ALL: [Distribution; 6] = [
        Distribution::Uniform,
        Distribution::Sorted,
        Distribution::Reverse,
        Distribution::FewUnique,
        Distribution::AllEqual,
        Distribution::Zipf,
    ];

    /// The name used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Sorted => "sorted",
            Distribution::Reverse => "reverse",
            Distribution::FewUnique => "few-unique",
            Distribution::AllEqual => "all-equal",
            Distribution::Zipf => "zipf",
        }
    }
}

/// Spreads a small rank over the key range so Zipf keys are not clustered
/// near zero (multiplication by an odd constant is a bijection mod 2^32).
fn spread(rank: u64) -> u32 {
    (rank as u32).wrapping_mul(0x9E37_79B9)
}

/// `n` 32-bit keys of distribution `dist`; the same `seed` always gives the
/// same keys (ChaCha8 is portable and stable across platforms).
pub fn generate_u32(dist: Distribution, n: usize, seed: u64) -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    match dist {
        Distribution::Uniform => (0..n).map(|_| rng.random()).collect(),
        Distribution::Sorted | Distribution::Reverse => {
            let mut keys: Vec<u32> = (0..n).map(|_| rng.random()).collect();
            keys.sort_unstable();
            if dist == Distribution::Reverse {
                keys.reverse();
            }
            keys
        }
        Distribution::FewUnique => {
            let values: Vec<u32> = (0..16).map(|_| rng.random()).collect();
            (0..n)
                .map(|_| values[rng.random_range(0..values.len())])
                .collect()
        }
        Distribution::AllEqual => vec![rng.random(); n],
        Distribution::Zipf => {
            let zipf = Zipf::new((1u64 << 20) as f64, 1.1).expect("valid zipf parameters");
            (0..n)
                .map(|_| spread(zipf.sample(&mut rng) as u64))
                .collect()
        }
    }
}

/// `n` 64-bit keys of distribution `dist`: the high words are
/// [`generate_u32`]'s keys; the low words are a second uniform stream for
/// `uniform`, and otherwise a bijection of the high word (so sorted stays
/// sorted, reverse reversed, few-unique has 16 values, all-equal one).
pub fn generate_u64(dist: Distribution, n: usize, seed: u64) -> Vec<u64> {
    let hi = generate_u32(dist, n, seed);
    let lo = match dist {
        Distribution::Uniform => generate_u32(dist, n, seed ^ 0x6A09_E667_F3BC_C909),
        _ => hi.iter().map(|&h| spread(u64::from(h))).collect(),
    };
    hi.iter()
        .zip(&lo)
        .map(|(&h, &l)| (u64::from(h) << 32) | u64::from(l))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_keys_other_seed_other_keys() {
        for dist in Distribution::ALL {
            assert_eq!(
                generate_u32(dist, 1000, 7),
                generate_u32(dist, 1000, 7),
                "{dist:?}"
            );
        }
        assert_ne!(
            generate_u32(Distribution::Uniform, 100, 1),
            generate_u32(Distribution::Uniform, 100, 2)
        );
    }

    #[test]
    fn distributions_have_their_shape() {
        let n = 4096;
        let sorted = generate_u32(Distribution::Sorted, n, 3);
        assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
        let reverse = generate_u32(Distribution::Reverse, n, 3);
        assert!(reverse.windows(2).all(|w| w[0] >= w[1]));
        let mut few = generate_u32(Distribution::FewUnique, n, 3);
        few.sort_unstable();
        few.dedup();
        assert!(few.len() <= 16);
        let equal = generate_u32(Distribution::AllEqual, n, 3);
        assert!(equal.iter().all(|&k| k == equal[0]));
        let zipf = generate_u32(Distribution::Zipf, n, 3);
        let top = zipf.iter().filter(|&&k| k == spread(1)).count();
        assert!(top > n / 20, "rank 1 should dominate, got {top} of {n}");
        assert_eq!(generate_u32(Distribution::Uniform, 0, 3), Vec::<u32>::new());
        let sorted = generate_u64(Distribution::Sorted, n, 3);
        assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
        let reverse = generate_u64(Distribution::Reverse, n, 3);
        assert!(reverse.windows(2).all(|w| w[0] >= w[1]));
        let mut few = generate_u64(Distribution::FewUnique, n, 3);
        few.sort_unstable();
        few.dedup();
        assert!(few.len() <= 16);
        let uniform = generate_u64(Distribution::Uniform, n, 3);
        assert!(uniform.iter().any(|&k| (k >> 32) as u32 != k as u32));
    }
}
