//! Shared-memory layouts: where a slab's keys live in shared memory, and the
//! bank-conflict model used to design them.
//!
//! Shared memory is divided into *slab regions*, one per slab of the block.
//! Inside a region a key has a logical word offset `o`: row-major
//! (`o = r*W + lane`, how warps store and reload rows) or slab-linear
//! (`o = lane*H + r`, the transposing order). A layout maps `(region, o)` to
//! a physical word:
//! - `plain`: `region*RP + o`;
//! - `pad`: one pad word after every `B` words (`B` = banks), `o + o/B`: the
//!   patent's COLUMN-PAD 1 for a warp as wide as the banks;
//! - `xor`: in each `B`-word row the column is XOR-ed with a hash of the row,
//!   `o ^ hash(o / B)`; no extra memory. The hash is linear over XOR,
//!   `hash(q) = (s ^ (s << fold)) & (B-1)` with `s = q >> shift`, and its
//!   `shift` and `fold` are searched (the patent: "searched so that no access
//!   pattern ever conflicts") over every access pattern this configuration's
//!   kernels make.
//!
//! Regions are padded to whole `B`-word rows so that every layout acts the
//! same in every region (which keeps addresses cheap to compute).

use super::config::{HotSortConfig, Layout};

/// A shared-memory layout for one configuration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SmemLayout {
    /// Which layout.
    pub kind: Layout,
    /// Banks `B` (a power of two), counted in keys: the machine's 4-byte
    /// banks times 4 over the key's bytes (16 for 64-bit keys on 32 banks:
    /// a bank row of 128 bytes holds 16 of them).
    pub banks: u32,
    /// Bytes per key (a layout word is one key).
    pub key_bytes: u32,
    /// Whether a value array follows the keys: each 32-bit value in the low
    /// half of an 8-byte slot at its key's position, so the keys' layout
    /// (and its conflict-freedom) serves the values too.
    pub values: bool,
    /// The XOR hash's row shift (0 for other layouts).
    pub shift: u32,
    /// The XOR hash's fold: 0 for none, else `s ^ (s << fold)`.
    pub fold: u32,
    /// Lanes per warp `W`.
    pub warp: u32,
    /// Keys per lane `H`.
    pub height: u32,
    /// Logical words of one region: `W*H` rounded up to whole `B`-word rows
    /// (exactly `W*H` for `plain`).
    pub region_logical: u32,
    /// Physical words of one region.
    pub region_phys: u32,
}

/// Which lanes touch which words in one warp-wide access: the model the
/// layouts are designed against.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Lane `l` accesses row `row` column `l` (slab store and reload,
    /// cross-slab column loads).
    Row {
        /// The row within the region.
        row: u32,
    },
    /// Lane `l` accesses row `row` column `W-1-l` (the flipped half's loads).
    RowMirrored {
        /// The row within the region.
        row: u32,
    },
    /// Lane `l` accesses slab-linear offset `l*H + r` (the transpose).
    Linear {
        /// The register.
        reg: u32,
    },
}

impl SmemLayout {
    /// The layout `cfg` asks for.
    pub fn new(cfg: &HotSortConfig) -> SmemLayout {
        let key_bytes = cfg.key_bytes().max(1);
        let banks = (cfg.banks.max(1) * 4 / key_bytes).max(1);
        let words = cfg.warp * cfg.slab_height;
        let region_logical = if cfg.layout == Layout::Plain {
            words
        } else {
            words.next_multiple_of(banks)
        };
        let region_phys = match cfg.layout {
            Layout::Plain | Layout::Xor => region_logical,
            Layout::Pad => region_logical + region_logical / banks,
        };
        let mut layout = SmemLayout {
            kind: cfg.layout,
            banks,
            key_bytes,
            values: cfg.values,
            shift: 0,
            fold: 0,
            warp: cfg.warp,
            height: cfg.slab_height,
            region_logical,
            region_phys,
        };
        if cfg.layout == Layout::Xor {
            let patterns = layout.patterns(cfg);
            let mut best = (u32::MAX, 0, 0);
            'search: for fold in 0..=layout.log2_banks() {
                for shift in 0..6 {
                    let l = SmemLayout {
                        shift,
                        fold,
                        ..layout
                    };
                    let cost: u32 = patterns.iter().map(|p| l.excess_at(p)).sum();
                    if cost < best.0 {
                        best = (cost, shift, fold);
                    }
                    if cost == 0 {
                        break 'search;
                    }
                }
            }
            (layout.shift, layout.fold) = (best.1, best.2);
        }
        layout
    }

    /// log2 of the bank count.
    pub fn log2_banks(&self) -> u32 {
        self.banks.trailing_zeros()
    }

    /// The XOR hash of bank row `q` (a linear map over XOR, below `B`).
    pub fn hash(&self, q: u32) -> u32 {
        let s = q >> self.shift;
        let s = if self.fold > 0 {
            s ^ (s << self.fold)
        } else {
            s
        };
        s & (self.banks - 1)
    }

    /// The physical word of logical offset `o` within its region.
    pub fn phys_offset(&self, o: u32) -> u32 {
        match self.kind {
            Layout::Plain => o,
            Layout::Pad => o + (o >> self.log2_banks()),
            Layout::Xor => o ^ self.hash(o >> self.log2_banks()),
        }
    }

    /// Every warp-wide access pattern of `cfg`'s kernels that goes through a
    /// layout, as per-lane logical offsets (`None`: lane guarded off): rows
    /// and mirrored rows, slab-linear (transpose), and with the shared
    /// exchange every unit access of the warp merges.
    pub fn patterns(&self, cfg: &HotSortConfig) -> Vec<Vec<Option<u32>>> {
        let mut out: Vec<Vec<Option<u32>>> = Vec::new();
        for r in 0..self.height {
            for p in [
                Pattern::Row { row: r },
                Pattern::RowMirrored { row: r },
                Pattern::Linear { reg: r },
            ] {
                out.push(self.pattern_offsets(p).into_iter().map(Some).collect());
            }
        }
        if cfg.merge == super::config::MergeExchange::Shared {
            let (w, h) = (self.warp, self.height);
            for pass in super::lanes::all_passes(w, h) {
                let u = 1usize << pass.len();
                for j in 0..h.div_ceil(u as u32) {
                    for e in 0..u {
                        out.push(
                            (0..w)
                                .map(|l| super::lanes::unit_offset(w, h, &pass, j, e, l))
                                .collect(),
                        );
                    }
                }
            }
        }
        out
    }

    /// Wavefronts beyond the minimum of one access (region 1).
    pub fn excess_at(&self, offsets: &[Option<u32>]) -> u32 {
        let words: Vec<u32> = offsets.iter().flatten().map(|&o| self.phys(1, o)).collect();
        if words.is_empty() {
            return 0;
        }
        let (total, min) = wavefronts_b32(&words, self.banks);
        total - min
    }

    /// The physical word of logical offset `o` in region `region`.
    pub fn phys(&self, region: u32, o: u32) -> u32 {
        region * self.region_phys + self.phys_offset(o)
    }

    /// Shared bytes for `slabs` regions: the keys, and with values the
    /// value array after them (as large: one slot per key).
    pub fn block_bytes(&self, slabs: u32) -> u64 {
        self.keys_bytes(slabs) * if self.values { 2 } else { 1 }
    }

    /// Shared bytes of the keys of `slabs` regions: where the value array
    /// starts.
    pub fn keys_bytes(&self, slabs: u32) -> u64 {
        u64::from(slabs) * u64::from(self.region_phys) * u64::from(self.key_bytes)
    }

    /// The logical offsets the lanes of one warp access in `pattern`.
    pub fn pattern_offsets(&self, pattern: Pattern) -> Vec<u32> {
        let (w, h) = (self.warp, self.height);
        (0..w)
            .map(|l| match pattern {
                Pattern::Row { row } => row * w + l,
                Pattern::RowMirrored { row } => row * w + (w - 1 - l),
                Pattern::Linear { reg } => l * h + reg,
            })
            .collect()
    }

    /// Wavefronts beyond the minimum for one 32-bit access of `pattern` in
    /// region 1 (not region 0, so region alignment is exercised).
    pub fn excess_wavefronts(&self, pattern: Pattern) -> u32 {
        let words: Vec<u32> = self
            .pattern_offsets(pattern)
            .into_iter()
            .map(|o| self.phys(1, o))
            .collect();
        let (total, min) = wavefronts_b32(&words, self.banks);
        total - min
    }
}

/// Wavefronts one warp-wide 32-bit shared access takes, and the minimum for
/// that many lanes: per bank, the number of distinct words it must deliver
/// (lanes reading the same word share it), maximised over banks.
pub fn wavefronts_b32(words: &[u32], banks: u32) -> (u32, u32) {
    let mut per_bank: Vec<Vec<u32>> = vec![Vec::new(); banks as usize];
    for &w in words {
        let bank = &mut per_bank[(w % banks) as usize];
        if !bank.contains(&w) {
            bank.push(w);
        }
    }
    let total = per_bank.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let min = (words.len() as u32)
        .div_ceil(banks)
        .max(1)
        .min(total.max(1));
    (total.max(1), min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotsort::config::HotSortConfig;

    fn layout(w: u32, h: u32, kind: Layout) -> SmemLayout {
        SmemLayout::new(&HotSortConfig {
            layout: kind,
            ..HotSortConfig::new(w, h)
        })
    }

    #[test]
    fn wavefronts_follow_the_measured_strides() {
        // hardware.md: stride 1 -> 1, 2 -> 2, 32 -> 32, 33 -> 1 wavefronts.
        for (stride, want) in [(1u32, 1u32), (2, 2), (32, 32), (33, 1)] {
            let words: Vec<u32> = (0..32).map(|l| l * stride).collect();
            assert_eq!(wavefronts_b32(&words, 32).0, want, "stride {stride}");
        }
        // Broadcast: every lane the same word.
        assert_eq!(wavefronts_b32(&[5; 32], 32), (1, 1));
    }

    #[test]
    fn layouts_are_permutations_within_their_regions() {
        for kind in Layout::ALL {
            for (w, h) in [(32, 16), (64, 8), (4, 3), (16, 32), (32, 64)] {
                let l = layout(w, h, kind);
                let mut seen: Vec<u32> = (0..w * h).map(|o| l.phys(2, o)).collect();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len() as u32, w * h, "{kind} {w}x{h}");
                assert!(
                    seen.iter()
                        .all(|&p| p >= 2 * l.region_phys && p < 3 * l.region_phys)
                );
            }
        }
    }

    /// The patent's claim, checked on our model: at W=32, H=16 (and for
    /// every power-of-two shape here) `pad` and `xor` make every access
    /// pattern of the merges conflict-free, while `plain` makes the
    /// transposing ones `H`-way conflicts.
    #[test]
    fn pad_and_xor_are_conflict_free_where_plain_conflicts() {
        for (w, h) in [
            (32u32, 16u32),
            (32, 8),
            (32, 32),
            (64, 8),
            (64, 16),
            (16, 16),
            (8, 4),
        ] {
            for kind in [Layout::Pad, Layout::Xor] {
                let l = layout(w, h, kind);
                for r in 0..h {
                    for p in [
                        Pattern::Row { row: r },
                        Pattern::RowMirrored { row: r },
                        Pattern::Linear { reg: r },
                    ] {
                        assert_eq!(l.excess_wavefronts(p), 0, "{kind} W={w} H={h} {p:?}");
                    }
                }
            }
            let plain = layout(w, h, Layout::Plain);
            assert_eq!(plain.excess_wavefronts(Pattern::Row { row: 3 }), 0);
        }
        let plain = layout(32, 16, Layout::Plain);
        // Lane l at word 16l + r: two banks serve all 32 lanes, 16 words each.
        assert_eq!(plain.excess_wavefronts(Pattern::Linear { reg: 0 }), 15);
    }
}
