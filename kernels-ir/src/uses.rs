//! Which registers an instruction reads and writes.

use crate::entities::Reg;
use crate::inst::{Inst, InstData, Operand};

/// Calls `f` on every register the instruction names (guard, sources,
/// destinations, address base), in operand order.
pub fn for_each_reg(inst: &Inst, mut f: impl FnMut(Reg)) {
    if let Some(guard) = inst.guard {
        f(guard.pred);
    }
    for_each_def(inst, &mut f);
    for_each_use(inst, &mut f);
}

/// Calls `f` on every register the instruction writes.
pub fn for_each_def(inst: &Inst, mut f: impl FnMut(Reg)) {
    match &inst.data {
        InstData::Unary { dst, .. }
        | InstData::Binary { dst, .. }
        | InstData::Select { dst, .. }
        | InstData::Shfl { dst, .. }
        | InstData::Atomic { dst, .. } => f(*dst),
        InstData::Cmpx { regs, .. } => regs.iter().copied().for_each(f),
        InstData::Load { dsts, .. } => dsts.as_slice().iter().copied().for_each(f),
        InstData::Store { .. } | InstData::Branch { .. } | InstData::Nullary { .. } => {}
    }
}

/// Calls `f` on every register the instruction reads (not counting the guard).
pub fn for_each_use(inst: &Inst, mut f: impl FnMut(Reg)) {
    let operand = |op: &Operand, f: &mut dyn FnMut(Reg)| {
        if let Operand::Reg(r) = op {
            f(*r)
        }
    };
    match &inst.data {
        InstData::Unary { src, .. } => operand(src, &mut f),
        InstData::Binary { args, .. } => args.iter().for_each(|a| operand(a, &mut f)),
        InstData::Select { args, pred, .. } => {
            args.iter().for_each(|a| operand(a, &mut f));
            f(*pred);
        }
        InstData::Cmpx { regs, .. } => regs.iter().copied().for_each(f),
        InstData::Load { addr, .. } => addr.base.into_iter().for_each(f),
        InstData::Store { addr, srcs, .. } => {
            addr.base.into_iter().for_each(&mut f);
            srcs.as_slice().iter().copied().for_each(f);
        }
        InstData::Atomic { addr, src, .. } => {
            addr.base.into_iter().for_each(&mut f);
            operand(src, &mut f);
        }
        InstData::Shfl { src, lane, .. } => {
            f(*src);
            operand(lane, &mut f);
        }
        InstData::Branch { .. } | InstData::Nullary { .. } => {}
    }
}
