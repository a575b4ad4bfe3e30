//! Edge-case operand values and operation lists shared by the operation
//! tests (the lane loops' unit tests and the whole-launch checks).

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
