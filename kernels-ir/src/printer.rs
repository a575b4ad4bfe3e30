//! The printer: a kernel's canonical `.kir` text.
//!
//! The printer is the definition of canonical form (see the crate's
//! `README.md`): the parser accepts more spellings, the printer emits exactly
//! one. `parse(print(k)) == k` holds for every kernel whose names are plain
//! identifiers and whose labels are numbered in position order, which is how
//! [`crate::KernelBuilder::build`] and the parser number them.

use std::fmt::{self, Write};

use crate::inst::{Address, Inst, InstData, Operand, RegList};
use crate::kernel::Kernel;

/// The kernel's canonical text.
pub fn print_kernel(kernel: &Kernel) -> String {
    print_with_lines(kernel).0
}

/// The kernel's canonical text and, for each instruction, its 1-based line
/// number in that text (what a trace viewer needs to show source by `pc`).
pub fn print_with_lines(kernel: &Kernel) -> (String, Vec<u32>) {
    let mut out = String::new();
    let mut line = 1u32;
    let mut lines = Vec::with_capacity(kernel.insts.len());
    let mut push = |out: &mut String, text: fmt::Arguments<'_>| {
        // Writing into a String cannot fail.
        let _ = out.write_fmt(text);
        out.push('\n');
        line += 1;
        line - 1
    };
    push(&mut out, format_args!("kernel {} {{", kernel.name));
    for p in &kernel.params {
        push(
            &mut out,
            format_args!("    param {}: {}", p.name, p.ty.name()),
        );
    }
    let r = &kernel.regs;
    push(
        &mut out,
        format_args!("    regs r{} d{} p{}", r.b32, r.b64, r.pred),
    );
    push(&mut out, format_args!("    shared {}", kernel.shared_bytes));
    // Labels in table order within each position, so that parsing the text
    // numbers them as they were.
    let mut labels: Vec<(u32, usize)> = kernel
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.pos, i))
        .collect();
    labels.sort_unstable();
    let mut next_label = labels.iter().peekable();
    for (pc, inst) in kernel.insts.iter().enumerate() {
        while let Some(&&(pos, i)) = next_label.peek() {
            if pos as usize > pc {
                break;
            }
            push(&mut out, format_args!("  {}:", kernel.labels[i].name));
            next_label.next();
        }
        lines.push(push(
            &mut out,
            format_args!("    {}", InstDisplay { kernel, inst }),
        ));
    }
    // Labels at the end; a label past the end (which the verifier rejects)
    // prints here too, and so does an unplaced one only if it is referenced
    // (as a branch target), which is what the printer cannot show otherwise.
    for &(pos, i) in next_label {
        if (pos as usize) <= kernel.insts.len() {
            push(&mut out, format_args!("  {}:", kernel.labels[i].name));
        }
    }
    push(&mut out, format_args!("}}"));
    (out, lines)
}

/// One instruction's canonical text, without indentation.
pub fn print_inst(kernel: &Kernel, inst: &Inst) -> String {
    InstDisplay { kernel, inst }.to_string()
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_kernel(self))
    }
}

/// Displays one instruction in the context of its kernel (which names the
/// parameters and labels).
struct InstDisplay<'a> {
    kernel: &'a Kernel,
    inst: &'a Inst,
}

impl InstDisplay<'_> {
    fn operand(&self, f: &mut fmt::Formatter<'_>, op: &Operand) -> fmt::Result {
        match *op {
            Operand::Reg(reg) => write!(f, "{reg}"),
            Operand::Imm(imm) => write!(f, "{imm}"),
            Operand::Special(s) => f.write_str(s.name()),
            Operand::Param(p) => match self.kernel.params.get(p.index()) {
                Some(data) => write!(f, "${}", data.name),
                // An undeclared parameter (the verifier rejects it) still
                // prints something recognisable.
                None => write!(f, "$?{}", p.index()),
            },
        }
    }
}

fn write_address(f: &mut fmt::Formatter<'_>, addr: &Address) -> fmt::Result {
    match addr.base {
        None => write!(f, "[{}]", addr.offset),
        Some(base) if addr.offset < 0 => write!(f, "[{base}-{}]", -i64::from(addr.offset)),
        Some(base) => write!(f, "[{base}+{}]", addr.offset),
    }
}

fn write_regs(f: &mut fmt::Formatter<'_>, list: &RegList) -> fmt::Result {
    match list.as_slice() {
        [one] => write!(f, "{one}"),
        regs => {
            f.write_str("{")?;
            for (i, r) in regs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{r}")?;
            }
            f.write_str("}")
        }
    }
}

impl fmt::Display for InstDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(guard) = self.inst.guard {
            write!(
                f,
                "@{}{} ",
                if guard.negated { "!" } else { "" },
                guard.pred
            )?;
        }
        let data = &self.inst.data;
        f.write_str(data.opcode().name())?;
        match data {
            InstData::Unary { dst, src, .. } => {
                write!(f, " {dst}, ")?;
                self.operand(f, src)
            }
            InstData::Binary { dst, args, .. } => {
                write!(f, " {dst}, ")?;
                self.operand(f, &args[0])?;
                f.write_str(", ")?;
                self.operand(f, &args[1])
            }
            InstData::Select {
                dst, args, pred, ..
            } => {
                write!(f, " {dst}, ")?;
                self.operand(f, &args[0])?;
                f.write_str(", ")?;
                self.operand(f, &args[1])?;
                write!(f, ", {pred}")
            }
            InstData::Cmpx { regs, .. } => write!(f, " {}, {}", regs[0], regs[1]),
            InstData::Load { dsts, addr, .. } => {
                f.write_str(" ")?;
                write_regs(f, dsts)?;
                f.write_str(", ")?;
                write_address(f, addr)
            }
            InstData::Store { addr, srcs, .. } => {
                f.write_str(" ")?;
                write_address(f, addr)?;
                f.write_str(", ")?;
                write_regs(f, srcs)
            }
            InstData::Atomic { dst, addr, src, .. } => {
                write!(f, " {dst}, ")?;
                write_address(f, addr)?;
                f.write_str(", ")?;
                self.operand(f, src)
            }
            InstData::Shfl {
                dst,
                src,
                lane,
                width,
                ..
            } => {
                write!(f, " {dst}, {src}, ")?;
                self.operand(f, lane)?;
                write!(f, ", {width}")
            }
            InstData::Branch { target, .. } => match self.kernel.labels.get(target.index()) {
                Some(label) => write!(f, " {}", label.name),
                None => write!(f, " ?{}", target.index()),
            },
            InstData::Nullary { .. } => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::KernelBuilder;
    use crate::entities::Reg;
    use crate::inst::Special;
    use crate::kernel::ParamType;
    use crate::opcode::Opcode;

    #[test]
    fn prints_the_canonical_layout() {
        let mut b = KernelBuilder::new("t");
        let n = b.param("n", ParamType::U32);
        let (r, d, p) = (b.reg32(), b.reg64(), b.pred());
        let done = b.label("done");
        b.shared(64, 4);
        b.mov(r, Special::TidX);
        b.setp_ge_u(p, r, n);
        b.when(p).bra(done);
        b.load(
            Opcode::LdSharedB64,
            RegList::new(&[Reg::r(0), Reg::r(0)]),
            None,
            8,
        );
        b.store(Opcode::StGlobalB32, Some(d), -8, r);
        b.unless(p).shfl_xor(r, r, 4, 32);
        b.bind(done);
        b.exit();
        let text = print_kernel(&b.build());
        let expected = "kernel t {
    param n: u32
    regs r1 d1 p1
    shared 64
    mov r0, %tid.x
    setp.ge.u p0, r0, $n
    @p0 bra done
    ld.shared.b64 {r0, r0}, [8]
    st.global.b32 [d0-8], r0
    @!p0 shfl.xor r0, r0, 4, 32
  done:
    exit
}
";
        assert_eq!(text, expected);
    }

    #[test]
    fn reports_the_line_of_every_instruction() {
        let mut b = KernelBuilder::new("t");
        let end = b.label("end");
        b.warp_sync();
        b.bind(end);
        b.exit();
        let kernel = b.build();
        let (text, lines) = print_with_lines(&kernel);
        let all: Vec<&str> = text.lines().collect();
        assert_eq!(lines, vec![4, 6]);
        assert_eq!(all[3], "    warp.sync");
        assert_eq!(all[5], "    exit");
    }

    #[test]
    fn a_label_at_the_end_prints_before_the_brace() {
        let mut b = KernelBuilder::new("t");
        let end = b.label("end");
        b.bra(end);
        b.bind(end);
        assert!(print_kernel(&b.build()).ends_with("    bra end\n  end:\n}\n"));
    }
}
