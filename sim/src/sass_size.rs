//! How many SASS instructions ptxas emits for each IR instruction: the
//! kernel's code size, which lays it out for instruction fetch
//! ([`crate::icache`]; [`crate::decode::Program::sass_at`]).
//!
//! This is not what an instruction costs to issue ([`crate::sass_slots`]):
//! the two differ where ptxas turns IR instructions into register names
//! rather than instructions, and where the timing model charges a folded
//! pair less than ptxas writes. Read off the SASS of HotSort's `bs` over
//! 64-bit keys (`hw/data/h200/sass/hotsort_k64_counts.txt`: 9,496
//! instructions, 148 KB, where issue slots laid it out over 11,877), whose
//! 1,120 shuffles of 32-bit halves and 988 64-bit `cmpx` ptxas emits as
//! 1,120 `SHFL.BFLY`, 3,952 `ISETP` and 3,952 `SEL` and nothing else:
//!
//! - **Packing a 64-bit value's halves is free.** A 64-bit register is a
//!   pair of 32-bit ones in SASS, so `cvt.u32.u64` (the low half),
//!   `cvt.u64.u32` (a half beside a zero: `RZ`), `shl`/`shr` by 32 (the
//!   other half, beside a zero) and an `or` of two values whose nonzero
//!   halves do not overlap (known here from the instructions before it in
//!   the same straight-line code) are register renames: 0 instructions,
//!   unguarded (under a guard they copy).
//!   `bs`'s 1,120 `cvt.u32.u64`, 1,121 `cvt.u64.u32`, 560 `shl` and 560
//!   `shr` by 32 and 560 `or` have no SASS.
//! - **A 64-bit `cmpx` is 8 instructions, folded or not.** Two `ISETP`
//!   for each of the minimum's and the maximum's compare of the halves, and
//!   a `SEL` for each half of each. Where it folds with the predicated
//!   `mov` after it ([`crate::select_fold`]) ptxas writes the `mov` as two
//!   of those `SEL`s under the guard (`@P2 SEL`): the `mov` takes no room
//!   of its own, the pair 8 instructions (issued as the `cmpx`'s 7 slots
//!   and the `mov`'s one). A 32-bit folded pair is the two `VIMNMX`
//!   its issue slots say.
//!
//! - **A three-input pair is one instruction.** A 32-bit multiply, add or
//!   shift by a constant and the add after it that overwrites its result
//!   are one `IMAD`, `IADD3` or `LEA` ([`crate::three_input`]): the second
//!   takes no room.
//!
//! Every other instruction takes its issue slots: one SASS instruction for
//! loads, stores, shuffles, branches and barriers; 64-bit compares,
//! minimums, maximums and selects their halves. Address arithmetic
//! (`cvt`, `shl`, `add` of 64-bit addresses), which ptxas folds into
//! `LEA`/`IMAD.WIDE`, stays an instruction each but the `cvt` (a few in a
//! kernel).

use kernels_ir::{
    Dim3, Inst, InstData, Kernel, Opcode, Operand, ParamType, ParamValue, RegClass, VerifiedKernel,
};

use crate::exec::{AluOp, CmpxOp};

/// The kernel's code size as the model lays it out: the SASS instructions
/// (16 bytes each) ptxas emits for `vk`, one IR instruction at a time.
/// What `hw/sass.sh` counts, within the few address computations and
/// moves ptxas folds (tests/code_size.rs checks it against the committed
/// counts of hw/data/h200/sass/).
pub fn code_size(vk: &VerifiedKernel) -> u32 {
    let params: Vec<ParamValue> = (vk.kernel().params.iter())
        .map(|p| match p.ty {
            ParamType::U32 => ParamValue::U32(0),
            ParamType::U64 => ParamValue::U64(0),
        })
        .collect();
    let shape = crate::decode::Shape {
        warp_size: 32,
        grid: Dim3::x(1),
        block: Dim3::x(32),
        params: &params,
        icache_line_bytes: 128,
    };
    let program = crate::decode::decode(vk, &shape);
    *program.sass_at.last().expect("one entry past the end")
}

/// Which halves of a 64-bit register are known to be zero.
#[derive(Copy, Clone, Default)]
struct Halves {
    lo_zero: bool,
    hi_zero: bool,
}

/// Which instructions of `kernel` are register renames in SASS: unguarded
/// packing of a 64-bit value's halves (see the module's doc). ptxas emits
/// nothing for them, so they take no room in the code and no issue slot
/// where the warp reaches them straight on ([`crate::issue`]).
pub(crate) fn renames(kernel: &Kernel) -> Vec<bool> {
    let insts = &kernel.insts;
    let mut starts_block = vec![false; insts.len() + 1];
    for label in &kernel.labels {
        starts_block[label.pos as usize] = true;
    }
    let mut halves = vec![Halves::default(); kernel.regs.b64 as usize];
    let mut out = Vec::with_capacity(insts.len());
    for (pc, inst) in insts.iter().enumerate() {
        if starts_block[pc] {
            // Another path may enter here: nothing is known.
            halves.fill(Halves::default());
        }
        // A guarded one keeps the old value where it is off: a copy.
        let renamed = inst
            .guard
            .is_none()
            .then(|| rename(inst, &halves))
            .flatten();
        out.push(renamed.is_some());
        track(inst, renamed, &mut halves);
    }
    out
}

/// The SASS instructions ptxas emits for each instruction of `kernel`,
/// given each one's issue slots (`issue[pc]`) and whether it is a rename
/// (`renamed[pc]`, from [`renames`]).
pub(crate) fn code_sizes(kernel: &Kernel, issue: &[u8], renamed: &[bool]) -> Vec<u8> {
    let insts = &kernel.insts;
    (0..insts.len())
        .map(|pc| match insts[pc].data {
            _ if renamed[pc] => 0,
            _ if folded_wide_mov(insts, pc) => 0,
            // Folded or not: the `mov`'s slot of a folded pair is one of
            // its 8.
            InstData::Cmpx { regs: [lo, _], .. } if lo.class() == RegClass::B64 => {
                crate::sass_slots::issue_slots(AluOp::Cmpx(CmpxOp::U64))
            }
            _ => issue[pc],
        })
        .collect()
}

/// The halves a packing instruction leaves in its destination, if `inst`
/// is one (a register rename in SASS).
fn rename(inst: &Inst, halves: &[Halves]) -> Option<Halves> {
    let known = |op: Operand| match op {
        Operand::Reg(r) if r.class() == RegClass::B64 => halves[r.index() as usize],
        _ => Halves::default(),
    };
    match inst.data {
        InstData::Unary {
            opcode: Opcode::CvtU32U64,
            ..
        } => Some(Halves::default()),
        InstData::Unary {
            opcode: Opcode::CvtU64U32,
            ..
        } => Some(Halves {
            lo_zero: false,
            hi_zero: true,
        }),
        InstData::Binary {
            opcode: opcode @ (Opcode::Shl | Opcode::Shr),
            dst,
            args: [_, Operand::Imm(32)],
        } if dst.class() == RegClass::B64 => Some(Halves {
            lo_zero: opcode == Opcode::Shl,
            hi_zero: opcode == Opcode::Shr,
        }),
        InstData::Binary {
            opcode: Opcode::Or,
            dst,
            args: [a, b],
        } if dst.class() == RegClass::B64 => {
            let (a, b) = (known(a), known(b));
            let disjoint = (a.lo_zero && b.hi_zero) || (a.hi_zero && b.lo_zero);
            disjoint.then_some(Halves::default())
        }
        _ => None,
    }
}

/// Updates what is known of the 64-bit registers `inst` writes, given
/// the halves it leaves if it is an unguarded rename (`renamed`).
fn track(inst: &Inst, renamed: Option<Halves>, halves: &mut [Halves]) {
    let now = renamed.unwrap_or_default();
    kernels_ir::uses::for_each_def(inst, |r| {
        if r.class() == RegClass::B64 {
            halves[r.index() as usize] = now;
        }
    });
}

/// Whether the instruction at `pc` is the predicated `mov` of a 64-bit
/// compare-exchange folded into a select: ptxas writes it into the
/// compare-exchange's own `SEL`s.
fn folded_wide_mov(insts: &[Inst], pc: usize) -> bool {
    let Some(prev) = pc.checked_sub(1) else {
        return false;
    };
    let InstData::Cmpx { regs: [lo, _], .. } = insts[prev].data else {
        return false;
    };
    lo.class() == RegClass::B64 && crate::select_fold::folds_into_select(insts, prev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::{KernelBuilder, Opcode, verify_kernel};

    fn sizes(b: KernelBuilder) -> Vec<u8> {
        let vk = verify_kernel(b.build()).unwrap();
        let program = crate::decode::decode(
            &vk,
            &crate::decode::Shape {
                warp_size: 32,
                grid: kernels_ir::Dim3::x(1),
                block: kernels_ir::Dim3::x(32),
                params: &[],
                icache_line_bytes: 128,
            },
        );
        let issue: Vec<u8> = program.insts.iter().map(|i| i.issue_slots).collect();
        code_sizes(vk.kernel(), &issue, &renames(vk.kernel()))
    }

    #[test]
    fn a_shuffled_sixty_four_bit_value_is_its_two_shuffles() {
        // HotSort's exchange of a 64-bit key: unpack, two shuffles, pack.
        let mut b = KernelBuilder::new("t");
        let (lo, hi, d, t, u) = (b.reg32(), b.reg32(), b.reg64(), b.reg64(), b.reg64());
        b.cvt_u32_u64(lo, d);
        b.shr(t, d, 32);
        b.cvt_u32_u64(hi, t);
        b.shfl(Opcode::ShflXor, lo, lo, 1, 32);
        b.shfl(Opcode::ShflXor, hi, hi, 1, 32);
        b.cvt_u64_u32(t, hi);
        b.shl(t, t, 32);
        b.cvt_u64_u32(u, lo);
        b.or(t, t, u);
        assert_eq!(sizes(b), [0, 0, 0, 1, 1, 0, 0, 0, 0]);
    }

    #[test]
    fn an_or_of_overlapping_halves_is_an_instruction() {
        let mut b = KernelBuilder::new("t");
        let (r, d, t) = (b.reg32(), b.reg64(), b.reg64());
        b.cvt_u64_u32(d, r);
        b.cvt_u64_u32(t, r);
        b.or(d, d, t); // both low halves: a real `or`
        b.shl(t, t, 3); // a shift by other than 32: real
        assert_eq!(sizes(b), [0, 0, 1, 1]);
    }

    #[test]
    fn a_folded_sixty_four_bit_pair_is_the_compare_exchanges_eight() {
        let mut b = KernelBuilder::new("t");
        let (x, y, p) = (b.reg64(), b.reg64(), b.pred());
        let r = b.reg32();
        b.setp_lt_u(p, kernels_ir::Special::LaneId, 16);
        b.cmpx_u(x, y);
        b.when(p).mov(x, y);
        b.mov(y, 0u32); // y is dead after the mov: the pair folds
        b.cmpx_u(x, y); // not folded
        b.cvt_u32_u64(r, x);
        let s = sizes(b);
        assert_eq!(s[1..=2], [8, 0], "folded: 8 for the pair");
        assert_eq!(s[4], 8, "unfolded: 8");
    }
}
