//! The memory partitions' half of a quantum boundary: one quantum's global
//! requests as a [`Batch`], put in cycle-by-cycle order and sent through
//! the partitions' timing ([`MemTiming`]), which gives every request the
//! cycle it completes.
//!
//! Timing a batch touches only the batch and the partitions, never an SM.
//! Where each L2 set belongs to one partition, the partitions are cut in
//! groups ([`MemTiming::groups`]) that several host threads time at once,
//! each its own partitions' sectors, which the copy of the ordered batch
//! listed per group ([`Batch::flat_parts`], [`Batch::time_group`]); a
//! request completes with the latest of its groups' sectors
//! ([`Batch::merge`]). The loads are then *landed* in
//! their SMs, in the same order, as each SM starts its next run. Timing and
//! landing apart give what timing each request and landing it at once
//! gives: landing changes no partition state.

use crate::engine::Pending;
use crate::global_mem::{GroupMap, MemTiming, PartTiming};
use crate::sm::Sm;
use crate::stats::KernelStats;

/// How many of a group's sectors ahead of the one it times
/// [`Batch::time_group`] prefetches the L2 set of: far enough that several
/// host cache misses are in flight (8 coalesced requests of 4 sectors, or
/// 32 scattered ones), near enough that what it fetched is still in the
/// host's L1 when it is used.
const PREFETCH_AHEAD: usize = 32;

/// One quantum's global requests and, once timed, when each completes.
#[derive(Default)]
pub(crate) struct Batch {
    /// The requests, worker by worker, each worker's in issue order.
    pending: Vec<Pending>,
    /// Their sectors (`Pending::first` indexes here).
    sectors: Vec<u64>,
    /// Indices into `pending`, in cycle-by-cycle order.
    order: Vec<u64>,
    /// Per entry of `order`, the cycle its request completes.
    done: Vec<u64>,
    /// The memory counters of timing it (L2 hits and misses, DRAM
    /// sectors), added to the launch's counters when it lands.
    pub stats: KernelStats,
    /// When its last store is written into L2 (0: none).
    pub last_store_done: u64,
    /// Scratch of [`sort_pending`]'s counting sort.
    counts: Vec<u32>,
    by_sm: Vec<u64>,
    /// The sectors of the requests in `order`, one after the other, and
    /// per request its first sector's cycle, sector count and kind (see
    /// [`Batch::order`]).
    flat: Vec<u64>,
    timed: Vec<(u64, u32, bool)>,
    /// Per piece of the copy ([`Self::flat_parts`]) and group of
    /// partitions, the group's sectors in that piece, in order (only when
    /// the launch has several groups).
    mine: Vec<Vec<Vec<Mine>>>,
}

/// One sector of a group's in an ordered batch: its place in the flat
/// copy, its request's place in timing order, and its place in the
/// request.
#[derive(Clone, Copy)]
struct Mine {
    k: u32,
    r: u32,
    j: u32,
}

/// What one group of partitions made of a batch ([`Batch::time_group`]):
/// per request in timing order, the cycle its last sector of the group
/// completes (0: none in the group), and the group's memory counters.
#[derive(Default)]
pub(crate) struct GroupTimes {
    done: Vec<u64>,
    stats: KernelStats,
}

impl Batch {
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Takes every SM's waiting requests, SM by SM (each SM's in issue
    /// order).
    pub fn gather(&mut self, sms: &mut [Sm]) {
        for sm in sms.iter_mut() {
            let base = self.sectors.len() as u32;
            self.sectors.extend_from_slice(&sm.request_sectors);
            self.pending.extend(sm.requests.drain(..).map(|mut p| {
                p.first += base;
                p
            }));
            sm.request_sectors.clear();
        }
    }

    /// Sends the requests to the partitions in cycle-by-cycle order (by
    /// issue cycle, then SM, then issue order), the LSU sending
    /// `per_cycle` sectors a cycle, and notes when each completes: on
    /// this thread, the launch's groups one after the other (one group in
    /// the ordered runs that call this).
    pub fn time(&mut self, timing: &mut MemTiming, per_cycle: u64) {
        self.order();
        self.flat_parts(1, timing.group_map())
            .into_iter()
            .for_each(FlatPart::copy);
        let stamp = timing.stamp(0);
        let times: Vec<GroupTimes> = timing
            .groups()
            .iter_mut()
            .enumerate()
            .map(|(i, g)| {
                let mut times = GroupTimes::default();
                self.time_group(g, i, stamp, per_cycle, &mut times);
                times
            })
            .collect();
        self.merge(&times.iter().collect::<Vec<_>>(), timing);
    }

    /// Puts the requests in cycle-by-cycle order; their sectors are then
    /// copied in that order ([`Self::flat_parts`]), as
    /// [`Self::time_group`] reads them.
    ///
    /// The sectors are copied in timing order into one flat array (and
    /// each request's start, count and kind into another), so the timing
    /// loop and its prefetch cursor read memory front to back: picking
    /// them out of the batch in timing order jumps between the SMs'
    /// requests, and at 16M keys those reads, made one at a time by the
    /// cursor, were most of the loop's host cache misses.
    pub fn order(&mut self) {
        sort_pending(
            &self.pending,
            &mut self.order,
            &mut self.counts,
            &mut self.by_sm,
        );
        self.done.clear();
        self.timed.clear();
        self.timed.extend(self.order.iter().map(|&i| {
            let p = &self.pending[i as usize];
            (p.start, p.n, p.store)
        }));
        // Every element is written by the copy ([`Self::flat_parts`]): no
        // need to clear what the last batch left.
        self.flat.resize(self.sectors.len(), 0);
    }

    /// The ordered batch's sector copy cut in up to `parts` pieces of
    /// whole requests and near-equal sector counts, each to be copied by
    /// one thread ([`FlatPart::copy`]), which also lists each group's
    /// sectors of its piece where `map` tells the launch's groups.
    pub fn flat_parts<'a>(
        &'a mut self,
        parts: usize,
        map: Option<GroupMap<'a>>,
    ) -> Vec<FlatPart<'a>> {
        let total = self.flat.len();
        let parts = parts.clamp(1, self.order.len().max(1));
        let groups = map.map_or(0, |m| m.count);
        self.mine.resize_with(parts, Vec::new);
        for lists in &mut self.mine[..parts] {
            lists.resize_with(groups, Vec::new);
            lists.iter_mut().for_each(Vec::clear);
        }
        let mut mine = &mut self.mine[..parts];
        let (mut out, mut rest) = (Vec::with_capacity(parts), &mut self.flat[..]);
        let (mut from, mut at) = (0, 0);
        for k in 1..=parts {
            let goal = total * k / parts;
            let mut to = from;
            let mut end = at;
            while to < self.order.len() && (end < goal || k == parts) {
                end += self.timed[to].1 as usize;
                to += 1;
            }
            let (piece, tail) = std::mem::take(&mut rest).split_at_mut(end - at);
            rest = tail;
            let (lists, others) = std::mem::take(&mut mine).split_at_mut(1);
            mine = others;
            out.push(FlatPart {
                order: &self.order[from..to],
                pending: &self.pending,
                sectors: &self.sectors,
                out: piece,
                first: (at as u32, from as u32),
                map,
                mine: &mut lists[0][..groups],
            });
            (from, at) = (to, end);
        }
        out
    }

    /// Times the ordered batch's sectors of group `g`'s partitions (the
    /// `k`-th sector of the batch as the L2 access with stamp `stamp +
    /// k`), into `out`; `g` is group `index` of [`MemTiming::groups`]. The
    /// groups of one batch may be timed on several threads at once.
    pub fn time_group(
        &self,
        g: &mut PartTiming<'_>,
        index: usize,
        stamp: u32,
        per_cycle: u64,
        out: &mut GroupTimes,
    ) {
        out.done.clear();
        out.done.resize(self.timed.len(), 0);
        out.stats = KernelStats::default();
        let flat = &self.flat;
        if g.owns_all() {
            // One group (one thread): every sector is its own, so the
            // prefetch runs a fixed distance ahead with no test of whose
            // each sector is (that test and its cursor cost one thread
            // about 5 % more CPU on the bench's memory kernel). A line's
            // sectors cost one prefetch.
            let prefetch = |g: &PartTiming<'_>, k: usize| {
                if let Some(&sector) = flat.get(k)
                    && (k == 0 || g.line(flat[k - 1]) != g.line(sector))
                {
                    g.prefetch(sector);
                }
            };
            (0..PREFETCH_AHEAD).for_each(|k| prefetch(g, k));
            self.walk(g, stamp, per_cycle, out, |g, at| {
                prefetch(g, at + PREFETCH_AHEAD);
            });
        } else {
            self.walk_listed(g, index, stamp, per_cycle, out);
        }
    }

    /// [`Self::time_group`] of one of several groups: the copy listed the
    /// group's sectors ([`Self::flat_parts`]), so this thread walks only
    /// those (walking every sector and skipping the others' took about 4 %
    /// of the host's samples on 2 threads), and fetches their L2 sets a
    /// fixed distance ahead.
    fn walk_listed(
        &self,
        g: &mut PartTiming<'_>,
        index: usize,
        stamp: u32,
        per_cycle: u64,
        out: &mut GroupTimes,
    ) {
        let flat = &self.flat;
        let mut ahead = self.mine.iter().flat_map(|lists| &lists[index]);
        let mut last_line = u64::MAX;
        let mut prefetch = |g: &PartTiming<'_>, e: Option<&Mine>| {
            if let Some(e) = e {
                let sector = flat[e.k as usize];
                let line = g.line(sector);
                if line != last_line {
                    g.prefetch(sector);
                    last_line = line;
                }
            }
        };
        (0..PREFETCH_AHEAD).for_each(|_| prefetch(g, ahead.next()));
        let (mut request, mut done) = (None, 0);
        for e in self.mine.iter().flat_map(|lists| &lists[index]) {
            prefetch(g, ahead.next());
            if request != Some(e.r) {
                if let Some(r) = request {
                    out.done[r as usize] = done;
                }
                (request, done) = (Some(e.r), 0);
            }
            let (start, _, store) = self.timed[e.r as usize];
            let depart = start + u64::from(e.j) / per_cycle;
            let at = stamp.wrapping_add(e.k);
            let sector = flat[e.k as usize];
            done = done.max(g.sector(depart, sector, store, at, &mut out.stats));
        }
        if let Some(r) = request {
            out.done[r as usize] = done;
        }
    }

    /// The loop of [`Self::time_group`] for the one group: each sector of
    /// the batch in order, leaving the LSU `per_cycle` a cycle, timed in
    /// `g`, after `ahead(g, k)` for the `k`-th (which keeps the prefetch
    /// ahead).
    fn walk(
        &self,
        g: &mut PartTiming<'_>,
        stamp: u32,
        per_cycle: u64,
        out: &mut GroupTimes,
        mut ahead: impl FnMut(&PartTiming<'_>, usize),
    ) {
        let mut at = 0;
        for (r, &(start, n, store)) in self.timed.iter().enumerate() {
            let mut done = 0;
            let (mut depart, mut sent) = (start, 0);
            for &sector in &self.flat[at..at + n as usize] {
                ahead(g, at);
                let stamp = stamp.wrapping_add(at as u32);
                done = done.max(g.sector(depart, sector, store, stamp, &mut out.stats));
                at += 1;
                sent += 1;
                if sent == per_cycle {
                    (depart, sent) = (depart + 1, 0);
                }
            }
            out.done[r] = done;
        }
    }

    /// Each request completes with its last sector, at least a cycle after
    /// it starts: the latest of the groups' times ([`Self::time_group`]);
    /// counts the batch's sectors in the L2's stamps and its memory
    /// counters.
    pub fn merge<G: std::ops::Deref<Target = GroupTimes>>(
        &mut self,
        groups: &[G],
        timing: &mut MemTiming,
    ) {
        self.done.clear();
        for (r, &(start, _, store)) in self.timed.iter().enumerate() {
            let done = groups.iter().fold(start + 1, |d, g| d.max(g.done[r]));
            if store {
                self.last_store_done = self.last_store_done.max(done);
            }
            self.done.push(done);
        }
        for g in groups {
            self.stats.add_part(&g.stats);
        }
        timing.count(self.flat.len());
    }

    /// The timed loads, in the order they were timed, each with the cycle
    /// it completes.
    pub fn loads(&self) -> impl Iterator<Item = (&Pending, u64)> {
        self.order
            .iter()
            .zip(&self.done)
            .map(|(&i, &done)| (&self.pending[i as usize], done))
            .filter(|(p, _)| !p.store)
    }

    /// Moves the batch's memory counters into `stats` and empties it for
    /// the next quantum; returns when its last store landed.
    pub fn finish(&mut self, stats: &mut KernelStats) -> u64 {
        let s = &mut self.stats;
        stats.l2_sector_hits += std::mem::take(&mut s.l2_sector_hits);
        stats.l2_sector_misses += std::mem::take(&mut s.l2_sector_misses);
        stats.dram_sectors_read += std::mem::take(&mut s.dram_sectors_read);
        stats.dram_sectors_write += std::mem::take(&mut s.dram_sectors_write);
        debug_assert_eq!(
            *s,
            KernelStats::default(),
            "MemTiming::sector counts only the four memory counters"
        );
        self.pending.clear();
        self.sectors.clear();
        self.order.clear();
        self.done.clear();
        std::mem::take(&mut self.last_store_done)
    }
}

/// Some requests of an ordered batch whose sectors one thread copies into
/// their place in the flat array ([`Batch::flat_parts`]).
pub(crate) struct FlatPart<'a> {
    order: &'a [u64],
    pending: &'a [Pending],
    sectors: &'a [u64],
    out: &'a mut [u64],
    /// Where the piece starts: its first sector's place in the flat copy
    /// and its first request's in timing order.
    first: (u32, u32),
    map: Option<GroupMap<'a>>,
    /// Per group, its sectors in the piece (when `map` is given).
    mine: &'a mut [Vec<Mine>],
}

impl FlatPart<'_> {
    /// Copies the requests' sectors, one request after the other, and
    /// lists each group's.
    pub fn copy(self) {
        let mut at = 0;
        for (r, &i) in self.order.iter().enumerate() {
            let p = &self.pending[i as usize];
            let from = p.first as usize;
            // Element by element: a request has a few sectors, and
            // `copy_from_slice` made each a `memcpy` call.
            for (j, &sector) in self.sectors[from..from + p.n as usize].iter().enumerate() {
                self.out[at] = sector;
                if let Some(map) = &self.map {
                    self.mine[map.group(sector)].push(Mine {
                        k: self.first.0 + at as u32,
                        r: self.first.1 + r as u32,
                        j: j as u32,
                    });
                }
                at += 1;
            }
        }
    }
}

/// Bits of an order key that hold the request's index.
const INDEX_BITS: u32 = 24;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
/// Bits that hold the SM, above the index; the cycle is above both.
const SM_BITS: u32 = 16;
/// The longest span of issue cycles (and the most SMs) [`sort_pending`]
/// counts into buckets: a batch spans one quantum, a few hundred cycles.
const MAX_BUCKETS: u64 = 1 << 14;

/// Fills `order` with the indices of the requests in cycle-by-cycle order
/// (by issue cycle, then SM, then index: each SM's requests are in issue
/// order).
///
/// A batch spans one quantum, so the issue cycles fall in a few hundred
/// buckets: a stable counting sort by cycle over the requests in (SM,
/// index) order gives the order in two passes over the batch, where a
/// comparison sort took `log n` (the requests usually come SM by SM
/// already; when the serial part between quanta appended some out of
/// order, a first counting pass by SM puts them in (SM, index) order). A
/// batch spanning more cycles (never seen in practice) is sorted by packed
/// keys, or by the keys themselves when they do not pack.
fn sort_pending(
    pending: &[Pending],
    order: &mut Vec<u64>,
    counts: &mut Vec<u32>,
    by_sm: &mut Vec<u64>,
) {
    order.clear();
    let first = pending.iter().map(|p| p.t).min().unwrap_or(0);
    let span = pending.iter().map(|p| p.t - first).max().unwrap_or(0);
    let sms = pending
        .iter()
        .map(|p| p.sm)
        .max()
        .map_or(0, |m| u64::from(m) + 1);
    if span < MAX_BUCKETS && sms <= MAX_BUCKETS && pending.len() < u32::MAX as usize {
        let all = 0..pending.len() as u64;
        let cycle = |p: &Pending| p.t - first;
        if pending.windows(2).all(|w| w[0].sm <= w[1].sm) {
            counting_sort(pending, all, span + 1, cycle, counts, order);
        } else {
            counting_sort(pending, all, sms, |p| p.sm.into(), counts, by_sm);
            counting_sort(
                pending,
                by_sm.iter().copied(),
                span + 1,
                cycle,
                counts,
                order,
            );
        }
        return;
    }
    let packs = pending.len() as u64 <= INDEX_MASK
        && pending.iter().all(|p| p.sm < 1 << SM_BITS)
        && span < 1 << (64 - INDEX_BITS - SM_BITS);
    if packs {
        order.extend(pending.iter().enumerate().map(|(i, p)| {
            ((p.t - first) << (INDEX_BITS + SM_BITS)) | (u64::from(p.sm) << INDEX_BITS) | i as u64
        }));
        order.sort_unstable();
        order.iter_mut().for_each(|k| *k &= INDEX_MASK);
    } else {
        order.extend(0..pending.len() as u64);
        order.sort_by_key(|&i| {
            let p = &pending[i as usize];
            (p.t, p.sm, i)
        });
    }
}

/// Writes the indices of `input` to `out` ordered by `key` of their
/// requests (below `buckets`), keeping `input`'s order among equal keys.
fn counting_sort(
    pending: &[Pending],
    input: impl Iterator<Item = u64> + Clone,
    buckets: u64,
    key: impl Fn(&Pending) -> u64,
    counts: &mut Vec<u32>,
    out: &mut Vec<u64>,
) {
    counts.clear();
    counts.resize(buckets as usize, 0);
    for i in input.clone() {
        counts[key(&pending[i as usize]) as usize] += 1;
    }
    let mut at = 0;
    for c in counts.iter_mut() {
        (*c, at) = (at, at + *c);
    }
    out.clear();
    out.resize(at as usize, 0);
    for i in input {
        let c = &mut counts[key(&pending[i as usize]) as usize];
        out[*c as usize] = i;
        *c += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(t: u64, sm: u32) -> Pending {
        Pending {
            t,
            sm,
            start: t,
            first: 0,
            n: 0,
            store: false,
            slot: 0,
            age: 0,
            pc: 0,
        }
    }

    /// The (t, sm, index) of `pending` in the order `sort_pending` gives.
    fn sorted(pending: &[Pending]) -> Vec<(u64, u32, u64)> {
        let mut order = Vec::new();
        sort_pending(pending, &mut order, &mut Vec::new(), &mut Vec::new());
        order
            .iter()
            .map(|&i| {
                let p = &pending[i as usize];
                (p.t, p.sm, i)
            })
            .collect()
    }

    #[test]
    fn requests_resolve_by_cycle_then_sm_then_issue_order() {
        // Two SMs' runs, pushed one after the other, ties within a cycle.
        let pending = [
            request(12, 1),
            request(12, 1),
            request(15, 1),
            request(10, 0),
            request(12, 0),
            request(15, 0),
        ];
        let want = [
            (10, 0, 3),
            (12, 0, 4),
            (12, 1, 0),
            (12, 1, 1),
            (15, 0, 5),
            (15, 1, 2),
        ];
        assert_eq!(sorted(&pending), want);
        // Cycles too far apart to pack: the same order, unpacked.
        let far: Vec<Pending> = pending.iter().map(|p| request(p.t << 40, p.sm)).collect();
        let order: Vec<_> = sorted(&far)
            .iter()
            .map(|&(t, sm, seq)| (t >> 40, sm, seq))
            .collect();
        assert_eq!(order, want);
    }

    #[test]
    fn every_sort_path_gives_the_cycle_sm_issue_order() {
        // Batches in SM order (one counting pass), out of it (two), over
        // more cycles than the buckets (packed keys): each against a plain
        // sort of the keys, with many ties.
        let mut rng = crate::tests::util::Rng(0x2545_f491_4f6c_dd1d_u64);
        let mut next = |n: u64| rng.next() % n;
        for (len, cycles, by_sm) in [
            (1, 10, true),
            (500, 300, true),
            (500, 300, false),
            (64, 3, false),
            (300, 1 << 20, false),
        ] {
            let mut pending: Vec<Pending> = (0..len)
                .map(|_| request(1000 + next(cycles), next(132) as u32))
                .collect();
            if by_sm {
                pending.sort_by_key(|p| p.sm);
            }
            let mut want: Vec<(u64, u32, u64)> = (0..len)
                .map(|i| (pending[i as usize].t, pending[i as usize].sm, i))
                .collect();
            want.sort();
            assert_eq!(
                sorted(&pending),
                want,
                "{len} requests over {cycles} cycles"
            );
        }
    }

    #[test]
    fn a_timed_batch_lands_its_loads_in_cycle_order_and_counts_once() {
        use crate::config::GpuConfig;
        let mut timing = MemTiming::new(&GpuConfig::tiny());
        timing.start_launch(1);
        let cfg = GpuConfig::tiny();
        let mut sms = [Sm::new(0, &cfg), Sm::new(1, &cfg)];
        // SM 1's load at cycle 5, then SM 0's store and load at cycle 3.
        for (t, sm, store, sector) in [(5, 1, false, 0), (3, 0, true, 8), (3, 0, false, 0)] {
            let sm_ = &mut sms[sm as usize];
            let first = sm_.request_sectors.len() as u32;
            sm_.request_sectors.push(sector);
            sm_.requests.push(Pending {
                store,
                first,
                n: 1,
                ..request(t, sm)
            });
        }
        let mut batch = Batch::default();
        batch.gather(&mut sms);
        assert!(
            sms.iter()
                .all(|s| s.requests.is_empty() && s.request_sectors.is_empty())
        );
        batch.time(&mut timing, 1);
        let loads: Vec<(u64, u32, u64)> = batch.loads().map(|(p, d)| (p.t, p.sm, d)).collect();
        // tiny: the store goes to the other partition (sector 8 = byte
        // 256); a miss is ready 1 + 20 cycles after it reaches its L2
        // slice; the second load of sector 0 hits (10 cycles).
        assert_eq!(loads, [(3, 0, 3 + 1 + 20), (5, 1, 5 + 10)]);
        let mut stats = KernelStats::default();
        assert!(batch.finish(&mut stats) > 3, "the store landed");
        // Stores are not counted as L2 hits or misses.
        assert_eq!((stats.l2_sector_hits, stats.l2_sector_misses), (1, 1));
        assert!(batch.is_empty() && batch.loads().next().is_none());
    }
}
