//! A warp's registers, laid out `[slot][lane]` so an operation is a tight
//! loop over one contiguous lane vector.
//!
//! Every value register (32- or 64-bit) is a `u64` per lane holding a
//! zero-extended value; predicates are one lane mask each. The registers'
//! scoreboard entries live here too: predicates, scoreboard and values share
//! one allocation, so an instruction's first touch of its warp's state pulls
//! in neighbouring lines. No register bank or port conflicts are modelled.

use crate::decode::{Dst, Src};

/// Widest warp the masks can hold.
pub(crate) const MAX_LANES: usize = 64;

/// One warp's registers and scoreboard.
#[derive(Clone, Debug, Default)]
pub(crate) struct RegFile {
    /// `npreds` lane masks, then `nsb` scoreboard entries, then
    /// `nslots * width` lane values.
    data: Vec<u64>,
    npreds: usize,
    nsb: usize,
    /// Lanes per warp.
    pub width: usize,
}

impl RegFile {
    /// Prepares for a new warp of `width` lanes: predicates false, the
    /// scoreboard clear, and the slots `zero` zeroed. Other slots keep what
    /// the slot's last warp left: the kernel writes them before reading.
    pub fn reset(&mut self, nslots: usize, npreds: usize, nsb: usize, width: usize, zero: &[u32]) {
        let fresh = (self.width, self.npreds, self.nsb) != (width, npreds, nsb);
        self.width = width;
        self.npreds = npreds;
        self.nsb = nsb;
        let len = npreds + nsb + nslots * width;
        if fresh || self.data.len() != len {
            self.data.clear();
            self.data.resize(len, 0);
            return;
        }
        self.data[..npreds + nsb].fill(0);
        for &s in zero {
            self.slot_mut(s).fill(0);
        }
    }

    /// The predicate masks.
    #[inline]
    pub fn preds(&self) -> &[u64] {
        &self.data[..self.npreds]
    }

    /// The predicate masks, mutably.
    #[inline]
    pub fn preds_mut(&mut self) -> &mut [u64] {
        &mut self.data[..self.npreds]
    }

    /// The scoreboard (see [`crate::scoreboard`]).
    #[inline]
    pub fn sb(&self) -> &[u64] {
        &self.data[self.npreds..self.npreds + self.nsb]
    }

    /// The scoreboard, mutably.
    #[inline]
    pub fn sb_mut(&mut self) -> &mut [u64] {
        &mut self.data[self.npreds..self.npreds + self.nsb]
    }

    /// The lanes of slot `slot`.
    #[inline]
    pub fn slot(&self, slot: u32) -> &[u64] {
        let s = self.npreds + self.nsb + slot as usize * self.width;
        &self.data[s..s + self.width]
    }

    /// The lanes of slot `slot`, mutably.
    #[inline]
    pub fn slot_mut(&mut self, slot: u32) -> &mut [u64] {
        let s = self.npreds + self.nsb + slot as usize * self.width;
        &mut self.data[s..s + self.width]
    }

    /// The lanes of two different slots, mutably.
    #[inline]
    pub fn slot_pair_mut(&mut self, a: u32, b: u32) -> (&mut [u64], &mut [u64]) {
        assert_ne!(a, b, "two different slots");
        let base = self.npreds + self.nsb;
        let w = self.width;
        let (sa, sb) = (base + a as usize * w, base + b as usize * w);
        if sa < sb {
            let (x, y) = self.data.split_at_mut(sb);
            (&mut x[sa..sa + w], &mut y[..w])
        } else {
            let (x, y) = self.data.split_at_mut(sa);
            (&mut y[..w], &mut x[sb..sb + w])
        }
    }

    /// The lane values of `src`; predicates are expanded into `tmp`.
    #[inline]
    pub fn read<'a>(
        &'a self,
        src: Src,
        consts: &'a [u64],
        tmp: &'a mut [u64; MAX_LANES],
    ) -> &'a [u64] {
        let w = self.width;
        match src {
            Src::Slot(s) => self.slot(s),
            Src::Const(c) => &consts[c as usize * w..(c as usize + 1) * w],
            Src::Pred(p) => {
                let m = self.preds()[p as usize];
                for (l, v) in tmp[..w].iter_mut().enumerate() {
                    *v = (m >> l) & 1;
                }
                &tmp[..w]
            }
        }
    }

    /// Writes `vals` (one per lane) to `dst` in the lanes of `mask`.
    #[inline]
    pub fn write(&mut self, dst: Dst, vals: &[u64], mask: u64) {
        match dst {
            Dst::Slot(s) => write_lanes(self.slot_mut(s), vals, mask),
            Dst::Pred(p) => {
                let mut bits = 0u64;
                for (l, v) in vals.iter().enumerate() {
                    bits |= (v & 1) << l;
                }
                let old = &mut self.preds_mut()[p as usize];
                *old = (*old & !mask) | (bits & mask);
            }
        }
    }
}

/// `dst[l] = vals[l]` for the lanes of `mask`.
#[inline]
pub(crate) fn write_lanes(dst: &mut [u64], vals: &[u64], mask: u64) {
    let w = dst.len();
    if mask == lane_mask(w) {
        dst.copy_from_slice(&vals[..w]);
    } else {
        for (l, (d, v)) in dst.iter_mut().zip(vals).enumerate() {
            if (mask >> l) & 1 != 0 {
                *d = *v;
            }
        }
    }
}

/// The mask of the low `lanes` lanes.
#[inline]
pub(crate) const fn lane_mask(lanes: usize) -> u64 {
    if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_read_as_zero_or_one_and_write_under_a_mask() {
        let mut rf = RegFile::default();
        rf.reset(2, 1, 3, 4, &[]);
        rf.preds_mut()[0] = 0b0101;
        let mut tmp = [0; MAX_LANES];
        assert_eq!(rf.read(Src::Pred(0), &[], &mut tmp), &[1, 0, 1, 0]);
        rf.write(Dst::Pred(0), &[1, 1, 0, 0], 0b0011);
        assert_eq!(rf.preds()[0], 0b0111);
        assert_eq!(rf.sb(), &[0, 0, 0]);
        rf.write(Dst::Slot(1), &[9, 8, 7, 6], 0b1010);
        assert_eq!(rf.slot(1), &[0, 8, 0, 6]);
        rf.write(Dst::Slot(0), &[9, 8, 7, 6], 0b1111);
        assert_eq!(rf.slot(0), &[9, 8, 7, 6]);
    }
}
