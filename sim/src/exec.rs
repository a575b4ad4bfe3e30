//! Functional semantics of ALU instructions and shuffles over the active
//! lanes of a warp: the same results as `kernels_ir::interp`, computed as
//! tight loops over lane vectors.
//!
//! Decoding resolves each instruction to an operation at its native width
//! ([`AluOp`]) and then to one specialised function ([`Alu::run`]) for that
//! operation, width and *operand shape*: which operands are registers or
//! immediates and whether the destination is one of the sources. Executing
//! is one indirect call to a loop over `u32` or `u64` lanes with no width
//! masking, opcode test or operand test inside: a 32-bit operation wraps
//! because its lanes are `u32`. Results are written straight into the
//! destination, every lane when the whole warp is active and through a
//! vector blend otherwise; shapes without a fused loop go through a
//! scratch vector. `setp` packs its comparisons into the predicate mask,
//! `selp` selects from it, and shuffles with a constant lane operand use
//! source lanes worked out at decode ([`shfl`]). Memory instructions live
//! in [`crate::shared_mem`] and [`crate::memory`].

mod ops;
mod shfl;

use kernels_ir::{Opcode, ShflMode};

use crate::decode::{Kind, Src};
use crate::regfile::{MAX_LANES, RegFile};

/// A one-operand operation at its operand widths.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Mov32,
    Mov64,
    MovP,
    Not32,
    Not64,
    NotP,
    /// `cvt.u64.u32`.
    Zext,
    /// `cvt.s64.s32`.
    Sext,
    /// `cvt.u32.u64`.
    Trunc,
}

impl UnOp {
    /// The operation of `opcode` writing a destination of `width` bits
    /// (1: a predicate).
    pub fn new(opcode: Opcode, width: u32) -> UnOp {
        match (opcode, width) {
            (Opcode::Mov, 1) => UnOp::MovP,
            (Opcode::Mov, 32) => UnOp::Mov32,
            (Opcode::Mov, _) => UnOp::Mov64,
            (Opcode::Not, 1) => UnOp::NotP,
            (Opcode::Not, 32) => UnOp::Not32,
            (Opcode::Not, _) => UnOp::Not64,
            (Opcode::CvtU64U32, _) => UnOp::Zext,
            (Opcode::CvtS64S32, _) => UnOp::Sext,
            (Opcode::CvtU32U64, _) => UnOp::Trunc,
            _ => unreachable!("{opcode} is not a unary-format operation"),
        }
    }
}

/// A comparison of `setp` (`U`: unsigned, `S`: signed).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
    LtS,
    LeS,
    GtS,
    GeS,
}

/// A two-operand operation at its operands' width: 32- or 64-bit values
/// (the shift count is always 32-bit), predicates (`P`), or a comparison
/// of 32- or 64-bit values into a predicate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add32,
    Sub32,
    Mul32,
    And32,
    Or32,
    Xor32,
    Shl32,
    Shr32,
    Sra32,
    MinU32,
    MaxU32,
    MinS32,
    MaxS32,
    Add64,
    Sub64,
    Mul64,
    And64,
    Or64,
    Xor64,
    Shl64,
    Shr64,
    Sra64,
    MinU64,
    MaxU64,
    MinS64,
    MaxS64,
    AndP,
    OrP,
    XorP,
    Setp32(Cmp),
    Setp64(Cmp),
}

impl BinOp {
    /// The operation of `opcode` on `width`-bit operands (1: predicates).
    pub fn new(opcode: Opcode, width: u32) -> BinOp {
        use BinOp::*;
        let cmp = match opcode {
            Opcode::SetpEq => Some(Cmp::Eq),
            Opcode::SetpNe => Some(Cmp::Ne),
            Opcode::SetpLtU => Some(Cmp::LtU),
            Opcode::SetpLeU => Some(Cmp::LeU),
            Opcode::SetpGtU => Some(Cmp::GtU),
            Opcode::SetpGeU => Some(Cmp::GeU),
            Opcode::SetpLtS => Some(Cmp::LtS),
            Opcode::SetpLeS => Some(Cmp::LeS),
            Opcode::SetpGtS => Some(Cmp::GtS),
            Opcode::SetpGeS => Some(Cmp::GeS),
            _ => None,
        };
        if let Some(c) = cmp {
            return if width == 64 { Setp64(c) } else { Setp32(c) };
        }
        let ops = match width {
            1 => match opcode {
                Opcode::And => return AndP,
                Opcode::Or => return OrP,
                Opcode::Xor => return XorP,
                _ => unreachable!("{opcode} on predicates"),
            },
            32 => [
                Add32, Sub32, Mul32, And32, Or32, Xor32, Shl32, Shr32, Sra32, MinU32, MaxU32,
                MinS32, MaxS32,
            ],
            _ => [
                Add64, Sub64, Mul64, And64, Or64, Xor64, Shl64, Shr64, Sra64, MinU64, MaxU64,
                MinS64, MaxS64,
            ],
        };
        let i = match opcode {
            Opcode::Add => 0,
            Opcode::Sub => 1,
            Opcode::Mul => 2,
            Opcode::And => 3,
            Opcode::Or => 4,
            Opcode::Xor => 5,
            Opcode::Shl => 6,
            Opcode::Shr => 7,
            Opcode::Sra => 8,
            Opcode::MinU => 9,
            Opcode::MaxU => 10,
            Opcode::MinS => 11,
            Opcode::MaxS => 12,
            _ => unreachable!("{opcode} is not a binary-format operation"),
        };
        ops[i]
    }
}

impl BinOp {
    /// An operation and operands computing the same as `self` on `a`, `b`:
    /// an immediate first operand of a commutative operation moves second,
    /// and a multiplication by an immediate `2^k` becomes a shift by `k`
    /// (equal modulo 2^width, as `k` is below the width).
    fn canonical(self, a: Src, b: Src) -> (BinOp, Src, Src) {
        use BinOp::*;
        let commutes = matches!(
            self,
            Add32
                | Mul32
                | And32
                | Or32
                | Xor32
                | MinU32
                | MaxU32
                | MinS32
                | MaxS32
                | Add64
                | Mul64
                | And64
                | Or64
                | Xor64
                | MinU64
                | MaxU64
                | MinS64
                | MaxS64
        );
        let (a, b) = match (a, b) {
            (Src::Imm(_), Src::Reg(_)) if commutes => (b, a),
            _ => (a, b),
        };
        match (self, b) {
            (Mul32, Src::Imm(v)) if (v as u32).is_power_of_two() => {
                (Shl32, a, Src::Imm((v as u32).trailing_zeros().into()))
            }
            (Mul64, Src::Imm(v)) if v.is_power_of_two() => {
                (Shl64, a, Src::Imm(v.trailing_zeros().into()))
            }
            _ => (self, a, b),
        }
    }
}

/// A compare-exchange at its registers' width.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CmpxOp {
    U32,
    S32,
    U64,
    S64,
}

/// Where each lane of a shuffle reads from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ShflLanes {
    /// A constant lane operand: the source lanes, worked out at decode,
    /// are entry `i` of [`Consts::perms`].
    Perm(u32),
    /// A lane operand in a 32-bit slot.
    Dynamic { mode: ShflMode, width: u32 },
}

/// An ALU operation or shuffle, at its width.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AluOp {
    Unary(UnOp),
    Binary(BinOp),
    /// `selp` on 64-bit (`wide`) or 32-bit values.
    Select {
        wide: bool,
    },
    Cmpx(CmpxOp),
    Shfl(ShflLanes),
}

/// The function that executes an [`Alu`] instruction in the lanes of
/// `exec`.
pub(crate) type AluFn = fn(&Alu, &mut RegFile, u64, &Consts, &mut Scratch);

/// A decoded ALU instruction or shuffle.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Alu {
    /// The loop specialised for `op` and the operand shapes.
    pub run: AluFn,
    /// What it computes.
    pub op: AluOp,
    /// First operand (`cmpx`: unused; shuffle: the source register).
    pub a: Src,
    /// Second operand (shuffle: the lane operand).
    pub b: Src,
    /// Destination: a slot of the op's width, or a predicate (`cmpx`: `lo`).
    pub dst: u32,
    /// `selp`: the predicate; `cmpx`: `hi`; shuffle with a constant lane:
    /// its entry of [`Consts::perms`].
    pub aux: u32,
}

impl Alu {
    /// The instruction `op` with these operands, with its loop chosen. An
    /// operation is first rewritten into an equal one that has a faster
    /// loop: a commutative operation takes its immediate second, and a
    /// multiplication by a power of two becomes a shift.
    pub fn new(op: AluOp, a: Src, b: Src, dst: u32, aux: u32, consts: &Consts) -> Alu {
        let (op, a, b) = match op {
            AluOp::Binary(o) => {
                let (o, a, b) = o.canonical(a, b);
                (AluOp::Binary(o), a, b)
            }
            _ => (op, a, b),
        };
        let run = match op {
            AluOp::Unary(u) => ops::unary_fn(u, a, dst),
            AluOp::Binary(o) => ops::binary_fn(o, a, b, dst),
            AluOp::Select { wide } => ops::select_fn(wide),
            AluOp::Cmpx(c) => ops::cmpx_fn(c, dst, aux),
            AluOp::Shfl(how) => shfl::shfl_fn(how, consts),
        };
        Alu {
            run,
            op,
            a,
            b,
            dst,
            aux,
        }
    }
}

/// Launch constants the instructions refer to.
#[derive(Clone, Debug, Default)]
pub(crate) struct Consts {
    /// The source lanes of shuffles with a constant lane operand, each
    /// pattern once.
    pub perms: Vec<Perm>,
}

pub(crate) use shfl::Perm;

/// Lane vectors for results that cannot go straight to their destination,
/// kept between instructions so no instruction pays for initialising them.
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    o32: [u32; MAX_LANES],
    o64: [u64; MAX_LANES],
    /// A shuffle's source lanes, with room on both sides.
    t32: [u32; 3 * MAX_LANES],
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            o32: [0; MAX_LANES],
            o64: [0; MAX_LANES],
            t32: [0; 3 * MAX_LANES],
        }
    }
}

/// Executes an ALU instruction or shuffle in the lanes of `exec`.
#[inline]
pub(crate) fn execute(kind: &Kind, rf: &mut RegFile, consts: &Consts, exec: u64, s: &mut Scratch) {
    match kind {
        Kind::Unary(alu)
        | Kind::Binary(alu)
        | Kind::Select(alu)
        | Kind::Cmpx(alu)
        | Kind::Shfl(alu) => (alu.run)(alu, rf, exec, consts, s),
        _ => unreachable!("not an ALU or shuffle instruction: {kind:?}"),
    }
}

#[cfg(test)]
mod tests;
