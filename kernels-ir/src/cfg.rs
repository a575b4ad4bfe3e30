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
                blocks.push(BasicBlock {
                    start: start as u32,
                    end: pc as u32,
                    succs: Vec::new(),
                });
                block_of[start..pc].fill(blocks.len() - 1);
                start = pc;
            }
        }
        let block_at = |pc: usize, block_of: &[usize]| (pc < n).then(|| block_of[pc]);
        for block in &mut blocks {
            let last = block.end as usize - 1;
            let inst = &kernel.insts[last];
            let mut succs = Vec::new();
            let falls_through = match inst.data {
                InstData::Branch { target, .. } => {
                    let pos = kernel.labels[target.index()].pos as usize;
                    succs.extend(block_at(pos, &block_of));
                    inst.guard.is_some()
                }
                InstData::Nullary {
                    opcode: Opcode::Exit,
                } => inst.guard.is_some(),
                _ => true,
            };
            if falls_through {
                succs.extend(block_at(last + 1, &block_of));
            }
            succs.dedup();
            block.succs = succs;
        }
        Cfg { blocks, block_of }
    }

    /// Each block's successors, the virtual exit node (`blocks.len()`)
    /// standing for "the kernel ends" when a block has none.
    fn succs_or_exit(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        let succs = &self.blocks[b].succs;
        let exit = succs.is_empty().then_some(self.blocks.len());
        succs.iter().copied().chain(exit)
    }

    /// For each block, its immediate post-dominator, `None` meaning the
    /// kernel's end (the virtual exit node). A block that cannot reach the
    /// end (it only loops) also gets `None`; paths into such loops are
    /// ignored by the blocks that can.
    ///
    /// This is the dominator algorithm of Cooper, Harvey and Kennedy ("A
    /// Simple, Fast Dominance Algorithm") run on the reversed CFG from the
    /// exit node: near-linear on structured code and without recursion, so
    /// large or adversarial kernels cannot blow time, memory or the stack.
    pub fn immediate_post_dominators(&self) -> Vec<Option<usize>> {
        const NONE: usize = usize::MAX;
        let n = self.blocks.len();
        let exit = n;
        let mut preds = vec![Vec::new(); n + 1];
        for b in 0..n {
            for s in self.succs_or_exit(b) {
                preds[s].push(b);
            }
        }
        // Postorder of the reversed graph from the exit node, iteratively.
        let mut post = vec![NONE; n + 1];
        let mut order = Vec::with_capacity(n + 1);
        let mut visited = vec![false; n + 1];
        visited[exit] = true;
        let mut stack = vec![(exit, 0usize)];
        while let Some((node, next)) = stack.last_mut() {
            if let Some(&p) = preds[*node].get(*next) {
                *next += 1;
                if !std::mem::replace(&mut visited[p], true) {
                    stack.push((p, 0));
                }
            } else {
                post[*node] = order.len();
                order.push(*node);
                stack.pop();
            }
        }
        let mut idom = vec![NONE; n + 1];
        idom[exit] = exit;
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
            while a != b {
                while post[a] < post[b] {
                    a = idom[a];
                }
                while post[b] < post[a] {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().rev().filter(|&&b| b != exit) {
                let mut new = NONE;
                for s in self.succs_or_exit(b) {
                    if idom[s] != NONE {
                        new = if new == NONE {
                            s
                        } else {
                            intersect(&idom, s, new)
                        };
                    }
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        idom[..n]
            .iter()
            .map(|&d| (d != NONE && d != exit).then_some(d))
            .collect()
    }
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

    /// The textbook definition, as an oracle: post-dominator sets iterated
    /// to a fixed point, then the closest strict post-dominator.
    fn slow_ipdom(cfg: &Cfg) -> Vec<Option<usize>> {
        let n = cfg.blocks.len();
        let all: Vec<bool> = vec![true; n + 1];
        let mut pdom = vec![all; n + 1];
        pdom[n] = (0..=n).map(|i| i == n).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                let mut meet: Vec<bool> = (0..=n)
                    .map(|i| cfg.succs_or_exit(b).all(|s| pdom[s][i]))
                    .collect();
                meet[b] = true;
                if meet != pdom[b] {
                    pdom[b] = meet;
                    changed = true;
                }
            }
        }
        (0..n)
            .map(|b| {
                let strict: Vec<usize> = (0..=n).filter(|&c| c != b && pdom[b][c]).collect();
                let ipdom = strict
                    .iter()
                    .copied()
                    .find(|&c| strict.iter().all(|&o| o == c || pdom[c][o]));
                ipdom.filter(|&c| c != n)
            })
            .collect()
    }

    /// Which blocks can reach the kernel's end.
    fn reaches_exit(cfg: &Cfg) -> Vec<bool> {
        let n = cfg.blocks.len();
        let mut reach = vec![false; n + 1];
        reach[n] = true;
        for _ in 0..=n {
            for b in 0..n {
                reach[b] |= cfg.succs_or_exit(b).any(|s| reach[s]);
            }
        }
        reach
    }

    proptest::proptest! {
        #[test]
        fn fast_ipdom_matches_the_definition(
            ops in proptest::collection::vec((0u8..5, 0usize..6), 1..40),
            binds in proptest::collection::vec(0usize..40, 6),
        ) {
            let mut b = KernelBuilder::new("t");
            let (r, p) = (b.reg32(), b.pred());
            let labels: Vec<_> = (0..6).map(|i| b.label(&format!("l{i}"))).collect();
            for (pc, &(kind, l)) in ops.iter().enumerate() {
                for (i, &at) in binds.iter().enumerate() {
                    if at == pc {
                        b.bind(labels[i]);
                    }
                }
                match kind {
                    0 => { b.add(r, r, 1); }
                    1 => { b.bra(labels[l]); }
                    2 => { b.when(p).bra(labels[l]); }
                    3 => { b.when(p).exit(); }
                    _ => { b.exit(); }
                }
            }
            for (i, &at) in binds.iter().enumerate() {
                if at >= ops.len() {
                    b.bind(labels[i]);
                }
            }
            let cfg = Cfg::new(&b.build());
            let fast = cfg.immediate_post_dominators();
            let slow = slow_ipdom(&cfg);
            let reach = reaches_exit(&cfg);
            for blk in 0..cfg.blocks.len() {
                if reach[blk] {
                    proptest::prop_assert_eq!(fast[blk], slow[blk], "block {}", blk);
                }
            }
        }
    }
}
