//! A warp's registers, laid out `[slot][lane]` so an operation is a tight
//! loop over one contiguous lane vector.
//!
//! Values live in two areas at their native width: 32-bit slots (the `r`
//! registers, then the per-warp special values) hold a `u32` per lane and
//! 64-bit slots (the `d` registers) a `u64` per lane, so a 32-bit operation
//! moves half the bytes of a 64-bit one and vectorises at full width.
//! Predicates are one lane mask each. The predicates, the registers'
//! scoreboard entries and the 64-bit slots share one allocation, so an
//! instruction's first touch of its warp's state pulls in neighbouring
//! lines. No register bank or port conflicts are modelled.
//!
//! Both areas, and the 64-bit slots within theirs, start at a host cache
//! line, so a slot of 32 lanes covers exactly two lines (`u32`) or four
//! (`u64`) rather than straddling one more: the lane loads of the hot
//! loops are mostly host cache misses (every SM's warps together hold far
//! more than a core's caches), and they are prefetched by the line
//! ([`RegFile::prefetch_rows`]).
//!
//! Two numberings meet here. Instructions name a slot *inside its area*
//! (decode resolves which area from the operation's width); the scoreboard
//! and traces use the kernel's *register number*: `r` registers, then `d`
//! registers, then predicates ([`crate::decode::Program::reg_of`]).

use crate::aligned::LineAligned;
use crate::decode::ROW64;

/// Widest warp the masks can hold.
pub(crate) const MAX_LANES: usize = 64;

/// How many slots each area of a warp's register file has.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Slots {
    /// 32-bit `r` registers (the first 32-bit slots).
    pub b32: u32,
    /// 64-bit `d` registers (all the 64-bit slots).
    pub b64: u32,
    /// Per-warp special values (32-bit slots after the `r` registers).
    pub specials: u32,
}

impl Slots {
    /// 32-bit slots in all.
    #[inline]
    pub fn n32(&self) -> usize {
        (self.b32 + self.specials) as usize
    }

    /// 64-bit slots in all.
    #[inline]
    pub fn n64(&self) -> usize {
        self.b64 as usize
    }
}

/// The slots of each area a new warp must zero, in increasing order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ZeroSlots {
    /// 32-bit slots.
    pub b32: Vec<u32>,
    /// 64-bit slots.
    pub b64: Vec<u32>,
}

/// One warp's registers and scoreboard.
///
/// In declaration order (`repr(C)`): what every instruction reads first,
/// so that inside a [`crate::warp::Warp`] it shares the slot's first host
/// cache line with the SIMT entry.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub(crate) struct RegFile {
    /// `npreds` lane masks, then `nsb` scoreboard entries, then from
    /// `base64` on (the next line boundary) the 64-bit slots, `width`
    /// lanes each.
    data: LineAligned<u64>,
    /// Lanes per warp.
    pub width: usize,
    /// The 32-bit slots, `width` lanes each.
    r32: LineAligned<u32>,
    npreds: u32,
    nsb: u32,
    /// Where the 64-bit slots start in `data`.
    base64: u32,
    slots: Slots,
}

impl RegFile {
    /// Prepares for a new warp of `width` lanes: predicates false, the
    /// scoreboard clear, and the slots `zero` zeroed. Other slots keep what
    /// the slot's last warp left: the kernel writes them before reading.
    /// Returns whether the registers were reshaped (every slot zeroed, so
    /// no special value the last warp left survives).
    pub fn reset(
        &mut self,
        slots: Slots,
        npreds: usize,
        nsb: usize,
        width: usize,
        zero: &ZeroSlots,
    ) -> bool {
        let fresh = (
            self.width,
            self.npreds as usize,
            self.nsb as usize,
            self.slots,
        ) != (width, npreds, nsb, slots);
        self.width = width;
        self.npreds = npreds as u32;
        self.nsb = nsb as u32;
        self.slots = slots;
        // u64s per host cache line.
        const LINE64: usize = 8;
        let base64 = (npreds + nsb).next_multiple_of(LINE64);
        self.base64 = base64 as u32;
        let len = base64 + slots.n64() * width;
        if fresh || self.data.len() != len || self.r32.len() != slots.n32() * width {
            self.data.refill(len);
            self.r32.refill(slots.n32() * width);
            return true;
        }
        self.data[..npreds + nsb].fill(0);
        for &s in &zero.b32 {
            self.r32_mut(s).fill(0);
        }
        for &s in &zero.b64 {
            self.r64_mut(s).fill(0);
        }
        false
    }

    /// The predicate masks.
    #[inline]
    pub fn preds(&self) -> &[u64] {
        &self.data[..self.npreds as usize]
    }

    /// The predicate masks, mutably.
    #[inline]
    pub fn preds_mut(&mut self) -> &mut [u64] {
        &mut self.data[..self.npreds as usize]
    }

    /// The scoreboard (see [`crate::scoreboard`]).
    #[inline]
    pub fn sb(&self) -> &[u64] {
        &self.data[self.npreds as usize..(self.npreds + self.nsb) as usize]
    }

    /// The scoreboard, mutably.
    #[inline]
    pub fn sb_mut(&mut self) -> &mut [u64] {
        &mut self.data[self.npreds as usize..(self.npreds + self.nsb) as usize]
    }

    /// The lanes of 32-bit slot `slot`.
    #[inline(always)]
    pub fn r32(&self, slot: u32) -> &[u32] {
        let s = slot as usize * self.width;
        &self.r32[s..s + self.width]
    }

    /// The lanes of 32-bit slot `slot`, mutably.
    #[inline(always)]
    pub fn r32_mut(&mut self, slot: u32) -> &mut [u32] {
        let s = slot as usize * self.width;
        &mut self.r32[s..s + self.width]
    }

    /// The lanes of 64-bit slot `slot`.
    #[inline(always)]
    pub fn r64(&self, slot: u32) -> &[u64] {
        let s = self.base64 as usize + slot as usize * self.width;
        &self.data[s..s + self.width]
    }

    /// The lanes of 64-bit slot `slot`, mutably.
    #[inline(always)]
    pub fn r64_mut(&mut self, slot: u32) -> &mut [u64] {
        let s = self.base64 as usize + slot as usize * self.width;
        &mut self.data[s..s + self.width]
    }

    /// The lanes of a 32-bit slot (read) and a 64-bit slot (written): the
    /// two areas are separate, so a conversion needs no copy.
    #[inline]
    pub fn r32_to_r64(&mut self, src: u32, dst: u32) -> (&[u32], &mut [u64]) {
        let w = self.width;
        let (s, d) = (src as usize * w, self.base64 as usize + dst as usize * w);
        (&self.r32[s..s + w], &mut self.data[d..d + w])
    }

    /// The lanes of a 64-bit slot (read) and a 32-bit slot (written).
    #[inline]
    pub fn r64_to_r32(&mut self, src: u32, dst: u32) -> (&[u64], &mut [u32]) {
        let w = self.width;
        let (s, d) = (self.base64 as usize + src as usize * w, dst as usize * w);
        (&self.data[s..s + w], &mut self.r32[d..d + w])
    }

    /// Asks the host to bring register-file rows `rows` (an
    /// instruction's [`crate::decode::DInst::rows`]) into its core's
    /// caches, without waiting for them: a hint that changes no result.
    #[inline(always)]
    pub fn prefetch_rows(&self, rows: &[u32]) {
        let w = self.width;
        for &r in rows {
            if r & ROW64 == 0 {
                self.r32.prefetch_unchecked(r as usize * w, w);
            } else {
                let s = self.base64 as usize + (r & !ROW64) as usize * w;
                self.data.prefetch_unchecked(s, w);
            }
        }
    }

    /// [`Self::prefetch_rows`], and the predicates and scoreboard.
    #[inline]
    pub fn prefetch_all(&self, rows: &[u32]) {
        self.prefetch_rows(rows);
        self.data.prefetch(0, (self.npreds + self.nsb) as usize);
    }

    /// The lanes of register `reg` (the scoreboard's numbering: `r`
    /// registers, then `d` registers) zero-extended to `u64`, for traces.
    pub fn lanes_u64(&self, reg: u32) -> Vec<u64> {
        let b32 = self.slots.b32;
        if reg < b32 {
            self.r32(reg).iter().map(|&v| u64::from(v)).collect()
        } else {
            self.r64(reg - b32).to_vec()
        }
    }
}

/// A lane type of a register area: `u32` for 32-bit slots, `u64` for
/// 64-bit slots. Lets one generic loop serve both widths.
pub(crate) trait Lane:
    Copy
    + Default
    + Eq
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::Not<Output = Self>
    + 'static
{
    /// The lanes of slot `slot` of this width's area.
    fn slot(rf: &RegFile, slot: u32) -> &[Self];
    /// The same, mutably.
    fn slot_mut(rf: &mut RegFile, slot: u32) -> &mut [Self];
    /// All slots of this width's area, mutably.
    fn area_mut(rf: &mut RegFile) -> &mut [Self];
    /// An immediate (any 64-bit pattern) taken modulo 2^width.
    fn imm(v: u64) -> Self;
    /// All bits of `b` (true) or none.
    fn splat_bool(b: bool) -> Self;
}

impl Lane for u32 {
    #[inline(always)]
    fn slot(rf: &RegFile, slot: u32) -> &[u32] {
        rf.r32(slot)
    }

    #[inline(always)]
    fn slot_mut(rf: &mut RegFile, slot: u32) -> &mut [u32] {
        rf.r32_mut(slot)
    }

    #[inline(always)]
    fn area_mut(rf: &mut RegFile) -> &mut [u32] {
        &mut rf.r32
    }

    #[inline(always)]
    fn imm(v: u64) -> u32 {
        v as u32
    }

    #[inline(always)]
    fn splat_bool(b: bool) -> u32 {
        u32::from(b).wrapping_neg()
    }
}

impl Lane for u64 {
    #[inline(always)]
    fn slot(rf: &RegFile, slot: u32) -> &[u64] {
        rf.r64(slot)
    }

    #[inline(always)]
    fn slot_mut(rf: &mut RegFile, slot: u32) -> &mut [u64] {
        rf.r64_mut(slot)
    }

    #[inline(always)]
    fn area_mut(rf: &mut RegFile) -> &mut [u64] {
        let base = rf.base64 as usize;
        &mut rf.data[base..]
    }

    #[inline(always)]
    fn imm(v: u64) -> u64 {
        v
    }

    #[inline(always)]
    fn splat_bool(b: bool) -> u64 {
        u64::from(b).wrapping_neg()
    }
}

/// Slot `dst` of `T`'s area mutably, the slots before it and the slots
/// after it.
#[inline(always)]
fn around<T: Lane>(rf: &mut RegFile, dst: u32) -> (&[T], &mut [T], &[T]) {
    let w = rf.width;
    let (lo, rest) = T::area_mut(rf).split_at_mut(dst as usize * w);
    let (d, hi) = rest.split_at_mut(w);
    (lo, d, hi)
}

/// Slot `s` (not `dst`) from the slots around `dst`.
#[inline(always)]
fn beside<'a, T>(lo: &'a [T], hi: &'a [T], dst: u32, s: u32, w: usize) -> &'a [T] {
    debug_assert_ne!(s, dst, "a source apart from the destination");
    if s < dst {
        &lo[s as usize * w..][..w]
    } else {
        &hi[(s - dst - 1) as usize * w..][..w]
    }
}

/// Slot `dst` of `T`'s area mutably and slot `a` (a different one).
#[inline(always)]
pub(crate) fn split1<T: Lane>(rf: &mut RegFile, dst: u32, a: u32) -> (&mut [T], &[T]) {
    let w = rf.width;
    let (lo, d, hi) = around::<T>(rf, dst);
    (d, beside(lo, hi, dst, a, w))
}

/// Slot `dst` of `T`'s area mutably and slots `a` and `b` (both different
/// from `dst`, perhaps the same).
#[inline(always)]
pub(crate) fn split2<T: Lane>(
    rf: &mut RegFile,
    dst: u32,
    a: u32,
    b: u32,
) -> (&mut [T], &[T], &[T]) {
    let w = rf.width;
    let (lo, d, hi) = around::<T>(rf, dst);
    (d, beside(lo, hi, dst, a, w), beside(lo, hi, dst, b, w))
}

/// Two different slots of `T`'s area, mutably.
#[inline(always)]
pub(crate) fn pair_mut<T: Lane>(rf: &mut RegFile, a: u32, b: u32) -> (&mut [T], &mut [T]) {
    assert_ne!(a, b, "two different slots");
    let w = rf.width;
    let (sa, sb) = (a as usize * w, b as usize * w);
    let area = T::area_mut(rf);
    if sa < sb {
        let (x, y) = area.split_at_mut(sb);
        (&mut x[sa..sa + w], &mut y[..w])
    } else {
        let (x, y) = area.split_at_mut(sa);
        (&mut y[..w], &mut x[sb..sb + w])
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

    fn regfile(width: usize) -> RegFile {
        let mut rf = RegFile::default();
        let slots = Slots {
            b32: 2,
            b64: 2,
            specials: 1,
        };
        rf.reset(slots, 1, 4, width, &ZeroSlots::default());
        rf
    }

    #[test]
    fn areas_hold_native_widths_apart_from_predicates_and_scoreboard() {
        let mut rf = regfile(4);
        assert_eq!(rf.r32.len(), 3 * 4, "two r registers and one special");
        assert_eq!(
            rf.data.len(),
            8 + 2 * 4,
            "preds, scoreboard, to the next line, two d registers"
        );
        let wide = regfile(32);
        for s in 0..2 {
            let (r, d) = (wide.r32(s).as_ptr(), wide.r64(s).as_ptr());
            assert_eq!(r as usize % 64, 0, "32-lane r slots start a line");
            assert_eq!(d as usize % 64, 0, "32-lane d slots start a line");
        }
        rf.r32_mut(2).copy_from_slice(&[u32::MAX; 4]);
        rf.r64_mut(1).copy_from_slice(&[u64::MAX; 4]);
        rf.preds_mut()[0] = 0b1010;
        rf.sb_mut()[3] = 7;
        assert_eq!(rf.r32(1), &[0; 4]);
        assert_eq!(rf.r64(0), &[0; 4]);
        assert_eq!(rf.preds(), &[0b1010]);
        assert_eq!(rf.sb(), &[0, 0, 0, 7]);
        assert_eq!(rf.r64(1), &[u64::MAX; 4]);
    }

    #[test]
    fn traces_see_registers_by_number_zero_extended() {
        let mut rf = regfile(2);
        rf.r32_mut(1).copy_from_slice(&[u32::MAX, 5]);
        rf.r64_mut(1).copy_from_slice(&[u64::MAX, 6]);
        assert_eq!(rf.lanes_u64(1), [u64::from(u32::MAX), 5]);
        assert_eq!(rf.lanes_u64(3), [u64::MAX, 6], "d1 is register 2 + 1");
    }

    #[test]
    fn reset_zeroes_only_the_listed_slots_and_clears_predicates() {
        let mut rf = regfile(2);
        rf.r32_mut(0).fill(1);
        rf.r32_mut(1).fill(2);
        rf.r64_mut(0).fill(3);
        rf.r64_mut(1).fill(4);
        rf.preds_mut()[0] = 3;
        rf.sb_mut()[0] = 9;
        let zero = ZeroSlots {
            b32: vec![1],
            b64: vec![0],
        };
        rf.reset(rf.slots, 1, 4, 2, &zero);
        assert_eq!((rf.r32(0), rf.r32(1)), (&[1, 1][..], &[0, 0][..]));
        assert_eq!((rf.r64(0), rf.r64(1)), (&[0, 0][..], &[4, 4][..]));
        assert_eq!((rf.preds(), rf.sb()), (&[0][..], &[0; 4][..]));
        // A different shape starts from zero everywhere.
        rf.reset(rf.slots, 1, 4, 3, &ZeroSlots::default());
        assert!(rf.r32.iter().all(|&v| v == 0) && rf.data.iter().all(|&v| v == 0));
    }

    #[test]
    fn a_destination_splits_from_sources_on_either_side() {
        let mut rf = regfile(2);
        for s in 0..3 {
            rf.r32_mut(s).fill(s + 10);
        }
        rf.r64_mut(0).fill(20);
        rf.r64_mut(1).fill(21);
        let (d, a, b) = split2::<u32>(&mut rf, 1, 2, 0);
        assert_eq!((a, b), (&[12, 12][..], &[10, 10][..]));
        d.fill(5);
        let (d, a) = split1::<u64>(&mut rf, 0, 1);
        assert_eq!(a, &[21, 21]);
        d.fill(6);
        let (d, a) = split1::<u64>(&mut rf, 1, 0);
        assert_eq!(a, &[6, 6]);
        d.fill(7);
        assert_eq!(
            (rf.r32(0), rf.r32(1), rf.r32(2)),
            (&[10, 10][..], &[5, 5][..], &[12, 12][..])
        );
        assert_eq!((rf.r64(0), rf.r64(1)), (&[6, 6][..], &[7, 7][..]));
        assert_eq!(
            rf.preds(),
            &[0],
            "the 64-bit area starts after the scoreboard"
        );
    }
}
