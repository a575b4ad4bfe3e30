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
//! **Not modelled.** The first part of a sector carries the sector's one L2
//! write, timed when it leaves the SM, and is charged as partial even when
//! the later parts complete the sector (the H200 moves a whole sector's
//! bytes for `ps_w8`'s merged sectors). And the H200 still merges the
//! eight parts of a sector into two to seven L2 writes when its eight warps
//! are one to twenty loop iterations apart (`ps_w8_d1` .. `_d20`), more the
//! busier the L2: parts seem to wait in the SM while the L2 is backed up.
//! The SM does not know the L2's backlog when it issues (the partitions
//! are timed after the quantum), so the window here is fixed. Nor one
//! warp's two back-to-back stores of a sector's 16-byte halves, which the
//! H200 sends to L2 as one write in bitonic's global `step` (131,072 L2
//! write sectors for 262,144 parts, `hw/data/l1probe/`) but not in its
//! `tail` (about 250,000), where the same two stores come after a long
//! shared-memory phase, nor in `fill_loop_1m` (one warp's eight
//! back-to-back 4-byte parts, 1,000,928 writes for 1,048,576 parts). A
//! merge of a part into one still waiting for its busy slice, tried at the
//! partitions, merged the `step`'s halves but also `fill_loop_1m`'s and
//! `sw_1m_b32`'s (the fifth suite then 16.4%): what tells them apart is
//! not known.

use crate::memory::Strided;

/// Marks a sector of a store request (in [`crate::sm::Sm::request_sectors`])
/// that the request writes only part of. Sector numbers are addresses over
/// the sector size, far below this bit.
pub(crate) const PARTIAL: u64 = 1 << 63;

/// Calls `partial(k)` for each sector `sectors[k]` (the request's, from
/// [`crate::coalescer::sectors`], ascending) that the lanes of `exec`,
/// writing `bytes` each at `addrs`, do not write whole. Coverage is kept in
/// 64ths of a sector (exact for sectors up to 64 bytes).
pub(crate) fn partial_sectors(
    addrs: &[u64],
    exec: u64,
    bytes: u32,
    sector_bytes: u32,
    sectors: &[u64],
    mut partial: impl FnMut(usize),
) {
    let sb = u64::from(sector_bytes);
    if u64::from(bytes) >= sb || sectors.is_empty() {
        // Accesses are aligned to their width: one at least a sector wide
        // writes whole sectors.
        return;
    }
    if let Some(s) = Strided::of(addrs, exec, bytes)
        && s.contiguous(bytes)
    {
        // Lanes back to back: only the first and last sectors can be cut.
        let (first, end) = (addrs[0], addrs[0] + s.span);
        if first % sb != 0 {
            partial(0);
        }
        if end % sb != 0 && (sectors.len() > 1 || first % sb == 0) {
            partial(sectors.len() - 1);
        }
        return;
    }
    let shift = sector_bytes.trailing_zeros();
    // Coverage in granules of `g` bytes, at most 64 a sector.
    let g_shift = shift.saturating_sub(6);
    let granules = 1u32 << (shift - g_shift);
    let full = if granules == 64 {
        u64::MAX
    } else {
        (1u64 << granules) - 1
    };
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
            partial(k);
        }
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
    window: u64,
    /// `log2` of sectors per line.
    line_shift: u32,
}

impl StoreCombiner {
    /// An empty buffer of `entries` lines, each waiting `window` cycles for
    /// another part, for lines of `2^line_shift` sectors.
    pub fn new(entries: u32, window: u32, line_shift: u32) -> StoreCombiner {
        StoreCombiner {
            lines: vec![u64::MAX; entries as usize],
            last: vec![0; entries as usize],
            sectors: vec![0; entries as usize],
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

    /// A part of `sector` leaves the LSU at cycle `depart` (the SM's parts
    /// come in the order they leave). Returns whether it merges into a part
    /// of the same sector already in the buffer (and so needs no L2 write
    /// of its own). A part that does not merge opens its line, or adds its
    /// sector to the line's entry, evicting the entry whose last part is
    /// oldest when the buffer is full.
    pub fn merge(&mut self, sector: u64, depart: u64) -> bool {
        let line = sector >> self.line_shift;
        let bit = 1u64 << (sector & ((1 << self.line_shift) - 1));
        // The victim: a free entry, else the one whose last part is oldest.
        let (mut victim, mut oldest) = (0, u64::MAX);
        for i in 0..self.lines.len() {
            if self.lines[i] == line {
                if depart <= self.last[i] + self.window {
                    self.last[i] = depart;
                    let merged = self.sectors[i] & bit != 0;
                    self.sectors[i] |= bit;
                    return merged;
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
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partial(addrs: &[u64], exec: u64, bytes: u32) -> Vec<u64> {
        let mut sectors = Vec::new();
        crate::coalescer::sectors(addrs, exec, bytes, 32, &mut sectors);
        let mut out = Vec::new();
        partial_sectors(addrs, exec, bytes, 32, &sectors, |k| out.push(sectors[k]));
        out
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
    fn parts_of_one_sector_merge_within_the_window() {
        // 4 lines, 4 cycles, 4 sectors a line.
        let mut c = StoreCombiner::new(4, 4, 2);
        assert!(!c.merge(9, 10), "the first part opens its line");
        assert!(c.merge(9, 14), "within the window");
        assert!(!c.merge(8, 15), "another sector of the line: its own write");
        assert!(c.merge(9, 19), "each part extends the window");
        assert!(!c.merge(9, 24), "too late: its own write");
        assert!(c.merge(9, 25));
    }

    #[test]
    fn a_full_buffer_evicts_the_line_whose_last_part_is_oldest() {
        let mut c = StoreCombiner::new(2, 100, 2);
        assert!(!c.merge(0, 0));
        assert!(!c.merge(4, 1));
        assert!(c.merge(0, 2), "line 0 is now the newest");
        assert!(!c.merge(8, 3), "evicts line 1");
        assert!(c.merge(0, 4));
        assert!(!c.merge(4, 5), "line 1 was evicted");
        // A request's parts over more lines than the buffer holds merge with
        // none of the next request's.
        let mut c = StoreCombiner::new(2, 100, 2);
        for round in 0..2 {
            for line in 0..3 {
                assert!(!c.merge(line * 4, round * 3 + line), "line {line}");
            }
        }
    }
}
