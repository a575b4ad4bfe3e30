//! The order a warp issues a basic block's instructions in: each global
//! load moved up, with the instructions it depends on, past the ones that
//! wait for an earlier load, as ptxas schedules them.
//!
//! **Why** (docs/calibration.md, "The seventh suite";
//! `hw/calib/suite_loads.txt`): a tile of `l` coalesced loads, each stored
//! into shared memory right after it (`load_chain`, the order sample sort's
//! `scan` emitted), runs on the H200 in the cycles of the same loads issued
//! back to back (`load_burst`): 5,175 / 5,281 / 5,415 cycles against
//! 5,207 / 5,258 / 5,400 for `l` = 2, 5, 8, and the long_scoreboard stall a
//! warp is the same too. So ptxas hoisted the independent loads above the
//! stores that use the loads before them (seven stores for `l` = 8), and a
//! simulator issuing the IR's order waits out one memory latency per load
//! (+11%, +45%, +77%).
//!
//! **The rule.** Within a basic block, a global load moves up past the
//! earlier instructions that wait for an earlier global load of the block
//! (they read its value, directly or through other instructions), as a
//! list scheduler does: those are not ready until the load's data is back,
//! and the next load is. With the load move the instructions it needs (a
//! register dependence either way, guards included, and shared accesses in
//! their order where one is a store), and after the passed ones stay the
//! instructions that must follow them. Instructions that wait for no load
//! keep their place: ready work delays the load by its issue slots only,
//! and the data says nothing about ptxas's order among ready instructions
//! (moving loads past them too, the committed suite got worse: MAPE 8.6%
//! to 9.0%, HotSort's `fm` and `hm` slower, as in docs/calibration.md). A
//! shared load or store may be passed (another state space). A load moves
//! no further up than
//! - the block's start (a label or the instruction after a branch or exit),
//! - a `bar.sync`, `warp.sync` or atomic (they order memory),
//! - a global store (it may write what the load reads),
//! - the global load before it: loads keep their relative order, so the
//!   memory system sees a warp's requests in the IR's order (the data
//!   cannot tell orders apart; `lb` and `lc` issue the same requests).
//!
//! ptxas's scheduler also weighs register pressure, which the simulator
//! does not model (a kernel's registers are what its IR declares); the
//! measured tiles show it hoists eight loads over seven stores, and nothing
//! in the committed data shows a shorter reach, so the only bounds are the
//! ones above.
//!
//! **What stays.** The instructions keep their pc (their IR line): only the
//! order a warp steps through a block changes ([`exec_order`]), so per-pc
//! counters, stall attribution, traces and the replay's source view name
//! the IR line that ran. Every value is computed as before (only
//! independent instructions swap), so results and every counter except
//! cycles and stalls are unchanged.

use kernels_ir::cfg::Cfg;
use kernels_ir::{Inst, InstData, Kernel, Opcode, Reg, RegClass, Space};

/// The order a warp issues the kernel's instructions in: `order[i]` is the
/// pc issued at position `i`. Each basic block keeps its positions (a
/// block's instructions are permuted among themselves), so a branch to a
/// block's first pc enters at `order[first pc]`.
pub(crate) fn exec_order(kernel: &Kernel) -> Vec<u32> {
    let n = kernel.insts.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    if n == 0 {
        return order;
    }
    let mut access: Vec<Access> = (kernel.insts.iter())
        .map(|i| Access::of(kernel, i))
        .collect();
    let regs = kernel.regs;
    let nregs = (regs.b32 + regs.b64 + regs.pred) as usize;
    for block in &Cfg::new(kernel).blocks {
        let (start, end) = (block.start as usize, block.end as usize);
        mark_waits(&mut access, nregs, start, end);
        schedule_block(&access, nregs, &mut order[start..end]);
    }
    order
}

/// How an instruction takes part in memory ordering.
#[derive(Copy, Clone, PartialEq, Eq)]
enum MemRole {
    /// No memory access.
    None,
    /// A global load: the instruction that moves.
    GlobalLoad,
    /// A shared load.
    SharedLoad,
    /// A shared store.
    SharedStore,
    /// Nothing moves across it: barriers, atomics, global stores, control.
    Fence,
}

fn role(inst: &Inst) -> MemRole {
    match inst.data {
        InstData::Load { opcode, .. } => match opcode.memory() {
            Some((Space::Global, _)) => MemRole::GlobalLoad,
            _ => MemRole::SharedLoad,
        },
        InstData::Store { opcode, .. } => match opcode.memory() {
            Some((Space::Global, _)) => MemRole::Fence,
            _ => MemRole::SharedStore,
        },
        InstData::Atomic { .. } | InstData::Branch { .. } => MemRole::Fence,
        InstData::Nullary {
            opcode: Opcode::BarSync | Opcode::WarpSync | Opcode::Exit,
        } => MemRole::Fence,
        _ => MemRole::None,
    }
}

/// A register's index among all of the kernel's (32-bit, 64-bit, then
/// predicates).
fn flat(kernel: &Kernel, r: Reg) -> usize {
    let regs = kernel.regs;
    (match r.class() {
        RegClass::B32 => r.index(),
        RegClass::B64 => regs.b32 + r.index(),
        RegClass::Pred => regs.b32 + regs.b64 + r.index(),
    }) as usize
}

/// What one instruction reads (guard included) and writes, and its part
/// in memory ordering.
struct Access {
    reads: Vec<usize>,
    writes: Vec<usize>,
    role: MemRole,
    /// Guarded (its writes keep the old value in some lanes).
    guarded: bool,
    /// It reads a value a global load of its block produced (directly or
    /// through other instructions): it waits for that load.
    waits: bool,
}

impl Access {
    fn of(kernel: &Kernel, inst: &Inst) -> Access {
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        if let Some(g) = inst.guard {
            reads.push(flat(kernel, g.pred));
        }
        kernels_ir::uses::for_each_use(inst, |r| reads.push(flat(kernel, r)));
        kernels_ir::uses::for_each_def(inst, |r| writes.push(flat(kernel, r)));
        Access {
            reads,
            writes,
            role: role(inst),
            guarded: inst.guard.is_some(),
            waits: false,
        }
    }
}

/// Marks the instructions of the block `start..end` that wait for one of
/// its global loads ([`Access::waits`]), following values through
/// registers in IR order (reordering keeps every dependence, so it keeps
/// this too).
fn mark_waits(access: &mut [Access], nregs: usize, start: usize, end: usize) {
    let mut loaded = vec![false; nregs];
    for a in &mut access[start..end] {
        a.waits = a.reads.iter().any(|&r| loaded[r]);
        let value = a.waits || a.role == MemRole::GlobalLoad;
        for &r in &a.writes {
            // A guarded write leaves some lanes' old value in place.
            loaded[r] = value || (a.guarded && loaded[r]);
        }
    }
}

/// Reorders one block's pcs (`seg`, in IR order on entry) by the rule in
/// the module's comment.
fn schedule_block(access: &[Access], nregs: usize, seg: &mut [u32]) {
    // Position from which the next global load may move up.
    let mut floor = 0;
    for i in 0..seg.len() {
        match access[seg[i] as usize].role {
            MemRole::Fence => floor = i + 1,
            MemRole::GlobalLoad => {
                floor += hoist(access, nregs, &mut seg[floor..=i]) + 1;
            }
            _ => {}
        }
    }
}

/// Moves the global load at the end of `window` up past the instructions
/// that wait for an earlier load and are not needed by it (transitively,
/// within the window), taking along what must stay after those: the rest
/// first, in their order, then the load, then the passed ones in their
/// order. Returns the load's new index.
///
/// An instruction must stay before a later one it has a register
/// dependence with either way, or when both access shared memory and one
/// of them stores; going backwards (what the load needs) and forwards
/// (what follows the passed ones), what the set reads and writes is
/// gathered, so each instruction is checked once a pass.
fn hoist(access: &[Access], nregs: usize, window: &mut [u32]) -> usize {
    let last = window.len() - 1;
    let mut needed = vec![false; window.len()];
    needed[last] = true;
    let (mut read, mut written) = (vec![false; nregs], vec![false; nregs]);
    let (mut shared, mut shared_store) = (false, false);
    for j in (0..=last).rev() {
        let a = &access[window[j] as usize];
        let is_shared = matches!(a.role, MemRole::SharedLoad | MemRole::SharedStore);
        let is_store = a.role == MemRole::SharedStore;
        if j < last {
            needed[j] = a.writes.iter().any(|&r| read[r] || written[r])
                || a.reads.iter().any(|&r| written[r])
                || (is_shared && (shared_store || (is_store && shared)));
        }
        if needed[j] {
            a.reads.iter().for_each(|&r| read[r] = true);
            a.writes.iter().for_each(|&r| written[r] = true);
            shared |= is_shared;
            shared_store |= is_store;
        }
    }
    // What the load passes: the instructions that wait for an earlier load
    // and are not needed, and whatever must stay after those.
    let mut passed = vec![false; window.len()];
    let (mut read, mut written) = (vec![false; nregs], vec![false; nregs]);
    let (mut shared, mut shared_store) = (false, false);
    for j in 0..last {
        let a = &access[window[j] as usize];
        let is_shared = matches!(a.role, MemRole::SharedLoad | MemRole::SharedStore);
        let is_store = a.role == MemRole::SharedStore;
        passed[j] = !needed[j]
            && (a.waits
                || a.reads.iter().any(|&r| written[r])
                || a.writes.iter().any(|&r| read[r] || written[r])
                || (is_shared && (shared_store || (is_store && shared))));
        if passed[j] {
            a.reads.iter().for_each(|&r| read[r] = true);
            a.writes.iter().for_each(|&r| written[r] = true);
            shared |= is_shared;
            shared_store |= is_store;
        }
    }
    let before: Vec<u32> = (0..=last)
        .filter(|&j| !passed[j])
        .map(|j| window[j])
        .collect();
    let after: Vec<u32> = (0..last)
        .filter(|&j| passed[j])
        .map(|j| window[j])
        .collect();
    window[..before.len()].copy_from_slice(&before);
    window[before.len()..].copy_from_slice(&after);
    before.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::parse_kernel;

    fn order(src: &str) -> Vec<u32> {
        exec_order(&parse_kernel(src).expect("parses").0)
    }

    #[test]
    fn a_load_moves_with_its_address_above_the_store_of_the_load_before() {
        // load_chain's tile for l = 2, then l = 3.
        let o = order(
            "kernel t {
                param src: u64
                regs r4 d2 p1
                ld.global.b32 r1, [d1+0]
                st.shared.b32 [r0+0], r1
                add d1, d1, d0
                setp.gt.u p0, r3, 1
                mov r2, 0
                @p0 ld.global.b32 r2, [d1+0]
                st.shared.b32 [r0+1024], r2
                add d1, d1, d0
                ld.global.b32 r3, [d1+0]
                st.shared.b32 [r0+2048], r3
            }",
        );
        assert_eq!(o, [0, 2, 3, 4, 5, 7, 8, 1, 6, 9]);
    }

    #[test]
    fn only_what_waits_for_an_earlier_load_is_passed() {
        // 1 reads r2 before 2 overwrites it (write after read), 3 writes
        // the load's destination (write after write): both stay before the
        // load; 4 waits for load 0 and is independent: passed.
        let o = order(
            "kernel t {
                regs r5 d2 p1
                ld.global.b32 r0, [d1+0]
                add r1, r0, r2
                mov r2, 8
                add r3, r0, 1
                add r4, r0, 2
                cvt.u64.u32 d0, r2
                ld.global.b32 r3, [d0+0]
                add r1, r3, 1
            }",
        );
        assert_eq!(o, [0, 1, 2, 3, 5, 6, 4, 7]);
        let guard = order(
            "kernel t {
                regs r4 d2 p1
                ld.global.b32 r0, [d1+0]
                add r2, r0, 1
                setp.eq p0, r1, 0
                @p0 ld.global.b32 r3, [d0+0]
            }",
        );
        assert_eq!(guard, [0, 2, 3, 1], "the guard's setp moves with it");
        let ready = order(
            "kernel t {
                regs r4 d2 p1
                add r1, r1, 1
                ld.global.b32 r0, [d0+0]
                add r2, r0, 1
            }",
        );
        assert_eq!(ready, [0, 1, 2], "work that waits for no load stays");
    }

    #[test]
    fn loads_stay_below_fences_and_in_their_order() {
        let o = order(
            "kernel t {
                regs r4 d2 p1
                ld.global.b32 r0, [d0+0]
                add r1, r0, 1
                ld.global.b32 r2, [d0+4]
                st.global.b32 [d0+8], r1
                add r1, r1, 1
                ld.global.b32 r3, [d0+12]
                bar.sync
                add r1, r1, 1
                ld.global.b32 r3, [d0+16]
            }",
        );
        assert_eq!(o, [0, 2, 1, 3, 5, 4, 6, 8, 7]);
        let labels = order(
            "kernel t {
                regs r4 d2 p1
                ld.global.b32 r1, [d0+0]
                add r1, r1, 1
            l:
                ld.global.b32 r2, [d0+0]
                add r2, r2, 1
                ld.global.b32 r3, [d0+4]
                @p0 bra l
                add r3, r3, 1
                ld.global.b32 r0, [d0+0]
            }",
        );
        assert_eq!(labels, [0, 1, 2, 4, 3, 5, 6, 7], "within each block");
    }

    #[test]
    fn shared_accesses_keep_their_order_where_one_is_a_store() {
        // The shared load 2 feeds the global load's address: the store 1
        // before it stays before it.
        let kept = order(
            "kernel t {
                regs r6 d2 p1
                ld.global.b32 r5, [d1+0]
                st.shared.b32 [r0+0], r5
                ld.shared.b32 r3, [r0+4]
                cvt.u64.u32 d0, r3
                ld.global.b32 r1, [d0+0]
            }",
        );
        assert_eq!(kept, [0, 1, 2, 3, 4]);
        // The passed store takes the shared load after it along.
        let along = order(
            "kernel t {
                regs r6 d2 p1
                ld.global.b32 r5, [d1+0]
                st.shared.b32 [r0+0], r5
                ld.shared.b32 r3, [r0+4]
                add r2, r2, 1
                ld.global.b32 r1, [d0+0]
            }",
        );
        assert_eq!(along, [0, 3, 4, 1, 2]);
        let loads = order(
            "kernel t {
                regs r6 d2 p1
                ld.global.b32 r5, [d1+0]
                ld.shared.b32 r1, [r5+0]
                ld.shared.b32 r3, [r0+4]
                cvt.u64.u32 d0, r3
                ld.global.b32 r2, [d0+0]
            }",
        );
        assert_eq!(loads, [0, 2, 3, 4, 1], "two shared loads may swap");
    }
}
