//! The barrier rule: a `bar.sync` must not depend on a branch that can send
//! different threads of a block different ways.
//!
//! A conservative uniformity analysis decides, at each point of the kernel,
//! which registers may differ between the threads of a block. It is a
//! forward data-flow analysis over the CFG (a may-analysis: the union at
//! joins); registers start uniform (every thread starts with 0). An
//! instruction's result is *non-uniform* if the instruction
//! - is a load or a shuffle (their results are per-thread by nature),
//! - reads a non-uniform register or a per-thread special (`%laneid`,
//!   `%warpid`, `%tid.*`; see [`Special::is_block_uniform`]),
//! - is guarded by a non-uniform predicate, or
//! - lies in the divergent region of a non-uniform branch (after the region
//!   some threads hold the new value and some the old).
//!
//! Otherwise an unguarded write makes its register uniform again, and a
//! write under a uniform guard leaves it as it was. A guarded `bra` whose
//! predicate is non-uniform where it stands is *divergent*; its region is
//! every block reachable from its successors before its reconvergence point
//! (the immediate post-dominator, [`crate::cfg`]). Regions and register
//! states are iterated together to a fixed point; then a `bar.sync` inside
//! any divergent region is an error.
//!
//! **Why a verified kernel never reaches `bar.sync` with part of a warp**
//! (so the interpreter's and the simulator's check for it is an internal
//! error, not a fault a kernel can cause). A warp's lanes part only at a
//! guarded `bra` whose predicate differs between them: an `exit`, guarded
//! or not, only removes lanes from the live mask, and the SIMT stack
//! drops exited lanes from every entry, so the lanes still at a
//! `bar.sync` are compared with the live lanes only. A predicate that
//! differs between two lanes of a warp differs between two threads of the
//! block, and this analysis marks non-uniform every value that can: the
//! per-thread specials, every load, atomic and shuffle, every write under
//! a non-uniform guard or inside a divergent region (registers start
//! equal: zero in every thread), and everything computed from those. So
//! the branch is divergent here. Its lanes run apart until its
//! reconvergence point, the immediate post-dominator, which is the `rpc`
//! at which both runtimes merge them again; everything they run before
//! that is reachable from the branch's successors without passing it,
//! which is its region, and a `bar.sync` there is an error. A divergent
//! branch inside another's region adds nothing (its region lies inside:
//! see `Uniformity::regions`). Hence at every `bar.sync` the running
//! entry holds every live lane of the warp.

use crate::cfg::Cfg;
use crate::entities::{Reg, RegClass};
use crate::inst::{Inst, InstData, Operand, Special};
use crate::kernel::{Kernel, RegCounts};
use crate::opcode::Opcode;
use crate::printer::print_inst;
use crate::uses::for_each_def;

use super::{Location, VerifierErrors};

/// A set of registers as a bit vector, dense over the declared registers.
#[derive(Clone, PartialEq, Eq)]
struct RegSet {
    bits: Vec<u64>,
}

impl RegSet {
    fn empty(counts: &RegCounts) -> RegSet {
        let total = counts.b32 as usize + counts.b64 as usize + counts.pred as usize;
        RegSet {
            bits: vec![0; total.div_ceil(64)],
        }
    }

    /// The dense index of `reg` (registers must be declared).
    fn index(counts: &RegCounts, reg: Reg) -> usize {
        let i = reg.index() as usize;
        match reg.class() {
            RegClass::B32 => i,
            RegClass::B64 => counts.b32 as usize + i,
            RegClass::Pred => counts.b32 as usize + counts.b64 as usize + i,
        }
    }

    fn contains(&self, counts: &RegCounts, reg: Reg) -> bool {
        let i = Self::index(counts, reg);
        self.bits[i / 64] >> (i % 64) & 1 != 0
    }

    fn set(&mut self, counts: &RegCounts, reg: Reg, on: bool) {
        let i = Self::index(counts, reg);
        if on {
            self.bits[i / 64] |= 1 << (i % 64);
        } else {
            self.bits[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Adds `other`; returns whether anything changed.
    fn union(&mut self, other: &RegSet) -> bool {
        let mut changed = false;
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            changed |= *a | b != *a;
            *a |= b;
        }
        changed
    }
}

/// The analysis context: the kernel and its control flow.
struct Uniformity<'a> {
    kernel: &'a Kernel,
    cfg: &'a Cfg,
    ipdom: &'a [Option<usize>],
    /// The analysis's work so far: blocks visited by the region walks and
    /// the data flow, instructions transferred by the branch scans. A test
    /// bounds it by the kernel's size (the walk was once quadratic in the
    /// nesting depth), which a clock on a loaded machine cannot.
    steps: std::cell::Cell<u64>,
}

impl<'a> Uniformity<'a> {
    fn new(kernel: &'a Kernel, cfg: &'a Cfg, ipdom: &'a [Option<usize>]) -> Self {
        Uniformity {
            kernel,
            cfg,
            ipdom,
            steps: std::cell::Cell::new(0),
        }
    }

    fn step(&self, n: u64) {
        self.steps.set(self.steps.get() + n);
    }

    fn counts(&self) -> &RegCounts {
        &self.kernel.regs
    }

    fn nonuniform_operand(&self, op: &Operand, state: &RegSet) -> bool {
        match op {
            Operand::Reg(r) => state.contains(self.counts(), *r),
            Operand::Special(s) => !Special::is_block_uniform(*s),
            Operand::Imm(_) | Operand::Param(_) => false,
        }
    }

    /// Whether `inst`'s results may differ between threads even when it
    /// runs in every thread.
    fn produces_nonuniform(&self, inst: &Inst, state: &RegSet) -> bool {
        let any = |ops: &[Operand]| ops.iter().any(|op| self.nonuniform_operand(op, state));
        let reg = |r: &Reg| state.contains(self.counts(), *r);
        match &inst.data {
            InstData::Load { .. } | InstData::Atomic { .. } | InstData::Shfl { .. } => true,
            InstData::Unary { src, .. } => any(std::slice::from_ref(src)),
            InstData::Binary { args, .. } => any(args),
            InstData::Select { args, pred, .. } => any(args) || reg(pred),
            InstData::Cmpx { regs, .. } => regs.iter().any(reg),
            InstData::Store { .. } | InstData::Branch { .. } | InstData::Nullary { .. } => false,
        }
    }

    fn guard_nonuniform(&self, inst: &Inst, state: &RegSet) -> bool {
        inst.guard
            .is_some_and(|g| state.contains(self.counts(), g.pred))
    }

    /// Applies one instruction to the set of non-uniform registers.
    fn transfer(&self, inst: &Inst, in_region: bool, state: &mut RegSet) {
        let nonuniform = in_region
            || self.guard_nonuniform(inst, state)
            || self.produces_nonuniform(inst, state);
        let guarded = inst.guard.is_some();
        let counts = *self.counts();
        for_each_def(inst, |r| {
            // A write under a uniform guard happens in all threads or none.
            if nonuniform || !guarded {
                state.set(&counts, r, nonuniform);
            }
        });
    }

    /// For each instruction, the pc of a divergent branch whose region
    /// holds it.
    ///
    /// A divergent branch that lies inside another's region has a region
    /// inside that one too (its reconvergence point post-dominates it and is
    /// post-dominated by the outer one's), so it adds nothing and is skipped.
    /// Branches are walked outermost first (their reconvergence point
    /// nearest the exit in the post-dominator tree), which keeps the work
    /// linear in the kernel's size for nested code.
    fn regions(&self, divergent: &[bool]) -> Vec<Option<u32>> {
        let blocks = &self.cfg.blocks;
        let depth = pdom_depths(self.ipdom);
        let mut branches: Vec<usize> = (0..divergent.len()).filter(|&pc| divergent[pc]).collect();
        branches.sort_by_key(|&pc| {
            (
                self.ipdom[self.cfg.block_of[pc]].map_or(0, |p| depth[p]),
                pc,
            )
        });
        let mut cause = vec![None; self.kernel.insts.len()];
        let mut in_region = vec![false; blocks.len()];
        // `seen[b] == stamp` marks the blocks visited for the current branch.
        let mut seen = vec![usize::MAX; blocks.len()];
        for (stamp, pc) in branches.into_iter().enumerate() {
            let block = self.cfg.block_of[pc];
            if in_region[block] {
                continue;
            }
            let stop = self.ipdom[block];
            let mut work: Vec<usize> = blocks[block].succs.clone();
            while let Some(b) = work.pop() {
                self.step(1);
                if Some(b) == stop || std::mem::replace(&mut seen[b], stamp) == stamp {
                    continue;
                }
                if !std::mem::replace(&mut in_region[b], true) {
                    let range = blocks[b].start as usize..blocks[b].end as usize;
                    cause[range].fill(Some(pc as u32));
                }
                work.extend(&blocks[b].succs);
            }
        }
        cause
    }

    /// The non-uniform registers at each block's entry.
    fn block_states(&self, cause: &[Option<u32>]) -> Vec<RegSet> {
        let blocks = &self.cfg.blocks;
        let mut entry = vec![RegSet::empty(self.counts()); blocks.len()];
        let mut queued = vec![true; blocks.len()];
        let mut work: Vec<usize> = (0..blocks.len()).rev().collect();
        while let Some(b) = work.pop() {
            self.step(1);
            queued[b] = false;
            let mut state = entry[b].clone();
            let range = blocks[b].start as usize..blocks[b].end as usize;
            for (inst, cause) in self.kernel.insts[range.clone()].iter().zip(&cause[range]) {
                self.transfer(inst, cause.is_some(), &mut state);
            }
            for &s in &blocks[b].succs {
                if entry[s].union(&state) && !std::mem::replace(&mut queued[s], true) {
                    work.push(s);
                }
            }
        }
        entry
    }

    /// Iterates divergent branches and register states to a fixed point;
    /// returns the divergent region of every instruction.
    fn analyse(&self) -> Vec<Option<u32>> {
        let insts = &self.kernel.insts;
        let mut divergent = vec![false; insts.len()];
        loop {
            let cause = self.regions(&divergent);
            let entry = self.block_states(&cause);
            let mut changed = false;
            self.step(insts.len() as u64);
            for (b, block) in self.cfg.blocks.iter().enumerate() {
                let mut state = entry[b].clone();
                for pc in block.start as usize..block.end as usize {
                    let inst = &insts[pc];
                    if matches!(inst.data, InstData::Branch { .. })
                        && self.guard_nonuniform(inst, &state)
                        && !std::mem::replace(&mut divergent[pc], true)
                    {
                        changed = true;
                    }
                    self.transfer(inst, cause[pc].is_some(), &mut state);
                }
            }
            if !changed {
                return cause;
            }
        }
    }
}

/// Each block's depth in the post-dominator tree (1 for a block whose
/// immediate post-dominator is the exit), computed without recursion.
fn pdom_depths(ipdom: &[Option<usize>]) -> Vec<usize> {
    let mut depth = vec![0usize; ipdom.len()];
    let mut path = Vec::new();
    for start in 0..ipdom.len() {
        let mut b = start;
        // Walk up to a block of known depth (or the root), then unwind. The
        // tree has no cycles; the length bound only makes that obvious.
        while depth[b] == 0 && path.len() <= ipdom.len() {
            path.push(b);
            match ipdom[b] {
                Some(p) => b = p,
                None => break,
            }
        }
        let mut d = depth[b];
        while let Some(x) = path.pop() {
            d += 1;
            depth[x] = d;
        }
    }
    depth
}

/// Reports every `bar.sync` that only some threads of a block may reach.
/// Labels must be valid (the CFG is built from them) and every register
/// declared, within the limits (the analysis indexes them densely).
pub(super) fn check_barriers(
    kernel: &Kernel,
    cfg: &Cfg,
    ipdom: &[Option<usize>],
    errors: &mut VerifierErrors,
) {
    let cause = Uniformity::new(kernel, cfg, ipdom).analyse();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_kernel;

    /// A kernel with `n` branches nested inside each other (each branch's
    /// region holds all the later ones) and a barrier in the innermost.
    fn nested_branches(n: usize) -> Kernel {
        let mut text = String::from("kernel nest {\n    regs r1 d0 p1\n    shared 0\n");
        text += "    setp.eq p0, %laneid, 0\n";
        for i in 0..n {
            text += &format!("    @p0 bra e{i}\n");
        }
        text += "    bar.sync\n";
        for i in (0..n).rev() {
            text += &format!("    add r0, r0, 1\n  e{i}:\n");
        }
        parse_kernel(&(text + "}\n")).expect("parses").0
    }

    /// The analysis's steps on `kernel`.
    fn steps(kernel: &Kernel) -> u64 {
        let cfg = Cfg::new(kernel);
        let ipdom = cfg.immediate_post_dominators();
        let analysis = Uniformity::new(kernel, &cfg, &ipdom);
        analysis.analyse();
        analysis.steps.get()
    }

    #[test]
    fn deeply_nested_divergence_is_analysed_in_linear_work() {
        for n in [1_000, 20_000] {
            let kernel = nested_branches(n);
            let insts = kernel.insts.len() as u64;
            let steps = steps(&kernel);
            // A walk of every region from its own branch visits about
            // n^2 / 2 blocks: 2 * 10^8 at n = 20,000.
            assert!(
                steps <= 8 * insts,
                "{steps} steps for {insts} instructions ({n} nested branches)"
            );
        }
    }
}
