//! How soon an SM can retire a block at the earliest: the bound that lets
//! the engine start the next blocks of several SMs at once and run them on
//! several host threads ([`crate::engine::run_parallel`]).
//!
//! **Why it is needed.** Blocks start in the order their slots free up
//! (cycle, then SM). An SM that gets the next block may retire another
//! block soon after, and that retirement takes the block after it, ahead
//! of a later retirement of another SM. So a slot freed at `r` may take
//! its block only once no SM can retire a block before `r` any more. A
//! lower bound on each SM's next retirement says when that is: the fewest
//! cycles any of its blocks still needs, each warp's shortest path to its
//! exit counted in issue cycles.

use crate::config::GpuConfig;
use crate::decode::{Kind, Program};
use crate::sm::Sm;
use crate::warp::State;

/// Per pc (and one past the end), the fewest cycles from a warp's issue of
/// the instruction there to the end of the warp: the shortest path to an
/// exit, each instruction counting its issue slots (the next instruction of
/// a warp issues no earlier) and a branch at least its latency. A divergent
/// warp runs both sides, a loop at least once: the shortest path is a lower
/// bound either way.
pub(crate) fn finish_bounds(prog: &Program, cfg: &GpuConfig) -> Vec<u64> {
    let n = prog.insts.len();
    // `bound[pc]`: cycles from the issue at `pc` until the warp has left;
    // `bound[n]` is the implicit exit after the last instruction.
    let mut bound = vec![u64::MAX; n + 1];
    bound[n] = 0;
    let branch = u64::from(cfg.branch_latency_cycles);
    // Relax until nothing changes: a loop's back edge needs a pass per trip
    // of the relaxation, and kernels are a few thousand instructions.
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..n).rev() {
            let inst = &prog.insts[pc];
            // A rename may cost nothing (`crate::rename`).
            let slots = if inst.rename {
                0
            } else {
                u64::from(inst.issue_slots).max(1)
            };
            let next = |to: usize| bound[to].saturating_add(slots);
            let b = match inst.kind {
                // A warp's last lanes may leave here.
                Kind::Exit => slots,
                Kind::Bra { target, .. } => {
                    let step = slots.max(branch);
                    bound[target as usize]
                        .min(bound[inst.next as usize])
                        .saturating_add(step)
                }
                _ => next(inst.next as usize),
            };
            if b < bound[pc] {
                bound[pc] = b;
                changed = true;
            }
        }
    }
    bound
}

impl Sm {
    /// A cycle before which none of this SM's blocks can retire (`u64::MAX`:
    /// none can before the next quantum boundary), from where its warps
    /// stand: every warp of a block must reach its end, and a warp issues
    /// its next instruction no earlier than its `ready` cycle (its barrier
    /// arrival for one waiting at a barrier; never in this quantum for one
    /// waiting for a load not timed yet).
    pub(crate) fn retire_bound(&self, bounds: &[u64]) -> u64 {
        let mut earliest = u64::MAX;
        for (b, block) in self.blocks.iter().enumerate().filter(|(_, b)| b.used) {
            let mut latest = 0u64;
            for &slot in &block.warps {
                let w = &self.warps[slot as usize];
                // A slot whose warp finished may hold another block's now.
                if w.block as usize != b {
                    continue;
                }
                let Some(top) = w.current() else { continue };
                let from = match (w.state, w.blocked) {
                    (State::Free, _) => continue,
                    (State::Ready, Some(_)) => u64::MAX,
                    (State::Ready, None) => self.ready[self.hot(slot)],
                    (State::Barrier, _) => w.barrier_since,
                };
                let left = bounds.get(top.pc as usize).copied().unwrap_or(0);
                latest = latest.max(from.saturating_add(left));
            }
            earliest = earliest.min(latest);
        }
        earliest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::{KernelBuilder, ParamType, verify_kernel};

    #[test]
    fn the_shortest_path_to_an_exit_bounds_each_pc() {
        // 0: setp; 1: @p bra 4; 2: add; 3: add; 4: add; 5: exit.
        let mut b = KernelBuilder::new("k");
        let n = b.param("n", ParamType::U32);
        let (x, p) = (b.reg32(), b.pred());
        let skip = b.label("skip");
        b.setp_ge_u(p, x, n);
        b.when(p).bra(skip);
        b.add(x, x, 1);
        b.add(x, x, 1);
        b.bind(skip);
        b.add(x, x, 1);
        b.exit();
        let k = verify_kernel(b.build()).unwrap();
        let cfg = GpuConfig::h200();
        let params = [kernels_ir::ParamValue::U32(1)];
        let shape = crate::decode::Shape {
            warp_size: cfg.warp_size,
            grid: kernels_ir::Dim3::x(1),
            block: kernels_ir::Dim3::x(32),
            params: &params,
            icache_line_bytes: cfg.icache_line_bytes,
        };
        let prog = crate::decode::decode(&k, &shape);
        let bounds = finish_bounds(&prog, &cfg);
        let br = u64::from(cfg.branch_latency_cycles).max(1);
        // From the exit: its issue slot; the add before it one more.
        let exit = prog.insts.len() - 1;
        assert_eq!(bounds[exit], 1);
        assert_eq!(bounds[exit - 1], 2);
        // The branch takes the shorter, taken side, at its latency.
        assert_eq!(bounds[1], br + 2);
        assert_eq!(bounds[0], 1 + br + 2);
    }
}
