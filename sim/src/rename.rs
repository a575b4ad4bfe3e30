//! Register renames: the IR instructions that pack a 64-bit value's
//! halves ([`crate::sass_size::renames`]) are no SASS instruction at all,
//! nor is the second of a pair ptxas writes as one three-input instruction
//! ([`crate::three_input`]), so the H200 neither issues nor counts them. HotSort's `bs` over 64-bit
//! keys executes 9,484 SASS instructions a warp on the H200
//! (`hw/data/h200/sass/hotsort_k64_counts.txt` has 9,496 in its code),
//! where its IR has 3,921 such packing instructions among 11,877 issue
//! slots.
//!
//! A warp runs the renames that follow an instruction it issued in the
//! same step, at no issue slot and no pipe time: their values are computed
//! (every value exists at issue, [`crate::issue`]) and their destinations
//! become ready when their sources are, with the sources' stall reason, so
//! the instruction that reads them waits for the producer as the SASS
//! does. A rename whose source waits for a load not timed yet stays where
//! it is and issues as an instruction of its own when the warp reaches it
//! (the scoreboard entry of that load is completed for the load's own
//! registers only).

use crate::engine::UNRESOLVED;
use crate::exec;
use crate::launch::Ctx;
use crate::scoreboard::{cycle, latest};
use crate::sm::Sm;

impl Sm {
    /// Runs the renames at the warp's pc (in `slot`), one after another;
    /// returns whether the warp has work left after them.
    pub(crate) fn absorb_renames(&mut self, slot: u16, ctx: &mut Ctx<'_, '_>) -> bool {
        let prog = ctx.prog;
        loop {
            let w = &mut self.warps[slot as usize];
            let top = w.top();
            let inst = &prog.insts[top.pc as usize];
            if !inst.rename {
                return true;
            }
            let ready = latest(w.rf.sb(), inst.deps(), 0);
            if cycle(ready) >= UNRESOLVED {
                return true;
            }
            // Unguarded: every active lane.
            exec::execute(
                &inst.kind,
                &mut w.rf,
                &prog.consts,
                top.mask,
                &mut ctx.scratch,
            );
            for &r in inst.writes() {
                w.rf.sb_mut()[r as usize] = ready;
            }
            w.set_pc(inst.next);
            if ctx.tracer.on() {
                self.trace_writes(slot, top.pc, top.mask, ctx);
            }
            if !self.warps[slot as usize].normalize(prog.end) {
                return false;
            }
        }
    }
}
