//! Which registers a new warp must zero.
//!
//! Registers start at 0, but zeroing every register of every warp costs a
//! large share of a short kernel's simulation. A forward must-analysis over
//! the control-flow graph finds the registers every path writes (unguarded)
//! before reading; only the others are zeroed. It is exact per thread: a
//! lane reaching an instruction has followed one path of the graph, and an
//! unguarded write on that path wrote the lane. A shuffle reads *other*
//! lanes (which may have exited or never existed), so its source is always
//! zeroed.

use kernels_ir::cfg::Cfg;
use kernels_ir::{InstData, Kernel, Reg, RegClass};

use crate::regfile::ZeroSlots;

/// A set of value registers (32-bit first, then 64-bit), as bits.
#[derive(Clone, PartialEq, Eq)]
struct Set(Vec<u64>);

impl Set {
    fn empty(n: usize) -> Set {
        Set(vec![0; n.div_ceil(64).max(1)])
    }

    fn full(n: usize) -> Set {
        Set(vec![u64::MAX; n.div_ceil(64).max(1)])
    }

    fn has(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    fn add(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn meet(&mut self, other: &Set) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
    }
}

/// The value slots a new warp must zero, in increasing order: `r`
/// registers among the 32-bit slots, `d` registers among the 64-bit ones.
pub(crate) fn slots_to_zero(kernel: &Kernel) -> ZeroSlots {
    let b32 = kernel.regs.b32 as usize;
    let n = b32 + kernel.regs.b64 as usize;
    let index = |r: Reg| match r.class() {
        RegClass::B32 => Some(r.index() as usize),
        RegClass::B64 => Some(b32 + r.index() as usize),
        RegClass::Pred => None,
    };
    if kernel.insts.is_empty() {
        return ZeroSlots::default();
    }
    let cfg = Cfg::new(kernel);
    let nb = cfg.blocks.len();
    let mut preds = vec![Vec::new(); nb];
    for (b, block) in cfg.blocks.iter().enumerate() {
        for &s in &block.succs {
            preds[s].push(b);
        }
    }
    // Defined at each block's exit; the entry block starts with nothing.
    let mut out = vec![Set::full(n); nb];
    let mut needs = Set::empty(n);
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..nb {
            let mut defined = if b == 0 { Set::empty(n) } else { Set::full(n) };
            for &p in &preds[b] {
                defined.meet(&out[p]);
            }
            if b == 0 {
                defined = Set::empty(n);
            }
            let block = &cfg.blocks[b];
            for inst in &kernel.insts[block.start as usize..block.end as usize] {
                kernels_ir::uses::for_each_use(inst, |r| {
                    if let Some(i) = index(r)
                        && !defined.has(i)
                    {
                        needs.add(i);
                    }
                });
                if let InstData::Shfl { src, .. } = inst.data
                    && let Some(i) = index(src)
                {
                    needs.add(i);
                }
                if inst.guard.is_none() {
                    kernels_ir::uses::for_each_def(inst, |r| {
                        if let Some(i) = index(r) {
                            defined.add(i);
                        }
                    });
                }
            }
            if defined != out[b] {
                out[b] = defined;
                changed = true;
            }
        }
    }
    let needed = |range: std::ops::Range<usize>| {
        range
            .filter(|&i| needs.has(i))
            .map(|i| i as u32)
            .collect::<Vec<u32>>()
    };
    ZeroSlots {
        b32: needed(0..b32),
        b64: needed(b32..n).into_iter().map(|i| i - b32 as u32).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::{KernelBuilder, Special};

    #[test]
    fn registers_written_on_every_path_first_need_no_zeroing() {
        let mut b = KernelBuilder::new("t");
        let (r0, r1, r2, r3, p) = (b.reg32(), b.reg32(), b.reg32(), b.reg32(), b.pred());
        let skip = b.label("skip");
        b.mov(r0, 1); // r0 defined
        b.setp_eq(p, Special::LaneId, 0);
        b.when(p).mov(r1, 2); // guarded: r1 not defined
        b.when(p).bra(skip);
        b.mov(r2, 3); // r2 defined on one path only
        b.bind(skip);
        b.add(r3, r0, r1); // reads r0 (defined) and r1 (not)
        b.add(r3, r3, r2); // reads r2 (not on every path)
        b.shfl(kernels_ir::Opcode::ShflXor, r3, r0, 1, 4); // a shuffle source: always zeroed
        let zero = slots_to_zero(&b.build());
        assert_eq!(
            (zero.b32.as_slice(), zero.b64.as_slice()),
            (&[0, 1, 2][..], &[][..])
        );
    }

    #[test]
    fn loops_keep_what_is_defined_before_them() {
        let mut b = KernelBuilder::new("t");
        let (i, acc, d) = (b.reg32(), b.reg32(), b.reg64());
        let (top, p) = (b.label("top"), b.pred());
        b.mov(i, 0);
        b.bind(top);
        b.add(acc, acc, i); // acc is read before any write
        b.cvt_u64_u32(d, i);
        b.add(i, i, 1);
        b.setp_lt_u(p, i, 4);
        b.when(p).bra(top);
        b.exit();
        let zero = slots_to_zero(&b.build());
        assert_eq!(
            (zero.b32.as_slice(), zero.b64.as_slice()),
            (&[1][..], &[][..])
        );
    }
}
