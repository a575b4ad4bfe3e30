//! Functional semantics of ALU instructions and shuffles over the active
//! lanes of a warp: the same results as `kernels_ir::interp`, computed as
//! tight loops over lane vectors.
//!
//! Values travel as `u64` holding a `width`-bit pattern; every result is
//! truncated to its width. Memory instructions live in [`crate::shared_mem`]
//! and [`crate::memory`].

use kernels_ir::{Opcode, ShflMode};

use crate::decode::Kind;
use crate::regfile::{MAX_LANES, RegFile};

/// The mask of the low `width` bits.
#[inline]
pub(crate) const fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `v` (a `width`-bit pattern) sign-extended.
#[inline]
pub(crate) const fn sext(v: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((v << shift) as i64) >> shift
}

macro_rules! lanes {
    ($out:ident, $a:ident, $b:ident, |$x:ident, $y:ident| $e:expr) => {
        for ((o, &$x), &$y) in $out.iter_mut().zip($a).zip($b) {
            *o = $e;
        }
    };
}

/// `out = opcode(a, b)` lane by lane at `width` bits.
fn binary_lanes(opcode: Opcode, width: u32, a: &[u64], b: &[u64], out: &mut [u64]) {
    let m = mask(width);
    let w = width as u64;
    let s = |v: u64| sext(v & m, width);
    match opcode {
        Opcode::Add => lanes!(out, a, b, |x, y| x.wrapping_add(y) & m),
        Opcode::Sub => lanes!(out, a, b, |x, y| x.wrapping_sub(y) & m),
        Opcode::Mul => lanes!(out, a, b, |x, y| x.wrapping_mul(y) & m),
        Opcode::And => lanes!(out, a, b, |x, y| x & y & m),
        Opcode::Or => lanes!(out, a, b, |x, y| (x | y) & m),
        Opcode::Xor => lanes!(out, a, b, |x, y| (x ^ y) & m),
        Opcode::Shl => lanes!(out, a, b, |x, y| if y >= w {
            0
        } else {
            ((x & m) << y) & m
        }),
        Opcode::Shr => lanes!(out, a, b, |x, y| if y >= w { 0 } else { (x & m) >> y }),
        Opcode::Sra => lanes!(out, a, b, |x, y| (s(x) >> y.min(w - 1)) as u64 & m),
        Opcode::MinU => lanes!(out, a, b, |x, y| (x & m).min(y & m)),
        Opcode::MaxU => lanes!(out, a, b, |x, y| (x & m).max(y & m)),
        Opcode::MinS => lanes!(out, a, b, |x, y| s(x).min(s(y)) as u64 & m),
        Opcode::MaxS => lanes!(out, a, b, |x, y| s(x).max(s(y)) as u64 & m),
        Opcode::SetpEq => lanes!(out, a, b, |x, y| ((x & m) == (y & m)) as u64),
        Opcode::SetpNe => lanes!(out, a, b, |x, y| ((x & m) != (y & m)) as u64),
        Opcode::SetpLtU => lanes!(out, a, b, |x, y| ((x & m) < (y & m)) as u64),
        Opcode::SetpLeU => lanes!(out, a, b, |x, y| ((x & m) <= (y & m)) as u64),
        Opcode::SetpGtU => lanes!(out, a, b, |x, y| ((x & m) > (y & m)) as u64),
        Opcode::SetpGeU => lanes!(out, a, b, |x, y| ((x & m) >= (y & m)) as u64),
        Opcode::SetpLtS => lanes!(out, a, b, |x, y| (s(x) < s(y)) as u64),
        Opcode::SetpLeS => lanes!(out, a, b, |x, y| (s(x) <= s(y)) as u64),
        Opcode::SetpGtS => lanes!(out, a, b, |x, y| (s(x) > s(y)) as u64),
        Opcode::SetpGeS => lanes!(out, a, b, |x, y| (s(x) >= s(y)) as u64),
        _ => unreachable!("{opcode} is not a binary-format operation"),
    }
}

/// The source lane of a shuffle (CUDA `__shfl_*_sync` with a `width`-lane
/// segment); a source outside the segment or the warp means the own lane.
#[inline]
pub(crate) fn shfl_source(mode: ShflMode, lane: u32, arg: u32, width: u32, warp: u32) -> u32 {
    let seg = lane & !(width - 1);
    let pos = lane - seg;
    let src = match mode {
        ShflMode::Idx => seg + (arg & (width - 1)),
        ShflMode::Up => {
            if pos >= arg {
                lane - arg
            } else {
                lane
            }
        }
        ShflMode::Down => {
            if u64::from(pos) + u64::from(arg) < u64::from(width) {
                lane + arg
            } else {
                lane
            }
        }
        ShflMode::Xor => {
            let s = lane ^ arg;
            if s & !(width - 1) == seg { s } else { lane }
        }
    };
    if src < warp { src } else { lane }
}

/// `lo, hi = min, max` by `key` in the lanes of `exec` (a swap where
/// `key(lo) > key(hi)`, as the reference's `keep = lo <= hi`).
#[inline(always)]
fn cmpx_lanes<K: Ord>(lo: &mut [u64], hi: &mut [u64], exec: u64, key: impl Fn(u64) -> K) {
    if exec == crate::regfile::lane_mask(lo.len()) {
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let (a, b) = (*x, *y);
            let swap = key(a) > key(b);
            *x = if swap { b } else { a };
            *y = if swap { a } else { b };
        }
    } else {
        for (l, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
            let (a, b) = (*x, *y);
            let swap = (exec >> l) & 1 != 0 && key(a) > key(b);
            *x = if swap { b } else { a };
            *y = if swap { a } else { b };
        }
    }
}

/// Lane vectors an instruction works in, kept between instructions so no
/// instruction pays for initialising them.
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    out: [u64; MAX_LANES],
    ta: [u64; MAX_LANES],
    tb: [u64; MAX_LANES],
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            out: [0; MAX_LANES],
            ta: [0; MAX_LANES],
            tb: [0; MAX_LANES],
        }
    }
}

/// Executes an ALU instruction or shuffle in the lanes of `exec`.
pub(crate) fn execute(
    kind: &Kind,
    rf: &mut RegFile,
    consts: &[u64],
    exec: u64,
    scratch: &mut Scratch,
) {
    let w = rf.width;
    let Scratch { out, ta, tb } = scratch;
    match *kind {
        Kind::Unary {
            opcode,
            src_width,
            dst_width,
            src,
            dst,
        } => {
            let (sm, dm) = (mask(src_width), mask(dst_width));
            let v = rf.read(src, consts, ta);
            let o = &mut out[..w];
            match opcode {
                Opcode::Not => o.iter_mut().zip(v).for_each(|(o, &v)| *o = !(v & sm) & dm),
                Opcode::CvtS64S32 => o
                    .iter_mut()
                    .zip(v)
                    .for_each(|(o, &v)| *o = sext(v & sm, src_width) as u64 & dm),
                _ => o.iter_mut().zip(v).for_each(|(o, &v)| *o = v & sm & dm),
            }
            rf.write(dst, &out[..w], exec);
        }
        Kind::Binary {
            opcode,
            width,
            a,
            b,
            dst,
        } => {
            let a = rf.read(a, consts, ta);
            let b = rf.read(b, consts, tb);
            binary_lanes(opcode, width, a, b, &mut out[..w]);
            rf.write(dst, &out[..w], exec);
        }
        Kind::Select {
            width,
            a,
            b,
            pred,
            dst,
        } => {
            let m = mask(width);
            let p = rf.preds()[pred as usize];
            let a = rf.read(a, consts, ta);
            let b = rf.read(b, consts, tb);
            for (l, o) in out[..w].iter_mut().enumerate() {
                *o = if (p >> l) & 1 != 0 { a[l] } else { b[l] } & m;
            }
            rf.write(dst, &out[..w], exec);
        }
        Kind::Cmpx {
            signed,
            width,
            lo,
            hi,
        } => {
            if lo == hi {
                return; // min and max of a value with itself: no change
            }
            let (los, his) = rf.slot_pair_mut(lo, hi);
            // Registers hold zero-extended values, so a 32-bit comparison
            // of the low halves is the comparison at the register's width
            // (and far cheaper in vector code than a 64-bit one).
            match (signed, width) {
                (false, 32) => cmpx_lanes(los, his, exec, |x| x as u32),
                (true, 32) => cmpx_lanes(los, his, exec, |x| x as u32 as i32),
                (false, _) => cmpx_lanes(los, his, exec, |x| x),
                (true, _) => cmpx_lanes(los, his, exec, |x| sext(x, width)),
            }
        }
        Kind::Shfl {
            mode,
            width,
            src,
            lane,
            dst,
            perm,
        } => {
            let vals = rf.read(src, consts, tb);
            match perm {
                Some(p) => {
                    let perm = &consts[p as usize * w..(p as usize + 1) * w];
                    for (o, &s) in out[..w].iter_mut().zip(perm) {
                        *o = vals[s as usize];
                    }
                }
                None => {
                    let args = rf.read(lane, consts, ta);
                    for (l, o) in out[..w].iter_mut().enumerate() {
                        let s = shfl_source(mode, l as u32, args[l] as u32, width, w as u32);
                        *o = vals[s as usize];
                    }
                }
            }
            rf.write(dst, &out[..w], exec);
        }
        _ => unreachable!("not an ALU or shuffle instruction: {kind:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: Opcode, width: u32, a: u64, b: u64) -> u64 {
        let mut out = [0];
        binary_lanes(op, width, &[a], &[b], &mut out);
        out[0]
    }

    #[test]
    fn arithmetic_wraps_at_the_width() {
        assert_eq!(bin(Opcode::Add, 32, 0xFFFF_FFFF, 1), 0);
        assert_eq!(bin(Opcode::Sub, 32, 0, 1), 0xFFFF_FFFF);
        assert_eq!(bin(Opcode::Mul, 64, u64::MAX, 2), u64::MAX - 1);
        // A 32-bit op on an immediate of -1 (all 64 bits set) sees 0xFFFF_FFFF.
        assert_eq!(bin(Opcode::MinU, 32, 5, u64::MAX), 5);
    }

    #[test]
    fn shifts_past_the_width_give_zero_or_the_sign() {
        assert_eq!(bin(Opcode::Shl, 32, 1, 32), 0);
        assert_eq!(bin(Opcode::Shr, 32, 0x8000_0000, 40), 0);
        assert_eq!(bin(Opcode::Sra, 32, 0x8000_0000, 40), 0xFFFF_FFFF);
        assert_eq!(bin(Opcode::Sra, 32, 0x4000_0000, 40), 0);
        assert_eq!(bin(Opcode::Sra, 32, 0x8000_0000, 4), 0xF800_0000);
        assert_eq!(bin(Opcode::Shl, 64, 1, 63), 1 << 63);
    }

    #[test]
    fn signed_and_unsigned_comparisons_differ() {
        assert_eq!(bin(Opcode::SetpLtU, 32, 0xFFFF_FFFF, 0), 0);
        assert_eq!(bin(Opcode::SetpLtS, 32, 0xFFFF_FFFF, 0), 1);
        assert_eq!(bin(Opcode::MinS, 32, 0xFFFF_FFFF, 3), 0xFFFF_FFFF);
        assert_eq!(bin(Opcode::MaxS, 64, u64::MAX, 3), 3);
    }

    #[test]
    fn shuffles_stay_inside_their_segment() {
        assert_eq!(shfl_source(ShflMode::Xor, 5, 4, 8, 32), 1);
        assert_eq!(shfl_source(ShflMode::Xor, 5, 8, 8, 32), 5);
        assert_eq!(shfl_source(ShflMode::Up, 9, 2, 8, 32), 9);
        assert_eq!(shfl_source(ShflMode::Up, 11, 2, 8, 32), 9);
        assert_eq!(shfl_source(ShflMode::Down, 14, 2, 8, 32), 14);
        assert_eq!(shfl_source(ShflMode::Down, 13, 2, 8, 32), 15);
        assert_eq!(shfl_source(ShflMode::Idx, 13, 11, 8, 32), 11);
        assert_eq!(shfl_source(ShflMode::Down, 3, u32::MAX, 4, 4), 3);
    }
}
