//! Arrays that start at a host cache line.
//!
//! **Why.** The L2 model keeps, per set, each way's key, bits and stamp in
//! arrays; a set's 16 keys are 128 bytes. From a plain `Vec` (whose
//! allocator aligns to 16 bytes) they straddle three host cache lines,
//! and prefetching the first and the last left the middle one to miss.
//! Starting every array at a line boundary makes a set's slice of it
//! cover exactly `size / 64` lines, which [`LineAligned::prefetch`] fetches.

use std::alloc::Layout;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// Bytes in a host cache line (x86-64 and most others).
const LINE: usize = 64;

/// Element types whose all-zero bit pattern is their `Default` value, so
/// a zeroed allocation holds valid zeroes.
pub(crate) trait Zeroable: Copy + Default {}
impl Zeroable for u32 {}
impl Zeroable for u64 {}

/// `len` zeroed `T`s whose first element starts a host cache line.
///
/// One allocation of its own, aligned by the allocator: the pointer and
/// the length are all a read needs (no offset into a larger `Vec` and no
/// second length to check against), which matters where a warp's register
/// rows are looked up at every instruction.
pub(crate) struct LineAligned<T: Zeroable> {
    /// The first element; line-aligned (for no elements, a dangling
    /// pointer at address `LINE`).
    ptr: NonNull<T>,
    len: usize,
    /// Elements allocated (0: nothing allocated).
    cap: usize,
}

// SAFETY: a `LineAligned` owns its elements exactly as a `Vec` does.
unsafe impl<T: Zeroable + Send> Send for LineAligned<T> {}
// SAFETY: shared access only reads, as for `&[T]`.
unsafe impl<T: Zeroable + Sync> Sync for LineAligned<T> {}

impl<T: Zeroable> LineAligned<T> {
    /// The layout of `cap` elements (`cap > 0`).
    fn layout(cap: usize) -> Layout {
        Layout::array::<T>(cap)
            .and_then(|l| l.align_to(LINE.max(align_of::<T>())))
            .expect("a line-aligned array fits the address space")
    }

    /// The pointer of an empty array: dangling, but line-aligned and not null.
    fn empty_ptr() -> NonNull<T> {
        NonNull::new(std::ptr::without_provenance_mut(LINE)).expect("not null")
    }

    pub fn zeroed(len: usize) -> LineAligned<T> {
        if len == 0 || size_of::<T>() == 0 {
            return LineAligned {
                ptr: Self::empty_ptr(),
                len,
                cap: 0,
            };
        }
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size (`len > 0`, `T` not
        // zero-sized).
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
            std::alloc::handle_alloc_error(layout)
        };
        LineAligned { ptr, len, cap: len }
    }

    /// Makes `self` `len` zeroes, in its allocation when that has room (a
    /// warp slot's registers are reshaped at every launch).
    pub fn refill(&mut self, len: usize) {
        if len <= self.cap {
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
        prefetch_bytes(s.as_ptr().cast(), size_of_val(s));
    }

    /// [`Self::prefetch`] of `len` elements from `start`, without checking
    /// that they are inside the array: a hint never reads memory, and the
    /// register file's row lookups need no bounds check for it.
    #[inline(always)]
    pub fn prefetch_unchecked(&self, start: usize, len: usize) {
        let p = self.ptr.as_ptr().wrapping_add(start);
        prefetch_bytes(p.cast(), len * size_of::<T>());
    }
}

impl<T: Zeroable> Default for LineAligned<T> {
    fn default() -> LineAligned<T> {
        LineAligned::zeroed(0)
    }
}

impl<T: Zeroable> Clone for LineAligned<T> {
    fn clone(&self) -> LineAligned<T> {
        let mut c = LineAligned::zeroed(self.len);
        c.copy_from_slice(self);
        c
    }
}

impl<T: Zeroable + std::fmt::Debug> std::fmt::Debug for LineAligned<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Zeroable> Drop for LineAligned<T> {
    fn drop(&mut self) {
        if self.cap > 0 {
            // SAFETY: allocated in `zeroed` with exactly this layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), Self::layout(self.cap)) }
        }
    }
}

impl<T: Zeroable> Deref for LineAligned<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` is aligned and not null, and its first `len <= cap`
        // elements are initialised (zeroed at allocation, `Zeroable`) and
        // owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> DerefMut for LineAligned<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

/// [`prefetch`] of every line of the `len` bytes at `p`.
#[inline(always)]
pub(crate) fn prefetch_bytes(p: *const u8, len: usize) {
    let (mut p, last) = (p, p.wrapping_add(len));
    while p < last {
        prefetch(p);
        p = p.wrapping_add(LINE);
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
