//! Shared memory: banks, wavefronts, conflicts, and the functional access.
//!
//! The rule (`hardware.md`): a wavefront delivers at most one word of
//! `smem_bank_width_bytes` from each of `smem_banks` banks, i.e.
//! `banks * bank_width` bytes. A warp access of `bytes` per lane is split
//! into phases of `max(1, banks * bank_width / bytes)` consecutive lanes
//! (the whole 32-lane warp for 32-bit words on 32 banks, half-warps for
//! 64-bit, quarter-warps for 128-bit). In one phase, the wavefronts are the
//! largest number of **distinct words** any bank must deliver: lanes that
//! touch the same word share it (a broadcast; for stores the highest lane
//! wins, as lanes are written in order). Phases without active lanes cost
//! nothing. The minimum is one wavefront per active phase (more when one
//! lane's access is wider than a wavefront); conflicts are the wavefronts
//! beyond it, which is what Nsight Compute reports. A wide load whose lanes
//! read in pairs takes phases twice as wide ([`crate::shared_pairs`]).

use kernels_ir::Space;

use crate::decode::MemOp;
use crate::error::FaultKind;
use crate::memory::{Strided, lanes_access, strided_access};
use crate::regfile::RegFile;

/// The cost of one warp-wide shared access.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Wavefronts {
    /// Wavefronts needed.
    pub wavefronts: u32,
    /// Wavefronts beyond the minimum for the access width.
    pub conflicts: u32,
}

/// The bank geometry.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Banks {
    /// Number of banks (a power of two).
    pub banks: u32,
    /// Bytes per bank per wavefront (a power of two).
    pub width: u32,
}

impl Banks {
    /// Wavefronts of an access of `bytes` per lane at `addrs`, lanes of `exec`.
    // Out of line, as [`access`].
    #[inline(never)]
    pub fn wavefronts(&self, addrs: &[u64], exec: u64, bytes: u32) -> Wavefronts {
        self.phased(addrs, exec, bytes, self.phase_lanes(bytes))
    }

    /// Lanes a phase of an access of `bytes` a lane holds: a wavefront's
    /// worth, `banks * width / bytes`, at least one.
    pub(crate) fn phase_lanes(&self, bytes: u32) -> usize {
        ((self.banks * self.width) / bytes).max(1) as usize
    }

    /// [`Self::wavefronts`] with phases of `per_phase` lanes.
    pub(crate) fn phased(
        &self,
        addrs: &[u64],
        exec: u64,
        bytes: u32,
        per_phase: usize,
    ) -> Wavefronts {
        let line = self.banks * self.width;
        let min_per_phase = (bytes / line).max(1);
        let mut total = Wavefronts::default();
        let block = Strided::of(addrs, exec, bytes).is_some_and(|s| s.contiguous(bytes));
        for (p, chunk) in addrs.chunks(per_phase).enumerate() {
            let m = (exec >> (p * per_phase)) & crate::regfile::lane_mask(chunk.len());
            if m == 0 {
                continue;
            }
            let w = if block {
                self.contiguous(chunk[0], chunk.len() as u64 * u64::from(bytes))
            } else {
                self.phase(chunk, m, bytes)
            };
            total.wavefronts += w;
            total.conflicts += w - min_per_phase;
        }
        total
    }

    /// The wavefronts of a phase whose lanes cover `len` bytes from `start`
    /// without a gap (a block access): its `n` consecutive words fall on
    /// consecutive banks, so the busiest bank delivers `ceil(n / banks)`.
    fn contiguous(&self, start: u64, len: u64) -> u32 {
        let bw = u64::from(self.width);
        let words = (start + len - 1) / bw - start / bw + 1;
        words.div_ceil(self.banks.into()) as u32
    }

    /// Largest number of distinct words one bank delivers in a phase.
    fn phase(&self, addrs: &[u64], mask: u64, bytes: u32) -> u32 {
        let bw = u64::from(self.width);
        let nb = u64::from(self.banks);
        // Fast path (up to 64 banks): each bank's first word, and a short
        // list of the other distinct words (a word names its bank), so a
        // conflicting phase is counted without sorting. Both widths are
        // powers of two: shifts and masks instead of divisions.
        if nb <= 64 && bw.is_power_of_two() && nb.is_power_of_two() {
            let (shift, bank_mask) = (bw.trailing_zeros(), nb - 1);
            if conflict_free(addrs, mask, bytes, shift, bank_mask) {
                return 1;
            }
            let mut seen = 0u64;
            let mut word_of = [0u64; 64];
            let mut extra = [0u32; 64];
            let mut others = [0u64; 128];
            let (mut n, mut most) = (0, 0);
            let mut overflow = false;
            'lanes: for (l, &a) in addrs.iter().enumerate() {
                if (mask >> l) & 1 == 0 {
                    continue;
                }
                for word in a >> shift..=(a + u64::from(bytes) - 1) >> shift {
                    let b = (word & bank_mask) as usize;
                    if seen >> b & 1 == 0 {
                        seen |= 1 << b;
                        word_of[b] = word;
                    } else if word_of[b] != word && !others[..n].contains(&word) {
                        if n == others.len() {
                            overflow = true;
                            break 'lanes;
                        }
                        others[n] = word;
                        n += 1;
                        extra[b] += 1;
                        most = most.max(extra[b]);
                    }
                }
            }
            if !overflow {
                return 1 + most;
            }
        }
        self.phase_sorted(addrs, mask, bytes)
    }

    /// [`Banks::phase`] for any bank count and width, by sorting the
    /// (bank, word) pairs of the active lanes.
    fn phase_sorted(&self, addrs: &[u64], mask: u64, bytes: u32) -> u32 {
        let bw = u64::from(self.width);
        let nb = u64::from(self.banks);
        // (bank, word) keys of the active lanes, sorted: a bank's distinct
        // words are a run. On the stack unless a phase may touch more than
        // 128 words (a lane touches at most `bytes / bw + 2`; never with
        // 32-bit or wider banks and 32-lane phases).
        let most = addrs.len() * (u64::from(bytes) / bw + 2) as usize;
        let mut stack = [0u64; 128];
        let mut heap = Vec::new();
        let buf: &mut [u64] = if most <= stack.len() {
            &mut stack
        } else {
            heap.resize(most, 0);
            &mut heap
        };
        let mut n = 0;
        for (l, &a) in addrs.iter().enumerate() {
            if (mask >> l) & 1 != 0 {
                for word in a / bw..=(a + u64::from(bytes) - 1) / bw {
                    buf[n] = ((word % nb) << 40) | word;
                    n += 1;
                }
            }
        }
        let keys = &mut buf[..n];
        keys.sort_unstable();
        let mut best = 0;
        let mut run = 0;
        let mut last = u64::MAX;
        for &k in keys.iter() {
            if k == last {
                continue; // the same word again: a broadcast
            }
            if k >> 40 == last >> 40 {
                run += 1;
            } else {
                run = 1;
            }
            last = k;
            best = best.max(run);
        }
        best
    }

    /// Distinct words each bank delivers over the whole access (for traces),
    /// saturating at 255.
    pub fn words_per_bank(&self, addrs: &[u64], exec: u64, bytes: u32) -> Vec<u8> {
        let bw = u64::from(self.width);
        let mut words: Vec<u64> = Vec::new();
        for (l, &a) in addrs.iter().enumerate() {
            if (exec >> l) & 1 != 0 {
                words.extend(a / bw..=(a + u64::from(bytes) - 1) / bw);
            }
        }
        words.sort_unstable();
        words.dedup();
        let mut per_bank = vec![0u8; self.banks as usize];
        for w in words {
            let b = &mut per_bank[(w % u64::from(self.banks)) as usize];
            *b = b.saturating_add(1);
        }
        per_bank
    }
}

/// Whether no bank delivers two different words in a phase (lanes of
/// `mask` at `addrs`, `bytes` each; banks `2^shift` bytes wide, a word's
/// bank its low bits, `bank_mask`): one wavefront. Most phases are
/// (broadcasts and conflict-free layouts), and this needs only each bank's
/// first word, not the lists [`Banks::phase`] counts conflicts with.
#[inline]
fn conflict_free(addrs: &[u64], mask: u64, bytes: u32, shift: u32, bank_mask: u64) -> bool {
    let mut seen = 0u64;
    let mut word_of = [0u64; 64];
    if u64::from(bytes) <= 1 << shift {
        // Accesses are aligned to their width: one word a lane.
        let mut m = mask & crate::regfile::lane_mask(addrs.len());
        while m != 0 {
            let word = addrs[m.trailing_zeros() as usize] >> shift;
            m &= m - 1;
            let b = (word & bank_mask) as usize;
            if seen >> b & 1 == 0 {
                seen |= 1 << b;
                word_of[b] = word;
            } else if word_of[b] != word {
                return false;
            }
        }
        return true;
    }
    for (l, &a) in addrs.iter().enumerate() {
        if (mask >> l) & 1 == 0 {
            continue;
        }
        for word in a >> shift..=(a + u64::from(bytes) - 1) >> shift {
            let b = (word & bank_mask) as usize;
            if seen >> b & 1 == 0 {
                seen |= 1 << b;
                word_of[b] = word;
            } else if word_of[b] != word {
                return false;
            }
        }
    }
    true
}

/// Performs a shared load or store for the lanes of `exec` at `addrs`
/// (already reduced modulo 2^32), checking alignment and bounds first.
// Out of line: a memory instruction's work dwarfs a call, and the issue
// path that calls it stays small enough to inline.
#[inline(never)]
pub(crate) fn access(
    op: &MemOp,
    rf: &mut RegFile,
    smem: &mut [u8],
    addrs: &[u64],
    exec: u64,
) -> Result<(), (u32, FaultKind)> {
    if let Some(src) = op.atom {
        return crate::shared_atomic::access(op.regs[0].0, src, rf, smem, addrs, exec);
    }
    let bytes = u64::from(op.bytes);
    // Access widths are powers of two (4, 8, 16): alignment is a mask test.
    debug_assert!(bytes.is_power_of_two());
    let size = smem.len() as u64;
    if let Some(s) = Strided::of(addrs, exec, op.bytes)
        && addrs[0] & (bytes - 1) == 0
        && addrs[0].checked_add(s.span).is_some_and(|end| end <= size)
    {
        // Every lane aligned and inside.
        let at = addrs[0] as usize;
        strided_access(op, rf, &mut smem[at..at + s.span as usize], s.stride);
        return Ok(());
    }
    check(addrs, exec, op.bytes, size)?;
    lanes_access(op, rf, addrs, exec, smem, |a| a as usize);
    Ok(())
}

/// The first (lowest) active lane whose access of `bytes` at its address is
/// misaligned or outside the block's `size` bytes, and why.
pub(crate) fn check(
    addrs: &[u64],
    exec: u64,
    access_bytes: u32,
    size: u64,
) -> Result<(), (u32, FaultKind)> {
    let bytes = u64::from(access_bytes);
    for (l, &a) in addrs.iter().enumerate() {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        if a & (bytes - 1) != 0 {
            let kind = FaultKind::Misaligned {
                space: Space::Shared,
                addr: a,
                bytes: access_bytes,
            };
            return Err((l as u32, kind));
        }
        if a + bytes > size {
            let kind = FaultKind::SharedOutOfBounds {
                addr: a,
                bytes: access_bytes,
                size: size as u32,
            };
            return Err((l as u32, kind));
        }
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

    fn strided(stride: u64, bytes: u32, lanes: usize) -> Vec<u64> {
        (0..lanes as u64)
            .map(|l| l * stride * u64::from(bytes))
            .collect()
    }

    #[test]
    fn thirty_two_bit_strides_match_the_h200() {
        let expect = [
            (1, 1),
            (2, 2),
            (3, 1),
            (4, 4),
            (8, 8),
            (16, 16),
            (32, 32),
            (33, 1),
            (64, 32),
        ];
        for (stride, wavefronts) in expect {
            let w = NVIDIA.wavefronts(&strided(stride, 4, 32), u32::MAX.into(), 4);
            assert_eq!(w.wavefronts, wavefronts, "stride {stride}");
            assert_eq!(w.conflicts, wavefronts - 1, "stride {stride}");
        }
    }

    #[test]
    fn the_fast_count_equals_the_sorted_count() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for banks in [16, 32, 64] {
            let b = Banks { banks, width: 4 };
            for bytes in [4, 8, 16] {
                for spread in [64u64, 512, 4096] {
                    for _ in 0..200 {
                        let addrs: Vec<u64> = (0..32)
                            .map(|_| {
                                x ^= x << 13;
                                x ^= x >> 7;
                                x ^= x << 17;
                                (x % spread) / u64::from(bytes) * u64::from(bytes)
                            })
                            .collect();
                        let mask = x | 1;
                        assert_eq!(
                            b.phase(&addrs, mask, bytes),
                            b.phase_sorted(&addrs, mask, bytes),
                            "{banks} banks, {bytes} bytes: {addrs:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn same_word_is_a_broadcast() {
        let addrs = vec![64; 32];
        assert_eq!(NVIDIA.wavefronts(&addrs, u32::MAX.into(), 4).wavefronts, 1);
        // Two words in one bank, each read by 16 lanes: two wavefronts.
        let addrs: Vec<u64> = (0..32).map(|l| if l % 2 == 0 { 0 } else { 128 }).collect();
        assert_eq!(NVIDIA.wavefronts(&addrs, u32::MAX.into(), 4).wavefronts, 2);
    }

    #[test]
    fn wide_accesses_are_served_in_phases() {
        let full = u32::MAX.into();
        let w64 = NVIDIA.wavefronts(&strided(1, 8, 32), full, 8);
        assert_eq!(
            w64,
            Wavefronts {
                wavefronts: 2,
                conflicts: 0
            }
        );
        let w128 = NVIDIA.wavefronts(&strided(1, 16, 32), full, 16);
        assert_eq!(
            w128,
            Wavefronts {
                wavefronts: 4,
                conflicts: 0
            }
        );
        // 64-bit at a stride of two elements: each half-warp spans 256 bytes.
        let w64s2 = NVIDIA.wavefronts(&strided(2, 8, 32), full, 8);
        assert_eq!(
            w64s2,
            Wavefronts {
                wavefronts: 4,
                conflicts: 2
            }
        );
        // Only the first half-warp active: one phase, one wavefront.
        assert_eq!(
            NVIDIA.wavefronts(&strided(1, 8, 32), 0xFFFF, 8).wavefronts,
            1
        );
    }

    #[test]
    fn inactive_lanes_do_not_count() {
        let addrs = strided(32, 4, 32);
        assert_eq!(
            NVIDIA.wavefronts(&addrs, 0b1011, 4),
            Wavefronts {
                wavefronts: 3,
                conflicts: 2
            }
        );
        assert_eq!(NVIDIA.wavefronts(&addrs, 0, 4), Wavefronts::default());
    }

    #[test]
    fn accesses_wider_than_a_wavefront_need_several() {
        let two_banks = Banks { banks: 2, width: 4 };
        let w = two_banks.wavefronts(&[0, 16], 0b11, 16);
        assert_eq!(
            w,
            Wavefronts {
                wavefronts: 4,
                conflicts: 0
            }
        );
    }

    #[test]
    fn block_accesses_count_as_lane_by_lane() {
        let geometries = [
            NVIDIA,
            Banks {
                banks: 32,
                width: 8,
            },
            Banks { banks: 2, width: 4 },
            Banks {
                banks: 16,
                width: 4,
            },
        ];
        for banks in geometries {
            for bytes in [4, 8, 16] {
                for lanes in [4, 8, 32, 64] {
                    for start in (0..512).step_by(bytes as usize) {
                        let addrs: Vec<u64> =
                            (0..lanes).map(|l| start + l * u64::from(bytes)).collect();
                        let all = crate::regfile::lane_mask(lanes as usize);
                        let fast = banks.wavefronts(&addrs, all, bytes);
                        let per_lane = lane_by_lane(&banks, &addrs, all, bytes);
                        let geometry = (banks.banks, banks.width, bytes, lanes, start);
                        assert_eq!(fast, per_lane, "{geometry:?}");
                    }
                }
            }
        }
    }

    /// [`Banks::wavefronts`] without the block shortcut.
    fn lane_by_lane(banks: &Banks, addrs: &[u64], exec: u64, bytes: u32) -> Wavefronts {
        let line = banks.banks * banks.width;
        let per_phase = (line / bytes).max(1) as usize;
        let min_per_phase = (bytes / line).max(1);
        let mut total = Wavefronts::default();
        for (p, chunk) in addrs.chunks(per_phase).enumerate() {
            let m = (exec >> (p * per_phase)) & crate::regfile::lane_mask(chunk.len());
            if m != 0 {
                let w = banks.phase(chunk, m, bytes);
                total.wavefronts += w;
                total.conflicts += w - min_per_phase;
            }
        }
        total
    }

    #[test]
    fn words_per_bank_counts_distinct_words() {
        let per_bank = NVIDIA.words_per_bank(&strided(16, 4, 32), u32::MAX.into(), 4);
        assert_eq!((per_bank[0], per_bank[16], per_bank[1]), (16, 16, 0));
    }
}
