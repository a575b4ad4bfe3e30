//! Entity handles: registers, labels and parameters.
//!
//! Handles are small `Copy` numbers with a fixed text prefix, as Cranelift's
//! `entities.rs` does: `r3` is 32-bit register 3, `d3` 64-bit register 3,
//! `p3` predicate register 3. The three classes have separate numbering.

use std::fmt;

/// The class of a register, which fixes its width.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// A 32-bit integer register, printed `rN`.
    B32,
    /// A 64-bit integer register, printed `dN`.
    B64,
    /// A one-bit predicate register, printed `pN`.
    Pred,
}

impl RegClass {
    /// The text prefix of registers of this class.
    pub const fn prefix(self) -> char {
        match self {
            RegClass::B32 => 'r',
            RegClass::B64 => 'd',
            RegClass::Pred => 'p',
        }
    }

    /// Width in bits of one register of this class (1 for predicates).
    pub const fn bits(self) -> u32 {
        match self {
            RegClass::B32 => 32,
            RegClass::B64 => 64,
            RegClass::Pred => 1,
        }
    }

    /// All classes, in declaration order.
    pub const ALL: [RegClass; 3] = [RegClass::B32, RegClass::B64, RegClass::Pred];
}

/// A register: its class in the top two bits, its number below.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(u32);

impl Reg {
    const INDEX_BITS: u32 = 30;
    const INDEX_MASK: u32 = (1 << Self::INDEX_BITS) - 1;

    /// The largest register number any class can hold.
    pub const MAX_INDEX: u32 = Self::INDEX_MASK;

    /// Register `index` of `class`. Panics if `index > Reg::MAX_INDEX`
    /// (the parser checks the range before calling).
    pub const fn with_number(class: RegClass, index: u32) -> Reg {
        assert!(index <= Self::INDEX_MASK, "register number out of range");
        let tag = match class {
            RegClass::B32 => 0,
            RegClass::B64 => 1,
            RegClass::Pred => 2,
        };
        Reg((tag << Self::INDEX_BITS) | index)
    }

    /// 32-bit register `rN`.
    pub const fn r(index: u32) -> Reg {
        Reg::with_number(RegClass::B32, index)
    }

    /// 64-bit register `dN`.
    pub const fn d(index: u32) -> Reg {
        Reg::with_number(RegClass::B64, index)
    }

    /// Predicate register `pN`.
    pub const fn p(index: u32) -> Reg {
        Reg::with_number(RegClass::Pred, index)
    }

    /// The register's class.
    pub const fn class(self) -> RegClass {
        match self.0 >> Self::INDEX_BITS {
            0 => RegClass::B32,
            1 => RegClass::B64,
            _ => RegClass::Pred,
        }
    }

    /// The register's number within its class.
    pub const fn index(self) -> u32 {
        self.0 & Self::INDEX_MASK
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class().prefix(), self.index())
    }
}

impl fmt::Debug for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A branch target: an index into [`crate::Kernel::labels`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub u32);

impl Label {
    /// Label number `n` (the parser's constructor).
    pub const fn with_number(n: u32) -> Label {
        Label(n)
    }

    /// The label's index in the kernel's label table.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A kernel parameter: an index into [`crate::Kernel::params`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Param(pub u16);

impl Param {
    /// Parameter number `n` (the parser's constructor).
    pub const fn with_number(n: u16) -> Param {
        Param(n)
    }

    /// The parameter's index in the kernel's parameter list.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_print_with_their_class_prefix() {
        assert_eq!(Reg::r(7).to_string(), "r7");
        assert_eq!(Reg::d(0).to_string(), "d0");
        assert_eq!(Reg::p(12).to_string(), "p12");
    }

    #[test]
    fn register_class_and_index_round_trip() {
        for class in RegClass::ALL {
            for index in [0, 1, 1000, Reg::MAX_INDEX] {
                let reg = Reg::with_number(class, index);
                assert_eq!(reg.class(), class);
                assert_eq!(reg.index(), index);
            }
        }
    }
}
