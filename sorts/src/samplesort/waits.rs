//! How often a warp stops for loads, counted on the IR: the check behind
//! every kernel that loads a tile before using it (`scan`, the small sorts),
//! as ptxas orders its loads (`hw/calib/suite_loads.txt`).

use kernels_ir::Inst;
use kernels_ir::opcode::{Format, Space};
use kernels_ir::uses::{for_each_def, for_each_use};

/// How many times a warp running `insts` in order (branches not taken)
/// stops for a load from `space`: an instruction that reads a register a
/// pending load writes waits out the latency of every load pending then,
/// so loads issued back to back cost one wait.
pub fn load_waits(insts: &[Inst], space: Space) -> usize {
    let mut pending = std::collections::HashSet::new();
    let mut waits = 0;
    for inst in insts {
        let mut reads = false;
        for_each_use(inst, |r| reads |= pending.contains(&r));
        if let Some(g) = inst.guard {
            reads |= pending.contains(&g.pred);
        }
        if reads {
            waits += 1;
            pending.clear();
        }
        let op = inst.data.opcode();
        if op.format() == Format::Load && op.memory().map(|(s, _)| s) == Some(space) {
            for_each_def(inst, |r| {
                pending.insert(r);
            });
        } else {
            for_each_def(inst, |r| {
                pending.remove(&r);
            });
        }
    }
    waits
}
