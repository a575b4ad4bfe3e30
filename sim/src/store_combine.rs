//! Stores that write part of a sector: which sectors of a store request
//! are partial, and the SM's store-combining buffer, where parts that warps
//! of one SM write close together in time merge before they reach L2.
//!
//! **Why** (docs/calibration.md, "The fifth suite" and "The sixth suite";
//! `hw/calib/suite_parts.txt` and `suite_stores.txt`, with the bytes the
//! L2 moved, `lts__t_bytes`): when eight warps of one block each write one
//! word of the same 32 sectors at once (`ps_w8`, `fill_warps_1m`), the L2
//! moves one sector's bytes per sector, not one per part, and the launch
//! runs as fast as full-sector stores; so do 4 and 2 warps (`ps_w4`,
//! `ps_w2`, `sw_1m_b8`). Two warps whose parts are two loop iterations
//! apart (`ps_w2_d2`) no longer merge, nor do one warp's successive stores
//! (`pl8`), nor eight warps whose 32 sectors lie in 32 lines (`sw_1m_b32`):
//! each part then moves a sector's bytes. So the buffer holds
//! `store_combine_lines` = 16 lines (at least the 8 lines of `ps_w8`'s and
//! `sw_1m_b8`'s requests, fewer than the 32 of `sw_1m_b32`'s), and a line
//! waits `store_combine_cycles` = 16 after its last part for another (more
//! than the 8 cycles the LSU takes to send one of `ps_w8`'s 32-sector
//! requests, less than two iterations of `ps_w2_d2`'s delay loop). What a
//! part that reaches L2 costs there is [`crate::global_mem`]'s.
//!
//! **A merged sector written whole.** The first part of a sector carries
//! the sector's one L2 write, timed when it leaves the SM. When later parts
//! that merge into it complete the sector, that write is a whole sector's
//! (no partial-write price at L2), where the carrying part has not been
//! timed yet (it still waits in its SM's requests of the quantum). Why: the
//! H200 moves a whole sector's bytes for `ps_w8`'s merged sectors, and where
//! the two 16-byte halves of bitonic's chunks merge, the L2 gets whole
//! sectors, four to a write request (`hw/data/halves/hp_ld_4m.csv`:
//! 131,072 write sectors in 32,768 requests for 262,144 parts, `lts__t_bytes`
//! the read, fill and write sectors' bytes; `bi1m_k64`'s `step` 284,788
//! sectors in 71,197 requests, `hw/data/l1probe/`). Charged as parts, the
//! halves made bitonic's 64-bit `step` about 26% slow (`suite_wide.txt`) and
//! `--vector 8` 8% (docs/calibration.md, "Store halves").
//!
//! **Not modelled.** The H200 still merges the eight parts of a sector into
//! two to seven L2 writes when its eight warps are one to twenty loop
//! iterations apart (`ps_w8_d1` .. `_d20`), more the busier the L2. Which
//! back-to-back halves of one warp it merges (`hw/calib/suite_halves.txt`,
//! `hw/data/halves/`) does not follow this buffer's window either: stores
//! alone merge 13% of their halves with 64 warps an SM and 74% with 8
//! (the model: none), stores right after loads 62% with 64 warps and all
//! with 8 or 32 (the model: all), bitonic's 64-bit `step` 91% (the model:
//! 63%) and its `tail`, whose stores follow a barrier, 7% (the model: 34%;
//! the sectors that leave the buffer are counted as Nsight's
//! `l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st`).
//! A merge of a part into one still waiting for its busy slice, tried at the
//! partitions, merged the `step`'s halves but also `fill_loop_1m`'s and
//! `sw_1m_b32`'s (the fifth suite then 16.4%).

use crate::memory::Strided;

/// Marks a sector of a store request (in [`crate::sm::Sm::request_sectors`])
/// that the request writes only part of. Sector numbers are addresses over
/// the sector size, far below this bit.
pub(crate) const PARTIAL: u64 = 1 << 63;

/// Calls `partial(k, cover)` for each sector `sectors[k]` (the request's,
/// from [`crate::coalescer::sectors`], ascending) that the lanes of `exec`,
/// writing `bytes` each at `addrs`, do not write whole; `cover` is what the
/// request writes of it, in granules ([`full_cover`]: 64ths of a sector,
/// exact for sectors up to 64 bytes; bytes for smaller ones).
pub(crate) fn partial_sectors(
    addrs: &[u64],
    exec: u64,
    bytes: u32,
    sector_bytes: u32,
    sectors: &[u64],
    mut partial: impl FnMut(usize, u64),
) {
    let sb = u64::from(sector_bytes);
    if u64::from(bytes) >= sb || sectors.is_empty() {
        // Accesses are aligned to their width: one at least a sector wide
        // writes whole sectors.
        return;
    }
    let shift = sector_bytes.trailing_zeros();
    // Coverage in granules of `g` bytes, at most 64 a sector.
    let g_shift = shift.saturating_sub(6);
    let full = full_cover(sector_bytes);
    if let Some(s) = Strided::of(addrs, exec, bytes)
        && s.contiguous(bytes)
    {
        // Lanes back to back: only the first and last sectors can be cut.
        let (first, end) = (addrs[0], addrs[0] + s.span);
        // The granules of bytes `lo..hi` of a sector.
        let range = |lo: u64, hi: u64| {
            let below = |b: u64| {
                let n = b >> g_shift;
                if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
            };
            below(hi) & !below(lo) & full
        };
        let (lo, hi) = (first % sb, end % sb);
        if lo != 0 {
            let top = if sectors.len() == 1 && hi != 0 {
                hi
            } else {
                sb
            };
            partial(0, range(lo, top));
        }
        if hi != 0 && (sectors.len() > 1 || lo == 0) {
            partial(sectors.len() - 1, range(0, hi));
        }
        return;
    }
    let mut cover = [0u64; crate::regfile::MAX_LANES];
    let lanes = (bytes >> g_shift).max(1);
    let lane_bits = if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    };
    let contiguous = sectors[sectors.len() - 1] - sectors[0] + 1 == sectors.len() as u64;
    let mut m = exec & crate::regfile::lane_mask(addrs.len());
    while m != 0 {
        let a = addrs[m.trailing_zeros() as usize];
        m &= m - 1;
        let s = a >> shift;
        let k = if contiguous {
            (s - sectors[0]) as usize
        } else {
            sectors
                .binary_search(&s)
                .expect("a lane's sector is the request's")
        };
        cover[k] |= lane_bits << ((a & (sb - 1)) >> g_shift);
    }
    for (k, &c) in cover[..sectors.len()].iter().enumerate() {
        if c != full {
            partial(k, c);
        }
    }
}

/// The cover of a whole sector of `sector_bytes` in [`partial_sectors`]'
/// granules.
pub(crate) fn full_cover(sector_bytes: u32) -> u64 {
    let shift = sector_bytes.trailing_zeros();
    let granules = 1u32 << (shift - shift.saturating_sub(6));
    if granules == 64 {
        u64::MAX
    } else {
        (1u64 << granules) - 1
    }
}

/// One SM's store-combining buffer: the lines whose partial sectors it
/// sent lately, each with the cycle of its last part.
#[derive(Clone, Debug, Default)]
pub(crate) struct StoreCombiner {
    /// Per entry: its line (`u64::MAX`: none), the cycle its last part
    /// left the LSU, and its sectors that have a part in it (bit per
    /// sector of the line).
    lines: Vec<u64>,
    last: Vec<u64>,
    sectors: Vec<u64>,
    /// Per entry and sector of its line (`entry << line_shift | sector`):
    /// what its parts wrote of the sector ([`partial_sectors`]' granules),
    /// and where the part that carries its L2 write waits in the SM's
    /// request sectors ([`NO_CARRIER`]: none).
    covers: Vec<u64>,
    carriers: Vec<u32>,
    /// The cover of a whole sector.
    full: u64,
    window: u64,
    /// `log2` of sectors per line.
    line_shift: u32,
}

/// A carrier index meaning none.
pub(crate) const NO_CARRIER: u32 = u32::MAX;

/// What became of a part offered to [`StoreCombiner::merge`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Merge {
    /// It carries its sector's L2 write.
    Sent,
    /// It merged into the write of an earlier part of its sector.
    Merged,
    /// It merged, and the sector's parts now write it whole: the write its
    /// carrier (the index given with the first part) takes to L2 is a whole
    /// sector's.
    Completed(u32),
}

impl StoreCombiner {
    /// An empty buffer of `entries` lines, each waiting `window` cycles for
    /// another part, for lines of `2^line_shift` sectors of `sector_bytes`.
    pub fn new(entries: u32, window: u32, line_shift: u32, sector_bytes: u32) -> StoreCombiner {
        let slots = (entries as usize) << line_shift;
        StoreCombiner {
            lines: vec![u64::MAX; entries as usize],
            last: vec![0; entries as usize],
            sectors: vec![0; entries as usize],
            covers: vec![0; slots],
            carriers: vec![NO_CARRIER; slots],
            full: full_cover(sector_bytes),
            window: window.into(),
            line_shift,
        }
    }

    /// Whether the buffer holds any line (it is off with none).
    pub fn is_on(&self) -> bool {
        !self.lines.is_empty()
    }

    /// Empties the buffer (a new launch).
    pub fn clear(&mut self) {
        self.lines.iter_mut().for_each(|l| *l = u64::MAX);
    }

    /// A part of `sector` writing `cover` of it ([`partial_sectors`]) leaves
    /// the LSU at cycle `depart` (the SM's parts come in the order they
    /// leave); `at` is where it waits in the SM's request sectors if it
    /// carries a write. Returns whether it merges into a part of the same
    /// sector already in the buffer (and so needs no L2 write of its own),
    /// and whether the sector is then whole. A part that does not merge
    /// opens its line, or adds its sector to the line's entry, evicting the
    /// entry whose last part is oldest when the buffer is full.
    pub fn merge(&mut self, sector: u64, depart: u64, cover: u64, at: u32) -> Merge {
        let line = sector >> self.line_shift;
        let k = (sector & ((1 << self.line_shift) - 1)) as usize;
        let bit = 1u64 << k;
        // The victim: a free entry, else the one whose last part is oldest.
        let (mut victim, mut oldest) = (0, u64::MAX);
        for i in 0..self.lines.len() {
            if self.lines[i] == line {
                if depart <= self.last[i] + self.window {
                    self.last[i] = depart;
                    let slot = (i << self.line_shift) | k;
                    if self.sectors[i] & bit == 0 {
                        self.sectors[i] |= bit;
                        (self.covers[slot], self.carriers[slot]) = (cover, at);
                        return Merge::Sent;
                    }
                    let before = self.covers[slot];
                    self.covers[slot] |= cover;
                    let carrier = self.carriers[slot];
                    if before != self.full
                        && self.covers[slot] == self.full
                        && carrier != NO_CARRIER
                    {
                        self.carriers[slot] = NO_CARRIER;
                        return Merge::Completed(carrier);
                    }
                    return Merge::Merged;
                }
                // Timed out: the line reopens in its entry.
                victim = i;
                break;
            }
            let age = if self.lines[i] == u64::MAX {
                0
            } else {
                self.last[i] + 1
            };
            if age < oldest {
                (victim, oldest) = (i, age);
            }
        }
        self.lines[victim] = line;
        self.last[victim] = depart;
        self.sectors[victim] = bit;
        let slot = (victim << self.line_shift) | k;
        (self.covers[slot], self.carriers[slot]) = (cover, at);
        Merge::Sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covers(addrs: &[u64], exec: u64, bytes: u32) -> Vec<(u64, u64)> {
        let mut sectors = Vec::new();
        crate::coalescer::sectors(addrs, exec, bytes, 32, &mut sectors);
        let mut out = Vec::new();
        partial_sectors(addrs, exec, bytes, 32, &sectors, |k, cover| {
            out.push((sectors[k], cover))
        });
        out
    }

    fn partial(addrs: &[u64], exec: u64, bytes: u32) -> Vec<u64> {
        covers(addrs, exec, bytes).iter().map(|&(s, _)| s).collect()
    }

    #[test]
    fn coalesced_stores_write_whole_sectors_and_scattered_ones_parts() {
        let all = u64::from(u32::MAX);
        let words: Vec<u64> = (0..32).map(|l| 0x1000 + 4 * l).collect();
        assert_eq!(partial(&words, all, 4), Vec::<u64>::new());
        // Shifted by a word: the first and last sectors are cut.
        let shifted: Vec<u64> = words.iter().map(|a| a + 4).collect();
        assert_eq!(partial(&shifted, all, 4), [0x80, 0x84]);
        // Half the lanes: the last two sectors are not written at all, the
        // others whole.
        assert_eq!(partial(&words, 0xFFFF, 4), Vec::<u64>::new());
        assert_eq!(partial(&words, 0xFFF, 4), [0x81]);
        // One word of each of 32 sectors.
        let scattered: Vec<u64> = (0..32).map(|l| 0x1000 + 32 * l).collect();
        assert_eq!(partial(&scattered, all, 4).len(), 32);
        // Two lanes complete a sector between them, in any order.
        let pair: Vec<u64> = (0..32).map(|l| 0x1000 + 16 * (l ^ 1)).collect();
        assert_eq!(partial(&pair, all, 16), Vec::<u64>::new());
        assert_eq!(partial(&pair, all & !1, 16), [0x80]);
        // Wide stores write whole sectors.
        let wide: Vec<u64> = (0..4).map(|l| 0x1000 + 64 * l).collect();
        assert_eq!(partial(&wide, 0xF, 64), Vec::<u64>::new());
    }

    #[test]
    fn a_part_tells_which_bytes_of_its_sector_it_writes() {
        let all = u64::from(u32::MAX);
        // Bitonic's halves: each lane the first 16 bytes of its own sector.
        let halves: Vec<u64> = (0..32).map(|l| 0x1000 + 32 * l).collect();
        let c = covers(&halves, all, 16);
        assert_eq!(c.len(), 32);
        assert!(c.iter().all(|&(_, cover)| cover == 0xFFFF));
        let second: Vec<u64> = halves.iter().map(|a| a + 16).collect();
        assert!(
            covers(&second, all, 16)
                .iter()
                .all(|&(_, c)| c == 0xFFFF_0000)
        );
        // Contiguous words shifted by one: the first sector lacks its first
        // word, the last has only its first word.
        let shifted: Vec<u64> = (0..32).map(|l| 0x1004 + 4 * l).collect();
        assert_eq!(covers(&shifted, all, 4), [(0x80, 0xFFFF_FFF0), (0x84, 0xF)]);
        // Inside one sector: bytes 4..12.
        assert_eq!(covers(&[0x1004, 0x1008], 0b11, 4), [(0x80, 0xFF0)]);
        assert_eq!(full_cover(32), 0xFFFF_FFFF);
        assert_eq!(full_cover(128), u64::MAX);
    }

    const HALF: u64 = 0xFFFF;
    const OTHER: u64 = 0xFFFF_0000;

    #[test]
    fn parts_of_one_sector_merge_within_the_window() {
        // 4 lines, 4 cycles, 4 sectors a line.
        let mut c = StoreCombiner::new(4, 4, 2, 32);
        assert_eq!(c.merge(9, 10, 1, 0), Merge::Sent, "opens its line");
        assert_eq!(c.merge(9, 14, 1, 1), Merge::Merged, "within the window");
        assert_eq!(c.merge(8, 15, 1, 2), Merge::Sent, "another sector");
        assert_eq!(c.merge(9, 19, 1, 3), Merge::Merged, "window extended");
        assert_eq!(c.merge(9, 24, 1, 4), Merge::Sent, "too late");
        assert_eq!(c.merge(9, 25, 1, 5), Merge::Merged);
    }

    #[test]
    fn a_merge_that_completes_its_sector_names_the_carrier_once() {
        let mut c = StoreCombiner::new(4, 16, 2, 32);
        assert_eq!(c.merge(9, 0, HALF, 7), Merge::Sent);
        assert_eq!(c.merge(10, 0, HALF, 8), Merge::Sent);
        // The same half again completes nothing.
        assert_eq!(c.merge(9, 4, HALF, 20), Merge::Merged);
        assert_eq!(c.merge(9, 8, OTHER, 21), Merge::Completed(7));
        assert_eq!(c.merge(10, 8, OTHER, 22), Merge::Completed(8));
        // Already whole: a later part merges and completes nothing more.
        assert_eq!(c.merge(9, 12, OTHER, 23), Merge::Merged);
        // A sector that reopens after the window has a new carrier.
        assert_eq!(c.merge(9, 40, HALF, 30), Merge::Sent);
        assert_eq!(c.merge(9, 41, OTHER, 31), Merge::Completed(30));
    }

    #[test]
    fn a_full_buffer_evicts_the_line_whose_last_part_is_oldest() {
        let sent = |m: Merge| m == Merge::Sent;
        let mut c = StoreCombiner::new(2, 100, 2, 32);
        assert!(sent(c.merge(0, 0, 1, 0)));
        assert!(sent(c.merge(4, 1, 1, 0)));
        assert!(!sent(c.merge(0, 2, 1, 0)), "line 0 is now the newest");
        assert!(sent(c.merge(8, 3, 1, 0)), "evicts line 1");
        assert!(!sent(c.merge(0, 4, 1, 0)));
        assert!(sent(c.merge(4, 5, 1, 0)), "line 1 was evicted");
        // A request's parts over more lines than the buffer holds merge with
        // none of the next request's.
        let mut c = StoreCombiner::new(2, 100, 2, 32);
        for round in 0..2 {
            for line in 0..3 {
                assert!(
                    sent(c.merge(line * 4, round * 3 + line, 1, 0)),
                    "line {line}"
                );
            }
        }
    }
}
