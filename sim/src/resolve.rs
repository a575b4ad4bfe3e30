//! The memory partitions' half of a quantum boundary: one quantum's global
//! requests as a [`Batch`], put in cycle-by-cycle order and sent through
//! the partitions' timing ([`MemTiming`]), which gives every request the
//! cycle it completes.
//!
//! This is the one-thread path (one host thread, and the ordered runs
//! that trace or step in lockstep); a team times its batches without
//! gathering them ([`crate::team_batch`]). The loads are then *landed* in
//! their SMs, in the same order. Timing and landing apart give what timing
//! each request and landing it at once gives: landing changes no
//! partition state.

use crate::engine::Pending;
use crate::global_mem::{MemTiming, PartTiming};
use crate::line_return::Arrivals;
use crate::sm::Sm;
use crate::stats::KernelStats;

/// How many of a group's sectors ahead of the one it times
/// [`Batch::time`] prefetches the L2 set of: far enough that several
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
    /// Per entry of `order`, what the timing saw of its request.
    done: Vec<Arrivals>,
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
            let floor = &mut self.last_store_done;
            self.pending.extend(sm.requests.drain(..).map(|mut p| {
                p.first += base;
                // A store's writes reach L2 no earlier than its port sends
                // them (as a team's `Share::list` gathers them).
                if p.store {
                    *floor = (*floor).max(p.store_floor());
                }
                p
            }));
            sm.request_sectors.clear();
        }
    }

    /// Sends the requests to the partitions in cycle-by-cycle order (by
    /// issue cycle, then SM, then issue order), the LSU sending
    /// `per_cycle` sectors a cycle, and notes when each completes; the
    /// launch times its memory as one group ([`MemTiming::start_launch`]
    /// with one group, which every launch on one thread has).
    pub fn time(&mut self, timing: &mut MemTiming, per_cycle: u64) {
        self.order();
        self.copy();
        let stamp = timing.stamp(0);
        let mut groups = timing.groups();
        assert_eq!(groups.len(), 1, "one thread times memory as one group");
        let g = &mut groups[0];
        let flat = &self.flat;
        // The prefetch runs a fixed distance ahead; a line's sectors cost
        // one prefetch.
        let prefetch = |g: &PartTiming<'_>, k: usize| {
            if let Some(&sector) = flat.get(k)
                && (k == 0 || g.line(flat[k - 1]) != g.line(sector))
            {
                g.prefetch(sector);
            }
        };
        (0..PREFETCH_AHEAD).for_each(|k| prefetch(g, k));
        self.done.clear();
        let mut at = 0;
        for &(start, n, store) in &self.timed {
            let mut done = Arrivals::at_least(start + 1);
            let mut missed_line = u64::MAX;
            let (mut depart, mut sent) = (start, 0);
            for &sector in &self.flat[at..at + n as usize] {
                prefetch(g, at + PREFETCH_AHEAD);
                let stamp = stamp.wrapping_add(at as u32);
                let (t, missed) = g.sector(depart, sector, store, stamp, &mut self.stats);
                done.sector(t);
                // The sectors ascend: a line's are neighbours.
                if missed && g.line(sector) != missed_line {
                    missed_line = g.line(sector);
                    done.missed += 1;
                }
                at += 1;
                sent += 1;
                if sent == per_cycle {
                    (depart, sent) = (depart + 1, 0);
                }
            }
            if store {
                self.last_store_done = self.last_store_done.max(done.last);
            }
            self.done.push(done);
        }
        drop(groups);
        timing.count(self.flat.len());
    }

    /// Puts the requests in cycle-by-cycle order and copies their sectors
    /// in that order into one flat array (and each request's start, count
    /// and kind into another), so the timing loop and its prefetch cursor
    /// read memory front to back: picking them out of the batch in timing
    /// order jumps between the SMs' requests, and at 16M keys those reads,
    /// made one at a time by the cursor, were most of the loop's host
    /// cache misses.
    fn order(&mut self) {
        sort_pending(
            &self.pending,
            &mut self.order,
            &mut self.counts,
            &mut self.by_sm,
        );
        self.timed.clear();
        self.timed.extend(self.order.iter().map(|&i| {
            let p = &self.pending[i as usize];
            (p.start, p.n, p.store)
        }));
    }

    /// The sectors of the ordered requests, one request after the other.
    fn copy(&mut self) {
        self.flat.clear();
        for &i in &self.order {
            let p = &self.pending[i as usize];
            let from = p.first as usize;
            // Element by element: a request has a few sectors, and
            // `extend_from_slice` made each a `memcpy` call.
            for &sector in &self.sectors[from..from + p.n as usize] {
                self.flat.push(sector);
            }
        }
    }

    /// The timed stores, in the order they were timed, each with what the
    /// timing saw of it.
    pub fn stores(&self) -> impl Iterator<Item = (&Pending, Arrivals)> {
        self.of_kind(true)
    }

    /// The timed loads, in the order they were timed, each with what the
    /// timing saw of it.
    pub fn loads(&self) -> impl Iterator<Item = (&Pending, Arrivals)> {
        self.of_kind(false)
    }

    /// The timed stores (`store`) or loads, in the order they were timed.
    fn of_kind(&self, store: bool) -> impl Iterator<Item = (&Pending, Arrivals)> {
        self.order
            .iter()
            .zip(&self.done)
            .map(|(&i, &done)| (&self.pending[i as usize], done))
            .filter(move |(p, _)| p.store == store)
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
            lines: 0,
            wavefronts: 0,
            slot: 0,
            age: 0,
            pc: 0,
            seq: crate::l1::NO_LOAD,
            after: crate::l1::NO_LOAD,
            floor: 0,
            delay: 0,
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
        let loads: Vec<(u64, u32, u64)> = batch.loads().map(|(p, d)| (p.t, p.sm, d.last)).collect();
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
