//! Loops over lane vectors, written so the compiler vectorises them: lanes
//! go in chunks of 32 so a chunk's lane mask is one `u32`, and a lane's bit
//! is tested against a constant table (`mask & LANE_BITS[l]`), which
//! becomes one vector `and` and compare where `mask >> l` would need
//! per-lane variable shifts. Selections are arithmetic blends, not
//! branches. A source is a lane vector or one value for every lane
//! ([`Lanes`]), so one loop serves register and immediate operands.
// Indexed loops over slices cut to one length vectorise reliably.
#![allow(clippy::needless_range_loop)]

use crate::regfile::Lane;

/// Lanes handled per mask word.
const CHUNK: usize = 32;

/// `LANE_BITS[l] = 1 << l`.
static LANE_BITS: [u32; CHUNK] = {
    let mut bits = [0; CHUNK];
    let mut l = 0;
    while l < CHUNK {
        bits[l] = 1 << l;
        l += 1;
    }
    bits
};

/// A source of lane values: a lane vector, or [`Splat`].
pub(crate) trait Lanes<A>: Copy {
    /// The value of lane `l`.
    fn get(self, l: usize) -> A;
    /// Lanes `start..end`.
    fn cut(self, start: usize, end: usize) -> Self;
}

impl<A: Copy> Lanes<A> for &[A] {
    #[inline(always)]
    fn get(self, l: usize) -> A {
        self[l]
    }

    #[inline(always)]
    fn cut(self, start: usize, end: usize) -> Self {
        &self[start..end]
    }
}

/// The same value in every lane.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Splat<A>(pub A);

impl<A: Copy> Lanes<A> for Splat<A> {
    #[inline(always)]
    fn get(self, _: usize) -> A {
        self.0
    }

    #[inline(always)]
    fn cut(self, _: usize, _: usize) -> Self {
        self
    }
}

/// `a ? x : y` without a branch.
#[inline(always)]
fn pick<T: Lane>(a: bool, x: T, y: T) -> T {
    let m = T::splat_bool(a);
    (x & m) | (y & !m)
}

/// Calls `f(start, end, mask)` for each chunk `start..end` of `lanes`
/// lanes, with the chunk's bits of `mask` (bit 0: lane `start`).
#[inline(always)]
fn chunks(lanes: usize, mask: u64, mut f: impl FnMut(usize, usize, u32)) {
    let mut start = 0;
    while start < lanes {
        let end = lanes.min(start + CHUNK);
        f(start, end, (mask >> start) as u32);
        start = end;
    }
}

/// `d[l] = f(a[l])` in the lanes of `mask` (every lane when `full`).
#[inline(always)]
pub(crate) fn zip1<T: Lane, A: Copy>(
    d: &mut [T],
    a: impl Lanes<A>,
    mask: u64,
    full: bool,
    f: impl Fn(A) -> T,
) {
    let n = d.len();
    if full {
        let a = a.cut(0, n);
        for l in 0..n {
            d[l] = f(a.get(l));
        }
    } else {
        zip1_masked(d, a, mask, f);
    }
}

// The masked loops are functions of their own, out of line: the full
// loops' callers then save fewer registers.
#[inline(never)]
fn zip1_masked<T: Lane, A: Copy>(d: &mut [T], a: impl Lanes<A>, mask: u64, f: impl Fn(A) -> T) {
    chunks(d.len(), mask, |start, end, m| {
        let (d, a, bits) = (
            &mut d[start..end],
            a.cut(start, end),
            &LANE_BITS[..end - start],
        );
        for l in 0..bits.len() {
            d[l] = pick(m & bits[l] != 0, f(a.get(l)), d[l]);
        }
    });
}

/// `d[l] = f(a[l], b[l])` in the lanes of `mask` (every lane when `full`).
#[inline(always)]
pub(crate) fn zip2<T: Lane, A: Copy, B: Copy>(
    d: &mut [T],
    a: impl Lanes<A>,
    b: impl Lanes<B>,
    mask: u64,
    full: bool,
    f: impl Fn(A, B) -> T,
) {
    let n = d.len();
    if full {
        let (a, b) = (a.cut(0, n), b.cut(0, n));
        for l in 0..n {
            d[l] = f(a.get(l), b.get(l));
        }
    } else {
        zip2_masked(d, a, b, mask, f);
    }
}

#[inline(never)]
fn zip2_masked<T: Lane, A: Copy, B: Copy>(
    d: &mut [T],
    a: impl Lanes<A>,
    b: impl Lanes<B>,
    mask: u64,
    f: impl Fn(A, B) -> T,
) {
    chunks(d.len(), mask, |start, end, m| {
        let (d, bits) = (&mut d[start..end], &LANE_BITS[..end - start]);
        let (a, b) = (a.cut(start, end), b.cut(start, end));
        for l in 0..bits.len() {
            d[l] = pick(m & bits[l] != 0, f(a.get(l), b.get(l)), d[l]);
        }
    });
}

/// `d[l] = f(d[l], b[l])` in the lanes of `mask` (every lane when `full`).
#[inline(always)]
pub(crate) fn update<T: Lane, B: Copy>(
    d: &mut [T],
    b: impl Lanes<B>,
    mask: u64,
    full: bool,
    f: impl Fn(T, B) -> T,
) {
    let n = d.len();
    if full {
        let b = b.cut(0, n);
        for l in 0..n {
            d[l] = f(d[l], b.get(l));
        }
    } else {
        update_masked(d, b, mask, f);
    }
}

#[inline(never)]
fn update_masked<T: Lane, B: Copy>(
    d: &mut [T],
    b: impl Lanes<B>,
    mask: u64,
    f: impl Fn(T, B) -> T,
) {
    chunks(d.len(), mask, |start, end, m| {
        let (d, b, bits) = (
            &mut d[start..end],
            b.cut(start, end),
            &LANE_BITS[..end - start],
        );
        for l in 0..bits.len() {
            d[l] = pick(m & bits[l] != 0, f(d[l], b.get(l)), d[l]);
        }
    });
}

/// The lane mask of `f(a[l], b[l])` over `lanes` lanes.
#[inline(always)]
pub(crate) fn pack2<A: Copy, B: Copy>(
    lanes: usize,
    a: impl Lanes<A>,
    b: impl Lanes<B>,
    f: impl Fn(A, B) -> bool,
) -> u64 {
    let mut bits = 0;
    chunks(lanes, 0, |start, end, _| {
        let (a, b, lane_bits) = (
            a.cut(start, end),
            b.cut(start, end),
            &LANE_BITS[..end - start],
        );
        let mut m = 0u32;
        for l in 0..lane_bits.len() {
            m |= lane_bits[l] & u32::from(f(a.get(l), b.get(l))).wrapping_neg();
        }
        bits |= u64::from(m) << start;
    });
    bits
}

/// `out[l] = mask has l ? a[l] : b[l]`.
#[inline(always)]
pub(crate) fn select<T: Lane>(out: &mut [T], a: impl Lanes<T>, b: impl Lanes<T>, mask: u64) {
    chunks(out.len(), mask, |start, end, m| {
        let (o, bits) = (&mut out[start..end], &LANE_BITS[..end - start]);
        let (a, b) = (a.cut(start, end), b.cut(start, end));
        for l in 0..bits.len() {
            o[l] = pick(m & bits[l] != 0, a.get(l), b.get(l));
        }
    });
}

/// Copies `src` into `dst` (of equal length). A copy of a few dozen
/// lanes whose length is known only at run time becomes a call to
/// `memcpy`, which costs more than the copy; the usual warp widths get a
/// copy of a constant length, inlined as a few vector moves, and any other
/// width the plain copy.
#[inline(always)]
pub(crate) fn copy<T: Copy>(dst: &mut [T], src: &[T]) {
    #[inline(always)]
    fn fixed<T: Copy, const N: usize>(dst: &mut [T], src: &[T]) {
        let d: &mut [T; N] = dst.try_into().expect("equal lengths");
        let s: &[T; N] = src.try_into().expect("equal lengths");
        *d = *s;
    }
    match src.len() {
        64 => fixed::<T, 64>(dst, src),
        32 => fixed::<T, 32>(dst, src),
        16 => fixed::<T, 16>(dst, src),
        8 => fixed::<T, 8>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// `(lo[l], hi[l]) = (min, max)` in the lanes of `mask`.
#[inline(always)]
pub(crate) fn cmpx<T: Lane>(
    lo: &mut [T],
    hi: &mut [T],
    mask: u64,
    full: bool,
    min: impl Fn(T, T) -> T,
    max: impl Fn(T, T) -> T,
) {
    let n = lo.len().min(hi.len());
    let (lo, hi) = (&mut lo[..n], &mut hi[..n]);
    if full {
        for l in 0..n {
            let (a, b) = (lo[l], hi[l]);
            lo[l] = min(a, b);
            hi[l] = max(a, b);
        }
    } else {
        cmpx_masked(lo, hi, mask, min, max);
    }
}

#[inline(never)]
fn cmpx_masked<T: Lane>(
    lo: &mut [T],
    hi: &mut [T],
    mask: u64,
    min: impl Fn(T, T) -> T,
    max: impl Fn(T, T) -> T,
) {
    chunks(lo.len().min(hi.len()), mask, |start, end, m| {
        let (x, y) = (&mut lo[start..end], &mut hi[start..end]);
        let bits = &LANE_BITS[..end - start];
        for l in 0..bits.len() {
            let (a, b) = (x[l], y[l]);
            let on = m & bits[l] != 0;
            x[l] = pick(on, min(a, b), a);
            y[l] = pick(on, max(a, b), b);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regfile::lane_mask;

    /// Masks and vectors of every length up to 64 lanes.
    fn cases() -> impl Iterator<Item = (usize, u64)> {
        (1..=64).flat_map(|n| {
            let all = lane_mask(n);
            [
                0,
                all,
                0x5555_5555_5555_5555 & all,
                0x8000_0001_0F0F_F0F0 & all,
            ]
            .into_iter()
            .map(move |m| (n, m))
        })
    }

    #[test]
    fn masked_loops_touch_exactly_the_masked_lanes() {
        for (n, mask) in cases() {
            let full = mask == lane_mask(n);
            let a: Vec<u32> = (0..n as u32).map(|l| l + 100).collect();
            let a64: Vec<u64> = a.iter().map(|&v| u64::from(v) << 32).collect();
            let mut d1 = vec![7u32; n];
            zip1(&mut d1, a.as_slice(), mask, full, |x| x + 1);
            let mut d2 = vec![7u64; n];
            zip2(&mut d2, a64.as_slice(), Splat(3u32), mask, full, |x, y| {
                x + u64::from(y)
            });
            let mut d3 = a.clone();
            update(&mut d3, Splat(2u32), mask, full, |x, y| x * y);
            let mut d4 = vec![7u64; n];
            zip2(&mut d4, Splat(1u64), a.as_slice(), mask, false, |x, y| {
                x + u64::from(y)
            });
            for l in 0..n {
                let on = mask >> l & 1 != 0;
                assert_eq!(d1[l], if on { a[l] + 1 } else { 7 }, "{n} lanes {mask:#x}");
                assert_eq!(d2[l], if on { a64[l] + 3 } else { 7 }, "{n} lanes");
                assert_eq!(d3[l], if on { a[l] * 2 } else { a[l] }, "{n} lanes");
                assert_eq!(d4[l], if on { u64::from(a[l]) + 1 } else { 7 }, "{n} lanes");
            }
        }
    }

    #[test]
    fn packed_comparisons_set_one_bit_per_lane() {
        for (n, mask) in cases() {
            let a: Vec<u64> = (0..n).map(|l| mask >> l & 1).collect();
            let got = pack2(n, a.as_slice(), Splat(1u64), |x, y| x == y);
            assert_eq!(got, mask, "{n} lanes");
            let got = pack2(n, Splat(0u64), a.as_slice(), |x, y| x < y);
            assert_eq!(got, mask, "{n} lanes");
            let got = pack2(n, a.as_slice(), a.as_slice(), |x, y| x == y);
            assert_eq!(got, lane_mask(n));
        }
        assert_eq!(pack2(5, Splat(1u32), Splat(1u32), |x, y| x == y), 31);
        assert_eq!(pack2(5, Splat(1u32), Splat(2u32), |x, y| x == y), 0);
    }

    #[test]
    fn selects_and_compare_exchanges_follow_the_mask() {
        for (n, mask) in cases() {
            let a: Vec<u32> = (0..n as u32).collect();
            let b: Vec<u32> = (0..n as u32).map(|l| 1000 - l).collect();
            let mut out = vec![0; n];
            select(&mut out, a.as_slice(), b.as_slice(), mask);
            let mut out2 = vec![0; n];
            select(&mut out2, Splat(5), b.as_slice(), mask);
            let (mut lo, mut hi) = (b.clone(), a.clone());
            cmpx(
                &mut lo,
                &mut hi,
                mask,
                mask == lane_mask(n),
                u32::min,
                u32::max,
            );
            for l in 0..n {
                let on = mask >> l & 1 != 0;
                assert_eq!(out[l], if on { a[l] } else { b[l] });
                assert_eq!(out2[l], if on { 5 } else { b[l] });
                assert_eq!((lo[l], hi[l]), if on { (a[l], b[l]) } else { (b[l], a[l]) });
            }
        }
    }
}
