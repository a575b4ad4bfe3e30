//! The L2 sector cache: set-associative, LRU, allocating on loads and
//! stores, with dirty lines written back when evicted ([`crate::global_mem`]
//! has the queues around it).
//!
//! **Layout.** Where the machine allows it (each set's lines all belong to
//! one memory partition, as on `h200`), the L2 splits into independent
//! views, one per group of partitions ([`L2::split`]), which several host
//! threads time at once: a sector only ever touches its own partition's
//! sets. A view's sets are stored together, in set order ([`Layout`]); the
//! lines a set holds do not depend on where it is stored, so this changes
//! no result. The number of views is chosen per launch ([`L2::flush`]).
//!
//! Set order within a view matters to the host: a streaming request's
//! lines are neighbouring sets, so their keys and state are neighbouring
//! host lines that the host's own prefetcher follows. An earlier layout
//! stored each partition's sets in a run of its own, whatever the views,
//! which scattered a stream over 32 runs on `h200`. With one view (one
//! host thread) in set order, the memory timing's share of the host's
//! samples on the bench's compute kernel fell from about 9.6 % to 8.2 %
//! (`perf record`, three runs each); with two views, on the 1M-key sort,
//! it stayed at about 8.9 %.

use crate::aligned::LineAligned;
use crate::config::GpuConfig;

/// Bits of a way's key that hold its generation (launches before the
/// keys are cleared). Line numbers stay below `2^(64 - GEN_BITS)`: device
/// memory is far smaller than `2^44` lines.
const GEN_BITS: u32 = 20;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;

/// The most sectors per line whose way state packs into one word: the
/// stamp in the high half, the sectors written in part in bits 16..24,
/// the dirty ones in bits 8..16, the valid ones in bits 0..8. On `h200`
/// (4 sectors a line) a set's state is then two host cache lines instead
/// of eight, and the whole L2's 6.5 MB instead of 16.4 MB: looking a
/// sector up missed the host caches on those lines more than on anything
/// else.
const NARROW_SECTORS: u64 = 8;

/// Words of way state when a line has more than [`NARROW_SECTORS`]
/// sectors: stamp, valid, dirty, written in part.
const WIDE_WORDS: usize = 4;

/// The L2: `sets * ways` lines, structure of arrays so a lookup scans
/// only the set's keys (and its LRU stamps when it misses).
#[derive(Clone, Debug)]
pub(crate) struct L2 {
    /// Per way, its line number (address / line size) and the launch that
    /// filled it, as `line << GEN_BITS | generation`: one compare finds a
    /// line of this launch, and lines of older launches are invalid
    /// (flushed). Sets in [`Layout`] order.
    keys: LineAligned<u64>,
    /// Per way, its last use (for LRU) and its valid and dirty sectors, in
    /// `shape.words` words (see [`L2View::state`]).
    meta: LineAligned<u64>,
    shape: Shape,
    /// The views of this launch ([`Self::flush`]): its partitions cut in
    /// `views` near-equal runs.
    views: u64,
    generation: u64,
    /// Sector accesses so far this launch: an access's LRU stamp is its
    /// number in the launch (from 1), whichever view makes it.
    accesses: u32,
}

/// The L2's dimensions and layout, copied into each view.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Words of `meta` per way: 1 when a line has at most
    /// [`NARROW_SECTORS`] sectors, else 3.
    words: usize,
    sets: u64,
    /// `sets` as a [`FastMod`]: `tag % sets` without a division.
    set_mod: FastMod,
    ways: usize,
    sectors_per_line: u64,
    /// Sectors DRAM reads for a load miss (`dram_fetch_bytes`), a power of
    /// two dividing `sectors_per_line`.
    fetch_sectors: u64,
    /// Lines with sectors written in part a set holds before it lets the
    /// least recently used go (`l2_partial_lines_per_set`; 0: no limit,
    /// and no such sector is tracked).
    partial_lines: usize,
    /// The machine's memory partitions, which the views cut.
    parts: u64,
    layout: Layout,
}

/// Where a set's ways are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Set `s` in slot `s`: sets share partitions, one view only.
    Plain,
    /// Each view's sets in one run, views in partition order, each view's
    /// in set order. A set `s` is `(q * parts + p) * c + r` with `c =
    /// 2^shift` lines per interleave chunk (`r < c`, partition `p <
    /// parts`); partition `p` has `per_part` sets. The view of partitions
    /// `a..a + n` starts at slot `a * per_part` and stores set `s` at
    /// `(q * n + p - a) * c + r` from there: with one view, slot `s`.
    ByPartition {
        shift: u32,
        parts: u64,
        per_part: u64,
    },
}

impl Layout {
    /// The layout for a machine: by partition when every set's lines fall
    /// in one partition, i.e. an interleave chunk holds whole lines and
    /// the set count is a multiple of a full round of chunks.
    fn of(cfg: &GpuConfig, sets: u64) -> Layout {
        let (line, chunk) = (
            u64::from(cfg.l2_line_bytes),
            u64::from(cfg.partition_interleave_bytes),
        );
        let parts = u64::from(cfg.mem_partitions).max(1);
        if chunk < line || !chunk.is_power_of_two() || !line.is_power_of_two() {
            return Layout::Plain;
        }
        let c = chunk / line;
        if !sets.is_multiple_of(c * parts) {
            return Layout::Plain;
        }
        Layout::ByPartition {
            shift: c.trailing_zeros(),
            parts,
            per_part: sets / parts,
        }
    }

    /// The slot of `set` in the view of partitions `first..first + n`,
    /// which holds it, counted from the view's first slot.
    #[inline]
    fn slot(self, set: u64, first: u64, n: u64) -> u64 {
        match self {
            Layout::Plain => set,
            Layout::ByPartition { shift, parts, .. } => {
                let chunk = set >> shift;
                let (q, p) = if parts.is_power_of_two() {
                    (chunk >> parts.trailing_zeros(), chunk & (parts - 1))
                } else {
                    (chunk / parts, chunk % parts)
                };
                debug_assert!(p.wrapping_sub(first) < n, "the view holds the set");
                ((q * n + p - first) << shift) | (set & ((1 << shift) - 1))
            }
        }
    }

    /// The partition that set `set`'s lines belong to (0 for a plain
    /// layout, whose one view holds every set).
    #[cfg(test)]
    fn partition(self, set: u64) -> u64 {
        match self {
            Layout::Plain => 0,
            Layout::ByPartition { shift, parts, .. } => (set >> shift) % parts,
        }
    }
}

/// What an L2 lookup found.
pub(crate) struct Lookup {
    pub hit: bool,
    /// The line evicted to make room: its number, its dirty sectors
    /// (written back to DRAM) and its sectors written in part (read from
    /// DRAM first, to make them whole).
    pub writeback: Option<Writeback>,
    /// The line let go of for holding sectors written in part beyond the
    /// set's limit (`l2_partial_lines_per_set`), as [`Self::writeback`]
    /// says; it stays in the cache, whole and clean.
    pub let_go: Option<Writeback>,
    /// Sectors a load miss reads from DRAM: those of its fetch block
    /// (`dram_fetch_bytes`) the line did not hold, which are now valid.
    /// 0 for hits and stores.
    pub fetched: u32,
}

/// One way's state: its last use and its valid, dirty and written-in-part
/// sectors (bit `k`: the line's sector `k`).
#[derive(Clone, Copy, Debug)]
struct Way {
    stamp: u32,
    valid: u64,
    dirty: u64,
    partial: u64,
}

/// A line going back to DRAM, evicted ([`Lookup::writeback`]) or let go
/// of ([`Lookup::let_go`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Writeback {
    pub line: u64,
    pub dirty: u32,
    pub partial: u32,
}

impl Way {
    /// Line `line`, held in this state, going back to DRAM.
    fn back(self, line: u64) -> Writeback {
        Writeback {
            line,
            dirty: self.dirty.count_ones(),
            partial: self.partial.count_ones(),
        }
    }
}

impl L2 {
    pub fn new(cfg: &GpuConfig) -> L2 {
        let line_bytes = u64::from(cfg.l2_line_bytes);
        let ways = cfg.l2_ways as usize;
        let sets = (cfg.l2_bytes / line_bytes / ways as u64).max(1);
        let sectors_per_line = line_bytes / u64::from(cfg.sector_bytes);
        L2 {
            keys: LineAligned::default(),
            meta: LineAligned::default(),
            shape: Shape {
                words: if sectors_per_line <= NARROW_SECTORS {
                    1
                } else {
                    WIDE_WORDS
                },
                sets,
                set_mod: FastMod::new(sets),
                ways,
                sectors_per_line,
                fetch_sectors: (u64::from(cfg.dram_fetch_bytes) / u64::from(cfg.sector_bytes))
                    .clamp(1, sectors_per_line),
                partial_lines: cfg.l2_partial_lines_per_set as usize,
                parts: u64::from(cfg.mem_partitions).max(1),
                layout: Layout::of(cfg, sets),
            },
            views: 1,
            generation: 0,
            accesses: 0,
        }
    }

    /// Empties the cache for a new launch, to be looked up in up to
    /// `views` views ([`Self::split`]; one when the layout is plain).
    /// Changing the views moves sets to other slots, which is safe here:
    /// every way the last launch left is of an older generation, so no
    /// lookup finds it wherever it now sits.
    pub fn flush(&mut self, views: u64) {
        self.views = match self.shape.layout {
            Layout::Plain => 1,
            Layout::ByPartition { parts, .. } => views.clamp(1, parts),
        };
        self.generation += 1;
        let n = self.shape.sets as usize * self.shape.ways;
        if self.keys.is_empty() || self.generation > GEN_MASK {
            // Generation 0 is never current: every way starts invalid.
            self.keys = LineAligned::zeroed(n);
            self.meta = LineAligned::zeroed(n * self.shape.words);
            self.generation = 1;
        }
        self.accesses = 0;
    }

    /// The LRU stamp of the `k`-th access (from 0) after those counted
    /// so far ([`Self::count`]).
    pub fn stamp(&self, k: usize) -> u32 {
        self.accesses.wrapping_add(k as u32).wrapping_add(1)
    }

    /// Counts `n` more accesses, made through views with [`Self::stamp`].
    pub fn count(&mut self, n: usize) {
        self.accesses = self.accesses.wrapping_add(n as u32);
    }

    /// This launch's views as cuts of the partitions: view `g` holds
    /// partitions `cuts[g]..cuts[g + 1]`.
    fn cuts(&self) -> Vec<u64> {
        let parts = self.shape.parts;
        (0..=self.views).map(|g| parts * g / self.views).collect()
    }

    /// This launch's views, in partition order ([`Self::cuts`]; one, of
    /// every partition, for a plain layout). Each tells its partitions
    /// ([`L2View::partitions`]).
    pub fn split(&mut self) -> Vec<L2View<'_>> {
        let mut shape = self.shape;
        if self.views == 1 {
            // One view stores set `s` in slot `s` either way; the plain
            // layout finds it without working out the partition.
            shape.layout = Layout::Plain;
        }
        let cuts = self.cuts();
        // A view's slots; a plain layout's one view holds every set.
        let slots = |a: u64, b: u64| match shape.layout {
            Layout::ByPartition { per_part, .. } => (b - a) * per_part,
            Layout::Plain => shape.sets,
        };
        let generation = self.generation;
        let (mut keys, mut meta) = (&mut self.keys[..], &mut self.meta[..]);
        let mut views = Vec::with_capacity(cuts.len() - 1);
        for w in cuts.windows(2) {
            let slots = slots(w[0], w[1]) as usize;
            let (k, rest) = std::mem::take(&mut keys).split_at_mut(slots * shape.ways);
            keys = rest;
            let (m, rest) =
                std::mem::take(&mut meta).split_at_mut(slots * shape.ways * shape.words);
            meta = rest;
            views.push(L2View {
                keys: k,
                meta: m,
                parts: (w[0], w[1] - w[0]),
                shape,
                generation,
                last: (0, 0),
            });
        }
        views
    }
}

/// Some partitions' share of the L2 (all of it for a plain layout), which
/// one host thread looks sectors up in.
pub(crate) struct L2View<'a> {
    keys: &'a mut [u64],
    meta: &'a mut [u64],
    /// Its partitions: the first and how many (every partition for a
    /// plain layout's one view).
    parts: (u64, u64),
    shape: Shape,
    generation: u64,
    /// The key of the line accessed last and its way in this view (key 0:
    /// none, as generation 0 is never current). A coalesced request's
    /// sectors come in line order, so most sectors find their line here
    /// without comparing the set's keys: nothing else touched the view in
    /// between.
    last: (u64, usize),
}

impl L2View<'_> {
    /// The view's partitions: the first and how many.
    pub fn partitions(&self) -> (u64, u64) {
        self.parts
    }

    /// The view's ways of the set that holds `tag`'s line.
    #[inline]
    fn ways(&self, tag: u64) -> std::ops::Range<usize> {
        let set = self.shape.set_mod.rem(tag);
        let (first, n) = self.parts;
        let slot = self.shape.layout.slot(set, first, n) as usize;
        slot * self.shape.ways..(slot + 1) * self.shape.ways
    }

    /// Way `i`'s last use, valid sectors, dirty sectors and sectors
    /// written in part.
    #[inline]
    fn state(&self, i: usize) -> Way {
        if self.shape.words == 1 {
            let m = self.meta[i];
            Way {
                stamp: (m >> 32) as u32,
                valid: m & 0xFF,
                dirty: (m >> 8) & 0xFF,
                partial: (m >> 16) & 0xFF,
            }
        } else {
            let m = &self.meta[WIDE_WORDS * i..WIDE_WORDS * (i + 1)];
            Way {
                stamp: m[0] as u32,
                valid: m[1],
                dirty: m[2],
                partial: m[3],
            }
        }
    }

    #[inline]
    fn set_state(&mut self, i: usize, w: Way) {
        if self.shape.words == 1 {
            self.meta[i] =
                (u64::from(w.stamp) << 32) | (w.partial << 16) | (w.dirty << 8) | w.valid;
        } else {
            self.meta[WIDE_WORDS * i..WIDE_WORDS * (i + 1)].copy_from_slice(&[
                w.stamp.into(),
                w.valid,
                w.dirty,
                w.partial,
            ]);
        }
    }

    /// Asks the host CPU to fetch the cache lines that [`Self::access`] of
    /// `sector` will read first (the set's keys and way state), so a loop
    /// over many sectors has several of its host cache misses in flight at
    /// once. No effect on the model.
    #[inline]
    pub fn prefetch(&self, sector: u64) {
        let ways = self.ways(sector >> self.shape.sectors_per_line.trailing_zeros());
        if ways.end <= self.keys.len() {
            let words = self.shape.words;
            prefetch_lines(&self.keys[ways.clone()]);
            prefetch_lines(&self.meta[ways.start * words..ways.end * words]);
        }
    }

    /// Looks `sector` up (a store if `write`, one that writes it only in
    /// part if `part`) as the access with LRU stamp `stamp` ([`L2::stamp`]),
    /// filling it on a miss.
    ///
    /// With a limit on lines written in part (`partial_lines`), a store's
    /// part marks a sector the line did not hold as written in part (one
    /// it held, whole or in part, stays as it was); a whole store makes it
    /// whole. A line that so comes to hold such sectors, beyond the limit
    /// of its set, lets the set's least recently used other such line go:
    /// [`Lookup::let_go`], the line staying whole and clean.
    pub fn access(&mut self, sector: u64, write: bool, part: bool, stamp: u32) -> Lookup {
        // Both sizes are powers of two (`GpuConfig::validate`): shifts.
        let per_line = self.shape.sectors_per_line;
        let tag = sector >> per_line.trailing_zeros();
        let bit = 1u64 << (sector & (per_line - 1));
        let ways = self.ways(tag);
        let generation = self.generation;
        let track = write && self.shape.partial_lines > 0;
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
            let w = self.state(i);
            let hit = w.valid & bit != 0;
            let (fill, fetched) = if write || hit {
                (bit, 0)
            } else {
                let block = self.fetch_block(sector) & !w.valid;
                (block, block.count_ones())
            };
            let partial = match (track, part) {
                (false, _) => w.partial,
                (true, false) => w.partial & !bit,
                (true, true) if hit => w.partial,
                (true, true) => w.partial | bit,
            };
            self.set_state(
                i,
                Way {
                    stamp,
                    valid: w.valid | fill,
                    dirty: if write { w.dirty | bit } else { w.dirty },
                    partial,
                },
            );
            let let_go = if w.partial == 0 && partial != 0 {
                self.let_go_in_part(ways, i)
            } else {
                None
            };
            return Lookup {
                hit,
                writeback: None,
                let_go,
                fetched,
            };
        }
        // The victim: an invalid (flushed) way first, else the least recently used.
        let victim = if self.shape.words == 1 {
            ways.start
                + lru_way(
                    &self.keys[ways.clone()],
                    &self.meta[ways.clone()],
                    generation,
                )
        } else {
            ways.clone()
                .min_by_key(|&i| {
                    if self.keys[i] & GEN_MASK == generation {
                        self.state(i).stamp
                    } else {
                        0
                    }
                })
                .expect("at least one way")
        };
        self.last = (key, victim);
        let old = self.keys[victim];
        let gone = self.state(victim);
        let writeback =
            (old & GEN_MASK == generation && gone.dirty != 0).then(|| gone.back(old >> GEN_BITS));
        self.keys[victim] = key;
        let (fill, fetched) = if write {
            (bit, 0)
        } else {
            let block = self.fetch_block(sector);
            (block, block.count_ones())
        };
        let partial = if track && part { bit } else { 0 };
        self.set_state(
            victim,
            Way {
                stamp,
                valid: fill,
                dirty: if write { bit } else { 0 },
                partial,
            },
        );
        let let_go = if partial != 0 {
            self.let_go_in_part(ways, victim)
        } else {
            None
        };
        Lookup {
            hit: false,
            writeback,
            let_go,
            fetched,
        }
    }

    /// Way `now` of the set `ways` has just come to hold sectors written in
    /// part: if the set holds more such lines than the limit, its least
    /// recently used other one is let go of (its sectors in part read from
    /// DRAM and made whole, its dirty ones written back; it stays, clean).
    #[cold]
    #[inline(never)]
    fn let_go_in_part(&mut self, ways: std::ops::Range<usize>, now: usize) -> Option<Writeback> {
        let generation = self.generation;
        let mut held = 0;
        let mut oldest: Option<(Way, usize)> = None;
        for i in ways {
            if self.keys[i] & GEN_MASK != generation {
                continue;
            }
            let w = self.state(i);
            if w.partial == 0 {
                continue;
            }
            held += 1;
            if i != now && oldest.is_none_or(|(o, _)| w.stamp < o.stamp) {
                oldest = Some((w, i));
            }
        }
        if held <= self.shape.partial_lines {
            return None;
        }
        let (w, i) = oldest?;
        self.set_state(
            i,
            Way {
                dirty: 0,
                partial: 0,
                ..w
            },
        );
        Some(w.back(self.keys[i] >> GEN_BITS))
    }

    /// The sector bits, within its line, of the DRAM fetch block that holds
    /// `sector`: what a load miss reads from DRAM and fills.
    #[inline]
    fn fetch_block(&self, sector: u64) -> u64 {
        let n = self.shape.fetch_sectors;
        let first = sector & (self.shape.sectors_per_line - 1) & !(n - 1);
        (u64::MAX >> (64 - n)) << first
    }
}

/// Asks the host CPU for every cache line of `s`.
#[inline]
fn prefetch_lines(s: &[u64]) {
    let mut p = s.as_ptr().cast::<u8>();
    let end = s.as_ptr_range().end.cast::<u8>();
    while p < end {
        crate::aligned::prefetch(p);
        p = p.wrapping_add(64);
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn each_view_stores_its_sets_once_in_one_run_and_one_view_in_set_order() {
        let cases = [
            // (sets, line, interleave, partitions, by partition)
            (25_600, 128, 256, 32, true),
            (8, 128, 256, 2, true),
            (96, 128, 128, 3, true),
            (24, 128, 512, 3, true),
            (100, 128, 256, 32, false),
            (64, 128, 64, 2, false),
        ];
        for (sets, line, chunk, parts, by_part) in cases {
            let mut cfg = GpuConfig::tiny();
            cfg.l2_line_bytes = line;
            cfg.partition_interleave_bytes = chunk;
            cfg.mem_partitions = parts;
            let layout = Layout::of(&cfg, sets);
            assert_eq!(
                layout != Layout::Plain,
                by_part,
                "{sets} sets, {parts} parts"
            );
            let Layout::ByPartition { per_part, .. } = layout else {
                continue;
            };
            for views in [1, 2, 3, u64::from(parts)] {
                let cuts: Vec<u64> = (0..=views).map(|g| u64::from(parts) * g / views).collect();
                // Per view, which of its slots are taken.
                let mut seen: Vec<Vec<bool>> = cuts
                    .windows(2)
                    .map(|w| vec![false; ((w[1] - w[0]) * per_part) as usize])
                    .collect();
                for set in 0..sets {
                    // Every line of the set is in the set's partition.
                    let p = layout.partition(set);
                    for line_no in [set, set + sets, set + 7 * sets] {
                        let addr = line_no * u64::from(line);
                        assert_eq!((addr / u64::from(chunk)) % u64::from(parts), p);
                    }
                    let g = cuts.windows(2).position(|w| w[0] <= p && p < w[1]).unwrap();
                    let slot = layout.slot(set, cuts[g], cuts[g + 1] - cuts[g]);
                    if views == 1 {
                        assert_eq!(slot, set, "one view: set order");
                    }
                    let taken = &mut seen[g][slot as usize];
                    assert!(
                        !*taken,
                        "{views} views: slot {slot} of view {g} taken twice"
                    );
                    *taken = true;
                }
                assert!(
                    seen.iter().flatten().all(|&t| t),
                    "{views} views: every slot used"
                );
            }
        }
    }

    /// A plain model of a set-associative LRU cache of sectors, way by
    /// way: what [`L2`] must agree with, whatever its layout. A load miss
    /// fills its aligned block of `fetch` sectors (those not yet valid). A
    /// store's part marks a sector the line did not hold as written in
    /// part; beyond `limit` such lines in a set (0: none tracked), the
    /// least recently used other one is let go of (made whole and clean).
    /// A way of [`Plain`]: (line, valid, dirty, in part, last use).
    type PlainWay = (u64, u64, u64, u64, u64);

    struct Plain {
        /// Per set, its ways.
        sets: Vec<Vec<PlainWay>>,
        ways: usize,
        per_line: u64,
        fetch: u64,
        limit: usize,
        now: u64,
    }

    /// What [`Plain::access`] gives: hit, write-back and let-go as (line,
    /// dirty, in part), sectors fetched.
    type PlainLookup = (bool, Option<(u64, u32, u32)>, Option<(u64, u32, u32)>, u32);

    impl Plain {
        fn access(&mut self, sector: u64, write: bool, part: bool) -> PlainLookup {
            self.now += 1;
            let (line, index) = (sector / self.per_line, sector % self.per_line);
            let bit = 1u64 << index;
            let first = index / self.fetch * self.fetch;
            let block: u64 = (first..first + self.fetch).map(|i| 1u64 << i).sum();
            let n = self.sets.len() as u64;
            let track = write && self.limit > 0;
            let (limit, now) = (self.limit, self.now);
            let set = &mut self.sets[(line % n) as usize];
            let (hit, writeback, fetched, at, became) = if let Some(i) =
                set.iter().position(|w| w.0 == line)
            {
                let w = &mut set[i];
                let hit = w.1 & bit != 0;
                let fill = if write || hit { bit } else { block & !w.1 };
                let before = w.3;
                if track {
                    if !part {
                        w.3 &= !bit;
                    } else if !hit {
                        w.3 |= bit;
                    }
                }
                w.1 |= fill;
                w.2 |= if write { bit } else { 0 };
                w.4 = now;
                let fetched = if write || hit { 0 } else { fill.count_ones() };
                (hit, None, fetched, i, before == 0 && w.3 != 0)
            } else {
                let (fill, fetched) = if write {
                    (bit, 0)
                } else {
                    (block, block.count_ones())
                };
                let in_part = if track && part { bit } else { 0 };
                let fresh = (line, fill, if write { bit } else { 0 }, in_part, now);
                if set.len() < self.ways {
                    set.push(fresh);
                    (false, None, fetched, set.len() - 1, in_part != 0)
                } else {
                    let victim = (0..set.len()).min_by_key(|&i| set[i].4).unwrap();
                    let old = std::mem::replace(&mut set[victim], fresh);
                    let wb = (old.2 != 0).then(|| (old.0, old.2.count_ones(), old.3.count_ones()));
                    (false, wb, fetched, victim, in_part != 0)
                }
            };
            let mut let_go = None;
            if became && set.iter().filter(|w| w.3 != 0).count() > limit {
                let j = (0..set.len())
                    .filter(|&j| j != at && set[j].3 != 0)
                    .min_by_key(|&j| set[j].4)
                    .unwrap();
                let w = &mut set[j];
                let_go = Some((w.0, w.2.count_ones(), w.3.count_ones()));
                (w.2, w.3) = (0, 0);
            }
            (hit, writeback, let_go, fetched)
        }
    }

    /// Which of this launch's views holds `sector` (a plain layout's one
    /// view holds every set).
    fn view_of(l2: &L2, sector: u64) -> usize {
        match l2.shape.layout {
            Layout::Plain => 0,
            Layout::ByPartition { .. } => {
                let set = (sector / l2.shape.sectors_per_line) % l2.shape.sets;
                let p = l2.shape.layout.partition(set);
                let cuts = l2.cuts();
                cuts.windows(2).position(|w| w[0] <= p && p < w[1]).unwrap()
            }
        }
    }

    #[test]
    fn the_l2_agrees_with_a_plain_lru_cache_however_it_is_cut() {
        // 4 sectors a line (one word of state per way) and 32 (four), over
        // four launches; lines crowd few sets so evictions are frequent.
        // tiny's two partitions, looked up as one view or two, the views
        // changing from launch to launch where the machine allows two; DRAM
        // fetch blocks of one sector (tiny's), two (the H200's) and four.
        // A limit of one line in part a set on some.
        for (line_bytes, ways, chunk, fetch, limit) in [
            (128, 2, 256, 32, 0),
            (1024, 4, 1024, 64, 0),
            (128, 3, 256, 64, 1),
            (128, 4, 256, 32, 2),
            (128, 2, 64, 128, 0),
            (1024, 2, 1024, 128, 1),
        ] {
            let mut cfg = GpuConfig::tiny();
            cfg.l2_partial_lines_per_set = limit;
            cfg.dram_fetch_bytes = fetch;
            cfg.l2_line_bytes = line_bytes;
            cfg.l2_ways = ways;
            cfg.l2_bytes = 8192;
            cfg.partition_interleave_bytes = chunk;
            let mut l2 = L2::new(&cfg);
            let per_line = l2.shape.sectors_per_line;
            let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
            let mut last = 0;
            let mut let_go = 0;
            for want in [2, 1, 2, 1] {
                l2.flush(want);
                let sets = vec![Vec::new(); l2.shape.sets as usize];
                let mut plain = Plain {
                    sets,
                    ways: l2.shape.ways,
                    per_line,
                    fetch: u64::from(fetch / cfg.sector_bytes),
                    limit: limit as usize,
                    now: 0,
                };
                let mut sectors = Vec::new();
                for _ in 0..5000 {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    // A quarter of the accesses stay in the last line (as
                    // a coalesced request's sectors do).
                    let sector = if seed >> 62 == 0 {
                        last / per_line * per_line + seed % per_line
                    } else {
                        seed % (per_line * l2.shape.sets * 3 * l2.shape.ways as u64)
                    };
                    last = sector;
                    // Writes about a third; half of them in part.
                    sectors.push((sector, seed >> 60 < 5, seed >> 59 & 1 == 0));
                }
                let owner: Vec<usize> = sectors.iter().map(|&(s, _, _)| view_of(&l2, s)).collect();
                let stamps: Vec<u32> = (0..sectors.len()).map(|k| l2.stamp(k)).collect();
                let by_part = matches!(l2.shape.layout, Layout::ByPartition { .. });
                let mut views = l2.split();
                assert_eq!(views.len(), if by_part { want as usize } else { 1 });
                for (k, &(sector, write, part)) in sectors.iter().enumerate() {
                    let got = views[owner[k]].access(sector, write, part, stamps[k]);
                    let expected = plain.access(sector, write, part);
                    let w = |w: Option<Writeback>| w.map(|w| (w.line, w.dirty, w.partial));
                    let_go += usize::from(got.let_go.is_some());
                    assert_eq!(
                        (got.hit, w(got.writeback), w(got.let_go), got.fetched),
                        expected,
                        "{line_bytes}-byte lines, sector {sector}"
                    );
                }
                drop(views);
                l2.count(sectors.len());
            }
            assert_eq!(
                let_go > 0,
                limit > 0,
                "{line_bytes}-byte lines: {let_go} let go"
            );
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
}
