//! The special-register reads a warp makes at its start (`S2R`).
//!
//! **Why.** The IR reads `%tid.x`, `%laneid`, `%warpid` and `%ctaid.x` as
//! free operands, but ptxas reads each hardware special register a kernel
//! needs with one `S2R` at the warp's start (`simsort emit ptx` computes
//! `%warpid` from `%tid.x`, `%tid.y` and `%tid.z`, so it takes three), and
//! the H200's `mio_throttle` and `short_scoreboard` grow with them. Measured
//! on the H200 (`hw/calib/suite_s2r.txt`, docs/calibration.md, "The last
//! launches beyond 25%"): `write.kir` over 1024 blocks of 1,024 threads
//! takes 5,575 cycles with its 2 `S2R` a warp and 6,507 with 5
//! (`write_sr.kir`): an SM's 32 warps, starting together, need about 2
//! cycles an `S2R` (5 a warp: 320 cycles), longer than the 160 until the
//! next block arrives. `reduce.kir` (5 `S2R`) takes about 12,970 cycles,
//! the same reduction with 1 (`reduce_tid.kir`) about 11,940. Where
//! blocks start 160 cycles apart anyway (13,200 blocks of 256 threads) the
//! same 3 `S2R` cost nothing measurable (19,548 and 19,575 cycles).
//!
//! **The model.** When a warp starts it makes the kernel's `S2R`s, in the
//! order the kernel first reads the specials they serve: each takes its
//! sub-partition's share of the SM's rate (`s2r_lanes_per_cycle`; one
//! after another in the order warps start), and a special's value is
//! there `s2r_latency_cycles` after the last `S2R` it needs started (a
//! scoreboard entry per special): an instruction that reads it waits
//! (`short_scoreboard`) until then, as ptxas's code waits for an `S2R`'s
//! result at its first use.

use crate::decode::SpecialSlot;
use kernels_ir::Special;

/// A kernel's `S2R`s: how many a warp makes, and for each of its per-warp
/// specials (in [`crate::decode::Program::specials`]' order) how many of
/// them up to the last one it needs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reads {
    pub count: u32,
    pub upto: Vec<u32>,
}

/// The hardware registers a special is read from, as bits: `SR_TID.X`,
/// `.Y`, `.Z`, `SR_LANEID`, `SR_CTAID.X`, `.Y`, `.Z`.
fn hw_regs(s: Special) -> u32 {
    match s {
        Special::TidX => 1,
        Special::TidY => 2,
        Special::TidZ => 4,
        // `simsort emit` numbers warps from the flat thread index.
        Special::WarpId => 1 | 2 | 4,
        Special::LaneId => 8,
        Special::CtaidX => 16,
        Special::CtaidY => 32,
        Special::CtaidZ => 64,
        _ => 0,
    }
}

/// The `S2R`s ptxas makes of a kernel whose per-warp specials are
/// `specials` (in the order the kernel first reads them): one for each
/// hardware register they need, issued in that order.
pub(crate) fn reads(specials: &[SpecialSlot]) -> Reads {
    let mut order: Vec<u32> = Vec::new();
    let upto = specials
        .iter()
        .map(|s| {
            let regs = hw_regs(s.special);
            let mut last = 0;
            for bit in (0..7).map(|b| 1 << b).filter(|b| regs & b != 0) {
                let at = match order.iter().position(|&r| r == bit) {
                    Some(i) => i,
                    None => {
                        order.push(bit);
                        order.len() - 1
                    }
                };
                last = last.max(at as u32 + 1);
            }
            last
        })
        .collect();
    Reads {
        count: order.len() as u32,
        upto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(of: &[Special]) -> Vec<SpecialSlot> {
        of.iter()
            .enumerate()
            .map(|(i, &special)| SpecialSlot {
                special,
                slot: i as u32,
            })
            .collect()
    }

    #[test]
    fn a_warp_index_reads_all_three_thread_indices() {
        // write.kir: %ctaid.x * %ntid.x + %tid.x, two S2R in its SASS.
        let r = reads(&slots(&[Special::CtaidX, Special::TidX]));
        assert_eq!((r.count, r.upto), (2, vec![1, 2]));
        // reduce.kir and write_sr.kir add %laneid and %warpid: five, the
        // warp index ready with the last of the three thread indices.
        let five = [
            Special::CtaidX,
            Special::TidX,
            Special::LaneId,
            Special::WarpId,
        ];
        let r = reads(&slots(&five));
        assert_eq!((r.count, r.upto), (5, vec![1, 2, 3, 5]));
        assert_eq!(reads(&slots(&[])).count, 0);
    }
}
