//! How many register words a thread holds at once.
//!
//! The IR declares a register for every value a generator names, and a
//! generator names more than it keeps alive: HotSort's `bc` at H = 8
//! declares 41 words where ptxas allocates 32 registers. Occupancy (how
//! many blocks share an SM) follows the registers the machine code uses, so
//! the simulator counts the words live at once, as a register allocator
//! would need, rather than the declared ones.

use crate::cfg::Cfg;
use crate::entities::{Reg, RegClass};
use crate::kernel::Kernel;
use crate::uses::{for_each_def, for_each_use};

/// A set of registers of one kernel, as bits: 32-bit registers first, then
/// 64-bit ones. Predicates live in their own file and are not tracked.
#[derive(Clone, PartialEq, Eq)]
struct Set(Vec<u64>);

impl Set {
    fn new(bits: usize) -> Set {
        Set(vec![0; bits.div_ceil(64)])
    }
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    fn union_with(&mut self, other: &Set) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
    fn copy_from(&mut self, other: &Set) {
        self.0.copy_from_slice(&other.0);
    }
}

/// The registers live as `block` ends: those live into any successor.
fn live_out(cfg: &Cfg, block: usize, live_in: &[Set], bits: usize) -> Set {
    let mut live = Set::new(bits);
    for &s in &cfg.blocks[block].succs {
        live.union_with(&live_in[s]);
    }
    live
}

/// Maps registers to bit indices and counts a set's 32-bit words.
struct Layout {
    b32: usize,
    b64: usize,
}

impl Layout {
    fn index(&self, reg: Reg) -> Option<usize> {
        let i = reg.index() as usize;
        match reg.class() {
            RegClass::B32 => Some(i),
            RegClass::B64 => Some(self.b32 + i),
            RegClass::Pred => None,
        }
    }
    /// 32-bit words of `set`: a 64-bit register is two.
    fn words(&self, set: &Set) -> u32 {
        let mut n = 0;
        for (w, bits) in set.0.iter().enumerate() {
            let mut bits = *bits;
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                n += if i < self.b32 { 1 } else { 2 };
                bits &= bits - 1;
            }
        }
        n
    }
    fn bits(&self) -> usize {
        self.b32 + self.b64
    }
}

/// The registers an instruction reads, and those it replaces: a guarded
/// write leaves the old value in the lanes the guard turns off, so it does
/// not end the old value's life.
fn transfer(layout: &Layout, inst: &crate::inst::Inst, live: &mut Set) {
    if inst.guard.is_none() {
        for_each_def(inst, |r| {
            if let Some(i) = layout.index(r) {
                live.remove(i);
            }
        });
    }
    for_each_use(inst, |r| {
        if let Some(i) = layout.index(r) {
            live.insert(i);
        }
    });
}

/// How a machine allocates a thread's registers beyond the words its kernel
/// keeps live (the machine fields of the same names). One rule for the
/// simulator's occupancy and the sorts' checks of a block, so that a sort
/// never refuses a block the simulator would hold, nor accepts one it would
/// refuse.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RegAllocation {
    /// What a compiler adds to the live words (addresses, predicates kept
    /// apart, scheduling), never beyond the declared words.
    pub reg_words_beyond_live: u32,
    /// At least this many beyond the live words, even beyond the declared
    /// ones, for a kernel that moves 16 bytes a lane in one access
    /// ([`moves_16_bytes`]): each such access needs four consecutive
    /// aligned registers, and ptxas gives GPUTeraSort's `step` 84
    /// registers where its IR declares 74 and keeps 68 live.
    pub reg_words_beyond_live_b128: u32,
    /// The most a thread may have.
    pub max_regs_per_thread: u32,
}

impl RegAllocation {
    /// The register words per thread allocated for a kernel that keeps
    /// `live` words live, declares `declared` and moves 16 bytes a lane in
    /// an access or not (`moves_16_bytes`).
    pub fn words(&self, live: u32, declared: u32, moves_16_bytes: bool) -> u32 {
        let floor = if moves_16_bytes {
            self.reg_words_beyond_live_b128
        } else {
            0
        };
        live.saturating_add(self.reg_words_beyond_live)
            .min(declared)
            .max(live.saturating_add(floor))
            .min(self.max_regs_per_thread)
    }
}

/// Whether `kernel` loads or stores 16 bytes a lane in one instruction
/// (`ld.*.b128`, `st.*.b128`): such kernels hold more registers beyond
/// their live words than others ([`RegAllocation`]).
pub fn moves_16_bytes(kernel: &Kernel) -> bool {
    kernel
        .insts
        .iter()
        .any(|i| matches!(i.data.opcode().memory(), Some((_, 16))))
}

/// The most 32-bit register words live at once at any instruction of
/// `kernel` (a value written and never read counts where it is written).
/// At most the declared words ([`crate::RegCounts::words_per_thread`]).
pub fn max_live_words(kernel: &Kernel) -> u32 {
    let layout = Layout {
        b32: kernel.regs.b32 as usize,
        b64: kernel.regs.b64 as usize,
    };
    if kernel.insts.is_empty() {
        return 0;
    }
    let cfg = Cfg::new(kernel);
    let n = cfg.blocks.len();
    let mut live_in = vec![Set::new(layout.bits()); n];
    // Backward dataflow to a fixed point, blocks in reverse order (loops
    // take a few rounds; straight-line code one).
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut live = live_out(&cfg, b, &live_in, layout.bits());
            let block = &cfg.blocks[b];
            for pc in (block.start..block.end).rev() {
                transfer(&layout, &kernel.insts[pc as usize], &mut live);
            }
            if live != live_in[b] {
                live_in[b] = live;
                changed = true;
            }
        }
    }
    let mut most = 0;
    let mut at = Set::new(layout.bits());
    for (b, block) in cfg.blocks.iter().enumerate() {
        let mut live = live_out(&cfg, b, &live_in, layout.bits());
        for pc in (block.start..block.end).rev() {
            let inst = &kernel.insts[pc as usize];
            // Live after the instruction, with what it writes.
            at.copy_from(&live);
            for_each_def(inst, |r| {
                if let Some(i) = layout.index(r) {
                    at.insert(i);
                }
            });
            most = most.max(layout.words(&at));
            transfer(&layout, inst, &mut live);
            most = most.max(layout.words(&live));
        }
    }
    most.min(kernel.regs.words_per_thread())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_kernel;

    fn live(src: &str) -> u32 {
        max_live_words(&parse_kernel(src).expect("parses").0)
    }

    #[test]
    fn values_that_die_free_their_words() {
        // Four registers declared, never more than two alive.
        let src = "kernel k {
    param out: u64
    regs r4 d1 p1
    mov d0, $out
    mov r0, 1
    add r1, r0, 2
    add r2, r1, 3
    add r3, r2, 4
    st.global.b32 [d0+0], r3
}";
        // Declared: 6 words. d0 (two words) lives throughout; each add's
        // source dies as its result is written, so one 32-bit value at a time.
        assert_eq!(live(src), 3);
    }

    #[test]
    fn a_value_read_after_a_loop_lives_through_it() {
        // r0 is written before the loop and read after it, so it is live
        // in every trip: d0 (two words), r0, and the counter (r1, then its
        // copy r2, never both); without the read after the loop, one fewer.
        let with = "kernel k {
    param out: u64
    regs r3 d1 p1
    mov d0, $out
    mov r0, 7
    mov r1, 0
  again:
    setp.ge.u p0, r1, 10
    @p0 bra done
    add r2, r1, 1
    mov r1, r2
    bra again
  done:
    st.global.b32 [d0+0], r0
    exit
}";
        assert_eq!(live(with), 4);
        let without = with.replace("st.global.b32 [d0+0], r0", "st.global.b32 [d0+0], r1");
        assert_eq!(live(&without), 3);
    }
}
