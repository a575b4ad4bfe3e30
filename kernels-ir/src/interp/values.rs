//! The value semantics of every ALU operation, one lane at a time.
//!
//! These functions are the specification the simulator is tested against:
//! values travel as `u64` holding a `width`-bit pattern (1 for predicates,
//! 32 or 64 for integers), and every result is truncated to its width.

use crate::opcode::Opcode;

/// The mask of the low `width` bits.
pub const fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `value` (a `width`-bit pattern) sign-extended to 64 bits.
pub const fn sext(value: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((value << shift) as i64) >> shift
}

/// The result of a binary-format operation on `width`-bit operands:
/// arithmetic, logic, shifts, min/max (width-bit result) and `setp` (0 or 1).
/// Returns `None` for opcodes of other formats.
#[inline]
pub fn binary(op: Opcode, width: u32, a: u64, b: u64) -> Option<u64> {
    let m = mask(width);
    // Shift amounts are unsigned counts, compared before any truncation.
    let amount = b;
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, width), sext(b, width));
    let shift = |f: fn(u64, u32) -> u64| {
        if amount >= width as u64 {
            None
        } else {
            Some(f(a, amount as u32))
        }
    };
    let r = match op {
        Opcode::Add => a.wrapping_add(b),
        Opcode::Sub => a.wrapping_sub(b),
        Opcode::Mul => a.wrapping_mul(b),
        Opcode::Shl => shift(|a, s| a << s).unwrap_or(0),
        Opcode::Shr => shift(|a, s| a >> s).unwrap_or(0),
        Opcode::Sra => {
            let s = amount.min(width as u64 - 1) as u32;
            (sa >> s) as u64
        }
        Opcode::And => a & b,
        Opcode::Or => a | b,
        Opcode::Xor => a ^ b,
        Opcode::MinU => a.min(b),
        Opcode::MaxU => a.max(b),
        Opcode::MinS => sa.min(sb) as u64,
        Opcode::MaxS => sa.max(sb) as u64,
        Opcode::SetpEq => (a == b) as u64,
        Opcode::SetpNe => (a != b) as u64,
        Opcode::SetpLtU => (a < b) as u64,
        Opcode::SetpLeU => (a <= b) as u64,
        Opcode::SetpGtU => (a > b) as u64,
        Opcode::SetpGeU => (a >= b) as u64,
        Opcode::SetpLtS => (sa < sb) as u64,
        Opcode::SetpLeS => (sa <= sb) as u64,
        Opcode::SetpGtS => (sa > sb) as u64,
        Opcode::SetpGeS => (sa >= sb) as u64,
        _ => return None,
    };
    Some(r & m)
}

/// The result of a unary-format operation from a `src_width`-bit source
/// into a `dst_width`-bit destination. `None` for other opcodes.
#[inline]
pub fn unary(op: Opcode, src_width: u32, dst_width: u32, v: u64) -> Option<u64> {
    let v = v & mask(src_width);
    let r = match op {
        Opcode::Mov | Opcode::CvtU64U32 | Opcode::CvtU32U64 => v,
        Opcode::Not => !v,
        Opcode::CvtS64S32 => sext(v, src_width) as u64,
        _ => return None,
    };
    Some(r & mask(dst_width))
}

/// `(min, max)` of a compare-exchange on `width`-bit values.
#[inline]
pub fn cmpx(signed: bool, width: u32, a: u64, b: u64) -> (u64, u64) {
    let less = if signed {
        sext(a, width) <= sext(b, width)
    } else {
        a <= b
    };
    if less { (a, b) } else { (b, a) }
}

/// The source lane of a shuffle, CUDA `__shfl_*_sync` rules with a segment
/// of `width` lanes; a lane whose source falls outside its segment (or the
/// warp) reads its own value.
pub fn shfl_source(mode: crate::ShflMode, lane: u32, arg: u32, width: u32, warp: u32) -> u32 {
    use crate::ShflMode::*;
    let seg = lane & !(width - 1);
    let pos = lane - seg;
    let src = match mode {
        Idx => seg + (arg & (width - 1)),
        Up => {
            if pos >= arg {
                lane - arg
            } else {
                lane
            }
        }
        Down => {
            if (pos as u64) + (arg as u64) < width as u64 {
                lane + arg
            } else {
                lane
            }
        }
        Xor => {
            let s = lane ^ arg;
            if s & !(width - 1) == seg { s } else { lane }
        }
    };
    if src < warp { src } else { lane }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ShflMode;

    #[test]
    fn arithmetic_wraps_at_the_width() {
        assert_eq!(binary(Opcode::Add, 32, 0xFFFF_FFFF, 1), Some(0));
        assert_eq!(binary(Opcode::Sub, 32, 0, 1), Some(0xFFFF_FFFF));
        assert_eq!(binary(Opcode::Mul, 64, u64::MAX, 2), Some(u64::MAX - 1));
    }

    #[test]
    fn shifts_past_the_width_give_zero_or_the_sign() {
        assert_eq!(binary(Opcode::Shl, 32, 1, 32), Some(0));
        assert_eq!(binary(Opcode::Shr, 32, 0x8000_0000, 40), Some(0));
        assert_eq!(binary(Opcode::Sra, 32, 0x8000_0000, 40), Some(0xFFFF_FFFF));
        assert_eq!(binary(Opcode::Sra, 32, 0x4000_0000, 40), Some(0));
        assert_eq!(binary(Opcode::Sra, 32, 0x8000_0000, 4), Some(0xF800_0000));
    }

    #[test]
    fn signed_and_unsigned_comparisons_differ() {
        assert_eq!(binary(Opcode::SetpLtU, 32, 0xFFFF_FFFF, 0), Some(0));
        assert_eq!(binary(Opcode::SetpLtS, 32, 0xFFFF_FFFF, 0), Some(1));
        assert_eq!(binary(Opcode::MinS, 32, 0xFFFF_FFFF, 3), Some(0xFFFF_FFFF));
        assert_eq!(binary(Opcode::MinU, 32, 0xFFFF_FFFF, 3), Some(3));
        assert_eq!(cmpx(true, 32, 3, 0xFFFF_FFFF), (0xFFFF_FFFF, 3));
        assert_eq!(cmpx(false, 32, 3, 0xFFFF_FFFF), (3, 0xFFFF_FFFF));
    }

    #[test]
    fn conversions_extend_and_truncate() {
        assert_eq!(
            unary(Opcode::CvtS64S32, 32, 64, 0xFFFF_FFFE),
            Some(u64::MAX - 1)
        );
        assert_eq!(
            unary(Opcode::CvtU64U32, 32, 64, 0xFFFF_FFFE),
            Some(0xFFFF_FFFE)
        );
        assert_eq!(
            unary(Opcode::CvtU32U64, 64, 32, 0x1_2345_6789),
            Some(0x2345_6789)
        );
        assert_eq!(unary(Opcode::Not, 1, 1, 1), Some(0));
    }

    #[test]
    fn shuffles_stay_inside_their_segment() {
        // xor 4 within segments of 8: lane 5 reads 1; xor 8 leaves the segment.
        assert_eq!(shfl_source(ShflMode::Xor, 5, 4, 8, 32), 1);
        assert_eq!(shfl_source(ShflMode::Xor, 5, 8, 8, 32), 5);
        assert_eq!(shfl_source(ShflMode::Up, 9, 2, 8, 32), 9); // position 1 < 2
        assert_eq!(shfl_source(ShflMode::Up, 11, 2, 8, 32), 9);
        assert_eq!(shfl_source(ShflMode::Down, 14, 2, 8, 32), 14); // 6 + 2 >= 8
        assert_eq!(shfl_source(ShflMode::Down, 13, 2, 8, 32), 15);
        assert_eq!(shfl_source(ShflMode::Idx, 13, 3, 8, 32), 11);
        assert_eq!(shfl_source(ShflMode::Idx, 13, 11, 8, 32), 11); // idx taken modulo width
    }
}
