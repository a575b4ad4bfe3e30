//! One warp slot of an SM: the SIMT stack, registers, scoreboard and
//! scheduling state.
//!
//! **SIMT stack.** Exactly the reference interpreter's rule: an entry runs
//! `mask` from `pc` until `rpc`. A divergent branch turns the top entry into
//! the reconvergence entry (`pc = rpc`) and pushes the not-taken side, then
//! the taken side, so the taken side runs first. Entries pop when their
//! mask empties (lanes exited) or they reach their `rpc`; reaching the end
//! of the kernel is an implicit exit. The top entry lives in the warp
//! itself (`cur`), the entries below it in `stack`, so the common case of a
//! converged warp never touches the heap.

use crate::line_return::WarpLines;
use crate::regfile::RegFile;

/// One SIMT stack entry: run `mask` from `pc` until `rpc`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Entry {
    pub pc: u32,
    pub mask: u64,
    pub rpc: u32,
}

/// What a warp slot is doing (when it may issue is [`crate::sm::Sm::ready`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// No warp.
    Free,
    /// Running.
    Ready,
    /// Waiting at `bar.sync` since `barrier_since`.
    Barrier,
}

/// A warp slot.
///
/// Laid out by hand (`repr(C)`, starting a host cache line): what every
/// issue reads (the SIMT entry, the live lanes, the register file's
/// pointers and shape) fills the first two lines, the rest follows. An
/// SM's warps leave the host caches between its quanta, so each line an
/// issue touches is likely a miss; the compiler's own order spread these
/// fields over four or five.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(crate) struct Warp {
    /// The current SIMT entry, if the warp has not finished.
    cur: Option<Entry>,
    /// Lanes that have not exited.
    pub live: u64,
    /// Registers and, per register, the scoreboard: `(cycle << 4) | reason`,
    /// the cycle its pending write lands and the stall reason a wait for it
    /// is charged to.
    pub rf: RegFile,
    /// Launch order on this SM (larger is younger).
    pub age: u64,
    /// The warp's index within its block.
    pub index: u32,
    /// The SM's block slot the warp belongs to.
    pub block: u16,
    pub state: State,
    /// Which warp's per-warp special values (`%laneid`, `%tid`, `%warpid`:
    /// those that depend only on the warp's index in its block and the
    /// launch) the slot's special rows hold: the index plus one, or 0 when
    /// none of this launch (see [`crate::sm::Sm::reset`]). The kernel never
    /// writes a special's row, so a later warp with the same index finds
    /// its values already there.
    pub specials_of: u32,
    /// The entries below `cur`.
    stack: Vec<Entry>,
    /// The first cycle of the current barrier wait.
    pub barrier_since: u64,
    /// Waiting for an unresolved load: the packed floor and first cycle of
    /// the wait, to charge once the load's timing is known.
    pub blocked: Option<(u64, u64)>,
    /// The first cycle the warp may issue its next shared-memory access
    /// (`GpuConfig::smem_issue_interval_cycles` after its last one).
    pub smem_issue_at: u64,
    /// The cycle the warp became resident.
    pub start: u64,
    /// The warp's scattered global loads in flight together, whose lines
    /// return one after another ([`crate::line_return`]).
    pub lines: WarpLines,
}

impl Default for Warp {
    fn default() -> Warp {
        Warp {
            state: State::Free,
            block: 0,
            index: 0,
            age: 0,
            live: 0,
            cur: None,
            stack: Vec::new(),
            rf: RegFile::default(),
            barrier_since: 0,
            smem_issue_at: 0,
            blocked: None,
            start: 0,
            specials_of: 0,
            lines: WarpLines::default(),
        }
    }
}

impl Warp {
    /// Starts the warp with one entry.
    pub fn begin(&mut self, entry: Entry) {
        self.stack.clear();
        self.cur = Some(entry);
    }

    /// The current entry, if the warp has not finished.
    #[inline]
    pub fn current(&self) -> Option<Entry> {
        self.cur
    }

    /// The current entry (the warp must not have finished).
    #[inline]
    pub fn top(&self) -> Entry {
        self.cur.expect("a running warp has a stack entry")
    }

    /// The current pc (the warp must not have finished).
    #[inline]
    pub fn pc(&self) -> u32 {
        self.top().pc
    }

    /// Moves the current entry to `pc`.
    #[inline]
    pub fn set_pc(&mut self, pc: u32) {
        if let Some(cur) = &mut self.cur {
            cur.pc = pc;
        }
    }

    /// Pops finished entries; returns whether the warp still has work.
    pub fn normalize(&mut self, end: u32) -> bool {
        while let Some(cur) = &mut self.cur {
            cur.mask &= self.live;
            if cur.mask == 0 || cur.pc == cur.rpc {
                self.cur = self.stack.pop();
            } else if cur.pc >= end {
                self.live &= !cur.mask;
                self.cur = self.stack.pop();
            } else {
                return true;
            }
        }
        false
    }

    /// Takes the branch at the top entry: `taken` lanes go to `target`, the
    /// others to `fall` (the pc issued after the branch); a split
    /// reconverges at `rpc`.
    pub fn branch(&mut self, taken: u64, target: u32, fall: u32, rpc: u32) {
        let top = self.top();
        let not_taken = top.mask & !taken;
        if not_taken == 0 {
            self.set_pc(target);
        } else if taken == 0 {
            self.set_pc(fall);
        } else {
            self.stack.push(Entry { pc: rpc, ..top });
            self.stack.push(Entry {
                pc: fall,
                mask: not_taken,
                rpc,
            });
            self.cur = Some(Entry {
                pc: target,
                mask: taken,
                rpc,
            });
        }
    }

    /// The guard mask of predicate `guard` among the lanes of `mask`.
    #[inline]
    pub fn guarded(&self, mask: u64, guard: Option<(u32, bool)>) -> u64 {
        match guard {
            Some((p, negated)) => {
                let bits = self.rf.preds()[p as usize];
                mask & if negated { !bits } else { bits }
            }
            None => mask,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warp(mask: u64, end: u32) -> Warp {
        let mut w = Warp {
            state: State::Ready,
            live: mask,
            ..Warp::default()
        };
        w.begin(Entry {
            pc: 0,
            mask,
            rpc: end,
        });
        w
    }

    #[test]
    fn what_every_issue_reads_is_in_the_slots_first_two_lines() {
        use std::mem::offset_of;
        assert_eq!(align_of::<Warp>(), 64, "a slot starts a host cache line");
        assert!(offset_of!(Warp, live) + 8 <= 64);
        assert!(offset_of!(Warp, rf) + size_of::<RegFile>() <= 128);
        assert!(offset_of!(Warp, age) + 8 <= 128);
    }

    #[test]
    fn divergent_branch_runs_taken_side_first_then_reconverges() {
        let mut w = warp(0b1111, 10);
        w.set_pc(2);
        w.branch(0b0011, 7, 3, 5);
        assert!(w.normalize(10));
        assert_eq!(
            w.top(),
            Entry {
                pc: 7,
                mask: 0b0011,
                rpc: 5
            }
        );
        w.set_pc(5);
        assert!(w.normalize(10));
        assert_eq!(
            w.top(),
            Entry {
                pc: 3,
                mask: 0b1100,
                rpc: 5
            }
        );
        w.set_pc(5);
        assert!(w.normalize(10));
        assert_eq!(
            w.top(),
            Entry {
                pc: 5,
                mask: 0b1111,
                rpc: 10
            }
        );
    }

    #[test]
    fn uniform_branches_do_not_split() {
        let mut w = warp(0b11, 10);
        w.branch(0b11, 6, 7, 9);
        assert!(w.stack.is_empty());
        assert_eq!(w.pc(), 6);
        w.branch(0, 2, 7, 9);
        assert_eq!(w.pc(), 7);
    }

    #[test]
    fn exited_lanes_leave_every_entry_and_the_end_is_an_exit() {
        let mut w = warp(0b1111, 10);
        w.branch(0b0001, 8, 1, 10);
        w.live &= !0b0001; // the taken lane exits
        assert!(w.normalize(10));
        assert_eq!(
            w.top(),
            Entry {
                pc: 1,
                mask: 0b1110,
                rpc: 10
            }
        );
        w.set_pc(10);
        assert!(!w.normalize(10));
    }
}
