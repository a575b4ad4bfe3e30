//! A builder for generators: allocate registers, labels and shared memory,
//! then append instructions with one call each.
//!
//! ```
//! use kernels_ir::{KernelBuilder, ParamType, Special};
//! let mut b = KernelBuilder::new("add_one");
//! let buf = b.param("buf", ParamType::U64);
//! let (tid, val, off) = (b.reg32(), b.reg32(), b.reg64());
//! let addr = b.reg64();
//! b.mov(tid, Special::TidX);
//! b.cvt_u64_u32(off, tid);
//! b.shl(off, off, 2);
//! b.add(addr, buf, off);
//! b.ld_global_b32(val, addr, 0);
//! b.add(val, val, 1);
//! b.st_global_b32(addr, 0, val);
//! b.exit();
//! let kernel = b.build();
//! assert_eq!(kernel.insts.len(), 8);
//! ```

use crate::entities::{Label, Param, Reg, RegClass};
use crate::inst::{Address, Guard, Inst, InstData, Operand, RegList};
use crate::kernel::{Kernel, LabelData, ParamData, ParamType, RegCounts};
use crate::opcode::{Format, Opcode};

/// The position of a label that was declared but never bound; the verifier
/// reports it.
pub const UNBOUND: u32 = u32::MAX;

/// Builds a [`Kernel`] one instruction at a time.
#[derive(Debug)]
pub struct KernelBuilder {
    kernel: Kernel,
    guard: Option<Guard>,
}

impl KernelBuilder {
    /// An empty kernel called `name`.
    pub fn new(name: impl Into<String>) -> KernelBuilder {
        KernelBuilder {
            kernel: Kernel {
                name: name.into(),
                params: Vec::new(),
                regs: RegCounts::default(),
                shared_bytes: 0,
                insts: Vec::new(),
                labels: Vec::new(),
            },
            guard: None,
        }
    }

    /// Declares a parameter.
    pub fn param(&mut self, name: impl Into<String>, ty: ParamType) -> Param {
        let param = Param::with_number(self.kernel.params.len() as u16);
        self.kernel.params.push(ParamData {
            name: name.into(),
            ty,
        });
        param
    }

    /// A fresh register of `class`.
    pub fn reg(&mut self, class: RegClass) -> Reg {
        let counts = &mut self.kernel.regs;
        let slot = match class {
            RegClass::B32 => &mut counts.b32,
            RegClass::B64 => &mut counts.b64,
            RegClass::Pred => &mut counts.pred,
        };
        let reg = Reg::with_number(class, *slot);
        *slot += 1;
        reg
    }

    /// A fresh 32-bit register.
    pub fn reg32(&mut self) -> Reg {
        self.reg(RegClass::B32)
    }

    /// A fresh 64-bit register.
    pub fn reg64(&mut self) -> Reg {
        self.reg(RegClass::B64)
    }

    /// A fresh predicate register.
    pub fn pred(&mut self) -> Reg {
        self.reg(RegClass::Pred)
    }

    /// `n` fresh 32-bit registers.
    pub fn regs32(&mut self, n: usize) -> Vec<Reg> {
        (0..n).map(|_| self.reg32()).collect()
    }

    /// Reserves `bytes` of static shared memory aligned to `align` bytes and
    /// returns its offset.
    pub fn shared(&mut self, bytes: u32, align: u32) -> u32 {
        let offset = self.kernel.shared_bytes.next_multiple_of(align.max(1));
        self.kernel.shared_bytes = offset + bytes;
        offset
    }

    /// Declares a label; a taken name gets a numeric suffix (`loop`, `loop_1`, ...).
    pub fn label(&mut self, name: &str) -> Label {
        let mut unique = name.to_string();
        let mut n = 0;
        while self.kernel.labels.iter().any(|l| l.name == unique) {
            n += 1;
            unique = format!("{name}_{n}");
        }
        let label = Label::with_number(self.kernel.labels.len() as u32);
        self.kernel.labels.push(LabelData {
            name: unique,
            pos: UNBOUND,
        });
        label
    }

    /// The pc the next instruction will have.
    pub fn next_pc(&self) -> u32 {
        self.kernel.insts.len() as u32
    }

    /// Places `label` before the next instruction.
    pub fn bind(&mut self, label: Label) {
        self.kernel.labels[label.index()].pos = self.kernel.insts.len() as u32;
    }

    /// Guards the next instruction with `@pred`.
    pub fn when(&mut self, pred: Reg) -> &mut Self {
        self.guard = Some(Guard {
            pred,
            negated: false,
        });
        self
    }

    /// Guards the next instruction with `@!pred`.
    pub fn unless(&mut self, pred: Reg) -> &mut Self {
        self.guard = Some(Guard {
            pred,
            negated: true,
        });
        self
    }

    /// Appends `data` under the pending guard, if any.
    pub fn push(&mut self, data: InstData) -> &mut Self {
        let guard = self.guard.take();
        self.kernel.insts.push(Inst { guard, data });
        self
    }

    /// Appends a unary-format operation.
    pub fn unary(&mut self, opcode: Opcode, dst: Reg, src: impl Into<Operand>) -> &mut Self {
        debug_assert_eq!(opcode.format(), Format::Unary);
        self.push(InstData::Unary {
            opcode,
            dst,
            src: src.into(),
        })
    }

    /// Appends a binary-format operation (arithmetic, logic, min/max, `setp`).
    pub fn binary(
        &mut self,
        opcode: Opcode,
        dst: Reg,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> &mut Self {
        debug_assert_eq!(opcode.format(), Format::Binary);
        self.push(InstData::Binary {
            opcode,
            dst,
            args: [a.into(), b.into()],
        })
    }

    /// `dst = pred ? a : b`.
    pub fn selp(
        &mut self,
        dst: Reg,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        pred: Reg,
    ) -> &mut Self {
        self.push(InstData::Select {
            opcode: Opcode::Selp,
            dst,
            args: [a.into(), b.into()],
            pred,
        })
    }

    /// Unsigned compare-exchange: `lo, hi = min(lo, hi), max(lo, hi)`.
    pub fn cmpx_u(&mut self, lo: Reg, hi: Reg) -> &mut Self {
        self.push(InstData::Cmpx {
            opcode: Opcode::CmpxU,
            regs: [lo, hi],
        })
    }

    /// Signed compare-exchange.
    pub fn cmpx_s(&mut self, lo: Reg, hi: Reg) -> &mut Self {
        self.push(InstData::Cmpx {
            opcode: Opcode::CmpxS,
            regs: [lo, hi],
        })
    }

    /// A load of any width and space: `opcode dsts, [base+offset]`.
    pub fn load(
        &mut self,
        opcode: Opcode,
        dsts: impl Into<RegList>,
        base: Option<Reg>,
        offset: i32,
    ) -> &mut Self {
        debug_assert_eq!(opcode.format(), Format::Load);
        self.push(InstData::Load {
            opcode,
            dsts: dsts.into(),
            addr: Address { base, offset },
        })
    }

    /// A store of any width and space: `opcode [base+offset], srcs`.
    pub fn store(
        &mut self,
        opcode: Opcode,
        base: Option<Reg>,
        offset: i32,
        srcs: impl Into<RegList>,
    ) -> &mut Self {
        debug_assert_eq!(opcode.format(), Format::Store);
        self.push(InstData::Store {
            opcode,
            addr: Address { base, offset },
            srcs: srcs.into(),
        })
    }

    /// `ld.global.b32 dst, [base+offset]`.
    pub fn ld_global_b32(&mut self, dst: Reg, base: Reg, offset: i32) -> &mut Self {
        self.load(Opcode::LdGlobalB32, dst, Some(base), offset)
    }

    /// `st.global.b32 [base+offset], src`.
    pub fn st_global_b32(&mut self, base: Reg, offset: i32, src: Reg) -> &mut Self {
        self.store(Opcode::StGlobalB32, Some(base), offset, src)
    }

    /// `ld.shared.b32 dst, [base+offset]`.
    pub fn ld_shared_b32(&mut self, dst: Reg, base: Option<Reg>, offset: i32) -> &mut Self {
        self.load(Opcode::LdSharedB32, dst, base, offset)
    }

    /// `st.shared.b32 [base+offset], src`.
    pub fn st_shared_b32(&mut self, base: Option<Reg>, offset: i32, src: Reg) -> &mut Self {
        self.store(Opcode::StSharedB32, base, offset, src)
    }

    /// `atom.shared.add.u32 dst, [base+offset], src`: adds `src` to the
    /// shared word and puts the word's old value in `dst`.
    pub fn atom_shared_add_u32(
        &mut self,
        dst: Reg,
        base: Option<Reg>,
        offset: i32,
        src: impl Into<Operand>,
    ) -> &mut Self {
        self.push(InstData::Atomic {
            opcode: Opcode::AtomSharedAddU32,
            dst,
            addr: Address { base, offset },
            src: src.into(),
        })
    }

    /// A shuffle of any mode: `opcode dst, src, lane, width`.
    pub fn shfl(
        &mut self,
        opcode: Opcode,
        dst: Reg,
        src: Reg,
        lane: impl Into<Operand>,
        width: u32,
    ) -> &mut Self {
        debug_assert_eq!(opcode.format(), Format::Shfl);
        self.push(InstData::Shfl {
            opcode,
            dst,
            src,
            lane: lane.into(),
            width,
        })
    }

    /// `shfl.xor dst, src, mask, width`.
    pub fn shfl_xor(&mut self, dst: Reg, src: Reg, mask: u32, width: u32) -> &mut Self {
        self.shfl(Opcode::ShflXor, dst, src, mask, width)
    }

    /// `bra target`.
    pub fn bra(&mut self, target: Label) -> &mut Self {
        self.push(InstData::Branch {
            opcode: Opcode::Bra,
            target,
        })
    }

    /// `bar.sync`.
    pub fn bar_sync(&mut self) -> &mut Self {
        self.push(InstData::Nullary {
            opcode: Opcode::BarSync,
        })
    }

    /// `warp.sync`.
    pub fn warp_sync(&mut self) -> &mut Self {
        self.push(InstData::Nullary {
            opcode: Opcode::WarpSync,
        })
    }

    /// `exit`.
    pub fn exit(&mut self) -> &mut Self {
        self.push(InstData::Nullary {
            opcode: Opcode::Exit,
        })
    }

    /// The finished kernel. Unbound labels keep position [`UNBOUND`] and are
    /// reported by the verifier. Labels are renumbered in position order
    /// ([`Kernel::sort_labels`]), the numbering the text format implies.
    pub fn build(mut self) -> Kernel {
        self.kernel.sort_labels();
        self.kernel
    }
}

macro_rules! unary_methods {
    ($( $(#[$doc:meta])* $method:ident => $opcode:ident ),* $(,)?) => {
        impl KernelBuilder {
            $( $(#[$doc])* pub fn $method(&mut self, dst: Reg, src: impl Into<Operand>) -> &mut Self {
                self.unary(Opcode::$opcode, dst, src)
            } )*
        }
    };
}

macro_rules! binary_methods {
    ($( $(#[$doc:meta])* $method:ident => $opcode:ident ),* $(,)?) => {
        impl KernelBuilder {
            $( $(#[$doc])* pub fn $method(
                &mut self,
                dst: Reg,
                a: impl Into<Operand>,
                b: impl Into<Operand>,
            ) -> &mut Self {
                self.binary(Opcode::$opcode, dst, a, b)
            } )*
        }
    };
}

unary_methods! {
    /// `mov dst, src`.
    mov => Mov,
    /// `not dst, src`.
    not => Not,
    /// `cvt.u64.u32 dst, src` (zero-extend).
    cvt_u64_u32 => CvtU64U32,
    /// `cvt.s64.s32 dst, src` (sign-extend).
    cvt_s64_s32 => CvtS64S32,
    /// `cvt.u32.u64 dst, src` (truncate).
    cvt_u32_u64 => CvtU32U64,
}

binary_methods! {
    /// `add dst, a, b`.
    add => Add,
    /// `sub dst, a, b`.
    sub => Sub,
    /// `mul dst, a, b`.
    mul => Mul,
    /// `shl dst, a, b`.
    shl => Shl,
    /// `shr dst, a, b`.
    shr => Shr,
    /// `sra dst, a, b`.
    sra => Sra,
    /// `and dst, a, b`.
    and => And,
    /// `or dst, a, b`.
    or => Or,
    /// `xor dst, a, b`.
    xor => Xor,
    /// `min.u dst, a, b`.
    min_u => MinU,
    /// `max.u dst, a, b`.
    max_u => MaxU,
    /// `min.s dst, a, b`.
    min_s => MinS,
    /// `max.s dst, a, b`.
    max_s => MaxS,
    /// `setp.eq dst, a, b`.
    setp_eq => SetpEq,
    /// `setp.ne dst, a, b`.
    setp_ne => SetpNe,
    /// `setp.lt.u dst, a, b`.
    setp_lt_u => SetpLtU,
    /// `setp.le.u dst, a, b`.
    setp_le_u => SetpLeU,
    /// `setp.gt.u dst, a, b`.
    setp_gt_u => SetpGtU,
    /// `setp.ge.u dst, a, b`.
    setp_ge_u => SetpGeU,
    /// `setp.lt.s dst, a, b`.
    setp_lt_s => SetpLtS,
    /// `setp.ge.s dst, a, b`.
    setp_ge_s => SetpGeS,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_atomic_builder_fills_every_operand() {
        let mut b = KernelBuilder::new("t");
        let (dst, base) = (b.reg32(), b.reg32());
        b.when(Reg::p(0))
            .atom_shared_add_u32(dst, Some(base), -4, 3u32);
        let k = b.build();
        assert_eq!(
            k.insts[0],
            Inst {
                guard: Some(Guard {
                    pred: Reg::p(0),
                    negated: false
                }),
                data: InstData::Atomic {
                    opcode: Opcode::AtomSharedAddU32,
                    dst,
                    addr: Address {
                        base: Some(base),
                        offset: -4
                    },
                    src: Operand::Imm(3),
                },
            }
        );
        assert!(Opcode::AtomSharedAddU32.is_atomic());
        assert_eq!(Opcode::AtomSharedAddU32.format(), Format::Atomic);
    }
}
