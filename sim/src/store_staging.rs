//! Stores that wait for their registers: ptxas's staging quads.
//!
//! A store reads its data registers when it leaves the sub-partition's LSU
//! queue, not when it issues. Where the IR stores values it computed 16
//! bytes at a time, ptxas does not keep one quad of four aligned registers
//! for each: it copies the values into a few staging quads (`IMAD.MOV`)
//! just before each store, and a copy into a quad waits until the store
//! before it on that quad has read it. GPUTeraSort's `step`
//! (`hw/data/h200/sass/terasort_64k/`) builds 10 of its 16 stores in two
//! quads, `R8`-`R11` eight times and `R20`-`R23` twice; its warps wait in
//! `long_scoreboard` on the H200 with at most two stores each queued. Its
//! `tail` and `head` store the quads their 16-byte shared loads filled
//! (`STG.E.128 ... R28`, `R24`, ... back to back): no copy, no wait, and
//! their warps queue all 16 stores, waiting in `lg_throttle`.
//!
//! So a 16-byte global store whose data some other instruction than a
//! 16-byte load wrote last, in program order, takes the next of
//! `store_staging_quads` quads in turn ([`Quads`]) and issues no sooner
//! than the store before it on that quad read its registers: when the port
//! to L2 took it, for a store held in the queue that long
//! (`store_port_hold`), else as it left the queue, which the model counts
//! as at once (a store that is not held leaves within the LSU's few cycles).
//! Bitonic's `step` stages its four stores in three quads, and only its
//! fourth waits, for a store the port is not holding: no wait either.

use std::collections::HashMap;

use kernels_ir::{InstData, Kernel, Reg, Space};

/// The most staging quads a machine may name (`store_staging_quads`).
pub(crate) const MAX_QUADS: usize = 4;

/// For every pc of `kernel`, whether it is a 16-byte global store of
/// computed data: a source register's nearest writer before it in program
/// order is not a 16-byte load (or there is none).
pub(crate) fn staged_stores(kernel: &Kernel) -> Vec<bool> {
    let insts = &kernel.insts;
    // Per register, whether its last writer so far was a 16-byte load.
    let mut loaded: HashMap<Reg, bool> = HashMap::new();
    let mut marks = vec![false; insts.len()];
    for (pc, inst) in insts.iter().enumerate() {
        if let InstData::Store { opcode, srcs, .. } = inst.data
            && opcode.memory() == Some((Space::Global, 16))
        {
            marks[pc] = (srcs.as_slice().iter()).any(|r| loaded.get(r) != Some(&true));
        }
        let wide_load = matches!(inst.data, InstData::Load { opcode, .. }
            if opcode.memory().is_some_and(|(_, bytes)| bytes == 16));
        kernels_ir::uses::for_each_def(inst, |r| {
            loaded.insert(r, wide_load);
        });
    }
    marks
}

/// A warp's staging quads: when the store that last took each one read
/// its registers, and which it takes next.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Quads {
    read_at: [u64; MAX_QUADS],
    next: u8,
}

impl Quads {
    /// The first cycle the warp's next staged store may issue: when the
    /// store before it on its quad has read it.
    #[inline]
    pub fn free_at(&self) -> u64 {
        self.read_at[usize::from(self.next)]
    }

    /// A staged store takes the next of `quads` quads and reads it at
    /// `read_at`.
    #[inline]
    pub fn take(&mut self, quads: u32, read_at: u64) {
        self.read_at[usize::from(self.next)] = read_at;
        self.next = ((u32::from(self.next) + 1) % quads) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(body: &str) -> Vec<usize> {
        let src = format!(
            "kernel k {{
    param out: u64
    regs r12 d1 p1
    shared 64
    mov d0, $out
{body}
    exit
}}"
        );
        let (k, _) = kernels_ir::parse_kernel(&src).expect("parses");
        let m = staged_stores(&k);
        (0..m.len()).filter(|&pc| m[pc]).collect()
    }

    #[test]
    fn a_store_of_what_a_16_byte_load_filled_is_not_staged() {
        let m = marks(
            "    ld.shared.b128 {r0, r1, r2, r3}, [r8+0]
    st.global.b128 [d0+0], {r0, r1, r2, r3}",
        );
        assert_eq!(m, Vec::<usize>::new());
    }

    #[test]
    fn a_store_of_computed_data_is_staged() {
        // pc 0 is `mov d0`; the add rewrites r2 after the load.
        let m = marks(
            "    ld.global.b128 {r0, r1, r2, r3}, [d0+0]
    add r2, r2, 1
    st.global.b128 [d0+0], {r0, r1, r2, r3}
    st.global.b128 [d0+16], {r4, r5, r6, r7}",
        );
        assert_eq!(m, vec![3, 4]);
    }

    #[test]
    fn narrower_stores_and_shared_stores_are_not_staged() {
        let m = marks(
            "    add r0, r0, 1
    st.global.b64 [d0+0], {r0, r1}
    st.shared.b128 [r8+0], {r0, r1, r2, r3}",
        );
        assert_eq!(m, Vec::<usize>::new());
    }

    #[test]
    fn quads_are_taken_in_turn() {
        let mut q = Quads::default();
        assert_eq!(q.free_at(), 0);
        q.take(2, 100);
        assert_eq!(q.free_at(), 0);
        q.take(2, 150);
        assert_eq!(q.free_at(), 100);
        q.take(2, 180);
        assert_eq!(q.free_at(), 150);
    }
}
