//! The control-flow graph and the reconvergence rule.
//!
//! **Reconvergence rule.** When the active lanes of a warp disagree at a
//! guarded `bra`, the warp splits; both sides run (the taken side first) until
//! they reach the branch's *reconvergence point*, the first instruction of the
//! immediate post-dominator of the branch's basic block, where the warp
//! continues with the union of both masks. A branch whose immediate
//! post-dominator is the kernel's end reconverges only when the lanes exit.
//! Falling off the last instruction is an implicit `exit`.

use crate::inst::InstData;
use crate::kernel::Kernel;
use crate::opcode::Opcode;

/// A basic block: the instructions `start..end`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BasicBlock {
    /// First instruction.
    pub start: u32,
    /// One past the last instruction.
    pub end: u32,
    /// Successor blocks (indices into [`Cfg::blocks`]).
    pub succs: Vec<usize>,
}

/// The basic blocks of a kernel and their successors.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// The blocks in instruction order.
    pub blocks: Vec<BasicBlock>,
    /// For each instruction, the index of its block.
    pub block_of: Vec<usize>,
}

impl Cfg {
    /// Builds the CFG. Label positions must be valid (`<= insts.len()`).
    pub fn new(kernel: &Kernel) -> Cfg {
        let n = kernel.insts.len();
        let mut leader = vec![false; n + 1];
        leader[0] = true;
        leader[n] = true;
        for label in &kernel.labels {
            if (label.pos as usize) <= n {
                leader[label.pos as usize] = true;
            }
        }
        for (pc, inst) in kernel.insts.iter().enumerate() {
            if matches!(inst.data.opcode(), Opcode::Bra | Opcode::Exit) {
                leader[pc + 1] = true;
            }
        }
        let mut blocks = Vec::new();
        let mut block_of = vec![0; n];
        let mut start = 0;
        for pc in 1..=n {
            if leader[pc] {
                blocks.push(BasicBlock { start: start as u32, end: pc as u32, succs: Vec::new() });
                block_of[start..pc].fill(blocks.len() - 1);
                start = pc;
            }
        }
        let block_at = |pc: usize, block_of: &[usize]| (pc < n).then(|| block_of[pc]);
        for b in 0..blocks.len() {
            let last = blocks[b].end as usize - 1;
            let inst = &kernel.insts[last];
            let mut succs = Vec::new();
            let falls_through = match inst.data {
                InstData::Branch { target, .. } => {
                    let pos = kernel.labels[target.index()].pos as usize;
                    succs.extend(block_at(pos, &block_of));
                    inst.guard.is_some()
                }
                InstData::Nullary { opcode: Opcode::Exit } => inst.guard.is_some(),
                _ => true,
            };
            if falls_through {
                succs.extend(block_at(last + 1, &block_of));
            }
            succs.dedup();
            blocks[b].succs = succs;
        }
        Cfg { blocks, block_of }
    }

    /// For each block, its immediate post-dominator, `None` meaning the
    /// kernel's end (the virtual exit node).
    pub fn immediate_post_dominators(&self) -> Vec<Option<usize>> {
        let n = self.blocks.len();
        let exit = n; // virtual exit node
        // Post-dominator sets as bit vectors, iterated to a fixed point.
        let words = (n + 1).div_ceil(64);
        let full = vec![u64::MAX; words];
        let mut pdom: Vec<Vec<u64>> = vec![full; n + 1];
        pdom[exit] = vec![0; words];
        set_bit(&mut pdom[exit], exit);
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                let succs: Vec<usize> = if self.blocks[b].succs.is_empty() {
                    vec![exit]
                } else {
                    self.blocks[b].succs.clone()
                };
                let mut meet = pdom[succs[0]].clone();
                for &s in &succs[1..] {
                    for (m, w) in meet.iter_mut().zip(&pdom[s]) {
                        *m &= w;
                    }
                }
                set_bit(&mut meet, b);
                if meet != pdom[b] {
                    pdom[b] = meet;
                    changed = true;
                }
            }
        }
        // The immediate post-dominator is the strict post-dominator that all
        // other strict post-dominators post-dominate: the one with the
        // largest post-dominator set among them... i.e. the "closest".
        (0..n)
            .map(|b| {
                let strict: Vec<usize> =
                    (0..=n).filter(|&c| c != b && get_bit(&pdom[b], c)).collect();
                let ipdom = strict.iter().copied().find(|&c| {
                    strict.iter().all(|&other| other == c || get_bit(&pdom[c], other))
                });
                ipdom.filter(|&c| c != exit)
            })
            .collect()
    }
}

fn set_bit(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

fn get_bit(bits: &[u64], i: usize) -> bool {
    bits[i / 64] & (1 << (i % 64)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::KernelBuilder;
    use crate::inst::Special;

    #[test]
    fn if_then_reconverges_after_the_then_block() {
        let mut b = KernelBuilder::new("t");
        let (r, p) = (b.reg32(), b.pred());
        let skip = b.label("skip");
        b.setp_eq(p, Special::LaneId, 0); // 0
        b.when(p).bra(skip); // 1
        b.add(r, r, 1); // 2
        b.bind(skip);
        b.exit(); // 3
        let cfg = Cfg::new(&b.build());
        let ipdom = cfg.immediate_post_dominators();
        let branch_block = cfg.block_of[1];
        assert_eq!(ipdom[branch_block].map(|b| cfg.blocks[b].start), Some(3));
    }

    #[test]
    fn if_else_reconverges_at_the_join() {
        let mut b = KernelBuilder::new("t");
        let (r, p) = (b.reg32(), b.pred());
        let (els, join) = (b.label("else"), b.label("join"));
        b.setp_eq(p, Special::LaneId, 0); // 0
        b.when(p).bra(els); // 1
        b.add(r, r, 1); // 2
        b.bra(join); // 3
        b.bind(els);
        b.add(r, r, 2); // 4
        b.bind(join);
        b.add(r, r, 3); // 5
        b.exit(); // 6
        let cfg = Cfg::new(&b.build());
        let ipdom = cfg.immediate_post_dominators();
        assert_eq!(ipdom[cfg.block_of[1]].map(|b| cfg.blocks[b].start), Some(5));
    }

    #[test]
    fn guarded_exit_branch_reconverges_at_kernel_end() {
        let mut b = KernelBuilder::new("t");
        let (r, p) = (b.reg32(), b.pred());
        let out = b.label("out");
        b.setp_eq(p, Special::LaneId, 0); // 0
        b.when(p).bra(out); // 1
        b.add(r, r, 1); // 2
        b.exit(); // 3
        b.bind(out);
        b.add(r, r, 2); // 4
        b.exit(); // 5
        let cfg = Cfg::new(&b.build());
        assert_eq!(cfg.immediate_post_dominators()[cfg.block_of[1]], None);
    }
}
