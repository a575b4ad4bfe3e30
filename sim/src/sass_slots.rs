//! How many SASS instructions one IR ALU instruction becomes, which is
//! what it costs in issue slots and ALU pipe time (and what Nsight
//! Compute counts as instructions executed).
//!
//! Measured on the H200 with `hw/calib/suite_alu.txt` (the kernels
//! `hw/calib/kernels/alu_*.kir`; data `hw/data/calib/alu_*.csv`): a ring of
//! one operation in a loop, instructions executed per operation after the
//! loop's own. The GPU has no 64-bit integer compare, minimum, maximum or
//! select: ptxas makes each of 32-bit halves, and they issue at the same
//! rate as 32-bit instructions, so a 64-bit compare-exchange costs four
//! times a 32-bit one (8 instructions against 2; cycles 4.0x):
//!
//! | IR operation | SASS per operation (measured) |
//! |---|---|
//! | `add`, `min.u`, `max.u`, `mul` (32-bit) | 1.0 |
//! | `cmpx.u` (32-bit: two min/max) | 2.0 |
//! | `min.u`, `max.u` (64-bit) | 4.0 |
//! | `cmpx.u` (64-bit) | 8.0 |
//! | `setp.lt.u` + `selp` + `add` (64-bit) | 6.2 |
//! | `add` (64-bit) | 2.0 |
//! | `shl`, `shr` by a constant (64-bit) | 2.0 |
//! | `mul` (64-bit) | 4.2 |
//! | `xor`, `and`, `or` (64-bit; ptxas merges two into one per half) | 1.1 |
//!
//! Signed forms use the same instructions with a signed flag. The 64-bit
//! `add`, shifts, `mul` and logic keep one slot all the same: in the
//! kernels they are address arithmetic and the packing of 32-bit halves
//! (`cvt`, `shl`/`shr` by 32, `or`), which ptxas folds into wide
//! multiply-adds or leaves as register renames, so the IR already spells
//! out more instructions than the SASS runs (the suites of 32-bit sorts
//! execute 0.85-0.96 SASS instructions per IR one).

use crate::exec::{AluOp, BinOp, CmpxOp};

/// Issue slots (SASS instructions) of one ALU instruction.
pub(crate) fn issue_slots(op: AluOp) -> u8 {
    use BinOp::*;
    match op {
        AluOp::Cmpx(CmpxOp::U32 | CmpxOp::S32) => 2,
        AluOp::Cmpx(CmpxOp::U64 | CmpxOp::S64) => 8,
        AluOp::Binary(MinU64 | MaxU64 | MinS64 | MaxS64) => 4,
        AluOp::Binary(Setp64(_)) => 2,
        AluOp::Select { wide: true } => 2,
        _ => 1,
    }
}

/// Issue slots of a `cmpx` that folds with the predicated `mov` after it
/// into a compare and a select ([`crate::select_fold`]): the compare, one
/// SASS instruction for 32-bit values. A 64-bit pair is what ptxas makes of
/// an unfolded 64-bit `cmpx`, 8 instructions, the `mov` one of them: the
/// two halves' compares of the minimum and of the maximum (4 `ISETP`) and a
/// `SEL` per half of each, the maximum's under the guard
/// (`hw/data/h200/sass/hotsort_k64_bc_2.sass`: 480 `ISETP` and 480 `SEL`
/// for the 120 `cmpx` of HotSort's 64-bit `bc_2`, 80 of them folded).
pub(crate) fn folded_cmpx_slots(op: AluOp) -> u8 {
    match op {
        AluOp::Cmpx(CmpxOp::U64 | CmpxOp::S64) => 7,
        _ => 1,
    }
}

/// Issue slots of an ALU instruction under a guard (`@p`), where ptxas
/// cannot predicate the SASS it becomes as one instruction: a 64-bit `setp`
/// is its two `ISETP` (the second extends the first, so its combining
/// operand is taken) and a `PLOP3` that keeps the old predicate in the
/// guarded-off lanes; a 64-bit `mov` that is not the select of the `cmpx`
/// before it ([`crate::select_fold::selects_for_cmpx`]) is a `SEL` per
/// half. HotSort's key-value lane stage over 64-bit keys compares a pair as
/// `@p0 setp.lt`, `@!p0 setp.gt`, then `@p2 mov` of the key and of the
/// value: 9 SASS instructions (4 `ISETP`, 2 `PLOP3`, 3 `SEL`) where the
/// slots before gave 6 (`hw/data/h200/sass/hotsort_k64v/`: `bc_2`'s 80 such
/// pairs have 160 `PLOP3`). Every other guarded instruction takes
/// [`issue_slots`].
pub(crate) fn guarded_slots(op: AluOp) -> u8 {
    match op {
        AluOp::Binary(BinOp::Setp64(_)) => 3,
        AluOp::Unary(crate::exec::UnOp::Mov64) => 2,
        _ => issue_slots(op),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Cmp;

    #[test]
    fn guarded_sixty_four_bit_compares_and_moves_cost_their_merge() {
        use crate::exec::UnOp;
        let setp = AluOp::Binary(BinOp::Setp64(Cmp::LtU));
        assert_eq!((issue_slots(setp), guarded_slots(setp)), (2, 3));
        let mov = AluOp::Unary(UnOp::Mov64);
        assert_eq!((issue_slots(mov), guarded_slots(mov)), (1, 2));
        // A 32-bit select or compare predicates as one instruction.
        let narrow = AluOp::Binary(BinOp::Setp32(Cmp::LtU));
        assert_eq!(guarded_slots(narrow), 1);
        assert_eq!(guarded_slots(AluOp::Unary(UnOp::Mov32)), 1);
    }

    #[test]
    fn sixty_four_bit_compares_cost_their_thirty_two_bit_halves() {
        let cmpx = |op| issue_slots(AluOp::Cmpx(op));
        assert_eq!((cmpx(CmpxOp::U32), cmpx(CmpxOp::U64)), (2, 8));
        assert_eq!(issue_slots(AluOp::Binary(BinOp::MinU32)), 1);
        assert_eq!(issue_slots(AluOp::Binary(BinOp::MaxS64)), 4);
        assert_eq!(issue_slots(AluOp::Binary(BinOp::Setp32(Cmp::LtU))), 1);
        assert_eq!(issue_slots(AluOp::Binary(BinOp::Setp64(Cmp::LtU))), 2);
        assert_eq!(issue_slots(AluOp::Select { wide: false }), 1);
        assert_eq!(issue_slots(AluOp::Select { wide: true }), 2);
        assert_eq!(
            issue_slots(AluOp::Binary(BinOp::Add64)),
            1,
            "address arithmetic"
        );
    }
}
