//! The opcode table: every operation's variant, text name and operand format.
//!
//! One table feeds the printer (`Opcode::name`), the parser
//! (`Opcode::from_name`) and the builder (`Opcode::format`), so the three can
//! never disagree about an operation's spelling or shape.

use std::fmt;

/// How an instruction's operands are laid out; each format is one
/// [`crate::InstData`] variant.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `op dst, src`
    Unary,
    /// `op dst, a, b`
    Binary,
    /// `op dst, a, b, pred`: `dst = pred ? a : b`
    Select,
    /// `op lo, hi`: `lo, hi = min(lo, hi), max(lo, hi)`
    Cmpx,
    /// `op dst | {d0, d1, ...}, [base+offset]`
    Load,
    /// `op [base+offset], src | {s0, s1, ...}`
    Store,
    /// `op dst, [base+offset], src`: a read-modify-write that returns the
    /// old value in `dst`.
    Atomic,
    /// `op dst, src, lane, width`
    Shfl,
    /// `op label`
    Branch,
    /// `op`
    Nullary,
}

/// The memory space of a load or store.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Device memory, addressed by a 64-bit byte address.
    Global,
    /// The block's shared memory, addressed by a 32-bit byte offset.
    Shared,
}

/// The mode of a warp shuffle (CUDA `__shfl_*_sync`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// Read from lane `lane` of the segment.
    Idx,
    /// Read from `lane ^ mask`.
    Xor,
    /// Read from `lane - delta`.
    Up,
    /// Read from `lane + delta`.
    Down,
}

/// An integer comparison (the `setp` family).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Less than.
    Lt,
    /// Less than or equal.
    Le,
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Ge,
}

macro_rules! opcodes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $format:ident; )*) => {
        /// Every operation of the IR. The text name is lower case with dots.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $(#[$doc])* $variant, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$variant, )* ];

            /// The opcode's text name, as printed and parsed.
            pub const fn name(self) -> &'static str {
                match self { $( Opcode::$variant => $name, )* }
            }

            /// The opcode's operand format.
            pub const fn format(self) -> Format {
                match self { $( Opcode::$variant => Format::$format, )* }
            }

            /// The opcode spelled `name`, if any.
            pub fn from_name(name: &str) -> Option<Opcode> {
                match name { $( $name => Some(Opcode::$variant), )* _ => None }
            }
        }
    };
}

opcodes! {
    /// Copy a register, immediate, special value or parameter.
    Mov = "mov", Unary;
    /// Bitwise not (logical not for predicates).
    Not = "not", Unary;
    /// Zero-extend a 32-bit value into a 64-bit register.
    CvtU64U32 = "cvt.u64.u32", Unary;
    /// Sign-extend a 32-bit value into a 64-bit register.
    CvtS64S32 = "cvt.s64.s32", Unary;
    /// Truncate a 64-bit value to its low 32 bits.
    CvtU32U64 = "cvt.u32.u64", Unary;
    /// Wrapping addition.
    Add = "add", Binary;
    /// Wrapping subtraction.
    Sub = "sub", Binary;
    /// Wrapping multiplication (the low half of the product).
    Mul = "mul", Binary;
    /// Shift left; amounts of the width or more give 0.
    Shl = "shl", Binary;
    /// Logical shift right; amounts of the width or more give 0.
    Shr = "shr", Binary;
    /// Arithmetic shift right; amounts of the width or more fill with the sign.
    Sra = "sra", Binary;
    /// Bitwise and (logical for predicates).
    And = "and", Binary;
    /// Bitwise or (logical for predicates).
    Or = "or", Binary;
    /// Bitwise exclusive or (logical for predicates).
    Xor = "xor", Binary;
    /// Unsigned minimum.
    MinU = "min.u", Binary;
    /// Unsigned maximum.
    MaxU = "max.u", Binary;
    /// Signed minimum.
    MinS = "min.s", Binary;
    /// Signed maximum.
    MaxS = "max.s", Binary;
    /// Predicate = a == b.
    SetpEq = "setp.eq", Binary;
    /// Predicate = a != b.
    SetpNe = "setp.ne", Binary;
    /// Predicate = a < b, unsigned.
    SetpLtU = "setp.lt.u", Binary;
    /// Predicate = a <= b, unsigned.
    SetpLeU = "setp.le.u", Binary;
    /// Predicate = a > b, unsigned.
    SetpGtU = "setp.gt.u", Binary;
    /// Predicate = a >= b, unsigned.
    SetpGeU = "setp.ge.u", Binary;
    /// Predicate = a < b, signed.
    SetpLtS = "setp.lt.s", Binary;
    /// Predicate = a <= b, signed.
    SetpLeS = "setp.le.s", Binary;
    /// Predicate = a > b, signed.
    SetpGtS = "setp.gt.s", Binary;
    /// Predicate = a >= b, signed.
    SetpGeS = "setp.ge.s", Binary;
    /// `dst = pred ? a : b`.
    Selp = "selp", Select;
    /// Unsigned compare-exchange: `lo, hi = min(lo, hi), max(lo, hi)`.
    CmpxU = "cmpx.u", Cmpx;
    /// Signed compare-exchange.
    CmpxS = "cmpx.s", Cmpx;
    /// Load 32 bits from global memory.
    LdGlobalB32 = "ld.global.b32", Load;
    /// Load 64 bits from global memory.
    LdGlobalB64 = "ld.global.b64", Load;
    /// Load 128 bits from global memory.
    LdGlobalB128 = "ld.global.b128", Load;
    /// Store 32 bits to global memory.
    StGlobalB32 = "st.global.b32", Store;
    /// Store 64 bits to global memory.
    StGlobalB64 = "st.global.b64", Store;
    /// Store 128 bits to global memory.
    StGlobalB128 = "st.global.b128", Store;
    /// Load 32 bits from shared memory.
    LdSharedB32 = "ld.shared.b32", Load;
    /// Load 64 bits from shared memory.
    LdSharedB64 = "ld.shared.b64", Load;
    /// Load 128 bits from shared memory.
    LdSharedB128 = "ld.shared.b128", Load;
    /// Store 32 bits to shared memory.
    StSharedB32 = "st.shared.b32", Store;
    /// Store 64 bits to shared memory.
    StSharedB64 = "st.shared.b64", Store;
    /// Store 128 bits to shared memory.
    StSharedB128 = "st.shared.b128", Store;
    /// Atomic add of a u32 to a shared word; `dst` gets the word's value
    /// before this lane's addition. The active lanes of one warp
    /// instruction apply their additions in ascending lane order.
    AtomSharedAddU32 = "atom.shared.add.u32", Atomic;
    /// Shuffle: read `src` of lane `lane` within the segment.
    ShflIdx = "shfl.idx", Shfl;
    /// Shuffle: read `src` of lane `lane ^ mask`.
    ShflXor = "shfl.xor", Shfl;
    /// Shuffle: read `src` of lane `lane - delta`.
    ShflUp = "shfl.up", Shfl;
    /// Shuffle: read `src` of lane `lane + delta`.
    ShflDown = "shfl.down", Shfl;
    /// Wait until every warp of the block arrives (`__syncthreads`).
    BarSync = "bar.sync", Nullary;
    /// Warp-level synchronisation (`__syncwarp`): orders memory within the warp.
    WarpSync = "warp.sync", Nullary;
    /// Branch to a label (conditional when guarded).
    Bra = "bra", Branch;
    /// End the guarded-on lanes.
    Exit = "exit", Nullary;
}

impl Opcode {
    /// The memory space and access width in bytes of a load, store or atomic.
    pub const fn memory(self) -> Option<(Space, u32)> {
        use Opcode::*;
        Some(match self {
            LdGlobalB32 | StGlobalB32 => (Space::Global, 4),
            LdGlobalB64 | StGlobalB64 => (Space::Global, 8),
            LdGlobalB128 | StGlobalB128 => (Space::Global, 16),
            LdSharedB32 | StSharedB32 | AtomSharedAddU32 => (Space::Shared, 4),
            LdSharedB64 | StSharedB64 => (Space::Shared, 8),
            LdSharedB128 | StSharedB128 => (Space::Shared, 16),
            _ => return None,
        })
    }

    /// Whether the operation is an atomic read-modify-write (the
    /// [`Format::Atomic`] format).
    pub const fn is_atomic(self) -> bool {
        matches!(self.format(), Format::Atomic)
    }

    /// The comparison and signedness of a `setp`.
    pub const fn comparison(self) -> Option<(Cmp, bool)> {
        use Opcode::*;
        Some(match self {
            SetpEq => (Cmp::Eq, false),
            SetpNe => (Cmp::Ne, false),
            SetpLtU => (Cmp::Lt, false),
            SetpLeU => (Cmp::Le, false),
            SetpGtU => (Cmp::Gt, false),
            SetpGeU => (Cmp::Ge, false),
            SetpLtS => (Cmp::Lt, true),
            SetpLeS => (Cmp::Le, true),
            SetpGtS => (Cmp::Gt, true),
            SetpGeS => (Cmp::Ge, true),
            _ => return None,
        })
    }

    /// The mode of a shuffle.
    pub const fn shfl_mode(self) -> Option<ShflMode> {
        match self {
            Opcode::ShflIdx => Some(ShflMode::Idx),
            Opcode::ShflXor => Some(ShflMode::Xor),
            Opcode::ShflUp => Some(ShflMode::Up),
            Opcode::ShflDown => Some(ShflMode::Down),
            _ => None,
        }
    }

    /// Whether the operation accepts predicate operands (logic on predicates).
    pub const fn allows_predicates(self) -> bool {
        matches!(
            self,
            Opcode::Mov | Opcode::Not | Opcode::And | Opcode::Or | Opcode::Xor
        )
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_opcode() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op), "{op:?}");
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = Opcode::ALL.iter().map(|op| op.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Opcode::ALL.len());
    }
}
