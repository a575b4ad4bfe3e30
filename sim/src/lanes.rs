//! Loops over lane vectors, written so the compiler vectorises them: lanes
//! go in chunks of 32 so a chunk's lane mask is one `u32`, and a lane's bit
//! is tested against a constant table (`mask & LANE_BITS[l]`), which
//! becomes one vector `and` and compare, where `mask >> l` would need
//! per-lane variable shifts. Selections are arithmetic blends, not
//! branches.
// Indexed loops over slices cut to one length vectorise reliably.
#![allow(clippy::needless_range_loop)]

use crate::regfile::Lane;

/// Lanes handled per mask word.
pub(crate) const CHUNK: usize = 32;

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

/// An operand's lanes: a lane vector, or one value for every lane.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Opnd<'a, T> {
    /// One value per lane.
    Lanes(&'a [T]),
    /// The same value in every lane.
    Splat(T),
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

/// `out[l] = f(a[l])` for every lane.
#[inline(always)]
pub(crate) fn map1<A: Copy, T: Copy>(out: &mut [T], a: Opnd<'_, A>, f: impl Fn(A) -> T) {
    match a {
        Opnd::Lanes(a) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x);
            }
        }
        Opnd::Splat(x) => {
            let v = f(x);
            for o in out.iter_mut() {
                *o = v;
            }
        }
    }
}

/// `out[l] = f(a[l], b[l])` for every lane.
#[inline(always)]
pub(crate) fn map2<A: Copy, B: Copy, T: Copy>(
    out: &mut [T],
    a: Opnd<'_, A>,
    b: Opnd<'_, B>,
    f: impl Fn(A, B) -> T,
) {
    match (a, b) {
        (Opnd::Lanes(a), Opnd::Lanes(b)) => {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (Opnd::Lanes(a), Opnd::Splat(y)) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (Opnd::Splat(x), Opnd::Lanes(b)) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (Opnd::Splat(x), Opnd::Splat(y)) => {
            let v = f(x, y);
            for o in out.iter_mut() {
                *o = v;
            }
        }
    }
}

/// The lane mask of `f(a[l], b[l])` over `lanes` lanes.
#[inline(always)]
pub(crate) fn pack2<A: Copy, B: Copy>(
    lanes: usize,
    a: Opnd<'_, A>,
    b: Opnd<'_, B>,
    f: impl Fn(A, B) -> bool,
) -> u64 {
    let mut bits = 0;
    match (a, b) {
        (Opnd::Lanes(a), Opnd::Lanes(b)) => chunks(lanes, 0, |start, end, _| {
            let (a, b, lane_bits) = (&a[start..end], &b[start..end], &LANE_BITS[..end - start]);
            let mut m = 0u32;
            for l in 0..lane_bits.len() {
                m |= if f(a[l], b[l]) { lane_bits[l] } else { 0 };
            }
            bits |= u64::from(m) << start;
        }),
        (Opnd::Lanes(a), Opnd::Splat(y)) => chunks(lanes, 0, |start, end, _| {
            let (a, lane_bits) = (&a[start..end], &LANE_BITS[..end - start]);
            let mut m = 0u32;
            for l in 0..lane_bits.len() {
                m |= if f(a[l], y) { lane_bits[l] } else { 0 };
            }
            bits |= u64::from(m) << start;
        }),
        (Opnd::Splat(x), Opnd::Lanes(b)) => chunks(lanes, 0, |start, end, _| {
            let (b, lane_bits) = (&b[start..end], &LANE_BITS[..end - start]);
            let mut m = 0u32;
            for l in 0..lane_bits.len() {
                m |= if f(x, b[l]) { lane_bits[l] } else { 0 };
            }
            bits |= u64::from(m) << start;
        }),
        (Opnd::Splat(x), Opnd::Splat(y)) => {
            if f(x, y) {
                bits = crate::regfile::lane_mask(lanes);
            }
        }
    }
    bits
}

/// `dst[l] = vals[l]` in the lanes of `mask` (all lanes of `dst` when
/// `full`, the usual case: a plain copy).
#[inline(always)]
pub(crate) fn write<T: Lane>(dst: &mut [T], vals: &[T], mask: u64, full: bool) {
    if full {
        dst.copy_from_slice(&vals[..dst.len()]);
        return;
    }
    chunks(dst.len(), mask, |start, end, m| {
        let (d, v, lane_bits) = (&mut dst[start..end], &vals[start..end], &LANE_BITS[..end - start]);
        for l in 0..lane_bits.len() {
            d[l] = pick(m & lane_bits[l] != 0, v[l], d[l]);
        }
    });
}

/// `out[l] = mask has l ? a[l] : b[l]`.
#[inline(always)]
pub(crate) fn select<T: Lane>(out: &mut [T], a: &[T], b: &[T], mask: u64) {
    chunks(out.len(), mask, |start, end, m| {
        let (o, a, b) = (&mut out[start..end], &a[start..end], &b[start..end]);
        let lane_bits = &LANE_BITS[..end - start];
        for l in 0..lane_bits.len() {
            o[l] = pick(m & lane_bits[l] != 0, a[l], b[l]);
        }
    });
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
    if full {
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let (a, b) = (*x, *y);
            *x = min(a, b);
            *y = max(a, b);
        }
        return;
    }
    chunks(lo.len(), mask, |start, end, m| {
        let (x, y) = (&mut lo[start..end], &mut hi[start..end]);
        let lane_bits = &LANE_BITS[..end - start];
        for l in 0..lane_bits.len() {
            let (a, b) = (x[l], y[l]);
            let on = m & lane_bits[l] != 0;
            x[l] = pick(on, min(a, b), a);
            y[l] = pick(on, max(a, b), b);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Masks and vectors of every length up to 64 lanes.
    fn cases() -> impl Iterator<Item = (usize, u64)> {
        (1..=64).flat_map(|n| {
            let all = crate::regfile::lane_mask(n);
            [0, all, 0x5555_5555_5555_5555 & all, 0x8000_0001_0F0F_F0F0 & all]
                .into_iter()
                .map(move |m| (n, m))
        })
    }

    #[test]
    fn masked_writes_touch_exactly_the_masked_lanes() {
        for (n, mask) in cases() {
            let vals: Vec<u32> = (0..n as u32).map(|l| l + 100).collect();
            let mut dst = vec![7u32; n];
            let full = mask == crate::regfile::lane_mask(n);
            write(&mut dst, &vals, mask, full);
            let mut dst64 = vec![7u64; n];
            let vals64: Vec<u64> = vals.iter().map(|&v| u64::from(v) << 32).collect();
            write(&mut dst64, &vals64, mask, false);
            for l in 0..n {
                let on = mask >> l & 1 != 0;
                assert_eq!(dst[l], if on { vals[l] } else { 7 }, "{n} lanes {mask:#x}");
                assert_eq!(dst64[l], if on { vals64[l] } else { 7 }, "{n} lanes");
            }
        }
    }

    #[test]
    fn packed_comparisons_set_one_bit_per_lane() {
        for (n, mask) in cases() {
            let a: Vec<u64> = (0..n).map(|l| mask >> l & 1).collect();
            let got = pack2(n, Opnd::Lanes(&a), Opnd::Splat(1u64), |x, y| x == y);
            assert_eq!(got, mask, "{n} lanes");
            let got = pack2(n, Opnd::Splat(0u64), Opnd::Lanes(&a), |x, y| x < y);
            assert_eq!(got, mask, "{n} lanes");
            let got = pack2(n, Opnd::Lanes(&a), Opnd::Lanes(&a), |x, y| x == y);
            assert_eq!(got, crate::regfile::lane_mask(n));
        }
        assert_eq!(pack2(5, Opnd::Splat(1u32), Opnd::Splat(1u32), |x, y| x == y), 31);
        assert_eq!(pack2(5, Opnd::Splat(1u32), Opnd::Splat(2u32), |x, y| x == y), 0);
    }

    #[test]
    fn selects_and_compare_exchanges_follow_the_mask() {
        for (n, mask) in cases() {
            let a: Vec<u32> = (0..n as u32).collect();
            let b: Vec<u32> = (0..n as u32).map(|l| 1000 - l).collect();
            let mut out = vec![0; n];
            select(&mut out, &a, &b, mask);
            let (mut lo, mut hi) = (b.clone(), a.clone());
            let full = mask == crate::regfile::lane_mask(n);
            cmpx(&mut lo, &mut hi, mask, full, u32::min, u32::max);
            for l in 0..n {
                let on = mask >> l & 1 != 0;
                assert_eq!(out[l], if on { a[l] } else { b[l] });
                assert_eq!((lo[l], hi[l]), if on { (a[l], b[l]) } else { (b[l], a[l]) });
            }
        }
    }

    #[test]
    fn maps_broadcast_splats() {
        let mut out = [0u64; 3];
        map2(&mut out, Opnd::Lanes(&[1u32, 2, 3]), Opnd::Splat(10u64), |x, y| {
            u64::from(x) + y
        });
        assert_eq!(out, [11, 12, 13]);
        map2(&mut out, Opnd::Splat(1u32), Opnd::Splat(2u64), |x, y| u64::from(x) + y);
        assert_eq!(out, [3; 3]);
        map1(&mut out, Opnd::Lanes(&[4u32, 5, 6]), u64::from);
        assert_eq!(out, [4, 5, 6]);
    }
}
