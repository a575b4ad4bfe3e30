//! Instructions and their operands.

use crate::entities::{Label, Param, Reg};
use crate::opcode::Opcode;

/// A read-only value every thread can name: its position in the launch.
///
/// All are 32-bit. Text names follow PTX (`%laneid`, `%tid.x`, ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Special {
    /// The lane's index in its warp, `0..warp_size`.
    LaneId,
    /// The warp's index in its block (threads are numbered x fastest, then y, then z).
    WarpId,
    /// The number of warps in the block.
    NWarps,
    /// The warp width of the simulated machine.
    WarpSize,
    /// Thread index in the block, x.
    TidX,
    /// Thread index in the block, y.
    TidY,
    /// Thread index in the block, z.
    TidZ,
    /// Block dimensions, x.
    NtidX,
    /// Block dimensions, y.
    NtidY,
    /// Block dimensions, z.
    NtidZ,
    /// Block index in the grid, x.
    CtaidX,
    /// Block index in the grid, y.
    CtaidY,
    /// Block index in the grid, z.
    CtaidZ,
    /// Grid dimensions, x.
    NctaidX,
    /// Grid dimensions, y.
    NctaidY,
    /// Grid dimensions, z.
    NctaidZ,
}

impl Special {
    /// Every special value, in table order.
    pub const ALL: [Special; 16] = [
        Special::LaneId,
        Special::WarpId,
        Special::NWarps,
        Special::WarpSize,
        Special::TidX,
        Special::TidY,
        Special::TidZ,
        Special::NtidX,
        Special::NtidY,
        Special::NtidZ,
        Special::CtaidX,
        Special::CtaidY,
        Special::CtaidZ,
        Special::NctaidX,
        Special::NctaidY,
        Special::NctaidZ,
    ];

    /// The text name, with its `%`.
    pub const fn name(self) -> &'static str {
        match self {
            Special::LaneId => "%laneid",
            Special::WarpId => "%warpid",
            Special::NWarps => "%nwarps",
            Special::WarpSize => "%warpsize",
            Special::TidX => "%tid.x",
            Special::TidY => "%tid.y",
            Special::TidZ => "%tid.z",
            Special::NtidX => "%ntid.x",
            Special::NtidY => "%ntid.y",
            Special::NtidZ => "%ntid.z",
            Special::CtaidX => "%ctaid.x",
            Special::CtaidY => "%ctaid.y",
            Special::CtaidZ => "%ctaid.z",
            Special::NctaidX => "%nctaid.x",
            Special::NctaidY => "%nctaid.y",
            Special::NctaidZ => "%nctaid.z",
        }
    }

    /// The special value spelled `name` (with its `%`), if any.
    pub fn from_name(name: &str) -> Option<Special> {
        Special::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether every thread of a block sees the same value (so a branch on it
    /// cannot split the block, which is what the barrier rule needs).
    pub const fn is_block_uniform(self) -> bool {
        !matches!(
            self,
            Special::LaneId | Special::WarpId | Special::TidX | Special::TidY | Special::TidZ
        )
    }
}

/// A source operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A register.
    Reg(Reg),
    /// An integer immediate. For 32-bit operations it must lie in
    /// `-2^31 ..= 2^32 - 1` and is taken modulo 2^32.
    Imm(i64),
    /// A special value such as `%laneid`.
    Special(Special),
    /// A kernel parameter, printed `$name`.
    Param(Param),
}

impl From<Reg> for Operand {
    fn from(reg: Reg) -> Operand {
        Operand::Reg(reg)
    }
}

impl From<Special> for Operand {
    fn from(special: Special) -> Operand {
        Operand::Special(special)
    }
}

impl From<Param> for Operand {
    fn from(param: Param) -> Operand {
        Operand::Param(param)
    }
}

impl From<i64> for Operand {
    fn from(imm: i64) -> Operand {
        Operand::Imm(imm)
    }
}

impl From<u32> for Operand {
    fn from(imm: u32) -> Operand {
        Operand::Imm(imm.into())
    }
}

impl From<i32> for Operand {
    fn from(imm: i32) -> Operand {
        Operand::Imm(imm.into())
    }
}

/// A memory address: an optional base register plus a signed byte offset.
///
/// Global addresses need a 64-bit base (`d`), shared addresses a 32-bit one
/// (`r`) or none (an absolute shared offset, checked statically).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    /// The base register, if any.
    pub base: Option<Reg>,
    /// The byte offset added to the base.
    pub offset: i32,
}

/// Up to four registers moved by one load or store; their widths add up to
/// the access width (`b64` takes one `d` or two `r`, `b128` two `d` or four `r`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegList {
    regs: [Reg; 4],
    len: u8,
}

impl RegList {
    /// The most registers one list holds.
    pub const CAPACITY: usize = 4;

    /// A list of `regs`. Panics if there are more than [`RegList::CAPACITY`]
    /// or none (the parser checks before calling).
    pub fn new(regs: &[Reg]) -> RegList {
        assert!(
            !regs.is_empty() && regs.len() <= Self::CAPACITY,
            "a register list holds 1 to 4 registers"
        );
        let mut all = [regs[0]; 4];
        all[..regs.len()].copy_from_slice(regs);
        RegList {
            regs: all,
            len: regs.len() as u8,
        }
    }

    /// The registers, in order (lowest address first).
    pub fn as_slice(&self) -> &[Reg] {
        &self.regs[..self.len as usize]
    }
}

impl From<Reg> for RegList {
    fn from(reg: Reg) -> RegList {
        RegList::new(&[reg])
    }
}

/// A predicate guard: the instruction runs only in lanes where `pred`
/// (or its negation, `@!p`) holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The predicate register.
    pub pred: Reg,
    /// Whether the guard is `@!pred`.
    pub negated: bool,
}

/// The operation and operands of one instruction, one variant per [`crate::Format`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum InstData {
    /// `op dst, src`
    Unary {
        /// The opcode.
        opcode: Opcode,
        /// The destination.
        dst: Reg,
        /// The source.
        src: Operand,
    },
    /// `op dst, a, b`
    Binary {
        /// The opcode.
        opcode: Opcode,
        /// The destination.
        dst: Reg,
        /// The two sources.
        args: [Operand; 2],
    },
    /// `op dst, a, b, pred`
    Select {
        /// The opcode.
        opcode: Opcode,
        /// The destination.
        dst: Reg,
        /// The value if `pred`, then the value if not.
        args: [Operand; 2],
        /// The selecting predicate.
        pred: Reg,
    },
    /// `op lo, hi`
    Cmpx {
        /// The opcode.
        opcode: Opcode,
        /// The registers that receive the minimum and the maximum.
        regs: [Reg; 2],
    },
    /// `op dsts, [addr]`
    Load {
        /// The opcode.
        opcode: Opcode,
        /// The destination registers.
        dsts: RegList,
        /// The address.
        addr: Address,
    },
    /// `op [addr], srcs`
    Store {
        /// The opcode.
        opcode: Opcode,
        /// The address.
        addr: Address,
        /// The source registers.
        srcs: RegList,
    },
    /// `op dst, [addr], src`
    Atomic {
        /// The opcode.
        opcode: Opcode,
        /// Receives the memory word's value before this lane's operation.
        dst: Reg,
        /// The address.
        addr: Address,
        /// The value combined with the memory word.
        src: Operand,
    },
    /// `op dst, src, lane, width`
    Shfl {
        /// The opcode.
        opcode: Opcode,
        /// The destination.
        dst: Reg,
        /// The register read in the source lane.
        src: Reg,
        /// Source lane, xor mask or delta, per the mode.
        lane: Operand,
        /// The segment width: a power of two, at most the warp width.
        width: u32,
    },
    /// `op label`
    Branch {
        /// The opcode.
        opcode: Opcode,
        /// The target.
        target: Label,
    },
    /// `op`
    Nullary {
        /// The opcode.
        opcode: Opcode,
    },
}

impl InstData {
    /// The instruction's opcode.
    pub fn opcode(&self) -> Opcode {
        match *self {
            InstData::Unary { opcode, .. }
            | InstData::Binary { opcode, .. }
            | InstData::Select { opcode, .. }
            | InstData::Cmpx { opcode, .. }
            | InstData::Load { opcode, .. }
            | InstData::Store { opcode, .. }
            | InstData::Atomic { opcode, .. }
            | InstData::Shfl { opcode, .. }
            | InstData::Branch { opcode, .. }
            | InstData::Nullary { opcode } => opcode,
        }
    }
}

/// One instruction: an optional guard and the operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// The predicate guard, if any.
    pub guard: Option<Guard>,
    /// The operation.
    pub data: InstData,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_stay_compact() {
        // The simulator walks instruction arrays in its inner loop; keep them small.
        assert_eq!(std::mem::size_of::<Operand>(), 16);
        assert_eq!(std::mem::size_of::<InstData>(), 48);
        assert_eq!(std::mem::size_of::<Inst>(), 56);
    }

    #[test]
    fn special_names_parse_back() {
        for s in Special::ALL {
            assert_eq!(Special::from_name(s.name()), Some(s));
        }
    }
}
