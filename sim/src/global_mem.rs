//! Global-memory timing: an L2 sector cache and a bandwidth queue per
//! memory partition.
//!
//! **Modelled.** Each sector of a request goes to the partition that owns
//! its address (`partition_interleave_bytes` interleaving, hashed with
//! `partition_hash`: [`crate::slice_hash`]). A partition's L2
//! slice serves sectors at its share of `l2_bytes_per_cycle`, in arrival
//! order; a load sector that misses then queues for the partition's DRAM
//! channel at its share of `dram_bytes_per_cycle`. A load's data is ready
//! `l2_latency_cycles` after its L2 slot (hit) or `dram_latency_cycles`
//! after its DRAM slot (miss); the request completes with its last sector.
//!
//! **Misses.** A load sector that misses reads its whole DRAM fetch block
//! (`dram_fetch_bytes`, 64 on the H200), and every sector of it the line
//! lacked becomes valid and takes DRAM bandwidth: GPUTeraSort's `keygen`,
//! which reads one sector of each 100-byte record, reads twice its
//! sectors' bytes from DRAM on the H200 (`dram__bytes_read` 67.1 MB for
//! 33.6 MB of load sectors; 16.8 for 8.4 in its four-run sort), and took
//! half the measured time while the model read only its sectors. The miss
//! also takes a second sector's time of its slice for the fill: on the
//! H200 `lts__t_bytes` exceeds the SMs' load and store sectors by about
//! the bytes read from DRAM (HotSort's 4M-key merges: 52.2 MB for 33.6 MB
//! of sectors and 16.8 MB read), and the merges and copies that read
//! 4-16 MB from DRAM ran 10-16% fast without it (`copy4_4m` -14.8%,
//! `hs4m` `fm` -16%; with it +1% and -0.2% to +3%).
//! The L2 is set-associative with LRU replacement, allocates on loads and
//! stores (a store fills its sector without reading DRAM), and writes a
//! dirty line back to DRAM when it is evicted, which takes DRAM bandwidth.
//! The L2 starts empty at every launch, as under Nsight Compute's default
//! cache control (flush before each kernel).
//!
//! **Partial-sector stores.** A store sector that its request writes only
//! in part (marked [`PARTIAL`] by the SM, after its store-combining buffer,
//! [`crate::store_combine`], which unmarks a sector that merged parts
//! complete) takes `l2_partial_write_bytes` of its slice's
//! bandwidth instead of a sector's, and `l2_partial_line_bytes` more when
//! its line is not the line the slice last wrote in part, or
//! `l2_partial_sector_bytes` more when its sector is the very sector the
//! slice last wrote in part (see below). Why: on the H200
//! (`hw/calib/suite_parts.txt`, docs/calibration.md "The sixth suite"),
//! parts that reach L2 alone move a whole sector's bytes each
//! (`lts__t_bytes`), and 1M of them take about 1.55 sectors' L2 time each
//! where a request's parts share lines four to a line (`ps_b8`; `ps_b4`
//! with half as many gives the same rate; `pl8`, one warp's, 1.75), but 2.4
//! where every part of a request has a line of its own (`ps_b8_l`; the
//! scatter-like `sw_1m` and `sw_1m_b1024` 2.5): about 1.27 sectors a part
//! and 1.13 a line. Whole-sector stores are timed as before.
//!
//! **A part right after a part of the same sector.** The line discount is
//! for parts of different sectors of one line (`ps_b8`'s requests). Where
//! a block's eight warps write the eight words of 32 sectors in 32 lines
//! at once (`hw/calib/suite_scatter_lines.txt`, `swl_b32_*`; docs/
//! calibration.md "A part right after a part of the same sector"), none of
//! the parts merge in the SM (1,048,576 L2 write sectors for as many
//! parts) and each reaches its slice right after a part of the same
//! sector: the H200 takes 34,426-38,667 cycles, more than for parts from
//! other blocks (`swl_b1024_s1024` 33,629), where the discount gave 20,325
//! to 27,003. Such a part pays `l2_partial_sector_bytes` (48 on the H200,
//! fitted there) instead of the discount.
//!
//! **Lines written in part.** An L2 set holds at most
//! `l2_partial_lines_per_set` lines with sectors written in part
//! ([`crate::l2`]); one more lets the least recently used such line go:
//! its sectors in part are read from DRAM and written into the slice (a
//! sector's time each, as a load miss's fill) and its dirty sectors go
//! back to DRAM, all on the partition's DRAM queue. The line stays, whole
//! and clean, so the parts that later complete its sectors do not make it
//! go again. A line evicted with such sectors reads them first too. Why:
//! the H200 lets go of sectors written in part long before whole ones
//! (`hw/calib/suite_l2parts.txt`, docs/calibration.md "Sectors written in
//! part": about what a Poisson spread of the lines leaves beyond four a
//! set), and sample sort's `scatter` at 4M keys, whose 1,024 buckets keep
//! lines in part on every SM, reads 14.5 MB more from DRAM than its loads
//! need and writes its whole output back once. Letting such a line go
//! and forgetting it instead (a prototype) moved four times that traffic:
//! the scatter's next part to the line made it a line in part again.
//!
//! Load sectors that hit in the SM's L1 ([`crate::l1`]) never come here.
//!
//! **DRAM rows.** Each partition's addresses go to its `dram_banks` banks
//! a row (`dram_row_bytes` of the partition's own addresses) at a time, in
//! turn, and each bank keeps one row open. A DRAM access (a load miss's
//! fetch, a line going back) to a row its bank does not have open takes
//! `dram_row_open_bytes` more of the channel's bandwidth. Why: on the
//! H200 (`hw/calib/suite_gather.txt`, docs/calibration.md "Random reads
//! from DRAM") 16-byte reads scattered over 64 and 256 MB, each its own
//! 64-byte fetch, move 1,635 and 1,452 DRAM bytes a cycle where reads in
//! order move 1,991 and 2,282; with every access costing the same the
//! model moved the scattered ones at its full 2,320-2,403 (-30% and -40%).
//! Streams in address order find their rows open. Opening a row delays
//! the channel's later accesses, not this one: its latency stays
//! `dram_latency_cycles`.
//!
//! **Not modelled.** DRAM refresh and bank timing beyond the open row, the
//! crossbar, TLBs, and the write-back of dirty lines still in L2 when the
//! kernel ends.

use crate::config::GpuConfig;
use crate::l2::{L2, L2View, Writeback};
use crate::slice_hash::SliceHash;
use crate::stats::KernelStats;
pub(crate) use crate::store_combine::PARTIAL;

/// Fractional bits of queue times: bandwidth shares are rarely whole
/// sectors per cycle.
const FRAC: u32 = 16;

/// The partitions' queues and the L2.
#[derive(Clone, Debug)]
pub(crate) struct MemTiming {
    l2: L2,
    /// Per partition: when its L2 slice is next free (fixed point).
    l2_free: Vec<u64>,
    /// Per partition: when its DRAM channel is next free (fixed point).
    dram_free: Vec<u64>,
    /// Per partition: the sector its slice last wrote in part (`u64::MAX`:
    /// none this launch).
    partial_sector: Vec<u64>,
    /// Per partition and DRAM bank: the row it has open (`u64::MAX`: none).
    open_rows: Vec<u64>,
    costs: Costs,
    /// Per partition, its group in this launch ([`Self::start_launch`]).
    group_of: Vec<u32>,
    /// How many groups this launch has.
    group_count: usize,
}

/// Which group of the launch ([`MemTiming::groups`]) each sector's
/// partition is in: a team lists each request's sectors per group
/// ([`crate::team_batch`]), so each group's thread times only its own.
#[derive(Clone, Copy)]
pub(crate) struct GroupMap<'a> {
    costs: Costs,
    group_of: &'a [u32],
    /// How many groups.
    pub count: usize,
}

impl GroupMap<'_> {
    /// The group of `sector`'s partition.
    #[inline]
    pub fn group(&self, sector: u64) -> usize {
        let sector = self.costs.hash.sector(sector & !PARTIAL);
        self.group_of[self.costs.partition(sector * self.costs.sector_bytes)] as usize
    }
}

/// What a sector's timing needs besides the queues: the same for every
/// partition.
#[derive(Clone, Copy, Debug)]
struct Costs {
    /// Fixed-point cycles one sector takes in an L2 slice / DRAM channel.
    l2_cost: u64,
    dram_cost: u64,
    /// Fixed-point cycles a partial-sector store takes in an L2 slice,
    /// what one to another line than the slice's last adds, and what one
    /// to the very sector the slice last wrote in part adds.
    partial_cost: u64,
    partial_line_cost: u64,
    partial_sector_cost: u64,
    interleave: u64,
    parts: u64,
    sector_bytes: u64,
    line_bytes: u64,
    /// `log2` of sectors per line (both sizes are powers of two).
    line_shift: u32,
    l2_latency: u64,
    dram_latency: u64,
    /// DRAM rows: bytes of a partition's own addresses a row holds, banks
    /// a partition has (each with one open row; 0: rows not modelled),
    /// and the fixed-point cycles of its DRAM channel opening another row
    /// takes.
    row_bytes: u64,
    banks: u64,
    row_miss_cost: u64,
    /// Which partition owns a sector ([`crate::slice_hash`]).
    hash: SliceHash,
}

impl Costs {
    /// The partition that owns `addr`.
    #[inline]
    fn partition(&self, addr: u64) -> usize {
        // The interleave is a power of two (`GpuConfig::validate`); the
        // partition count mostly is.
        let chunk = addr >> self.interleave.trailing_zeros();
        if self.parts.is_power_of_two() {
            (chunk & (self.parts - 1)) as usize
        } else {
            (chunk % self.parts) as usize
        }
    }

    /// `addr` among its partition's own addresses: its interleave chunks
    /// numbered within the partition, as its DRAM channel sees them.
    #[inline]
    fn own_address(&self, addr: u64) -> u64 {
        let shift = self.interleave.trailing_zeros();
        let chunk = addr >> shift;
        let own = if self.parts.is_power_of_two() {
            chunk >> self.parts.trailing_zeros()
        } else {
            chunk / self.parts
        };
        (own << shift) | (addr & (self.interleave - 1))
    }
}

impl MemTiming {
    pub fn new(cfg: &GpuConfig) -> MemTiming {
        let parts = u64::from(cfg.mem_partitions);
        let cost = |bytes: u32, bytes_per_cycle: u32| {
            ((u64::from(bytes) * parts) << FRAC) / u64::from(bytes_per_cycle)
        };
        let share = |bytes_per_cycle: u32| cost(cfg.sector_bytes, bytes_per_cycle).max(1);
        MemTiming {
            l2: L2::new(cfg),
            l2_free: vec![0; parts as usize],
            dram_free: vec![0; parts as usize],
            partial_sector: vec![u64::MAX; parts as usize],
            open_rows: vec![u64::MAX; (parts * u64::from(cfg.dram_banks)) as usize],
            costs: Costs {
                l2_cost: share(cfg.l2_bytes_per_cycle),
                dram_cost: share(cfg.dram_bytes_per_cycle),
                partial_cost: cost(cfg.l2_partial_write_bytes, cfg.l2_bytes_per_cycle).max(1),
                partial_line_cost: cost(cfg.l2_partial_line_bytes, cfg.l2_bytes_per_cycle),
                partial_sector_cost: cost(cfg.l2_partial_sector_bytes, cfg.l2_bytes_per_cycle),
                interleave: cfg.partition_interleave_bytes.into(),
                parts,
                sector_bytes: cfg.sector_bytes.into(),
                line_bytes: cfg.l2_line_bytes.into(),
                line_shift: cfg.line_sector_shift(),
                l2_latency: cfg.l2_latency_cycles.into(),
                dram_latency: cfg.dram_latency_cycles.into(),
                row_bytes: cfg.dram_row_bytes.into(),
                banks: cfg.dram_banks.into(),
                row_miss_cost: cost(cfg.dram_row_open_bytes, cfg.dram_bytes_per_cycle),
                hash: SliceHash::new(
                    cfg.partition_hash,
                    parts,
                    cfg.partition_interleave_bytes.into(),
                    cfg.sector_bytes.into(),
                ),
            },
            group_of: vec![0; parts as usize],
            group_count: 1,
        }
    }

    /// Starts a launch whose batches are timed in up to `groups` groups
    /// ([`Self::groups`]): empty L2, idle queues.
    pub fn start_launch(&mut self, groups: usize) {
        self.l2.flush(groups as u64);
        let views = self.l2.split();
        self.group_count = views.len();
        for (g, view) in views.iter().enumerate() {
            let (first, n) = view.partitions();
            self.group_of[first as usize..(first + n) as usize].fill(g as u32);
        }
        self.l2_free.iter_mut().for_each(|t| *t = 0);
        self.dram_free.iter_mut().for_each(|t| *t = 0);
        self.partial_sector.iter_mut().for_each(|l| *l = u64::MAX);
        self.open_rows.iter_mut().for_each(|r| *r = u64::MAX);
    }

    /// Which group each sector is in, when this launch has several.
    pub fn group_map(&self) -> Option<GroupMap<'_>> {
        (self.group_count > 1).then_some(GroupMap {
            costs: self.costs,
            group_of: &self.group_of,
            count: self.group_count,
        })
    }

    /// The LRU stamp of the `k`-th sector (from 0) of the next batch.
    pub fn stamp(&self, k: usize) -> u32 {
        self.l2.stamp(k)
    }

    /// Counts a batch of `n` sectors timed through [`Self::groups`].
    pub fn count(&mut self, n: usize) {
        self.l2.count(n);
    }

    /// The partitions cut into the groups of this launch
    /// ([`Self::start_launch`]), which can be timed at once, each by one
    /// host thread: near-equal runs of partitions when every L2 set
    /// belongs to one partition (`h200`), else one group.
    /// Each group's sectors meet only its own queues and sets, so timing
    /// the groups apart, each in the batch's order, gives what timing the
    /// batch in one go gives.
    pub fn groups(&mut self) -> Vec<PartTiming<'_>> {
        let views = self.l2.split();
        let (mut l2_free, mut dram_free) = (&mut self.l2_free[..], &mut self.dram_free[..]);
        let mut partial_sector = &mut self.partial_sector[..];
        let mut open_rows = &mut self.open_rows[..];
        let banks = self.costs.banks as usize;
        let mut out = Vec::with_capacity(views.len());
        // The views come in partition order, so each group's queues are
        // the next `len` of them.
        for l2 in views {
            let (first, len) = l2.partitions();
            let len = len as usize;
            let (a, rest) = std::mem::take(&mut l2_free).split_at_mut(len);
            l2_free = rest;
            let (b, rest) = std::mem::take(&mut dram_free).split_at_mut(len);
            dram_free = rest;
            let (c, rest) = std::mem::take(&mut partial_sector).split_at_mut(len);
            partial_sector = rest;
            let (o, rest) = std::mem::take(&mut open_rows).split_at_mut(len * banks);
            open_rows = rest;
            out.push(PartTiming {
                l2,
                l2_free: a,
                dram_free: b,
                partial_sector: c,
                open_rows: o,
                first: first as usize,
                costs: self.costs,
            });
        }
        out
    }

    /// Times one sector on its own (as [`PartTiming::sector`] of the one
    /// group), for tests.
    #[cfg(test)]
    pub fn sector(
        &mut self,
        depart: u64,
        sector: u64,
        store: bool,
        stats: &mut KernelStats,
    ) -> u64 {
        let stamp = self.stamp(0);
        let mut g = self.groups();
        let (done, _) = g[0].sector(depart, sector, store, stamp, stats);
        drop(g);
        self.count(1);
        done
    }
}

/// A group of partitions (`first..first + l2_free.len()`): their queues
/// and L2 sets, timed by one host thread.
pub(crate) struct PartTiming<'a> {
    l2: L2View<'a>,
    l2_free: &'a mut [u64],
    dram_free: &'a mut [u64],
    partial_sector: &'a mut [u64],
    open_rows: &'a mut [u64],
    first: usize,
    costs: Costs,
}

impl PartTiming<'_> {
    /// Starts fetching the host memory that timing `sector` will need
    /// (see [`L2View::prefetch`]); changes nothing.
    #[inline]
    pub fn prefetch(&self, sector: u64) {
        self.l2.prefetch(self.costs.hash.sector(sector & !PARTIAL));
    }

    /// The L2 line that holds `sector`.
    #[inline]
    pub fn line(&self, sector: u64) -> u64 {
        (sector & !PARTIAL) >> self.costs.line_shift
    }

    /// Sends one sector of the group's partitions leaving the SM at cycle
    /// `depart`, as the L2's access with stamp `stamp`; returns the cycle
    /// its data is ready (loads) or it is written into L2 (stores), and
    /// whether it is a load that missed L2. A store's sector may carry
    /// [`PARTIAL`].
    pub fn sector(
        &mut self,
        depart: u64,
        sector: u64,
        store: bool,
        stamp: u32,
        stats: &mut KernelStats,
    ) -> (u64, bool) {
        let c = self.costs;
        let partial = sector & PARTIAL != 0;
        // From here on the sector stands for its hashed slice's
        // ([`crate::slice_hash`]): queue, L2 sets and partial line.
        let sector = c.hash.sector(sector & !PARTIAL);
        let addr = sector * c.sector_bytes;
        let p = c.partition(addr) - self.first;
        let arrive = depart << FRAC;
        let start = arrive.max(self.l2_free[p]);
        let cost = if partial {
            let last = self.partial_sector[p];
            let extra = if last == sector {
                c.partial_sector_cost
            } else if last >> c.line_shift == sector >> c.line_shift {
                0
            } else {
                c.partial_line_cost
            };
            self.partial_sector[p] = sector;
            c.partial_cost + extra
        } else {
            c.l2_cost
        };
        self.l2_free[p] = start + cost;
        let lookup = self.l2.access(sector, store, partial, stamp);
        if let Some(w) = lookup.writeback {
            self.write_back(w, start, stats);
        }
        if let Some(w) = lookup.let_go {
            self.write_back(w, start, stats);
        }
        if store {
            return (ceil_cycles(start + cost), false);
        }
        if lookup.hit {
            stats.l2_sector_hits += 1;
            (ceil_cycles(start) + c.l2_latency, false)
        } else {
            stats.l2_sector_misses += 1;
            stats.dram_sectors_read += u64::from(lookup.fetched);
            // The fill: DRAM's data is written into the slice, another
            // sector's time of its bandwidth.
            self.l2_free[p] += c.l2_cost;
            let begin = (start + c.l2_cost).max(self.dram_free[p]);
            let open = self.open_row(p, addr);
            self.dram_free[p] = begin + open + c.dram_cost * u64::from(lookup.fetched);
            (ceil_cycles(begin) + c.dram_latency, true)
        }
    }

    /// Times line `w` going back to DRAM from `start` (fixed-point): the
    /// line shares the set, so the partition when the groups are several.
    /// Its sectors written in part are read first and written into the
    /// slice (a sector's time each, as a load miss's fill), then every
    /// dirty one goes back. Rare beside lookups: kept out of
    /// [`Self::sector`]'s body.
    #[cold]
    #[inline(never)]
    fn write_back(&mut self, w: Writeback, start: u64, stats: &mut KernelStats) {
        let c = self.costs;
        let q = c.partition(w.line * c.line_bytes) - self.first;
        self.l2_free[q] += c.l2_cost * u64::from(w.partial);
        let begin = start.max(self.dram_free[q]);
        let open = self.open_row(q, w.line * c.line_bytes);
        self.dram_free[q] = begin + open + c.dram_cost * u64::from(w.dirty + w.partial);
        stats.dram_sectors_write += u64::from(w.dirty);
        stats.dram_sectors_read += u64::from(w.partial);
    }

    /// What opening the DRAM row of `addr` (a hashed address of the
    /// group's partition `p`) adds to the partition's channel: nothing
    /// when its bank has that row open.
    #[inline]
    fn open_row(&mut self, p: usize, addr: u64) -> u64 {
        let c = self.costs;
        if c.banks == 0 {
            return 0;
        }
        let group = c.own_address(addr) / c.row_bytes;
        let (bank, row) = (group % c.banks, group / c.banks);
        let slot = &mut self.open_rows[p * c.banks as usize + bank as usize];
        if *slot == row {
            0
        } else {
            *slot = row;
            c.row_miss_cost
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
        timing_on(&GpuConfig::tiny())
    }

    /// An idle launch's timing on `cfg`, and empty counters.
    fn timing_on(cfg: &GpuConfig) -> (MemTiming, KernelStats) {
        let mut t = MemTiming::new(cfg);
        t.start_launch(1);
        (t, KernelStats::default())
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

    /// The cycle the last of `sectors` (all issued at 0) is ready, on the
    /// tiny machine with `banks` DRAM banks a partition and a row opening
    /// costing 64 bytes (4 cycles of a partition's channel).
    fn last_ready(banks: u32, sectors: impl Iterator<Item = u64>) -> u64 {
        let mut cfg = GpuConfig::tiny();
        cfg.dram_banks = banks;
        cfg.dram_row_open_bytes = 64;
        let (mut t, mut s) = timing_on(&cfg);
        sectors
            .map(|k| t.sector(0, k, false, &mut s))
            .max()
            .unwrap()
    }

    #[test]
    fn reads_in_one_row_open_it_once_and_scattered_reads_once_each() {
        // tiny: 2 partitions of 256-byte chunks, 1 KB rows. Partition 0's
        // chunks 0, 2, 4, 6 are its own first 1 KB: one row of bank 0.
        let in_row = || (0..4u64).flat_map(|c| (0..4).map(move |s| c * 16 + s));
        // Partition 0's own rows 0, 4, 8, ... (8 KB apart): bank 0 of 4,
        // another row each time.
        let scattered = || (0..16u64).map(|m| m * 256);
        assert_eq!(last_ready(0, in_row()), last_ready(0, scattered()));
        // Each read takes a DRAM slot of 2 cycles; a row it opens, 4 more
        // of the channel after it. The last read waits for the rows the
        // 15 before it opened: 15 scattered, 1 in the row.
        assert_eq!(
            last_ready(4, scattered()) - last_ready(4, in_row()),
            (15 - 1) * 4
        );
        assert_eq!(last_ready(4, in_row()) - last_ready(0, in_row()), 4);
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
        t.start_launch(1);
        assert_eq!(t.sector(0, 5, false, &mut s), 1 + 20);
    }

    #[test]
    fn a_partial_store_takes_its_own_share_of_the_slice_and_a_new_line_more() {
        let mut cfg = GpuConfig::tiny();
        cfg.l2_partial_write_bytes = 64;
        cfg.l2_partial_line_bytes = 32;
        let (mut t, mut s) = timing_on(&cfg);
        // tiny: a sector a cycle per partition; partition 0 holds sectors
        // 0..8 (lines 0 and 1). A part takes two cycles, one more when it
        // opens another line than the slice's last partial one.
        assert_eq!(t.sector(0, 0, true, &mut s), 1, "a whole sector");
        assert_eq!(t.sector(0, 1 | PARTIAL, true, &mut s), 1 + 2 + 1);
        assert_eq!(t.sector(0, 2 | PARTIAL, true, &mut s), 4 + 2, "same line");
        assert_eq!(t.sector(0, 4 | PARTIAL, true, &mut s), 6 + 2 + 1);
        assert_eq!(t.sector(0, 1 | PARTIAL, true, &mut s), 9 + 2 + 1);
        assert_eq!(t.sector(0, 3, true, &mut s), 12 + 1, "whole again");
        // The other partition's slice has its own last line.
        assert_eq!(t.sector(0, 8 | PARTIAL, true, &mut s), 2 + 1);
    }

    #[test]
    fn a_part_to_the_sector_the_slice_last_wrote_in_part_pays_its_own_price() {
        let mut cfg = GpuConfig::tiny();
        cfg.l2_partial_write_bytes = 64;
        cfg.l2_partial_line_bytes = 32;
        cfg.l2_partial_sector_bytes = 96;
        let (mut t, mut s) = timing_on(&cfg);
        // tiny: a sector a cycle per partition. A part takes two cycles,
        // one more to another line, three more to the very sector the
        // slice last wrote in part: no line discount for a repeat.
        assert_eq!(t.sector(0, 1 | PARTIAL, true, &mut s), 2 + 1);
        assert_eq!(t.sector(0, 1 | PARTIAL, true, &mut s), 3 + 2 + 3, "again");
        assert_eq!(t.sector(0, 2 | PARTIAL, true, &mut s), 8 + 2, "same line");
        assert_eq!(t.sector(0, 1 | PARTIAL, true, &mut s), 10 + 2, "not last");
        // A whole sector in between does not forget the last part.
        assert_eq!(t.sector(0, 3, true, &mut s), 12 + 1);
        assert_eq!(t.sector(0, 1 | PARTIAL, true, &mut s), 13 + 2 + 3);
    }

    #[test]
    fn a_miss_reads_its_fetch_block_and_fills_it() {
        let mut cfg = GpuConfig::tiny();
        cfg.dram_fetch_bytes = 64;
        let (mut t, mut s) = timing_on(&cfg);
        // Sector 0 misses: DRAM reads sectors 0 and 1 (4 cycles of
        // partition 0's channel), and the slice is busy for the lookup and
        // the fill (2 cycles).
        assert_eq!(t.sector(0, 0, false, &mut s), 1 + 20);
        assert_eq!(s.dram_sectors_read, 2);
        // Sector 1 came with it: an L2 hit, after the fill.
        assert_eq!(t.sector(0, 1, false, &mut s), 2 + 10);
        // Sector 2 starts the line's other block: a miss, whose DRAM slot
        // waits for the first block's two sectors.
        assert_eq!(t.sector(0, 2, false, &mut s), 5 + 20);
        assert_eq!((s.l2_sector_hits, s.l2_sector_misses), (1, 2));
        assert_eq!(s.dram_sectors_read, 4);
    }

    #[test]
    fn a_line_in_part_beyond_the_sets_limit_is_read_made_whole_and_written_back() {
        // tiny, one line in part a set: lines 0, 8 and 16 share set 0
        // (partition 0, a sector a cycle of its slice).
        let run = |limit: u32| {
            let mut cfg = GpuConfig::tiny();
            cfg.l2_ways = 4;
            cfg.l2_bytes = 4096;
            cfg.l2_partial_lines_per_set = limit;
            let (mut t, mut s) = timing_on(&cfg);
            t.sector(0, PARTIAL, true, &mut s);
            // Line 8 in part: line 0 is let go of (its part read, then its
            // dirty sector written back), and the slice fills it.
            t.sector(0, 32 | PARTIAL, true, &mut s);
            let after = t.sector(0, 64, true, &mut s);
            let counts = (s.dram_sectors_read, s.dram_sectors_write);
            // Line 0 stayed, whole: a load hits, and a part to the sector
            // lets nothing go.
            let hits = s.l2_sector_hits;
            t.sector(100, 0, false, &mut s);
            t.sector(200, PARTIAL, true, &mut s);
            (
                counts,
                after,
                s.l2_sector_hits - hits,
                (s.dram_sectors_read, s.dram_sectors_write),
            )
        };
        let (counts, after, hits, last) = run(1);
        assert_eq!(counts, (1, 1));
        assert_eq!(hits, 1);
        assert_eq!(last, (1, 1), "a part to a whole sector lets nothing go");
        let (none, before, _, _) = run(0);
        assert_eq!(none, (0, 0), "no limit: nothing let go");
        assert_eq!(
            after,
            before + 1,
            "the fill takes a sector's time of the slice"
        );
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
