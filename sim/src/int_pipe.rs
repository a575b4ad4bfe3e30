//! Which of a sub-partition's two integer pipes an IR ALU instruction's
//! SASS runs on: the ALU, the FMA pipe's integer multiply-add (`IMAD`), or
//! whichever is free.
//!
//! Hopper's sub-partition has 16 INT32 lanes (the ALU pipe: `IADD3`,
//! `LOP3`, `SHF`, `IMNMX`, `ISETP`, `SEL`, `MOV`) and an FMA pipe whose
//! `IMAD` half has 16 more. Multiplies are `IMAD` and run only there. An
//! add, a move and a left shift by a constant are also `IMAD` forms
//! (`IMAD.IADD`, `IMAD.MOV`, `IMAD.SHL`; Nsight Compute's pipe table says
//! ptxas emits them "to explicitly schedule instructions to the FMA pipe
//! instead of ALU"), so ptxas spreads those over both pipes.
//!
//! Measured on the H200 (`hw/calib/suite_alu.txt`, a ring of one operation
//! on 8 registers, 8 warps per scheduler; `hw/data/calib/alu_*.csv`),
//! warp instructions issued per active cycle and sub-partition:
//!
//! | ring | SASS | issued a cycle |
//! |---|---|---|
//! | 32-bit `min`/`max` | `IMNMX` | 0.53 (16 lanes) |
//! | 32-bit `mul` | `IMAD` | 0.54 (16 lanes) |
//! | 64-bit `min`/`max`, `selp`, compare-exchange, logic | `ISETP`, `SEL`, `LOP3` | 0.50-0.52 |
//! | 32-bit `add` | `IADD3`, `IMAD.IADD` | 0.76 |
//! | 64-bit `add` | `IADD3` + `IMAD.X` | 0.94 |
//! | 64-bit shifts by a constant (half left) | `SHF` + `IMAD.SHL` | 0.68 |
//!
//! Only the adds and the left shifts pass the one-ALU rate, and the 64-bit
//! shifts' ALU share (their `SHF` halves, 12.5 a trip of 16.9) is what
//! bounds them: the two 16-lane pipes the rates say. A 64-bit add keeps to
//! the ALU: its low half is an `IADD3` with a carry out (or a `LEA`), which
//! only the ALU has, and the model charges the pair one slot.

use crate::decode::Pipe;
use crate::exec::{AluOp, BinOp, UnOp};

/// The pipe an ALU instruction of operation `op` needs. `imm_shift` says
/// whether its second operand is an immediate (a shift by a constant is
/// `IMAD.SHL`, by a register `SHF`); `select` that it is the predicated
/// `mov` ptxas makes a `SEL` with the `cmpx` before it
/// ([`crate::select_fold`]).
pub(crate) fn pipe_of(op: AluOp, imm_shift: bool, select: bool) -> Pipe {
    use BinOp::*;
    match op {
        AluOp::Binary(Mul32 | Mul64) => Pipe::Fma,
        AluOp::Binary(Add32 | Sub32) => Pipe::AluOrFma,
        AluOp::Binary(Shl32) if imm_shift => Pipe::AluOrFma,
        AluOp::Unary(UnOp::Mov32 | UnOp::Mov64 | UnOp::Zext | UnOp::Trunc) if !select => {
            Pipe::AluOrFma
        }
        _ => Pipe::Alu,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Cmp, CmpxOp};

    #[test]
    fn multiplies_take_the_fma_pipe_and_simple_integer_ops_either() {
        let bin = |op| pipe_of(AluOp::Binary(op), false, false);
        assert_eq!(bin(BinOp::Mul32), Pipe::Fma);
        assert_eq!(bin(BinOp::Mul64), Pipe::Fma);
        assert_eq!(bin(BinOp::Add32), Pipe::AluOrFma);
        assert_eq!(bin(BinOp::Sub32), Pipe::AluOrFma);
        assert_eq!(bin(BinOp::Add64), Pipe::Alu, "IADD3 with a carry out");
        assert_eq!(bin(BinOp::MinU32), Pipe::Alu);
        assert_eq!(bin(BinOp::Xor32), Pipe::Alu);
        assert_eq!(bin(BinOp::Setp32(Cmp::LtU)), Pipe::Alu);
        assert_eq!(bin(BinOp::Shl32), Pipe::Alu, "by a register: SHF");
        assert_eq!(
            pipe_of(AluOp::Binary(BinOp::Shl32), true, false),
            Pipe::AluOrFma,
            "by a constant: IMAD.SHL"
        );
        assert_eq!(bin(BinOp::Shr32), Pipe::Alu);
        assert_eq!(pipe_of(AluOp::Cmpx(CmpxOp::U32), false, false), Pipe::Alu);
        assert_eq!(
            pipe_of(AluOp::Select { wide: false }, false, false),
            Pipe::Alu
        );
    }

    #[test]
    fn a_move_is_either_unless_it_is_a_folded_select() {
        let mov = AluOp::Unary(UnOp::Mov32);
        assert_eq!(pipe_of(mov, false, false), Pipe::AluOrFma);
        assert_eq!(pipe_of(mov, false, true), Pipe::Alu, "SEL");
        assert_eq!(pipe_of(AluOp::Unary(UnOp::Not32), false, false), Pipe::Alu);
    }
}
