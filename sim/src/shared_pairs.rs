//! Wide shared loads whose lanes read in pairs: one phase for two.
//!
//! **Why.** A shared access wider than a bank word is served in phases of
//! a wavefront's worth of lanes (half-warps for 8 bytes a lane,
//! quarter-warps for 16: [`Banks::wavefronts`]), and each active phase
//! costs at least a wavefront. On the H200 that holds for stores, but a
//! *load* takes phases twice as wide whenever the warp's lanes read in
//! pairs: every lane `l` reads the address lane `l ^ 1` reads, or every
//! lane the address lane `l ^ 2` reads (lanes off match anything).
//! `hw/smem_patterns.sh` ran 552 one-warp patterns of each width and kind
//! on the H200 (`hw/data/h200/smem_patterns/`, read by
//! `tests/smem_patterns.rs`): with this rule the loads' wavefronts and
//! bank conflicts equal Nsight Compute's in all 552, without it in 471
//! (every 8-byte load that all lanes read from one word took 2 wavefronts
//! in the model, 1 on the H200); the stores equal the phase rule alone in
//! all 552. Pairs of either kind count, but not a mix: a warp whose lanes
//! pair as `l ^ 1` in some quads and as `l ^ 2` in others takes the
//! narrow phases, as does a warp paired only as `l ^ 4` or `l ^ 16`.
//!
//! GPUTeraSort's `reorder` is where it shows: its 8-byte loads of the
//! pointer table read one entry a record, 25 lanes a record of 100 bytes,
//! so a warp's lanes pair wherever its record boundaries fall on even
//! lanes (3 of a block's 8 warps): 1.625 wavefronts a load on the H200,
//! where the half-warps gave 2.
//!
//! The machine field `smem_paired_loads` turns it on (the `h200` and
//! `h100` presets; the `tiny` test machine keeps the plain phases).

use crate::shared_mem::{Banks, Wavefronts};

impl Banks {
    /// Wavefronts of a shared load of `bytes` a lane at `addrs` by the
    /// lanes of `exec`: [`Self::wavefronts`], with phases twice as wide
    /// (at most the warp) where the lanes read in pairs.
    pub fn load_wavefronts(&self, addrs: &[u64], exec: u64, bytes: u32) -> Wavefronts {
        let per_phase = self.phase_lanes(bytes);
        if per_phase < addrs.len() && (paired(addrs, exec, 1) || paired(addrs, exec, 2)) {
            return self.phased(addrs, exec, bytes, (2 * per_phase).min(addrs.len()));
        }
        self.phased(addrs, exec, bytes, per_phase)
    }
}

/// Whether every active lane `l` whose partner `l ^ step` is active reads
/// the partner's address.
fn paired(addrs: &[u64], exec: u64, step: usize) -> bool {
    (0..addrs.len()).all(|l| {
        let o = l ^ step;
        o >= addrs.len() || (exec >> l) & (exec >> o) & 1 == 0 || addrs[l] == addrs[o]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NVIDIA: Banks = Banks {
        banks: 32,
        width: 4,
    };
    const FULL: u64 = u64::MAX >> 32;

    fn wf(w: Wavefronts) -> (u32, u32) {
        (w.wavefronts, w.conflicts)
    }

    /// Lane `l` at element `f(l)` of `bytes`.
    fn at(bytes: u32, f: impl Fn(u64) -> u64) -> Vec<u64> {
        (0..32).map(|l| f(l) * u64::from(bytes)).collect()
    }

    #[test]
    fn a_broadcast_of_eight_bytes_is_one_wavefront_for_a_load_two_for_a_store() {
        let same = at(8, |_| 0);
        assert_eq!(wf(NVIDIA.load_wavefronts(&same, FULL, 8)), (1, 0));
        assert_eq!(wf(NVIDIA.wavefronts(&same, FULL, 8)), (2, 0));
        // 16 bytes: half-warps instead of quarter-warps.
        assert_eq!(wf(NVIDIA.load_wavefronts(&at(16, |_| 0), FULL, 16)), (2, 0));
    }

    #[test]
    fn pairs_either_way_count_but_not_a_mix() {
        // l ^ 1: lanes 2j and 2j + 1 on word j (128 bytes, no conflict).
        assert_eq!(
            wf(NVIDIA.load_wavefronts(&at(8, |l| l / 2), FULL, 8)),
            (1, 0)
        );
        // l ^ 2: the quad reads words (0, 1, 0, 1).
        assert_eq!(
            wf(NVIDIA.load_wavefronts(&at(8, |l| l & 1), FULL, 8)),
            (1, 0)
        );
        // Quad 1 as l ^ 2, the others as l ^ 1: no pairing.
        let mixed = at(8, |l| {
            let (q, i) = (l / 4, l % 4);
            if q == 1 {
                2 * q + (i & 1)
            } else {
                2 * q + i / 2
            }
        });
        assert_eq!(wf(NVIDIA.load_wavefronts(&mixed, FULL, 8)), (2, 0));
        // l ^ 4 or l ^ 16 alone: no pairing.
        assert_eq!(
            wf(NVIDIA.load_wavefronts(&at(8, |l| l % 4), FULL, 8)),
            (2, 0)
        );
        assert_eq!(
            wf(NVIDIA.load_wavefronts(&at(8, |l| l % 16), FULL, 8)),
            (2, 0)
        );
    }

    #[test]
    fn the_merged_phase_keeps_its_bank_conflicts() {
        // Half-warps on words 0 and 16: one phase whose banks 0-1 deliver
        // two words (2 wavefronts, 1 conflict), where two phases had none.
        let far = at(8, |l| if l < 16 { 0 } else { 16 });
        assert_eq!(wf(NVIDIA.load_wavefronts(&far, FULL, 8)), (2, 1));
        assert_eq!(wf(NVIDIA.wavefronts(&far, FULL, 8)), (2, 0));
    }

    #[test]
    fn records_of_25_lanes_pair_where_their_boundaries_are_even() {
        // GPUTeraSort's `reorder` over 100-byte records, warp w of a block
        // of 250 threads: thread t reads its record's (t / 25) 8-byte entry.
        let wavefronts: Vec<u32> = (0..8u64)
            .map(|w| {
                let addrs = at(8, |l| (32 * w + l) / 25);
                let exec = (0..32)
                    .filter(|l| 32 * w + l < 250)
                    .fold(0, |m, l| m | 1 << l);
                NVIDIA.load_wavefronts(&addrs, exec, 8).wavefronts
            })
            .collect();
        assert_eq!(wavefronts, [2, 1, 2, 2, 1, 2, 1, 2]);
    }

    #[test]
    fn narrow_and_scattered_loads_are_unchanged() {
        for bytes in [4u32, 8, 16] {
            let consecutive = at(bytes, |l| l);
            assert_eq!(
                NVIDIA.load_wavefronts(&consecutive, FULL, bytes),
                NVIDIA.wavefronts(&consecutive, FULL, bytes)
            );
        }
        let same = at(4, |_| 0);
        assert_eq!(wf(NVIDIA.load_wavefronts(&same, FULL, 4)), (1, 0));
    }
}
