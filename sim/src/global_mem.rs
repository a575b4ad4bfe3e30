//! Global-memory timing: an L2 sector cache and a bandwidth queue per
//! memory partition.
//!
//! **Modelled.** Each sector of a request goes to the partition that owns
//! its address (`partition_interleave_bytes` interleaving). A partition's L2
//! slice serves sectors at its share of `l2_bytes_per_cycle`, in arrival
//! order; a load sector that misses then queues for the partition's DRAM
//! channel at its share of `dram_bytes_per_cycle`. A load's data is ready
//! `l2_latency_cycles` after its L2 slot (hit) or `dram_latency_cycles`
//! after its DRAM slot (miss); the request completes with its last sector.
//! The L2 is set-associative with LRU replacement, allocates on loads and
//! stores (a store fills its sector without reading DRAM), and writes a
//! dirty line back to DRAM when it is evicted, which takes DRAM bandwidth.
//! The L2 starts empty at every launch, as under Nsight Compute's default
//! cache control (flush before each kernel).
//!
//! **Not modelled.** The L1 data cache (every global load goes to L2),
//! DRAM banks, rows and refresh, the crossbar, TLBs, and the write-back of
//! dirty lines still in L2 when the kernel ends.

use crate::aligned::LineAligned;
use crate::config::GpuConfig;
use crate::stats::KernelStats;

/// Fractional bits of queue times: bandwidth shares are rarely whole
/// sectors per cycle.
const FRAC: u32 = 16;

/// The L2: `sets * ways` lines, structure of arrays so a lookup scans
/// only the set's keys (and its LRU stamps when it misses).
#[derive(Clone, Debug)]
struct L2 {
    /// Per way, its line number (address / line size) and the launch that
    /// filled it, as `line << GEN_BITS | generation`: one compare finds a
    /// line of this launch, and lines of older launches are invalid
    /// (flushed).
    keys: LineAligned<u64>,
    /// Per way, its last use (for LRU) and its valid and dirty sectors, in
    /// `words` words (see [`L2::state`]).
    meta: LineAligned<u64>,
    /// Words of `meta` per way: 1 when a line has at most
    /// [`NARROW_SECTORS`] sectors, else 3.
    words: usize,
    sets: u64,
    /// `sets` as a [`FastMod`]: `tag % sets` without a division.
    set_mod: FastMod,
    ways: usize,
    sectors_per_line: u64,
    stamp: u32,
    generation: u64,
    /// The key of the line accessed last and its way (key 0: none, as
    /// generation 0 is never current). A coalesced request's sectors come
    /// in line order, so most sectors find their line here without
    /// comparing the set's keys: nothing else touched the L2 in between.
    last: (u64, usize),
}

/// The most sectors per line whose way state packs into one word: the
/// stamp in the high half, the dirty sectors in bits 16..32, the valid
/// ones in bits 0..16. On `h200` (4 sectors a line) a set's state is then
/// two host cache lines instead of five, and the whole L2's 6.5 MB
/// instead of 11.5 MB: looking a sector up missed the host caches on
/// those lines more than on anything else.
const NARROW_SECTORS: u64 = 16;

/// Bits of a way's key that hold its generation (launches before the
/// keys are cleared). Line numbers stay below `2^(64 - GEN_BITS)`: device
/// memory is far smaller than `2^44` lines.
const GEN_BITS: u32 = 20;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;

/// What an L2 lookup found.
struct Lookup {
    hit: bool,
    /// Dirty sectors of an evicted line, and that line's number.
    writeback: Option<(u64, u32)>,
}

impl L2 {
    fn new(cfg: &GpuConfig) -> L2 {
        let line_bytes = u64::from(cfg.l2_line_bytes);
        let ways = cfg.l2_ways as usize;
        let sets = (cfg.l2_bytes / line_bytes / ways as u64).max(1);
        let sectors_per_line = line_bytes / u64::from(cfg.sector_bytes);
        L2 {
            keys: LineAligned::default(),
            meta: LineAligned::default(),
            words: if sectors_per_line <= NARROW_SECTORS {
                1
            } else {
                3
            },
            sets,
            set_mod: FastMod::new(sets),
            ways,
            sectors_per_line,
            stamp: 0,
            generation: 0,
            last: (0, 0),
        }
    }

    fn flush(&mut self) {
        self.generation += 1;
        let n = self.sets as usize * self.ways;
        if self.keys.is_empty() || self.generation > GEN_MASK {
            // Generation 0 is never current: every way starts invalid.
            self.keys = LineAligned::zeroed(n);
            self.meta = LineAligned::zeroed(n * self.words);
            self.generation = 1;
        }
        self.stamp = 0;
        self.last = (0, 0);
    }

    /// Way `i`'s last use, valid sectors and dirty sectors.
    #[inline]
    fn state(&self, i: usize) -> (u32, u64, u64) {
        if self.words == 1 {
            let m = self.meta[i];
            ((m >> 32) as u32, m & 0xFFFF, (m >> 16) & 0xFFFF)
        } else {
            let m = &self.meta[3 * i..3 * i + 3];
            (m[0] as u32, m[1], m[2])
        }
    }

    #[inline]
    fn set_state(&mut self, i: usize, lru: u32, valid: u64, dirty: u64) {
        if self.words == 1 {
            self.meta[i] = (u64::from(lru) << 32) | (dirty << 16) | valid;
        } else {
            self.meta[3 * i..3 * i + 3].copy_from_slice(&[lru.into(), valid, dirty]);
        }
    }

    /// Asks the host CPU to fetch the cache lines that [`Self::access`] of
    /// `sector` will read first (the set's keys and way state), so a loop
    /// over many sectors has several of its host cache misses in flight at
    /// once. No effect on the model.
    #[inline]
    fn prefetch(&self, sector: u64) {
        let tag = sector >> self.sectors_per_line.trailing_zeros();
        let first = self.set_mod.rem(tag) as usize * self.ways;
        let end = first + self.ways;
        if end <= self.keys.len() {
            self.keys.prefetch(first, end);
            self.meta.prefetch(first * self.words, end * self.words);
        }
    }

    fn access(&mut self, sector: u64, write: bool) -> Lookup {
        // Both sizes are powers of two (`GpuConfig::validate`): shifts.
        let per_line = self.sectors_per_line;
        let tag = sector >> per_line.trailing_zeros();
        let bit = 1u64 << (sector & (per_line - 1));
        let set = self.set_mod.rem(tag) as usize;
        let ways = set * self.ways..(set + 1) * self.ways;
        // Stamps restart at each launch; a launch of more than 4 billion
        // sector accesses would wrap them, which only perturbs LRU order.
        self.stamp = self.stamp.wrapping_add(1);
        let generation = self.generation;
        debug_assert!(
            tag < 1 << (64 - GEN_BITS),
            "line numbers fit beside the generation"
        );
        let key = (tag << GEN_BITS) | generation;
        let hit_way = if self.last.0 == key {
            debug_assert_eq!(self.keys[self.last.1], key);
            Some(self.last.1)
        } else {
            find_way(&self.keys[ways.clone()], key).map(|i| ways.start + i)
        };
        if let Some(i) = hit_way {
            self.last = (key, i);
            let (_, valid, dirty) = self.state(i);
            let dirty = if write { dirty | bit } else { dirty };
            self.set_state(i, self.stamp, valid | bit, dirty);
            return Lookup {
                hit: valid & bit != 0,
                writeback: None,
            };
        }
        // The victim: an invalid (flushed) way first, else the least recently used.
        let victim = if self.words == 1 {
            ways.start + lru_way(&self.keys[ways.clone()], &self.meta[ways], generation)
        } else {
            ways.min_by_key(|&i| {
                if self.keys[i] & GEN_MASK == generation {
                    self.state(i).0
                } else {
                    0
                }
            })
            .expect("at least one way")
        };
        self.last = (key, victim);
        let old = self.keys[victim];
        let dirty = self.state(victim).2;
        let writeback = (old & GEN_MASK == generation && dirty != 0)
            .then(|| (old >> GEN_BITS, dirty.count_ones()));
        self.keys[victim] = key;
        self.set_state(victim, self.stamp, bit, if write { bit } else { 0 });
        Lookup {
            hit: false,
            writeback,
        }
    }
}

/// The first way of a set holding one word of state per way (see
/// [`NARROW_SECTORS`]) with the least last use, a way not of this
/// `generation` (flushed) counting as never used: the victim of a miss.
/// Each way's last use and index packed into one word and the least of
/// them taken, with no branch per way (vector minimums), where a scan that
/// kept the best so far compared and branched way by way.
#[inline]
fn lru_way(keys: &[u64], meta: &[u64], generation: u64) -> usize {
    let packed = keys.iter().zip(meta).enumerate().map(|(j, (&k, &m))| {
        let stamp = if k & GEN_MASK == generation {
            m & !0xFFFF_FFFF
        } else {
            0
        };
        stamp | j as u64
    });
    (packed.min().expect("at least one way") & 0xFFFF_FFFF) as usize
}

/// Ways compared at once by [`find_way`].
const WAY_CHUNK: usize = 16;

/// The first of a set's `keys` equal to `key`. Compares a chunk of ways
/// at a time into a bit mask (vector compares, no branch per way): the
/// way a line sits in is random, and a scan that stops at it mispredicted
/// its exit about once a lookup.
#[inline]
fn find_way(keys: &[u64], key: u64) -> Option<usize> {
    let mut chunks = keys.chunks_exact(WAY_CHUNK);
    let mut base = 0;
    for chunk in &mut chunks {
        let chunk: &[u64; WAY_CHUNK] = chunk.try_into().expect("a whole chunk");
        let mut hits = 0u32;
        for (j, &k) in chunk.iter().enumerate() {
            hits |= u32::from(k == key) << j;
        }
        if hits != 0 {
            return Some(base + hits.trailing_zeros() as usize);
        }
        base += WAY_CHUNK;
    }
    let rest = chunks.remainder();
    rest.iter().position(|&k| k == key).map(|i| base + i)
}

/// `a % d` for a fixed divisor by multiplications (Lemire, Kaser and
/// Kurz, "Faster remainder by direct computation", 2019): the L2's set
/// count is rarely a power of two (25,600 sets on `h200`), and a 64-bit
/// division per sector was a visible share of the timing.
#[derive(Clone, Copy, Debug)]
struct FastMod {
    d: u64,
    /// `ceil(2^64 / d)` when `d` fits in 32 bits, else 0 (plain `%`).
    m: u64,
}

impl FastMod {
    fn new(d: u64) -> FastMod {
        let m = if (1..=u64::from(u32::MAX)).contains(&d) {
            (u64::MAX / d).wrapping_add(1)
        } else {
            0
        };
        FastMod { d, m }
    }

    #[inline]
    fn rem(self, a: u64) -> u64 {
        if self.m != 0 && a <= u64::from(u32::MAX) {
            let low = self.m.wrapping_mul(a);
            ((u128::from(low) * u128::from(self.d)) >> 64) as u64
        } else {
            a % self.d
        }
    }
}

/// The partitions' queues and the L2.
#[derive(Clone, Debug)]
pub(crate) struct MemTiming {
    l2: L2,
    /// Per partition: when its L2 slice is next free (fixed point).
    l2_free: Vec<u64>,
    /// Per partition: when its DRAM channel is next free (fixed point).
    dram_free: Vec<u64>,
    /// Fixed-point cycles one sector takes in an L2 slice / DRAM channel.
    l2_cost: u64,
    dram_cost: u64,
    interleave: u64,
    sector_bytes: u64,
    line_bytes: u64,
    l2_latency: u64,
    dram_latency: u64,
}

impl MemTiming {
    pub fn new(cfg: &GpuConfig) -> MemTiming {
        let parts = u64::from(cfg.mem_partitions);
        let share = |bytes_per_cycle: u32| {
            (((u64::from(cfg.sector_bytes) * parts) << FRAC) / u64::from(bytes_per_cycle)).max(1)
        };
        MemTiming {
            l2: L2::new(cfg),
            l2_free: vec![0; parts as usize],
            dram_free: vec![0; parts as usize],
            l2_cost: share(cfg.l2_bytes_per_cycle),
            dram_cost: share(cfg.dram_bytes_per_cycle),
            interleave: cfg.partition_interleave_bytes.into(),
            sector_bytes: cfg.sector_bytes.into(),
            line_bytes: cfg.l2_line_bytes.into(),
            l2_latency: cfg.l2_latency_cycles.into(),
            dram_latency: cfg.dram_latency_cycles.into(),
        }
    }

    /// Starts a launch: empty L2, idle queues.
    pub fn start_launch(&mut self) {
        self.l2.flush();
        self.l2_free.iter_mut().for_each(|t| *t = 0);
        self.dram_free.iter_mut().for_each(|t| *t = 0);
    }

    fn partition(&self, addr: u64) -> usize {
        // The interleave is a power of two (`GpuConfig::validate`); the
        // partition count mostly is.
        let chunk = addr >> self.interleave.trailing_zeros();
        let parts = self.l2_free.len() as u64;
        if parts.is_power_of_two() {
            (chunk & (parts - 1)) as usize
        } else {
            (chunk % parts) as usize
        }
    }

    /// The L2 line that holds `sector`.
    #[inline]
    pub fn line(&self, sector: u64) -> u64 {
        sector >> self.l2.sectors_per_line.trailing_zeros()
    }

    /// Starts fetching the host memory that timing `sector` will need
    /// (see `L2::prefetch`); changes nothing.
    #[inline]
    pub fn prefetch(&self, sector: u64) {
        self.l2.prefetch(sector);
    }

    /// Sends one sector leaving the SM at cycle `depart`; returns the cycle
    /// its data is ready (loads) or it is written into L2 (stores).
    pub fn sector(
        &mut self,
        depart: u64,
        sector: u64,
        store: bool,
        stats: &mut KernelStats,
    ) -> u64 {
        let addr = sector * self.sector_bytes;
        let p = self.partition(addr);
        let arrive = depart << FRAC;
        let start = arrive.max(self.l2_free[p]);
        self.l2_free[p] = start + self.l2_cost;
        let lookup = self.l2.access(sector, store);
        if let Some((line, dirty)) = lookup.writeback {
            let q = self.partition(line * self.line_bytes);
            let begin = start.max(self.dram_free[q]);
            self.dram_free[q] = begin + self.dram_cost * u64::from(dirty);
            stats.dram_sectors_write += u64::from(dirty);
        }
        if store {
            return ceil_cycles(start + self.l2_cost);
        }
        if lookup.hit {
            stats.l2_sector_hits += 1;
            ceil_cycles(start) + self.l2_latency
        } else {
            stats.l2_sector_misses += 1;
            stats.dram_sectors_read += 1;
            let begin = (start + self.l2_cost).max(self.dram_free[p]);
            self.dram_free[p] = begin + self.dram_cost;
            ceil_cycles(begin) + self.dram_latency
        }
    }
}

fn ceil_cycles(fixed: u64) -> u64 {
    fixed.div_ceil(1 << FRAC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing() -> (MemTiming, KernelStats) {
        let mut t = MemTiming::new(&GpuConfig::tiny());
        t.start_launch();
        (t, KernelStats::default())
    }

    #[test]
    fn fast_remainders_equal_division() {
        for d in [
            1u64,
            2,
            3,
            7,
            25_600,
            65_535,
            1 << 20,
            u64::from(u32::MAX),
            1 << 40,
        ] {
            let f = FastMod::new(d);
            let probes = (0..5000u64).chain([
                u64::from(u32::MAX) - 1,
                u64::from(u32::MAX),
                1 << 32,
                u64::MAX,
            ]);
            for a in probes.chain((0..5000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))) {
                assert_eq!(f.rem(a), a % d, "{a} % {d}");
            }
        }
    }

    /// A plain model of a set-associative LRU cache of sectors, way by
    /// way: what [`L2`] must agree with, whatever its layout.
    struct Plain {
        /// Per set, its ways: (line, valid, dirty, last use).
        sets: Vec<Vec<(u64, u64, u64, u64)>>,
        ways: usize,
        per_line: u64,
        now: u64,
    }

    impl Plain {
        fn access(&mut self, sector: u64, write: bool) -> (bool, Option<(u64, u32)>) {
            self.now += 1;
            let (line, bit) = (sector / self.per_line, 1 << (sector % self.per_line));
            let n = self.sets.len() as u64;
            let set = &mut self.sets[(line % n) as usize];
            if let Some(w) = set.iter_mut().find(|w| w.0 == line) {
                let hit = w.1 & bit != 0;
                w.1 |= bit;
                w.2 |= if write { bit } else { 0 };
                w.3 = self.now;
                return (hit, None);
            }
            let fresh = (line, bit, if write { bit } else { 0 }, self.now);
            if set.len() < self.ways {
                set.push(fresh);
                return (false, None);
            }
            let victim = (0..set.len()).min_by_key(|&i| set[i].3).unwrap();
            let old = std::mem::replace(&mut set[victim], fresh);
            (false, (old.2 != 0).then(|| (old.0, old.2.count_ones())))
        }
    }

    #[test]
    fn the_l2_agrees_with_a_plain_lru_cache_for_narrow_and_wide_lines() {
        // 4 sectors a line (one word of state per way) and 32 (three), over
        // two launches; lines crowd few sets so evictions are frequent.
        for (line_bytes, ways) in [("128", "2"), ("1024", "4"), ("128", "3")] {
            let mut cfg = GpuConfig::tiny();
            cfg.set("l2_line_bytes", line_bytes).unwrap();
            cfg.set("l2_ways", ways).unwrap();
            cfg.set("l2_bytes", "8192").unwrap();
            let mut l2 = L2::new(&cfg);
            let per_line = l2.sectors_per_line;
            let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
            let mut last = 0;
            for _launch in 0..2 {
                l2.flush();
                let sets = vec![Vec::new(); l2.sets as usize];
                let ways = l2.ways;
                let mut plain = Plain {
                    sets,
                    ways,
                    per_line,
                    now: 0,
                };
                for _ in 0..5000 {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    // A quarter of the accesses stay in the last line (as
                    // a coalesced request's sectors do).
                    let sector = if seed >> 62 == 0 {
                        last / per_line * per_line + seed % per_line
                    } else {
                        seed % (per_line * l2.sets * 3 * l2.ways as u64)
                    };
                    last = sector;
                    let write = seed >> 60 < 5;
                    let got = l2.access(sector, write);
                    let want = plain.access(sector, write);
                    assert_eq!(
                        (got.hit, got.writeback),
                        want,
                        "{line_bytes}-byte lines, sector {sector}"
                    );
                }
            }
        }
    }

    #[test]
    fn find_way_finds_the_first_match_in_any_set_size() {
        for ways in [1usize, 2, 15, 16, 17, 33, 256] {
            for at in [0, ways / 2, ways - 1] {
                let mut keys: Vec<u64> = (0..ways as u64).map(|i| i * 3 + 1).collect();
                assert_eq!(find_way(&keys, 0), None, "{ways} ways: no match");
                keys[at] = 0;
                assert_eq!(find_way(&keys, 0), Some(at), "{ways} ways, match at {at}");
                keys[ways - 1] = 0;
                assert_eq!(find_way(&keys, 0), Some(at), "{ways} ways: the first match");
            }
        }
    }

    #[test]
    fn a_miss_then_a_hit() {
        let (mut t, mut s) = timing();
        // tiny: 2 partitions, 64 B/cycle of L2 (1 sector per cycle per
        // partition), 32 B/cycle of DRAM (a sector every 2 cycles per partition).
        assert_eq!(t.sector(10, 0, false, &mut s), 10 + 1 + 20);
        assert_eq!(t.sector(40, 0, false, &mut s), 40 + 10);
        assert_eq!(
            (s.l2_sector_hits, s.l2_sector_misses, s.dram_sectors_read),
            (1, 1, 1)
        );
    }

    #[test]
    fn sectors_of_one_partition_queue_for_bandwidth() {
        let (mut t, mut s) = timing();
        let done: Vec<u64> = (0..4).map(|i| t.sector(0, i, false, &mut s)).collect();
        // DRAM: one sector per 2 cycles in partition 0 (sectors 0..8 share it).
        assert_eq!(done, [21, 23, 25, 27]);
    }

    #[test]
    fn a_flush_empties_the_cache() {
        let (mut t, mut s) = timing();
        t.sector(0, 5, true, &mut s);
        assert_eq!(
            t.sector(100, 5, false, &mut s),
            100 + 10,
            "a store fills its sector"
        );
        t.start_launch();
        assert_eq!(t.sector(0, 5, false, &mut s), 1 + 20);
    }

    #[test]
    fn dirty_evictions_write_back() {
        let (mut t, mut s) = timing();
        // tiny L2: 2048 bytes, 2 ways of 128-byte lines: 8 sets. Lines 0, 8, 16 share set 0.
        let sector_of_line = |line: u64| line * 4;
        t.sector(0, sector_of_line(0), true, &mut s);
        t.sector(0, sector_of_line(8), false, &mut s);
        t.sector(0, sector_of_line(16), false, &mut s);
        assert_eq!(s.dram_sectors_write, 1);
    }
}
