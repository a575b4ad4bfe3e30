//! Arrays that start at a host cache line.
//!
//! **Why.** The L2 model keeps, per set, each way's key, bits and stamp in
//! arrays; a set's 16 keys are 128 bytes. From a plain `Vec` (whose
//! allocator aligns to 16 bytes) they straddle three host cache lines,
//! and prefetching the first and the last left the middle one to miss.
//! Starting every array at a line boundary makes a set's slice of it
//! cover exactly `size / 64` lines, which [`LineAligned::prefetch`] fetches.

use std::ops::{Deref, DerefMut};

/// Bytes in a host cache line (x86-64 and most others).
const LINE: usize = 64;

/// `len` zeroed `T`s whose first element starts a host cache line.
#[derive(Clone, Debug, Default)]
pub(crate) struct LineAligned<T> {
    buf: Vec<T>,
    off: usize,
    len: usize,
}

impl<T: Copy + Default> LineAligned<T> {
    pub fn zeroed(len: usize) -> LineAligned<T> {
        let size = size_of::<T>().max(1);
        let spare = LINE / size;
        let buf = vec![T::default(); len + spare];
        let misalign = buf.as_ptr() as usize % LINE;
        let off = if misalign == 0 {
            0
        } else {
            (LINE - misalign) / size
        };
        LineAligned { buf, off, len }
    }

    /// Makes `self` `len` zeroes, in its buffer when that has room (a
    /// warp slot's registers are reshaped at every launch).
    pub fn refill(&mut self, len: usize) {
        if self.off + len <= self.buf.len() {
            self.len = len;
            self.fill(T::default());
        } else {
            *self = Self::zeroed(len);
        }
    }

    /// Asks the host CPU to bring in every cache line of `self[range]`
    /// (see [`prefetch`]); no effect on the contents.
    #[inline]
    pub fn prefetch(&self, start: usize, end: usize) {
        let s = &self[start..end];
        let mut p = s.as_ptr().cast::<u8>();
        let last = s.as_ptr_range().end.cast::<u8>();
        while p < last {
            prefetch(p);
            p = p.wrapping_add(LINE);
        }
    }
}

impl<T> Deref for LineAligned<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        &self.buf[self.off..self.off + self.len]
    }
}

impl<T> DerefMut for LineAligned<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.buf[self.off..self.off + self.len]
    }
}

/// A hint to the host CPU to bring the line at `p` in; does nothing on
/// targets without one.
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    // SAFETY: `_mm_prefetch` only needs SSE, which the cfg guarantees; a
    // prefetch reads nothing the program sees and never faults, whatever
    // the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_at_a_line_and_holds_len_zeroes() {
        for len in [0, 1, 16, 1000] {
            let mut a = LineAligned::<u32>::zeroed(len);
            assert_eq!(a.len(), len);
            assert_eq!(a.as_ptr() as usize % LINE, 0);
            assert!(a.iter().all(|&x| x == 0));
            if len > 0 {
                a[len - 1] = 7;
                a.prefetch(0, len);
                assert_eq!(a[len - 1], 7);
            }
            for n in [len / 2, len + 100] {
                a.refill(n);
                assert_eq!(a.len(), n);
                assert_eq!(a.as_ptr() as usize % LINE, 0);
                assert!(a.iter().all(|&x| x == 0), "refilled with zeroes");
            }
        }
    }
}
