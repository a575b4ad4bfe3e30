//! The barrier rule: a `bar.sync` must not depend on a branch that can send
//! different threads of a block different ways.
//!
//! A conservative, flow-insensitive uniformity analysis decides which
//! registers may differ between the threads of a block. A register is
//! *non-uniform* if any instruction that writes it
//! - is a load or a shuffle (their results are per-thread by nature),
//! - reads a non-uniform register or a per-thread special (`%laneid`,
//!   `%warpid`, `%tid.*`; see [`Special::is_block_uniform`]),
//! - is guarded by a non-uniform predicate, or
//! - lies in the divergent region of a non-uniform branch.
//!
//! A guarded `bra` whose predicate is non-uniform is *divergent*; its region
//! is every block reachable from its successors before its reconvergence
//! point (the immediate post-dominator, [`crate::cfg`]). The analysis
//! iterates to a fixed point; then a `bar.sync` inside any divergent region
//! is an error.

use std::collections::HashSet;

use crate::cfg::Cfg;
use crate::entities::Reg;
use crate::inst::{Inst, InstData, Operand, Special};
use crate::kernel::Kernel;
use crate::opcode::Opcode;
use crate::printer::print_inst;
use crate::uses::for_each_def;

use super::{Location, VerifierErrors};

fn nonuniform_operand(op: &Operand, nonuniform: &HashSet<Reg>) -> bool {
    match op {
        Operand::Reg(r) => nonuniform.contains(r),
        Operand::Special(s) => !Special::is_block_uniform(*s),
        Operand::Imm(_) | Operand::Param(_) => false,
    }
}

/// Whether `inst`'s results may differ between threads even when it runs in
/// every thread.
fn produces_nonuniform(inst: &Inst, nonuniform: &HashSet<Reg>) -> bool {
    let any = |ops: &[Operand]| ops.iter().any(|op| nonuniform_operand(op, nonuniform));
    match &inst.data {
        InstData::Load { .. } | InstData::Shfl { .. } => true,
        InstData::Unary { src, .. } => any(std::slice::from_ref(src)),
        InstData::Binary { args, .. } => any(args),
        InstData::Select { args, pred, .. } => any(args) || nonuniform.contains(pred),
        InstData::Cmpx { regs, .. } => regs.iter().any(|r| nonuniform.contains(r)),
        InstData::Store { .. } | InstData::Branch { .. } | InstData::Nullary { .. } => false,
    }
}

/// For each instruction, the pc of a divergent branch it depends on (the
/// first one found), given the current non-uniform registers.
fn divergent_regions(
    kernel: &Kernel,
    cfg: &Cfg,
    ipdom: &[Option<usize>],
    nonuniform: &HashSet<Reg>,
) -> Vec<Option<u32>> {
    let mut cause = vec![None; kernel.insts.len()];
    let mut seen = vec![false; cfg.blocks.len()];
    for (pc, inst) in kernel.insts.iter().enumerate() {
        let divergent = matches!(inst.data, InstData::Branch { .. })
            && inst.guard.is_some_and(|g| nonuniform.contains(&g.pred));
        if !divergent {
            continue;
        }
        let block = cfg.block_of[pc];
        let stop = ipdom[block];
        seen.fill(false);
        let mut work: Vec<usize> = cfg.blocks[block].succs.clone();
        while let Some(b) = work.pop() {
            if Some(b) == stop || std::mem::replace(&mut seen[b], true) {
                continue;
            }
            let range = cfg.blocks[b].start as usize..cfg.blocks[b].end as usize;
            for c in &mut cause[range] {
                c.get_or_insert(pc as u32);
            }
            work.extend(&cfg.blocks[b].succs);
        }
    }
    cause
}

/// Reports every `bar.sync` that only some threads of a block may reach.
/// Labels must be valid (the CFG is built from them).
pub(super) fn check_barriers(
    kernel: &Kernel,
    cfg: &Cfg,
    ipdom: &[Option<usize>],
    errors: &mut VerifierErrors,
) {
    let mut nonuniform = HashSet::new();
    let cause = loop {
        let cause = divergent_regions(kernel, cfg, ipdom, &nonuniform);
        let mut changed = false;
        for (pc, inst) in kernel.insts.iter().enumerate() {
            let guarded_apart = inst.guard.is_some_and(|g| nonuniform.contains(&g.pred));
            if cause[pc].is_some() || guarded_apart || produces_nonuniform(inst, &nonuniform) {
                for_each_def(inst, |r| changed |= nonuniform.insert(r));
            }
        }
        if !changed {
            break cause;
        }
    };
    for (pc, inst) in kernel.insts.iter().enumerate() {
        if inst.data.opcode() != Opcode::BarSync {
            continue;
        }
        if let Some(branch) = cause[pc] {
            let b = &kernel.insts[branch as usize];
            let pred = b.guard.map(|g| g.pred.to_string()).unwrap_or_default();
            errors.report(
                Location::Inst(pc as u32),
                format!(
                    "`bar.sync` may be reached by only some threads of the block: it depends on \
                     `{}` (pc {branch}), and {pred} may differ between threads",
                    print_inst(kernel, b)
                ),
            );
        }
    }
}
