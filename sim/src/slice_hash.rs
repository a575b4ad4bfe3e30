//! Which memory partition (L2 slice and DRAM channel) owns an address:
//! consecutive `partition_interleave_bytes` chunks in turn, or, with
//! `partition_hash` = `k` > 0, the chunk's partition bits XORed with the
//! `k` bits of its index above them, folded in groups of as many bits.
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
//! exact hash is not published; this XOR fold is the simplest one that
//! spreads the power-of-two strides within its bits.
//!
//! **Every bit in the presets** (since 2026-12-01; three before). The H200
//! spreads every power-of-two stride from 256 B to 64 MB over its slices
//! (`hw/l2_slices.sh`, data in `hw/data/h200/l2_slices/`: 1,024 addresses
//! a stride apart put at most 36 on one slice, where the three-bit fold put
//! all of them on one partition from 64 KB on), and every recorded kernel's
//! L2 bytes are within 15% of the mean slice's. Three bits had been the
//! most the committed suites allowed:
//! - Stores 128 KB apart (`sw_1m_b32`) are among the H200's slowest
//!   scatters, and with chunks camped on one slice each part paid
//!   `l2_partial_line_bytes`. But the H200 is as slow with the same
//!   buckets 1 KB further apart (37,694 cycles against 38,667), where the
//!   three-bit fold spread them and gave 20,325: the camping stood in for
//!   a cost of partial stores from many blocks that the model lacks, and
//!   only at power-of-two strides (`hw/calib/suite_scatter_lines.txt`).
//! - Folding bit 16 or more once made HotSort's `bs` at 1M keys and
//!   `--block-slabs 4` +30% (a youngest block running alone through code
//!   its L0 no longer held); with the instruction caches' ways modelled it
//!   is +7.0% folded, +7.9% with three bits.
//!
//! Every bit folded, bitonic's 64-bit `step` goes from +8.2% to +4.4% on
//! average (no launch beyond 15%, 12 before); docs/calibration.md, "Where
//! the H200's L2 slices are", has every suite before and after, and
//! "Store halves" the history.
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
    /// The chunk-index bits above the partition bits that the hash folds
    /// in (`partition_hash` of them, from the lowest).
    fold_mask: u64,
}

impl SliceHash {
    /// The hash for `parts` partitions of `interleave`-byte chunks of
    /// `sector_bytes` sectors (all powers of two but `parts`) that folds
    /// `bits` chunk-index bits above the partition bits (0: off).
    pub fn new(bits: u32, parts: u64, interleave: u64, sector_bytes: u64) -> SliceHash {
        let part_bits = if bits > 0 && parts > 1 && parts.is_power_of_two() {
            parts.trailing_zeros()
        } else {
            0
        };
        SliceHash {
            chunk_shift: (interleave / sector_bytes).trailing_zeros(),
            part_bits,
            fold_mask: if bits >= 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            },
        }
    }

    /// The sector whose plain interleave gives `sector`'s hashed partition
    /// (and whose line stands for `sector`'s line in the L2): its chunk's
    /// partition bits XORed with the folded bits above them, in groups of
    /// `part_bits`.
    #[inline]
    pub fn sector(self, sector: u64) -> u64 {
        if self.part_bits == 0 {
            return sector;
        }
        let mask = (1u64 << self.part_bits) - 1;
        let mut high = (sector >> (self.chunk_shift + self.part_bits)) & self.fold_mask;
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

    /// The h200's shape: 32 partitions of 256-byte chunks, 32-byte
    /// sectors, `bits` folded.
    fn h200(bits: u32) -> SliceHash {
        SliceHash::new(bits, 32, 256, 32)
    }

    /// How many of `n` addresses `stride` apart each partition owns.
    fn spread(h: SliceHash, stride: u64, n: u64) -> [u32; 32] {
        let mut seen = [0u32; 32];
        for i in 0..n {
            seen[partition(h, i * stride) as usize] += 1;
        }
        seen
    }

    fn partition(h: SliceHash, addr: u64) -> u64 {
        (h.sector(addr / 32) * 32 / 256) % 32
    }

    #[test]
    fn off_is_the_plain_interleave() {
        let h = h200(0);
        for s in [0, 1, 8, 255, 1 << 20, 12_345_678] {
            assert_eq!(h.sector(s), s);
        }
        // Every 8 KB apart: one partition.
        assert!((0..64).all(|i| partition(h, i * 8192) == 0));
    }

    #[test]
    fn power_of_two_strides_spread_over_every_partition() {
        let h = h200(64);
        for stride in [8192u64, 16_384, 1 << 17, 1 << 20] {
            let seen = spread(h, stride, 32 * 32);
            assert!(seen.iter().all(|&n| n == 32), "stride {stride}: {seen:?}");
        }
    }

    #[test]
    fn three_bits_spread_8_to_32_kb_strides_over_eight_partitions_only() {
        // The h200 preset's fold: 8, 16 and 32 KB strides spread over
        // eight partitions; 128 KB (beyond the folded bits) stays on one,
        // as with chunks in turn.
        let h = h200(3);
        for (stride, parts) in [(8192u64, 8), (16_384, 4), (32_768, 2)] {
            let seen = spread(h, stride, 64);
            let used: Vec<_> = seen.iter().filter(|&&n| n > 0).collect();
            assert_eq!(used.len(), parts, "stride {stride}: {seen:?}");
            assert!(used.iter().all(|&&n| n == 64 / parts as u32));
        }
        assert_eq!(spread(h, 1 << 17, 64)[0], 64);
    }

    #[test]
    fn it_permutes_sectors_and_keeps_them_in_their_chunk() {
        let h = h200(3);
        let mut out: Vec<u64> = (0..1 << 16).map(|s| h.sector(s)).collect();
        out.sort_unstable();
        assert!(out.iter().enumerate().all(|(i, &s)| s == i as u64));
        let h = h200(64);
        let mut out: Vec<u64> = (0..1 << 16).map(|s| h.sector(s)).collect();
        // Sectors of one chunk stay together, in order.
        assert!((0..1 << 16).all(|s| out[s as usize] >> 3 == h.sector(s & !7) >> 3));
        assert!((0..1 << 16).all(|s| out[s as usize] & 7 == s & 7));
        out.sort_unstable();
        assert!(out.iter().enumerate().all(|(i, &s)| s == i as u64));
    }

    #[test]
    fn the_h200_preset_spreads_every_stride_as_the_h200_does() {
        // The H200 (hw/data/h200/l2_slices/, tests/l2_slices_data.rs): 1,024
        // addresses a power of two from 256 B to 1 MB apart put at most
        // 3.5% of them plus 3 on one slice. The preset's hash does as well
        // over its 32 partitions (three bits folded did not from 4 KB on).
        let cfg = crate::GpuConfig::h200();
        let h = SliceHash::new(
            cfg.partition_hash,
            cfg.mem_partitions.into(),
            cfg.partition_interleave_bytes.into(),
            cfg.sector_bytes.into(),
        );
        for k in 8..=20 {
            let busiest = *spread(h, 1 << k, 1024).iter().max().unwrap();
            assert!(
                f64::from(busiest) <= 0.035 * 1024.0 + 3.0,
                "stride 2^{k}: {busiest}"
            );
        }
        let three = h200(3);
        assert_eq!(*spread(three, 4096, 1024).iter().max().unwrap(), 64);
    }

    #[test]
    fn partition_counts_other_than_powers_of_two_keep_the_modulo() {
        let h = SliceHash::new(64, 24, 256, 32);
        assert_eq!(h.sector(12_345_678), 12_345_678);
    }
}
