//! Which memory partition (L2 slice and DRAM channel) owns an address:
//! consecutive `partition_interleave_bytes` chunks in turn, or, with
//! `partition_hash` on, the chunk's partition bits XORed with every higher
//! group of as many bits of its index.
//!
//! **Why.** With chunks dealt out in turn, every address a multiple of
//! `mem_partitions * partition_interleave_bytes` (8 KB on the H200) apart
//! lands on the same slice. Bitonic's global `step` over 64-bit words gives
//! each block of 8 warps 8 KB, one warp 1 KB: warp `w` of every block then
//! writes only partitions `4w..4w + 4`. Where the model leaves some warps'
//! 16-byte store halves unmerged, those are the same warps of every block
//! (the ones whose stores meet the other sub-partitions' in the LSU), so
//! their partial writes fell on 16 of the 32 slices: each of those took
//! 12,288 partial sectors, the others 8,192, and the launch ended when the
//! busiest slices drained (`bi1m_k64` `step` 14,675 cycles with 62% of its
//! halves merged, 14,603 with 88%, 11,626 only at 100%). The H200 spreads
//! the same step's traffic evenly: its L2 slices move 286,528 to 301,856
//! bytes each (`lts__t_bytes` min and max over 94 slices, mean 292,121,
//! `hw/data/l1probe/bi1m_k64.csv`), although 9% of its halves reach L2
//! unmerged. NVIDIA GPUs have hashed addresses over their partitions since
//! Fermi, so that power-of-two strides do not camp on one partition; the
//! exact hash is not published, and this XOR fold is the simplest one
//! that spreads every power-of-two stride above the interleave.
//!
//! **Off in the presets.** With the hash on, bitonic's 64-bit `step`
//! is within 5% of the H200 (`suite_wide.txt`: `bi1m_k64` +19.1% to +4.9%
//! on average, `bi1m_v` +18.3% to +4.1%; the suite 10.6% to 7.3%), but
//! launches that ran fast already run faster (HotSort's `bc` at 1M keys,
//! bitonic's `tail`: `bi1m_l8` -5.0% to -10.1%), and suites whose costs
//! were fitted with chunks in turn get worse (`suite_stores.txt` 7.4% to
//! 9.8%, `suite.txt` 5.2% to 5.6%; docs/calibration.md, "Store halves",
//! has every suite). The mechanism is here, tested, for the refit that
//! would turn it on.
//!
//! The hash permutes chunks (it only XORs the low bits with a function of
//! the high ones), so every chunk still has one partition, each partition
//! as many chunks as before, and the L2's sets still belong to one
//! partition each: the memory timing looks up the permuted sector
//! everywhere ([`crate::global_mem`]), in its slice's sets and queues.

/// The permutation of sector numbers that the memory timing applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SliceHash {
    /// `log2` of sectors per interleave chunk.
    chunk_shift: u32,
    /// `log2` of the partitions; 0 when the hash is off (or the partition
    /// count is not a power of two, where the interleave's modulo already
    /// spreads power-of-two strides).
    part_bits: u32,
}

impl SliceHash {
    /// The hash for `parts` partitions of `interleave`-byte chunks of
    /// `sector_bytes` sectors (all powers of two but `parts`), on or off.
    pub fn new(on: bool, parts: u64, interleave: u64, sector_bytes: u64) -> SliceHash {
        let part_bits = if on && parts > 1 && parts.is_power_of_two() {
            parts.trailing_zeros()
        } else {
            0
        };
        SliceHash {
            chunk_shift: (interleave / sector_bytes).trailing_zeros(),
            part_bits,
        }
    }

    /// The sector whose plain interleave gives `sector`'s hashed partition
    /// (and whose line stands for `sector`'s line in the L2): its chunk's
    /// partition bits XORed with each higher group of `part_bits` bits.
    #[inline]
    pub fn sector(self, sector: u64) -> u64 {
        if self.part_bits == 0 {
            return sector;
        }
        let mask = (1u64 << self.part_bits) - 1;
        let mut high = sector >> (self.chunk_shift + self.part_bits);
        let mut fold = 0;
        while high != 0 {
            fold ^= high & mask;
            high >>= self.part_bits;
        }
        sector ^ (fold << self.chunk_shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The h200's shape: 32 partitions of 256-byte chunks, 32-byte sectors.
    fn h200(on: bool) -> SliceHash {
        SliceHash::new(on, 32, 256, 32)
    }

    fn partition(h: SliceHash, addr: u64) -> u64 {
        (h.sector(addr / 32) * 32 / 256) % 32
    }

    #[test]
    fn off_is_the_plain_interleave() {
        let h = h200(false);
        for s in [0, 1, 8, 255, 1 << 20, 12_345_678] {
            assert_eq!(h.sector(s), s);
        }
        // Every 8 KB apart: one partition.
        assert!((0..64).all(|i| partition(h, i * 8192) == 0));
    }

    #[test]
    fn power_of_two_strides_spread_over_every_partition() {
        let h = h200(true);
        for stride in [8192u64, 16_384, 1 << 20] {
            let mut seen = [0u32; 32];
            for i in 0..32 * 32 {
                seen[partition(h, i * stride) as usize] += 1;
            }
            assert!(seen.iter().all(|&n| n == 32), "stride {stride}: {seen:?}");
        }
    }

    #[test]
    fn it_permutes_sectors_and_keeps_them_in_their_chunk() {
        let h = h200(true);
        let mut out: Vec<u64> = (0..1 << 16).map(|s| h.sector(s)).collect();
        // Sectors of one chunk stay together, in order.
        assert!((0..1 << 16).all(|s| out[s as usize] >> 3 == h.sector(s & !7) >> 3));
        assert!((0..1 << 16).all(|s| out[s as usize] & 7 == s & 7));
        out.sort_unstable();
        assert!(out.iter().enumerate().all(|(i, &s)| s == i as u64));
    }

    #[test]
    fn partition_counts_other_than_powers_of_two_keep_the_modulo() {
        let h = SliceHash::new(true, 24, 256, 32);
        assert_eq!(h.sector(12_345_678), 12_345_678);
    }
}
