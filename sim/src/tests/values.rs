//! What the operation tests share (the lane loops' unit tests and the
//! whole-launch checks): edge-case operand values, the comparisons, and a
//! plain scalar statement of every binary-format operation, written here
//! with Rust's own integer operations (independent of the simulator's lane
//! loops and of the reference interpreter).

use kernels_ir::Opcode;

/// 32-bit values around the sign bit, shift widths and zero.
pub(crate) const V32: [u64; 10] = [
    0,
    1,
    2,
    31,
    32,
    33,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x1234_5678,
];

/// 64-bit values around the sign bit, shift widths and 32-bit boundaries.
pub(crate) const V64: [u64; 10] = [
    0,
    1,
    63,
    64,
    65,
    i64::MAX as u64,
    1 << 63,
    u64::MAX,
    0x1234_5678_9ABC_DEF0,
    0xFFFF_FFFF,
];

/// Every `setp` comparison.
pub(crate) const COMPARISONS: [Opcode; 10] = [
    Opcode::SetpEq,
    Opcode::SetpNe,
    Opcode::SetpLtU,
    Opcode::SetpLeU,
    Opcode::SetpGtU,
    Opcode::SetpGeU,
    Opcode::SetpLtS,
    Opcode::SetpLeS,
    Opcode::SetpGtS,
    Opcode::SetpGeS,
];

/// `v` (a `width`-bit pattern) sign-extended.
pub(crate) fn sext(v: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((v << shift) as i64) >> shift
}

/// The specification of a binary-format operation on one lane.
pub(crate) fn reference(op: Opcode, width: u32, a: u64, b: u64) -> u64 {
    let m = if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    let amount = b; // shift counts are compared before any truncation
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, width), sext(b, width));
    let r = match op {
        Opcode::Add => a.wrapping_add(b),
        Opcode::Sub => a.wrapping_sub(b),
        Opcode::Mul => a.wrapping_mul(b),
        Opcode::Shl if amount >= u64::from(width) => 0,
        Opcode::Shl => a << amount,
        Opcode::Shr if amount >= u64::from(width) => 0,
        Opcode::Shr => a >> amount,
        Opcode::Sra => (sa >> amount.min(u64::from(width) - 1)) as u64,
        Opcode::And => a & b,
        Opcode::Or => a | b,
        Opcode::Xor => a ^ b,
        Opcode::MinU => a.min(b),
        Opcode::MaxU => a.max(b),
        Opcode::MinS => sa.min(sb) as u64,
        Opcode::MaxS => sa.max(sb) as u64,
        Opcode::SetpEq => (a == b).into(),
        Opcode::SetpNe => (a != b).into(),
        Opcode::SetpLtU => (a < b).into(),
        Opcode::SetpLeU => (a <= b).into(),
        Opcode::SetpGtU => (a > b).into(),
        Opcode::SetpGeU => (a >= b).into(),
        Opcode::SetpLtS => (sa < sb).into(),
        Opcode::SetpLeS => (sa <= sb).into(),
        Opcode::SetpGtS => (sa > sb).into(),
        Opcode::SetpGeS => (sa >= sb).into(),
        _ => unreachable!("{op}"),
    };
    r & m
}
