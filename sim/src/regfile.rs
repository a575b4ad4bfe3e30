//! A warp's registers, laid out `[slot][lane]` so an operation is a tight
//! loop over one contiguous lane vector.
//!
//! Every value register (32- or 64-bit) is a `u64` per lane holding a
//! zero-extended value; predicates are one lane mask each. No register
//! bank or port conflicts are modelled.

use crate::decode::{Dst, Src};

/// Widest warp the masks can hold.
pub(crate) const MAX_LANES: usize = 64;

/// One warp's registers.
#[derive(Clone, Debug, Default)]
pub(crate) struct RegFile {
    /// Lane values, `nslots * width`.
    pub vals: Vec<u64>,
    /// One lane mask per predicate register.
    pub preds: Vec<u64>,
    /// Lanes per warp.
    pub width: usize,
}

impl RegFile {
    /// Zeroes the registers for a new warp of `width` lanes.
    pub fn reset(&mut self, nslots: usize, npreds: usize, width: usize) {
        self.width = width;
        self.vals.clear();
        self.vals.resize(nslots * width, 0);
        self.preds.clear();
        self.preds.resize(npreds, 0);
    }

    /// The lanes of slot `slot`.
    #[inline]
    pub fn slot(&self, slot: u32) -> &[u64] {
        let s = slot as usize * self.width;
        &self.vals[s..s + self.width]
    }

    /// The lanes of slot `slot`, mutably.
    #[inline]
    pub fn slot_mut(&mut self, slot: u32) -> &mut [u64] {
        let s = slot as usize * self.width;
        &mut self.vals[s..s + self.width]
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
                let m = self.preds[p as usize];
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
                let old = &mut self.preds[p as usize];
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
        rf.reset(2, 1, 4);
        rf.preds[0] = 0b0101;
        let mut tmp = [0; MAX_LANES];
        assert_eq!(rf.read(Src::Pred(0), &[], &mut tmp), &[1, 0, 1, 0]);
        rf.write(Dst::Pred(0), &[1, 1, 0, 0], 0b0011);
        assert_eq!(rf.preds[0], 0b0111);
        rf.write(Dst::Slot(1), &[9, 8, 7, 6], 0b1010);
        assert_eq!(rf.slot(1), &[0, 8, 0, 6]);
        rf.write(Dst::Slot(0), &[9, 8, 7, 6], 0b1111);
        assert_eq!(rf.slot(0), &[9, 8, 7, 6]);
    }
}
