//! Deterministic test inputs shared by every algorithm's tests: an
//! xorshift64 stream (no dependency) and the distributions the correctness
//! matrices sort.

/// xorshift64 words from `seed`.
pub fn xorshift(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// 32-bit keys: the high words of [`xorshift`].
pub fn uniform(n: usize, seed: u64) -> Vec<u32> {
    xorshift(n, seed).iter().map(|x| (x >> 32) as u32).collect()
}

/// Uniform, sorted, reverse, few-unique, all-equal and all-max keys, named.
pub fn distributions(n: usize, seed: u64) -> Vec<(&'static str, Vec<u32>)> {
    let u = uniform(n, seed);
    let mut sorted = u.clone();
    sorted.sort_unstable();
    let reverse: Vec<u32> = sorted.iter().rev().copied().collect();
    let few: Vec<u32> = u
        .iter()
        .map(|k| [3, 1, u32::MAX, 7][(k % 4) as usize])
        .collect();
    vec![
        ("uniform", u),
        ("sorted", sorted),
        ("reverse", reverse),
        ("few-unique", few),
        ("all-equal", vec![42; n]),
        ("all-max", vec![u32::MAX; n]),
    ]
}
