//! The SASS a compare-exchange that keeps only one side becomes.
//!
//! A `cmpx lo, hi` is two SASS instructions (a min and a max), which is
//! what [`crate::decode`] charges it. The cross-lane steps of the sorting
//! networks (HotSort's flip and half merges, and the like) keep only one
//! side per lane: `cmpx a, b` then `@p mov a, b` (the lower lane keeps the
//! minimum, the upper the maximum), after which `b` is dead. ptxas does not
//! compute both sides there: it compares once and selects, two SASS
//! instructions for the pair instead of the three issue slots of a
//! min, a max and a predicated move.
//!
//! Measured: the H200's `smsp__inst_executed` of HotSort's `bs` per warp
//! (hw/data/calib/hs64k_h{4,8,16,32}.csv: 815, 1,493, 3,001 and 5,478) is
//! the IR's issue slots less one per such pair (888, 1,588, 3,142, 5,666),
//! within the 2-3% that SASS saves on address arithmetic; charging the
//! three slots instead gives 1,028, 1,868, 3,702 and 6,626, 23% more than
//! the hardware executes, all of it on the ALU that bounds the kernel.
//!
//! **The select does not wait for the compare.** ptxas writes the pair as a
//! minimum and a predicated maximum of the same two registers into one
//! (`VIMNMX.U32 R0, R7, R12, PT` then `@P0 VIMNMX.U32 R0, R7, R12, !PT`,
//! the first with a stall count of 2, the ALU's two cycles and not its
//! latency: hw/data/h200/sass/hotsort_bs_h16.sass.gz). Both read the
//! original values, so [`crate::decode`] drops the select's dependences on
//! the compare's results and it waits for the ALU only. Waiting for them
//! cost a lone warp the ALU's latency at each of `bs`'s 560 pairs a warp
//! (`hs64k_h16_b4`, one warp a sub-partition: `wait` 0.95 an issue against
//! the H200's 0.66; 11,853 cycles against 10,602, now 11,157).

use kernels_ir::{Inst, InstData, Opcode, Operand, Reg};

/// Whether the `cmpx` at `pc` is folded with the predicated `mov` that
/// follows it into a compare and a select: the `mov` copies one of the
/// `cmpx`'s results into its other register under a guard, and the copied
/// register is dead after the `mov` (the straight-line code that follows
/// overwrites it before reading it, or exits). Then the `cmpx` is one issue
/// slot (the compare) and the `mov` the select.
pub(crate) fn folds_into_select(insts: &[Inst], pc: usize) -> bool {
    selected_by(insts, pc).is_some_and(|src| dead_after(insts, pc + 1, src))
}

/// Whether the instruction at `pc` is a predicated `mov` between the two
/// registers of the `cmpx` just before it, folded or not: ptxas makes it
/// one of the pair's selects (a 64-bit one among the `cmpx`'s four `SEL`s:
/// `hw/data/h200/sass/hotsort_k64_bc_2.sass` has 480 `SEL` for 120 `cmpx`
/// and their 80 `mov`s), not a select of its own.
pub(crate) fn selects_for_cmpx(insts: &[Inst], pc: usize) -> bool {
    pc > 0 && selected_by(insts, pc - 1).is_some()
}

/// The register the guarded `mov` after the `cmpx` at `pc` copies from,
/// when that `mov` copies one of the `cmpx`'s results into the other.
fn selected_by(insts: &[Inst], pc: usize) -> Option<Reg> {
    let InstData::Cmpx { regs: [lo, hi], .. } = insts[pc].data else {
        return None;
    };
    let next = insts.get(pc + 1)?;
    let InstData::Unary {
        opcode: Opcode::Mov,
        dst,
        src: Operand::Reg(src),
    } = next.data
    else {
        return None;
    };
    let pair = (dst == lo && src == hi) || (dst == hi && src == lo);
    (next.guard.is_some() && pair).then_some(src)
}

/// How far [`dead_after`] looks before it assumes the register is live.
const HORIZON: usize = 64;

/// Whether `reg` is dead after the instruction at `pc`: within the next
/// [`HORIZON`] straight-line instructions an unguarded one writes it (or
/// exits) before any reads it. A branch ends the search (live, to be safe).
fn dead_after(insts: &[Inst], pc: usize, reg: Reg) -> bool {
    for inst in insts.iter().skip(pc + 1).take(HORIZON) {
        let mut read = false;
        kernels_ir::uses::for_each_use(inst, |r| read |= r == reg);
        if read {
            return false;
        }
        match inst.data {
            InstData::Branch { .. } => return false,
            InstData::Nullary {
                opcode: Opcode::Exit,
            } if inst.guard.is_none() => return true,
            _ => {}
        }
        let mut written = false;
        kernels_ir::uses::for_each_def(inst, |r| written |= r == reg);
        if written && inst.guard.is_none() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::KernelBuilder;

    fn insts(build: impl FnOnce(&mut KernelBuilder, [Reg; 3])) -> Vec<Inst> {
        let mut b = KernelBuilder::new("t");
        let regs = [b.reg32(), b.reg32(), b.reg32()];
        build(&mut b, regs);
        b.build().insts
    }

    #[test]
    fn a_cross_lane_keep_one_side_folds() {
        let k = insts(|b, [a, t, _]| {
            let p = b.pred();
            b.setp_eq(p, a, 0);
            b.shfl(Opcode::ShflXor, t, a, 1, 32);
            b.cmpx_u(a, t);
            b.when(p).mov(a, t);
            b.shfl(Opcode::ShflXor, t, a, 2, 32);
        });
        assert!(
            folds_into_select(&k, 2),
            "t is overwritten before it is read"
        );
        assert!(!folds_into_select(&k, 1), "not a cmpx");
    }

    #[test]
    fn both_sides_kept_or_unguarded_does_not_fold() {
        let live = insts(|b, [a, t, c]| {
            let p = b.pred();
            b.setp_eq(p, a, 0);
            b.cmpx_u(a, t);
            b.when(p).mov(a, t);
            b.add(c, t, 1); // t is read: both sides live
        });
        assert!(!folds_into_select(&live, 1));
        assert!(
            selects_for_cmpx(&live, 2),
            "still one of the pair's selects in SASS"
        );
        assert!(!selects_for_cmpx(&live, 3), "an add after a mov");
        let plain = insts(|b, [a, t, _]| {
            b.cmpx_u(a, t);
            b.cmpx_u(a, t);
            b.mov(t, 0);
        });
        assert!(
            !folds_into_select(&plain, 0),
            "an in-lane network keeps both"
        );
        let unguarded = insts(|b, [a, t, _]| {
            b.cmpx_u(a, t);
            b.mov(a, t);
            b.mov(t, 0);
        });
        assert!(!folds_into_select(&unguarded, 0));
        assert!(!selects_for_cmpx(&unguarded, 1), "unguarded");
    }

    #[test]
    fn a_branch_or_guarded_write_keeps_the_register_live() {
        let branch = insts(|b, [a, t, _]| {
            let p = b.pred();
            let l = b.label("l");
            b.setp_eq(p, a, 0);
            b.cmpx_u(a, t);
            b.when(p).mov(a, t);
            b.bra(l);
            b.bind(l);
            b.mov(t, 0);
        });
        assert!(!folds_into_select(&branch, 1));
        let guarded = insts(|b, [a, t, _]| {
            let p = b.pred();
            b.setp_eq(p, a, 0);
            b.cmpx_u(a, t);
            b.when(p).mov(a, t);
            b.when(p).mov(t, 0);
        });
        assert!(
            !folds_into_select(&guarded, 1),
            "a guarded write kills no lane"
        );
    }
}
