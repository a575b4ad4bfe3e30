//! Comparator networks: the per-lane sorting networks and the merge networks
//! every HotSort kernel unrolls.
//!
//! A network is a list of comparators `(lo, hi)` with `lo < hi`: after each,
//! position `lo` holds the minimum. Sorting networks are the best known for
//! their size: the optimal ones up to 16 inputs (19 comparators for 8,
//! Green's 60 for 16, the others derived from these by cutting wires, which
//! keeps them optimal except for 13 inputs: 46 comparators where the best
//! known has 45), Batcher's merge-exchange above. Every network is
//! checked by the 0-1 principle in the tests.

/// One comparator: after it, `.0` holds the minimum and `.1` the maximum.
pub type Comparator = (usize, usize);

/// The optimal 8-input network (19 comparators, 6 layers).
const NET8: [Comparator; 19] = [
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (2, 4),
    (3, 5),
    (1, 4),
    (3, 6),
    (1, 2),
    (3, 4),
    (5, 6),
];

/// An optimal 9-input network (25 comparators).
const NET9: [Comparator; 25] = [
    (0, 3),
    (1, 7),
    (2, 5),
    (4, 8),
    (0, 7),
    (2, 4),
    (3, 8),
    (5, 6),
    (0, 2),
    (1, 3),
    (4, 5),
    (7, 8),
    (1, 4),
    (3, 6),
    (5, 7),
    (0, 1),
    (2, 4),
    (3, 5),
    (6, 8),
    (2, 3),
    (4, 5),
    (6, 7),
    (1, 2),
    (3, 4),
    (5, 6),
];

/// An optimal 10-input network (29 comparators).
const NET10: [Comparator; 29] = [
    (0, 8),
    (1, 9),
    (2, 7),
    (3, 5),
    (4, 6),
    (0, 2),
    (1, 4),
    (5, 8),
    (7, 9),
    (0, 3),
    (2, 4),
    (5, 7),
    (6, 9),
    (0, 1),
    (3, 6),
    (8, 9),
    (1, 5),
    (2, 3),
    (4, 8),
    (6, 7),
    (1, 2),
    (3, 5),
    (4, 6),
    (7, 8),
    (2, 3),
    (4, 5),
    (6, 7),
    (3, 4),
    (5, 6),
];

/// Shapiro and Green's 12-input network (39 comparators, optimal).
const NET12: [Comparator; 39] = [
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (8, 9),
    (10, 11),
    (1, 3),
    (5, 7),
    (9, 11),
    (0, 2),
    (4, 6),
    (8, 10),
    (1, 2),
    (5, 6),
    (9, 10),
    (1, 5),
    (6, 10),
    (5, 9),
    (2, 6),
    (1, 5),
    (6, 10),
    (0, 4),
    (7, 11),
    (3, 7),
    (4, 8),
    (0, 4),
    (7, 11),
    (1, 4),
    (7, 10),
    (3, 8),
    (2, 3),
    (8, 9),
    (2, 4),
    (7, 9),
    (3, 5),
    (6, 8),
    (3, 4),
    (5, 6),
    (7, 8),
];

/// The last 28 comparators of Green's 16-input network; the first 32 are the
/// four hypercube layers `(i, i ^ 2^b)`.
const GREEN16_TAIL: [Comparator; 28] = [
    (5, 10),
    (6, 9),
    (3, 12),
    (13, 14),
    (7, 11),
    (1, 2),
    (4, 8),
    (1, 4),
    (7, 13),
    (2, 8),
    (11, 14),
    (2, 4),
    (5, 6),
    (9, 10),
    (11, 13),
    (3, 8),
    (7, 12),
    (6, 8),
    (10, 12),
    (3, 5),
    (7, 9),
    (3, 4),
    (5, 6),
    (7, 8),
    (9, 10),
    (11, 12),
    (6, 7),
    (8, 9),
];

/// Green's 16-input network (60 comparators).
fn green16() -> Vec<Comparator> {
    let mut net = Vec::with_capacity(60);
    for b in [1usize, 2, 4, 8] {
        net.extend((0..16).filter(|i| i & b == 0).map(|i| (i, i | b)));
    }
    net.extend_from_slice(&GREEN16_TAIL);
    net
}

/// Cuts a sorting network on `n` wires down to `keep` wires: the top `t`
/// wires are taken to carry +inf and the bottom `n - keep - t` ones -inf, so
/// comparators touching them never exchange and are dropped; the rest sorts
/// the middle wires. Returns the smallest cut over all `t`.
fn prune(net: &[Comparator], n: usize, keep: usize) -> Vec<Comparator> {
    (0..=n - keep)
        .map(|top| {
            let low = n - keep - top;
            let inside = |w: usize| w >= low && w < n - top;
            net.iter()
                .copied()
                .filter(|&(a, b)| inside(a) && inside(b))
                .map(|(a, b)| (a - low, b - low))
                .collect::<Vec<_>>()
        })
        .min_by_key(Vec::len)
        .unwrap_or_default()
}

/// The best known sorting network for `n` inputs.
pub fn sorting_network(n: usize) -> Vec<Comparator> {
    match n {
        0 | 1 => Vec::new(),
        2 => vec![(0, 1)],
        3 => vec![(0, 2), (0, 1), (1, 2)],
        4 => vec![(0, 2), (1, 3), (0, 1), (2, 3), (1, 2)],
        5 => vec![
            (0, 3),
            (1, 4),
            (0, 2),
            (1, 3),
            (0, 1),
            (2, 4),
            (1, 2),
            (3, 4),
            (2, 3),
        ],
        6 => vec![
            (0, 5),
            (1, 3),
            (2, 4),
            (1, 2),
            (3, 4),
            (0, 3),
            (2, 5),
            (0, 1),
            (2, 3),
            (4, 5),
            (1, 2),
            (3, 4),
        ],
        7 => prune(&NET8, 8, 7),
        8 => NET8.to_vec(),
        9 => NET9.to_vec(),
        10 => NET10.to_vec(),
        11 => prune(&NET12, 12, 11),
        12 => NET12.to_vec(),
        13..=15 => prune(&green16(), 16, n),
        16 => green16(),
        _ => merge_exchange(n),
    }
}

/// Batcher's merge-exchange sort for any `n` (Knuth, TAOCP 5.2.2, Algorithm M).
pub fn merge_exchange(n: usize) -> Vec<Comparator> {
    let mut net = Vec::new();
    if n < 2 {
        return net;
    }
    let t = usize::BITS - (n - 1).leading_zeros();
    let mut p = 1usize << (t - 1);
    while p > 0 {
        let (mut q, mut r, mut d) = (1usize << (t - 1), 0usize, p);
        loop {
            net.extend((0..n - d).filter(|i| i & p == r).map(|i| (i, i + d)));
            if q == p {
                break;
            }
            d = q - p;
            q >>= 1;
            r = p;
        }
        p >>= 1;
    }
    net
}

/// Half cleaners for a bitonic sequence of `n` (a power of two) elements:
/// distances `n/2, n/4, ..., 1`. Sorts any bitonic input.
pub fn bitonic_merge(n: usize) -> Vec<Comparator> {
    debug_assert!(n.is_power_of_two());
    let mut net = Vec::new();
    let mut d = n / 2;
    while d >= 1 {
        net.extend((0..n).filter(|i| i & d == 0).map(|i| (i, i + d)));
        d /= 2;
    }
    net
}

/// A network that sorts every bitonic sequence (a rotation of an ascending
/// then descending run) of `n` elements: the half-cleaner cascade for powers
/// of two, a full sorting network otherwise.
pub fn bitonic_sorter(n: usize) -> Vec<Comparator> {
    if n.is_power_of_two() {
        bitonic_merge(n)
    } else {
        sorting_network(n)
    }
}

/// Merges two ascending runs of `n/2` (`n` a power of two): a flip step
/// `(i, n-1-i)` makes each half bitonic with every key of the lower half
/// below every key of the upper half; half cleaners sort the halves.
pub fn flip_merge(n: usize) -> Vec<Comparator> {
    debug_assert!(n.is_power_of_two());
    let mut net: Vec<Comparator> = (0..n / 2).map(|i| (i, n - 1 - i)).collect();
    if n >= 4 {
        for half in [0, n / 2] {
            net.extend(
                bitonic_merge(n / 2)
                    .into_iter()
                    .map(|(a, b)| (a + half, b + half)),
            );
        }
    }
    net
}

/// Applies `net` to `v`.
pub fn apply<T: Ord + Copy>(net: &[Comparator], v: &mut [T]) {
    for &(a, b) in net {
        if v[a] > v[b] {
            v.swap(a, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 0-1 principle: a comparator network sorts every input of `n` keys
    /// iff it sorts all `2^n` inputs of zeros and ones.
    fn sorts_all_zero_one_inputs(net: &[Comparator], n: usize) -> bool {
        (0u32..1 << n).all(|bits| {
            let mut v: Vec<u32> = (0..n).map(|i| (bits >> i) & 1).collect();
            apply(net, &mut v);
            v.windows(2).all(|w| w[0] <= w[1])
        })
    }

    #[test]
    fn best_known_networks_sort_and_have_the_known_sizes() {
        // Best known sizes, except 13: the best known has 45 comparators (a
        // different construction); cutting Green's network gives 46.
        let best = [0, 0, 1, 3, 5, 9, 12, 16, 19, 25, 29, 35, 39, 46, 51, 56, 60];
        for (n, &size) in best.iter().enumerate() {
            let net = sorting_network(n);
            assert_eq!(net.len(), size, "size of the {n}-input network");
            assert!(
                net.iter().all(|&(a, b)| a < b && b < n),
                "{n}: comparator out of range"
            );
            assert!(
                sorts_all_zero_one_inputs(&net, n),
                "{n}-input network does not sort"
            );
        }
    }

    #[test]
    fn merge_exchange_sorts_and_matches_batcher_sizes() {
        for n in 2..=20 {
            assert!(sorts_all_zero_one_inputs(&merge_exchange(n), n), "n = {n}");
        }
        // Batcher's network for 16 inputs has 63 comparators, for 32 has 191.
        assert_eq!(merge_exchange(16).len(), 63);
        assert_eq!(merge_exchange(32).len(), 191);
        assert_eq!(sorting_network(32).len(), 191);
        let mut v: Vec<u32> = (0..64).map(|i| (i * 37 + 11) % 64).collect();
        apply(&sorting_network(64), &mut v);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }

    fn zero_one_bitonic(n: usize) -> Vec<Vec<u32>> {
        // Every rotation of 0^a 1^b: the 0-1 images of all bitonic sequences.
        let mut out = Vec::new();
        for ones in 0..=n {
            for rot in 0..n {
                out.push((0..n).map(|i| u32::from((i + rot) % n < ones)).collect());
            }
        }
        out
    }

    #[test]
    fn bitonic_sorters_sort_every_bitonic_input() {
        for n in 1..=33 {
            let net = bitonic_sorter(n);
            for mut v in zero_one_bitonic(n) {
                apply(&net, &mut v);
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "n = {n}");
            }
        }
        assert_eq!(bitonic_merge(8).len(), 12);
        assert_eq!(bitonic_merge(16).len(), 32);
    }

    #[test]
    fn flip_merge_merges_two_sorted_halves() {
        for n in [2usize, 4, 8, 16] {
            let net = flip_merge(n);
            let h = n / 2;
            for a in 0..=h {
                for b in 0..=h {
                    let mut v: Vec<u32> = (0..h).map(|i| u32::from(i >= a)).collect();
                    v.extend((0..h).map(|i| u32::from(i >= b)));
                    apply(&net, &mut v);
                    assert!(v.windows(2).all(|w| w[0] <= w[1]), "n = {n}");
                }
            }
        }
    }
}
