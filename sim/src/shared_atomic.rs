//! Shared-memory atomics (`atom.shared.add.u32`): their wavefronts and
//! their functional effect.
//!
//! The rule, measured on the H200 (`hw/atomics/README.md`, checked by
//! `tests/atomics.rs`): **an atomic has no broadcast.** Each active lane is
//! its own request, also when lanes share a word; a bank serves one request
//! per wavefront, so an instruction's wavefronts are the most requests any
//! one bank gets (per phase of lanes, as for a 32-bit load), and its bank
//! conflicts are the wavefronts beyond the minimum. All 32 lanes on one word
//! cost 32 wavefronts where a load of that word costs one.
//!
//! The functional side applies the active lanes' additions one after another
//! in ascending lane order, as the reference interpreter does (`kernels-ir`'s
//! README, "Atomics"), so both give identical old values.

use crate::decode::Src;
use crate::error::FaultKind;
use crate::regfile::{MAX_LANES, RegFile};
use crate::shared_mem::{Banks, Wavefronts, check};

/// Bytes one atomic lane reads and writes.
const WORD: u32 = 4;

impl Banks {
    /// Wavefronts of a 4-byte atomic at `addrs` by the lanes of `exec`: in
    /// each phase, the most lane requests one bank receives, every lane
    /// counted (no broadcast).
    pub fn atomic_wavefronts(&self, addrs: &[u64], exec: u64) -> Wavefronts {
        let line = self.banks * self.width;
        let per_phase = (line / WORD).max(1) as usize;
        let min_per_phase = (WORD / line).max(1);
        let mut total = Wavefronts::default();
        for (p, chunk) in addrs.chunks(per_phase).enumerate() {
            let m = (exec >> (p * per_phase)) & crate::regfile::lane_mask(chunk.len());
            if m == 0 {
                continue;
            }
            let w = self.atomic_phase(chunk, m);
            total.wavefronts += w;
            total.conflicts += w - min_per_phase;
        }
        total
    }

    /// The most requests one bank gets from the lanes of `mask`.
    fn atomic_phase(&self, addrs: &[u64], mask: u64) -> u32 {
        let bw = u64::from(self.width);
        let nb = u64::from(self.banks);
        // A lane's word spans `WORD / width` banks when banks are narrower
        // than a word (at most 4 of them), else one.
        let mut banks = [0u64; MAX_LANES * WORD as usize];
        let mut n = 0;
        for (l, &a) in addrs.iter().enumerate() {
            if (mask >> l) & 1 != 0 {
                for word in a / bw..=(a + u64::from(WORD) - 1) / bw {
                    banks[n] = word % nb;
                    n += 1;
                }
            }
        }
        let banks = &mut banks[..n];
        banks.sort_unstable();
        banks
            .chunk_by(|a, b| a == b)
            .map(|run| run.len() as u32)
            .max()
            .unwrap_or(0)
    }
}

/// Performs `atom.shared.add.u32` for the lanes of `exec` at `addrs`
/// (already reduced modulo 2^32): every lane is checked first (faults as
/// for a 32-bit shared load), then each lane in ascending order adds its
/// operand to its word and receives the word's previous value in 32-bit
/// slot `dst`.
pub(crate) fn access(
    dst: u32,
    src: Src,
    rf: &mut RegFile,
    smem: &mut [u8],
    addrs: &[u64],
    exec: u64,
) -> Result<(), (u32, FaultKind)> {
    check(addrs, exec, WORD, smem.len() as u64)?;
    // Read every operand before any destination is written (`dst` may be
    // the operand's register).
    let mut operand = [0u32; MAX_LANES];
    let operand = &mut operand[..addrs.len()];
    match src {
        Src::Reg(slot) => operand.copy_from_slice(rf.r32(slot)),
        Src::Imm(v) => operand.fill(v as u32),
        Src::Pred(_) => unreachable!("the verifier gives atomics a 32-bit operand"),
    }
    let old = rf.r32_mut(dst);
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let p = addrs[l] as usize;
        let word: &mut [u8; 4] = (&mut smem[p..p + 4]).try_into().expect("4 bytes");
        let value = u32::from_le_bytes(*word);
        old[l] = value;
        *word = value.wrapping_add(operand[l]).to_le_bytes();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NVIDIA: Banks = Banks {
        banks: 32,
        width: 4,
    };
    const FULL: u64 = 0xFFFF_FFFF;

    /// Lane `l` on word `(l mod copies) * stride`, as the H200 measurement's
    /// `atom_copies<C, S>` kernels.
    fn copies(copies: u64, stride: u64) -> Vec<u64> {
        (0..32).map(|l| (l % copies) * stride * 4).collect()
    }

    fn wf(wavefronts: u32, conflicts: u32) -> Wavefronts {
        Wavefronts {
            wavefronts,
            conflicts,
        }
    }

    #[test]
    fn lanes_on_one_word_serialise_where_a_load_broadcasts() {
        for c in [1, 2, 4, 8, 16, 32] {
            let addrs = copies(c, 1);
            let per_word = (32 / c) as u32;
            assert_eq!(
                NVIDIA.atomic_wavefronts(&addrs, FULL),
                wf(per_word, per_word - 1),
                "{c} copies"
            );
            assert_eq!(
                NVIDIA.wavefronts(&addrs, FULL, 4),
                wf(1, 0),
                "load, {c} copies"
            );
        }
    }

    #[test]
    fn distinct_words_conflict_per_bank_as_for_loads() {
        for (stride, want) in [(1, 1), (2, 2), (4, 4), (32, 32), (33, 1)] {
            assert_eq!(
                NVIDIA.atomic_wavefronts(&copies(32, stride), FULL),
                wf(want, want - 1),
                "stride {stride}"
            );
        }
        // Four words 32 apart (one bank), eight lanes on each: 32 requests.
        assert_eq!(NVIDIA.atomic_wavefronts(&copies(4, 32), FULL), wf(32, 31));
        // Four words in four banks, eight lanes on each.
        assert_eq!(NVIDIA.atomic_wavefronts(&copies(4, 33), FULL), wf(8, 7));
        // Pairs of lanes on 16 words of bank 0.
        let pairs: Vec<u64> = (0..32).map(|l| (l / 2) * 32 * 4).collect();
        assert_eq!(NVIDIA.atomic_wavefronts(&pairs, FULL), wf(32, 31));
    }

    #[test]
    fn only_active_lanes_make_requests() {
        let one_word = copies(1, 1);
        assert_eq!(NVIDIA.atomic_wavefronts(&one_word, 0xFFFF), wf(16, 15));
        assert_eq!(NVIDIA.atomic_wavefronts(&one_word, 1), wf(1, 0));
        assert_eq!(NVIDIA.atomic_wavefronts(&one_word, 0), wf(0, 0));
    }

    #[test]
    fn wider_warps_than_banks_are_served_in_phases() {
        // 64 lanes, 32 banks: two phases of 32 lanes, each on one word.
        let addrs = vec![0u64; 64];
        assert_eq!(NVIDIA.atomic_wavefronts(&addrs, u64::MAX), wf(64, 62));
        // Eight 4-byte banks: phases of 8 lanes; distinct words, no conflict.
        let eight = Banks { banks: 8, width: 4 };
        let addrs: Vec<u64> = (0..16).map(|l| l * 4).collect();
        assert_eq!(eight.atomic_wavefronts(&addrs, 0xFFFF), wf(2, 0));
        // Banks narrower than a word: each lane's word takes two banks.
        let narrow = Banks { banks: 4, width: 2 };
        let addrs: Vec<u64> = (0..2).map(|l| l * 4).collect();
        assert_eq!(narrow.atomic_wavefronts(&addrs, 0b11), wf(1, 0));
    }
}
