//! The SM's L1 data cache for global loads: which of a load's sectors the
//! SM already holds, or is already fetching, so they need no L2 access.
//!
//! **Why** (`hw/data/l1probe/`, docs/calibration.md "Kept apart"): on the
//! H200 a load's sectors that an earlier load of the same SM fetched hit
//! in L1 (`ld.global` compiles to `LDG.E`, cached in L1 on sm_90). Where
//! bitonic's 64-bit and `--vector 8` kernels read each 32-byte sector as
//! two 16-byte halves from two back-to-back instructions, half the load
//! sectors are L1 hits (`l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit`
//! 131,072 of 262,144 in every `head`, `step` and `tail` of `bi1m_l8`) and
//! the L2 reads only the misses (`lts__t_sectors_srcunit_tex_op_read`
//! 131,072): the second half hits the sector the first is still fetching.
//!
//! **Modelled.** `l1_unified_bytes` of L1 and shared memory per SM, of
//! which the launch's resident blocks' shared memory is taken first; the
//! rest caches global loads in 128-byte lines ([`WAYS`]-way sets, LRU),
//! valid per sector. A load allocates the sectors it misses; a sector that
//! hits returns `l1_latency_cycles` after the LSU sends it, or with the
//! load that is fetching it when that one is still on its way (the line
//! remembers the last load that fetched into it). Stores write through to
//! L2 and leave the L1 as it is (a present sector is updated in place:
//! [`L1::holds`] tells which, for the data stage, `crate::lsu_pipe`).
//! The L1 starts empty at every launch.
//!
//! **Not modelled.** The carve-out steps the driver picks (the model takes
//! exactly what the blocks' shared memory leaves), the L1's own bandwidth
//! and banks (the LSU's `lsu_sectors_per_cycle` stands for both), and
//! texture or constant traffic. Lines that only stores wrote: the H200
//! counts store hits where no load fetched anything (`fill_loop_1m` in
//! `hw/data/l1probe/`, 770,048 of 1,048,576 store sectors), so its L1
//! keeps what stores write too; here a store allocates nothing.

/// Ways of each L1 set (not measured; four ways of 128-byte lines make
/// sets of 512 bytes).
pub(crate) const WAYS: usize = 4;

/// No request: a line whose fetch is done or never was.
pub(crate) const NO_LOAD: u64 = u64::MAX;

/// One way: its line (`u64::MAX`: none), valid sectors, last use, and
/// the last load request that fetched into it. One record of 32 bytes, so
/// a set of four ways is two host cache lines: the L1s of all SMs are
/// several megabytes, and a lookup that read four separate arrays missed
/// the host's caches on each (1M keys 7% slower than without an L1).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Way {
    line: u64,
    valid: u64,
    used: u64,
    fetch: u64,
}

const EMPTY: Way = Way {
    line: u64::MAX,
    valid: 0,
    used: 0,
    fetch: NO_LOAD,
};

/// One SM's L1 tags.
#[derive(Clone, Debug, Default)]
pub(crate) struct L1 {
    /// The ways, set by set.
    ways: Vec<Way>,
    /// Sets minus one (a power of two), and `log2` of sectors per line.
    set_mask: u64,
    line_shift: u32,
    clock: u64,
}

/// What the L1 says of one sector of a load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Not held: the load fetches it from L2 (and the L1 allocates it).
    Miss,
    /// Held; the load request (its sequence number) that last fetched into
    /// its line, which may still be on its way.
    Hit(u64),
}

impl L1 {
    /// An L1 of `bytes` for global data (0: none), of lines of
    /// `2^line_shift` sectors of `sector_bytes`: the largest power of two
    /// of [`WAYS`]-way sets that fits.
    pub fn new(bytes: u64, sector_bytes: u32, line_shift: u32) -> L1 {
        let line_bytes = u64::from(sector_bytes) << line_shift;
        let sets = bytes / (line_bytes * WAYS as u64);
        let sets = if sets == 0 { 0 } else { 1u64 << sets.ilog2() };
        let n = sets as usize * WAYS;
        L1 {
            ways: vec![EMPTY; n],
            set_mask: sets.saturating_sub(1),
            line_shift,
            clock: 0,
        }
    }

    /// Whether the L1 holds any line (it is off with none).
    #[inline]
    pub fn is_on(&self) -> bool {
        !self.ways.is_empty()
    }

    /// Looks up `sector` for the load request `load`: a hit, or a miss
    /// that allocates it (evicting the set's least recently used line when
    /// its line is not there).
    #[inline]
    pub fn load(&mut self, sector: u64, load: u64) -> Lookup {
        let (line, bit, base) = self.place(sector);
        self.clock += 1;
        let set = &mut self.ways[base..base + WAYS];
        let mut victim = 0;
        for i in 0..WAYS {
            let w = &mut set[i];
            if w.line == line {
                w.used = self.clock;
                if w.valid & bit != 0 {
                    return Lookup::Hit(w.fetch);
                }
                w.valid |= bit;
                w.fetch = load;
                return Lookup::Miss;
            }
            if w.used < set[victim].used {
                victim = i;
            }
        }
        set[victim] = Way {
            line,
            valid: bit,
            used: self.clock,
            fetch: load,
        };
        Lookup::Miss
    }

    /// Whether the L1 holds `sector` (allocated by a load, which may still
    /// be fetching it), leaving the sets as they are: a store writes
    /// through to L2, and updates the sector in place where it is held.
    #[inline]
    pub fn holds(&self, sector: u64) -> bool {
        let (line, bit, base) = self.place(sector);
        self.ways
            .get(base..base + WAYS)
            .is_some_and(|set| set.iter().any(|w| w.line == line && w.valid & bit != 0))
    }

    /// Where `sector` lives: its line, its bit in the line's valid
    /// sectors, and the index of its set's first way.
    #[inline]
    fn place(&self, sector: u64) -> (u64, u64, usize) {
        let line = sector >> self.line_shift;
        let bit = 1u64 << (sector & ((1 << self.line_shift) - 1));
        (line, bit, (line & self.set_mask) as usize * WAYS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sector_hits_after_its_miss_and_names_the_load_fetching_it() {
        // 2 KB of 128-byte lines (4 sectors of 32 bytes): 4 sets.
        let mut l1 = L1::new(2048, 32, 2);
        assert!(l1.is_on());
        assert_eq!(l1.load(5, 1), Lookup::Miss);
        assert_eq!(l1.load(5, 2), Lookup::Hit(1));
        // Another sector of the same line: its own miss, and the line now
        // waits for the later load.
        assert_eq!(l1.load(4, 3), Lookup::Miss);
        assert_eq!(l1.load(5, 4), Lookup::Hit(3));
        assert!(!L1::new(0, 32, 2).is_on());
    }

    #[test]
    fn holds_tells_a_loaded_sector_and_changes_nothing() {
        let mut l1 = L1::new(2048, 32, 2);
        assert!(!l1.holds(5));
        assert_eq!(l1.load(5, 1), Lookup::Miss);
        assert!(l1.holds(5));
        assert!(!l1.holds(4), "only the sector loaded, not its line");
        // Lines 0, 4, 8, 12 fill set 0; asking about line 0 does not make
        // it the newest, so line 16 evicts it.
        for (k, line) in [0u64, 4, 8, 12].into_iter().enumerate() {
            l1.load(line * 4, 10 + k as u64);
        }
        assert!(l1.holds(0));
        l1.load(16 * 4, 20);
        assert!(!l1.holds(0));
        assert!(!L1::new(0, 32, 2).holds(0));
    }

    #[test]
    fn a_full_set_evicts_its_least_recently_used_line() {
        let mut l1 = L1::new(2048, 32, 2);
        // Lines 0, 4, 8, 12, 16 share set 0 (4 sets); sector = line * 4.
        for (k, line) in [0u64, 4, 8, 12].into_iter().enumerate() {
            assert_eq!(l1.load(line * 4, k as u64), Lookup::Miss);
        }
        assert_eq!(l1.load(0, 9), Lookup::Hit(0), "line 0 is now the newest");
        assert_eq!(l1.load(16 * 4, 10), Lookup::Miss, "evicts line 4");
        assert_eq!(l1.load(4 * 4, 11), Lookup::Miss);
        assert_eq!(l1.load(0, 12), Lookup::Hit(0));
    }
}
