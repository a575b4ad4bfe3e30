//! Which 16-byte global stores ptxas builds in a staging quad.
//!
//! **Why.** A 16-byte `STG.E.128` reads four consecutive registers, and the
//! H200 reads them only when the store leaves the SM's LSU queue for its
//! port to L2 ([`crate::l2_port`]): an instruction that rewrites one of
//! them before waits, in `long_scoreboard`. GPUTeraSort's fused `tail` and
//! `head` store 16 quads that `LDS.128` filled, back to back, so a warp
//! queues all 16 and waits behind the port in `lg_throttle` (and in `drain`
//! after `EXIT`); its `step`, whose data come from compare-exchanges, has
//! ptxas copy each store's words into one of two quads it reuses
//! (`IMAD.MOV` into `R8`-`R11` and `R20`-`R23`), so each copy waits until
//! the store two before has left: `long_scoreboard`, at most two stores a
//! warp queued (`hw/data/h200/sass/terasort_64k/`; per warp on 8 SMs,
//! `tail` 4,907 cycles in `lg_throttle` and 3,112 in `drain`, the port's
//! 8,192 for the block's 128 stores, and `step` 7,623 in `long_scoreboard`
//! and 1,053 in `lg_throttle`, `hw/data/calib/ts64k.csv`).
//!
//! **The model.** A store whose data pass the L1's data stage (lanes on
//! lines its SM's L1 holds, in more wavefronts than its tag cycles:
//! [`crate::lsu_pipe::Pipe::store_hits`]) keeps its entry of the
//! sub-partition's LSU queue until the port sends it (`Sm::global`), so
//! warps queue behind it in `lg_throttle`. Other stores leave the queue at
//! the LSU's pace, as before: the scatters and fills of
//! `hw/calib/suite_stores.txt` and `suite_parts.txt`, which miss L1 or
//! pass in their tag cycles, show `drain` on the H200, not `lg_throttle`,
//! and holding theirs too made `sw_1m_b1024` +27.3% (+8.6% without) and
//! those suites' MAPE 7.5% to 8.7% and 38.4% to 39.1%.
//!
//! A 16-byte global store is staged unless the instruction that last
//! wrote its data registers, in issue order, is one 16-byte load into the
//! same registers in the same order (the quad ptxas gave that load). The
//! staged stores of a kernel take the two staging quads in turn; each
//! quad is a scoreboard entry that the store holds until the port sends
//! it, and the next store that takes it waits for that. (ptxas staged 10
//! of the `step`'s 16 stores; the model stages all 16.)

use kernels_ir::{InstData, Kernel, Opcode};

/// Quads ptxas stages 16-byte stores in (two in the fused `step`).
pub(crate) const QUADS: u32 = 2;

/// Per pc of `kernel`, the staging quad (0 or 1) of a staged 16-byte global
/// store; `None` for every other instruction. `order` is the issue order
/// of the pcs ([`crate::load_sched::exec_order`]).
pub(crate) fn staged_stores(kernel: &Kernel, order: &[u32]) -> Vec<Option<u32>> {
    let mut out = vec![None; kernel.insts.len()];
    let mut next = 0;
    for (i, &pc) in order.iter().enumerate() {
        let InstData::Store {
            opcode: Opcode::StGlobalB128,
            srcs,
            ..
        } = &kernel.insts[pc as usize].data
        else {
            continue;
        };
        let srcs = srcs.as_slice();
        let writer = order[..i].iter().rev().find(|&&q| {
            let mut hit = false;
            kernels_ir::uses::for_each_def(&kernel.insts[q as usize], |r| {
                hit |= srcs.contains(&r);
            });
            hit
        });
        let own_quad = writer.is_some_and(|&q| match &kernel.insts[q as usize].data {
            InstData::Load {
                opcode: Opcode::LdGlobalB128 | Opcode::LdSharedB128,
                dsts,
                ..
            } => dsts.as_slice() == srcs,
            _ => false,
        });
        if writer.is_some() && !own_quad {
            out[pc as usize] = Some(next % QUADS);
            next += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::{KernelBuilder, ParamType, RegList, verify_kernel};

    #[test]
    fn a_store_of_a_loaded_quad_is_not_staged_and_computed_ones_alternate() {
        let mut b = KernelBuilder::new("k");
        let p = b.param("p", ParamType::U64);
        let base = b.reg64();
        b.mov(base, p);
        let q = [b.reg32(), b.reg32(), b.reg32(), b.reg32()];
        b.load(Opcode::LdGlobalB128, RegList::new(&q), Some(base), 0);
        b.store(Opcode::StGlobalB128, Some(base), 16, RegList::new(&q));
        b.add(q[0], q[0], 1u32);
        b.store(Opcode::StGlobalB128, Some(base), 32, RegList::new(&q));
        b.store(Opcode::StGlobalB128, Some(base), 48, RegList::new(&q));
        // In another order than loaded: ptxas copies them.
        let r = [q[1], q[0], q[2], q[3]];
        b.store(Opcode::StGlobalB128, Some(base), 64, RegList::new(&r));
        b.exit();
        let vk = verify_kernel(b.build()).expect("verifies");
        let k = vk.kernel();
        let order: Vec<u32> = (0..k.insts.len() as u32).collect();
        let stores: Vec<Option<u32>> = (k.insts.iter())
            .zip(&staged_stores(k, &order))
            .filter(|(i, _)| matches!(i.data, InstData::Store { .. }))
            .map(|(_, &s)| s)
            .collect();
        assert_eq!(stores, [None, Some(0), Some(1), Some(0)]);
    }
}
