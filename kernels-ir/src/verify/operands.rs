//! The type rules of each instruction: register classes, immediate ranges,
//! memory operands and shuffle widths (see the crate's `README.md`,
//! "Type rules").

use crate::entities::{Reg, RegClass};
use crate::inst::{Address, Inst, InstData, Operand, RegList};
use crate::kernel::{Kernel, ParamType};
use crate::opcode::{Format, Opcode, Space};

/// The problems of one instruction, each a lower-case message.
pub(super) fn check_inst(kernel: &Kernel, inst: &Inst, out: &mut Vec<String>) {
    let mut c = Checker { kernel, out };
    if let Some(guard) = inst.guard
        && guard.pred.class() != RegClass::Pred
    {
        c.out.push(format!(
            "the guard must be a predicate register, found {}",
            guard.pred
        ));
    }
    let op = inst.data.opcode();
    if op.format() != format_of(&inst.data) {
        let format = format_of(&inst.data);
        c.out
            .push(format!("`{op}` does not take {format:?}-format operands"));
        return;
    }
    match inst.data {
        InstData::Unary { dst, src, .. } => c.unary(op, dst, &src),
        InstData::Binary { dst, args, .. } => c.binary(op, dst, &args),
        InstData::Select {
            dst, args, pred, ..
        } => {
            if dst.class() == RegClass::Pred {
                c.out.push(format!(
                    "`selp` destination must be a 32- or 64-bit register, found {dst}"
                ));
            } else {
                args.iter().for_each(|a| c.operand(op, a, dst.class()));
            }
            if pred.class() != RegClass::Pred {
                c.out.push(format!(
                    "`selp` selector must be a predicate register, found {pred}"
                ));
            }
        }
        InstData::Cmpx { regs: [lo, hi], .. } => {
            if lo.class() != hi.class() || lo.class() == RegClass::Pred {
                c.out.push(format!(
                    "`{op}` needs two registers of one integer class, found {lo} and {hi}"
                ));
            }
        }
        InstData::Load { dsts, addr, .. } => {
            c.reg_list(op, &dsts, true);
            c.address(op, &addr);
        }
        InstData::Store { srcs, addr, .. } => {
            c.reg_list(op, &srcs, false);
            c.address(op, &addr);
        }
        InstData::Atomic { dst, addr, src, .. } => {
            if dst.class() != RegClass::B32 {
                c.out.push(format!(
                    "`{op}` destination must be a 32-bit register, found {dst}"
                ));
            }
            c.operand(op, &src, RegClass::B32);
            c.address(op, &addr);
        }
        InstData::Shfl {
            dst,
            src,
            lane,
            width,
            ..
        } => {
            for (what, reg) in [("destination", dst), ("source", src)] {
                if reg.class() != RegClass::B32 {
                    c.out.push(format!(
                        "`{op}` {what} must be a 32-bit register, found {reg}"
                    ));
                }
            }
            c.operand(op, &lane, RegClass::B32);
            if !(1..=64).contains(&width) || !width.is_power_of_two() {
                c.out.push(format!(
                    "shuffle width {width} is not a power of two in 1..=64"
                ));
            }
        }
        InstData::Branch { target, .. } => {
            if target.index() >= kernel.labels.len() {
                c.out.push(format!(
                    "branch target label {} does not exist",
                    target.index()
                ));
            }
        }
        InstData::Nullary { opcode } => {
            if opcode == Opcode::BarSync && inst.guard.is_some() {
                c.out.push(
                    "`bar.sync` cannot be guarded: every thread of the block must reach it".into(),
                );
            }
        }
    }
}

/// The format an instruction's operands have (which must be its opcode's).
fn format_of(data: &InstData) -> Format {
    match data {
        InstData::Unary { .. } => Format::Unary,
        InstData::Binary { .. } => Format::Binary,
        InstData::Select { .. } => Format::Select,
        InstData::Cmpx { .. } => Format::Cmpx,
        InstData::Load { .. } => Format::Load,
        InstData::Store { .. } => Format::Store,
        InstData::Atomic { .. } => Format::Atomic,
        InstData::Shfl { .. } => Format::Shfl,
        InstData::Branch { .. } => Format::Branch,
        InstData::Nullary { .. } => Format::Nullary,
    }
}

fn class_name(class: RegClass) -> &'static str {
    match class {
        RegClass::B32 => "32-bit",
        RegClass::B64 => "64-bit",
        RegClass::Pred => "a predicate",
    }
}

/// Whether `imm` is a valid immediate for an operand of `class`.
pub(crate) fn imm_fits(imm: i64, class: RegClass) -> bool {
    match class {
        RegClass::B32 => (-(1i64 << 31)..=(1i64 << 32) - 1).contains(&imm),
        RegClass::B64 => true,
        RegClass::Pred => imm == 0 || imm == 1,
    }
}

struct Checker<'a> {
    kernel: &'a Kernel,
    out: &'a mut Vec<String>,
}

impl Checker<'_> {
    /// The class of a non-immediate operand (specials are 32-bit).
    fn class_of(&self, op: &Operand) -> Option<RegClass> {
        match *op {
            Operand::Reg(r) => Some(r.class()),
            Operand::Special(_) => Some(RegClass::B32),
            Operand::Param(p) => self.kernel.params.get(p.index()).map(|d| d.ty.reg_class()),
            Operand::Imm(_) => None,
        }
    }

    fn describe(&self, op: &Operand) -> String {
        match *op {
            Operand::Reg(r) => format!("{r}"),
            Operand::Imm(v) => format!("immediate {v}"),
            Operand::Special(s) => format!("{} (32-bit)", s.name()),
            Operand::Param(p) => match self.kernel.params.get(p.index()) {
                Some(d) => format!("${} ({})", d.name, d.ty.name()),
                None => format!("parameter {}", p.index()),
            },
        }
    }

    /// Checks that `op` can be read as a value of `want`.
    fn operand(&mut self, opcode: Opcode, op: &Operand, want: RegClass) {
        if let Operand::Param(p) = op
            && p.index() >= self.kernel.params.len()
        {
            self.out
                .push(format!("parameter {} is not declared", p.index()));
            return;
        }
        let ok = match *op {
            Operand::Imm(v) => imm_fits(v, want),
            _ => self.class_of(op) == Some(want),
        };
        if !ok {
            let what = match (op, want) {
                (Operand::Imm(_), RegClass::Pred) => "0 or 1".to_string(),
                (Operand::Imm(_), _) => format!("a {} value", class_name(want)),
                (_, RegClass::Pred) => "a predicate".into(),
                _ => class_name(want).to_string(),
            };
            self.out.push(format!(
                "`{opcode}` operand must be {what}, found {}",
                self.describe(op)
            ));
        }
    }

    fn unary(&mut self, op: Opcode, dst: Reg, src: &Operand) {
        let (dst_class, src_class) = match op {
            Opcode::CvtU64U32 | Opcode::CvtS64S32 => (RegClass::B64, RegClass::B32),
            Opcode::CvtU32U64 => (RegClass::B32, RegClass::B64),
            _ => (dst.class(), dst.class()),
        };
        if dst.class() != dst_class {
            let want = class_name(dst_class);
            self.out
                .push(format!("`{op}` destination must be {want}, found {dst}"));
        }
        self.operand(op, src, src_class);
    }

    fn binary(&mut self, op: Opcode, dst: Reg, args: &[Operand; 2]) {
        if op.comparison().is_some() {
            if dst.class() != RegClass::Pred {
                self.out.push(format!(
                    "`{op}` destination must be a predicate, found {dst}"
                ));
            }
            // The comparison's width is that of its non-immediate operands
            // (32 when both are immediates).
            let classes: Vec<RegClass> = args.iter().filter_map(|a| self.class_of(a)).collect();
            let width = classes.first().copied().unwrap_or(RegClass::B32);
            if width == RegClass::Pred {
                self.out
                    .push(format!("`{op}` compares integers, not predicates"));
                return;
            }
            args.iter().for_each(|a| self.operand(op, a, width));
            return;
        }
        let class = dst.class();
        if class == RegClass::Pred && !op.allows_predicates() {
            self.out.push(format!(
                "`{op}` does not operate on predicates (destination {dst})"
            ));
            return;
        }
        self.operand(op, &args[0], class);
        let shift = matches!(op, Opcode::Shl | Opcode::Shr | Opcode::Sra);
        self.operand(op, &args[1], if shift { RegClass::B32 } else { class });
    }

    fn reg_list(&mut self, op: Opcode, list: &RegList, load: bool) {
        let Some((_, bytes)) = op.memory() else {
            return;
        };
        let regs = list.as_slice();
        let class = regs[0].class();
        if class == RegClass::Pred || regs.iter().any(|r| r.class() != class) {
            let names: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
            self.out.push(format!(
                "`{op}` registers must all be 32-bit or all 64-bit, found {{{}}}",
                names.join(", ")
            ));
            return;
        }
        let bits: u32 = regs.iter().map(|r| r.class().bits()).sum();
        if bits != bytes * 8 {
            self.out.push(format!(
                "`{op}` moves {} bits but its registers hold {bits}",
                bytes * 8
            ));
        }
        if load
            && let Some(dup) = regs
                .iter()
                .enumerate()
                .find(|(i, r)| regs[..*i].contains(r))
        {
            self.out.push(format!("`{op}` writes {} twice", dup.1));
        }
    }

    fn address(&mut self, op: Opcode, addr: &Address) {
        let Some((space, bytes)) = op.memory() else {
            return;
        };
        match (space, addr.base) {
            (Space::Global, None) => self
                .out
                .push("a global address needs a 64-bit base register".into()),
            (Space::Global, Some(base)) if base.class() != RegClass::B64 => self.out.push(format!(
                "a global address base must be a 64-bit register, found {base}"
            )),
            (Space::Shared, Some(base)) if base.class() != RegClass::B32 => self.out.push(format!(
                "a shared address base must be a 32-bit register, found {base}"
            )),
            (Space::Shared, None) => {
                let (offset, size) = (i64::from(addr.offset), i64::from(self.kernel.shared_bytes));
                if offset < 0 || offset + i64::from(bytes) > size {
                    self.out.push(format!(
                        "shared access of {bytes} bytes at [{offset}] is outside the {size} \
                         declared bytes"
                    ));
                } else if offset % i64::from(bytes) != 0 {
                    self.out.push(format!(
                        "shared access of {bytes} bytes at [{offset}] is not aligned to {bytes}"
                    ));
                }
            }
            _ => {}
        }
    }
}

/// How many bytes of parameter space a kernel's parameters take (each is
/// aligned to its size, as CUDA lays them out).
pub(super) fn param_bytes(kernel: &Kernel) -> u64 {
    kernel.params.iter().fold(0u64, |at, p| {
        let size = match p.ty {
            ParamType::U32 => 4,
            ParamType::U64 => 8,
        };
        at.next_multiple_of(size) + size
    })
}
