//! A quantum's global requests timed on several host threads without
//! gathering them on one: the memory half of a boundary when a team runs
//! the launch ([`crate::engine::run_parallel`]).
//!
//! Each group of partitions must see its sectors in cycle-by-cycle order
//! (issue cycle, then SM, then issue order). One thread gathering every
//! SM's requests, sorting them and copying their sectors in that order
//! ([`crate::resolve::Batch`], the one-thread path) kept the other members
//! waiting: on 2 threads at 1M keys the memory phase was as slow as on
//! one. Here each member sorts only its own SMs' requests:
//!
//! 1. [`Share::list`] (the members at once): a counting sort of the
//!    member's requests by issue cycle (a batch spans at most one quantum,
//!    at most [`MAX_SPAN`] cycles) that lists each group's runs of
//!    consecutive sectors, cycle by cycle, each cycle's in (SM, issue)
//!    order. The members own ascending ranges of SMs, so a cycle's runs of
//!    member 0, then member 1, ... are in the batch's order.
//! 2. [`TeamBatch::bases`] (one thread, one addition per member).
//! 3. [`Sectors::time_group`] (a member per group): the group's runs cycle
//!    by cycle, member by member within a cycle.
//!
//! **LRU stamps.** The one-thread path stamps the batch's `k`-th sector
//! `stamp + k`; here each group stamps its own `i`-th sector `stamp + i`.
//! The L2 only compares the stamps of one set's ways, a set belongs to one
//! group, and both numberings keep each group's order and stay below the
//! next batch's `stamp`: the same victims, so the same results.
//!
//! The requests stay in their SMs, and each SM lands its loads at the
//! start of its next run ([`TeamBatch::land`]), on whichever thread runs
//! it: a request completes with the latest of its groups' sectors, at
//! least a cycle after it starts. Nothing the one thread does between the
//! team's jobs grows with the batch.

use std::ops::Range;

use crate::engine::Pending;
use crate::global_mem::{GroupMap, MemTiming, PartTiming};
use crate::line_return::Arrivals;
use crate::sm::Sm;
use crate::stats::KernelStats;

/// The most issue cycles one batch spans. A batch holds one quantum's
/// requests, and [`crate::engine`] keeps quanta at most this long.
pub(crate) const MAX_SPAN: u64 = 1 << 14;

/// How far ahead in a member's list [`Sectors::time_group`] fetches the L2
/// sets of its runs: several host cache misses in flight, the lines still
/// in L1 when they are used.
const PREFETCH_AHEAD: usize = 32;

/// Marks a store in [`Share`]'s `requests` (its start cycle is below).
const STORE: u64 = 1 << 63;

/// A run of one request's sectors, consecutive and of one group, as its
/// member listed it: a coalesced request is one run, where an entry per
/// sector made listing and timing each write and read four.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// Its first sector.
    sector: u64,
    /// Its request's place among its member's requests (SM by SM, each
    /// SM's in issue order).
    r: u32,
    /// The place of its first sector in the request, and how many.
    j: u16,
    n: u16,
}

/// Calls `f(group, j, n)` for each run of `sectors` (a request's) that
/// are consecutive and of one group: `sectors[j..j + n]`.
#[inline]
fn for_runs(sectors: &[u64], group: impl Fn(u64) -> usize, mut f: impl FnMut(usize, usize, usize)) {
    let mut j = 0;
    while j < sectors.len() {
        let g = group(sectors[j]);
        let mut end = j + 1;
        while end < sectors.len()
            && sectors[end] == sectors[end - 1] + 1
            && group(sectors[end]) == g
        {
            end += 1;
        }
        f(g, j, end - j);
        j = end;
    }
}

/// One member's part of a batch: its SMs' requests, listed per group.
#[derive(Default)]
pub(crate) struct Share {
    /// The SMs it lists.
    sms: Range<usize>,
    /// Per request, the cycle it starts, with [`STORE`] for a store.
    requests: Vec<u64>,
    /// How many sectors the requests have.
    sectors: usize,
    /// Per group, its runs cycle by cycle; and per group and cycle, where
    /// the cycle's start in it (one more entry: the end).
    lists: Vec<Vec<Entry>>,
    starts: Vec<Vec<u32>>,
    /// Per SM of `sms`, the place of its first request among the share's.
    first_request: Vec<u32>,
    /// Scratch of [`Self::list`]: per group and cycle, the next free
    /// entry.
    next: Vec<Vec<u32>>,
    /// The latest cycle after one of its stores starts: a store completes
    /// no earlier than a cycle after it starts.
    store_floor: u64,
}

impl Share {
    /// The SMs this share lists (the member's own).
    pub fn sms(&self) -> Range<usize> {
        self.sms.clone()
    }

    /// Lists the requests of `sms` (this share's SMs, in order), issued in
    /// the `span` cycles from `first`, per group of partitions (`map`
    /// tells a sector's group when the launch has several). Their sectors
    /// are then no longer needed; the requests stay for the SMs to land.
    pub fn list(&mut self, sms: &mut [Sm], (first, span): (u64, usize), map: Option<GroupMap<'_>>) {
        debug_assert_eq!(sms.len(), self.sms.len());
        let groups = map.map_or(1, |m| m.count);
        let group = |sector: u64| map.map_or(0, |m| m.group(sector));
        // Per group and cycle, its runs.
        self.starts.resize_with(groups, Vec::new);
        for s in &mut self.starts {
            s.clear();
            s.resize(span + 1, 0);
        }
        self.sectors = 0;
        for sm in sms.iter() {
            for p in &sm.requests {
                let c = (p.t - first) as usize;
                self.sectors += p.n as usize;
                let sectors = &sm.request_sectors[p.first as usize..][..p.n as usize];
                for_runs(sectors, group, |g, _, _| self.starts[g][c + 1] += 1);
            }
        }
        self.lists.resize_with(groups, Vec::new);
        self.next.resize_with(groups, Vec::new);
        let lists = self
            .lists
            .iter_mut()
            .zip(&mut self.starts)
            .zip(&mut self.next);
        for ((list, starts), next) in lists {
            for c in 0..span {
                starts[c + 1] += starts[c];
            }
            // Every entry is written below: no need to clear the last
            // batch's.
            list.resize(starts[span] as usize, Entry::default());
            next.clear();
            next.extend_from_slice(&starts[..span]);
        }
        // Then each run to the next free entry of its group's list for
        // its cycle.
        self.first_request.clear();
        self.requests.clear();
        self.store_floor = 0;
        for sm in sms.iter_mut() {
            self.first_request.push(self.requests.len() as u32);
            for p in &sm.requests {
                let c = (p.t - first) as usize;
                let r = self.requests.len() as u32;
                if p.store {
                    self.store_floor = self.store_floor.max(p.store_floor());
                    self.requests.push(p.start | STORE);
                } else {
                    self.requests.push(p.start);
                }
                let sectors = &sm.request_sectors[p.first as usize..][..p.n as usize];
                for_runs(sectors, group, |g, j, n| {
                    let at = &mut self.next[g][c];
                    self.lists[g][*at as usize] = Entry {
                        sector: sectors[j],
                        r,
                        j: j as u16,
                        n: n as u16,
                    };
                    *at += 1;
                });
            }
            sm.request_sectors.clear();
        }
    }
}

/// What one group of partitions made of a batch.
#[derive(Default)]
pub(crate) struct GroupOut {
    /// Per request of the batch (share by share), what the group saw of
    /// its sectors ([`Arrivals::NONE`]: none in the group).
    done: Vec<Arrivals>,
    stats: KernelStats,
    /// When its last store sector is written into L2.
    store_done: u64,
}

/// The listed shares and where each member's requests start in the
/// batch: what timing a group reads.
pub(crate) struct Sectors<'a> {
    shares: &'a [Share],
    /// Sectors the LSU sends a cycle.
    per_cycle: u32,
    request_bases: &'a [u32],
    span: usize,
}

impl Sectors<'_> {
    /// Times group `index`'s sectors (`g`) in the batch's order, its
    /// `i`-th as the L2 access with stamp `stamp + i` (see the module's
    /// note), into `out`. The groups may be timed on several threads at
    /// once.
    pub fn time_group(&self, g: &mut PartTiming<'_>, index: usize, stamp: u32, out: &mut GroupOut) {
        let prefetch = |g: &PartTiming<'_>, e: Option<&Entry>| {
            if let Some(e) = e {
                g.prefetch(e.sector);
            }
        };
        for s in self.shares {
            let list = &s.lists[index];
            list[..PREFETCH_AHEAD.min(list.len())]
                .iter()
                .for_each(|e| prefetch(g, Some(e)));
        }
        let per_cycle = self.per_cycle;
        // Cycle by cycle, member by member: the batch's order. The
        // prefetch runs ahead in each member's list, which is near enough
        // to the order the runs come in.
        let mut at = stamp;
        // The request and line of the last missed sector: a request's runs
        // in a group are listed one after the other, ascending.
        let mut missed_line = (usize::MAX, u64::MAX);
        for c in 0..self.span {
            for (m, s) in self.shares.iter().enumerate() {
                let (list, starts) = (&s.lists[index], &s.starts[index]);
                let base = self.request_bases[m] as usize;
                let done = &mut out.done[base..];
                for i in starts[c] as usize..starts[c + 1] as usize {
                    prefetch(g, list.get(i + PREFETCH_AHEAD));
                    let e = &list[i];
                    let start = s.requests[e.r as usize];
                    let store = start & STORE != 0;
                    // The LSU sends `per_cycle` of the request's sectors a
                    // cycle.
                    let j = u32::from(e.j);
                    let mut depart = (start & !STORE) + u64::from(j / per_cycle);
                    let mut sent = j % per_cycle;
                    let d = &mut done[e.r as usize];
                    for sector in e.sector..e.sector + u64::from(e.n) {
                        let (t, missed) = g.sector(depart, sector, store, at, &mut out.stats);
                        at = at.wrapping_add(1);
                        d.sector(t);
                        let line = (base + e.r as usize, g.line(sector));
                        if missed && line != missed_line {
                            missed_line = line;
                            d.missed += 1;
                        }
                        sent += 1;
                        if sent == per_cycle {
                            (depart, sent) = (depart + 1, 0);
                        }
                    }
                    if store {
                        out.store_done = out.store_done.max(d.last);
                    }
                }
            }
        }
    }
}

/// One quantum's requests timed by a team, read by the SMs as they land
/// their loads.
#[derive(Default)]
pub(crate) struct TeamBatch {
    shares: Vec<Share>,
    /// The batch's first issue cycle and how many cycles it spans.
    first: u64,
    span: usize,
    /// Per member, the place of its first request in the batch.
    request_bases: Vec<u32>,
    groups: Vec<GroupOut>,
    /// Whether the SMs' requests are timed and not all landed.
    timed: bool,
}

impl TeamBatch {
    /// A batch of members owning the SMs `starts[m]..starts[m + 1]`
    /// (ascending, from 0 to the SM count).
    pub fn new(starts: &[usize]) -> TeamBatch {
        let shares = starts
            .windows(2)
            .map(|w| Share {
                sms: w[0]..w[1],
                ..Share::default()
            })
            .collect();
        TeamBatch {
            shares,
            ..TeamBatch::default()
        }
    }

    /// Step 0, on one thread: notes the cycles the SMs' requests span;
    /// returns whether there are any.
    pub fn begin(&mut self, sms: &[Sm]) -> bool {
        debug_assert!(!self.timed, "the last batch has landed");
        let mut span = None::<(u64, u64)>;
        for sm in sms {
            // Each SM's requests are in issue order.
            if let (Some(a), Some(b)) = (sm.requests.first(), sm.requests.last()) {
                span = Some(span.map_or((a.t, b.t), |(lo, hi)| (lo.min(a.t), hi.max(b.t))));
            }
        }
        let Some((lo, hi)) = span else {
            return false;
        };
        debug_assert!(hi - lo < MAX_SPAN, "a batch spans one quantum at most");
        self.first = lo;
        self.span = (hi - lo + 1) as usize;
        true
    }

    /// The members' shares (member `m` lists share `m`, [`Share::list`])
    /// and the cycles the batch spans.
    pub fn shares(&mut self) -> (&mut [Share], (u64, usize)) {
        (&mut self.shares, (self.first, self.span))
    }

    /// Step 2, on one thread, once every share is listed: where each
    /// member's requests start in the batch. Then the batch reads as
    /// [`Sectors`], and each group's results are to be filled by one
    /// member.
    pub fn bases(&mut self, per_cycle: u32) -> (Sectors<'_>, Vec<&mut GroupOut>) {
        self.request_bases.clear();
        let mut requests = 0;
        for s in &self.shares {
            self.request_bases.push(requests);
            requests += s.requests.len() as u32;
        }
        let groups = self.shares[0].lists.len();
        self.groups.resize_with(groups, GroupOut::default);
        for g in &mut self.groups {
            g.done.clear();
            g.done.resize(requests as usize, Arrivals::NONE);
            g.stats = KernelStats::default();
            g.store_done = 0;
        }
        self.timed = true;
        let sectors = Sectors {
            shares: &self.shares,
            per_cycle,
            request_bases: &self.request_bases,
            span: self.span,
        };
        (sectors, self.groups.iter_mut().collect())
    }

    /// Step 4, on one thread, once every group is timed: counts the
    /// batch's sectors in the L2's stamps, adds its memory counters to
    /// `stats`, and returns when its last store is written into L2.
    pub fn finish(&mut self, timing: &mut MemTiming, stats: &mut KernelStats) -> u64 {
        timing.count(self.shares.iter().map(|s| s.sectors).sum());
        let mut last = self.shares.iter().map(|s| s.store_floor).max().unwrap_or(0);
        for g in &self.groups {
            stats.add_part(&g.stats);
            last = last.max(g.store_done);
        }
        last
    }

    /// Whether some SM may still have timed loads to land.
    pub fn timed(&self) -> bool {
        self.timed
    }

    /// Every SM has landed its loads ([`Self::land`]).
    pub fn landed(&mut self) {
        self.timed = false;
    }

    /// Lands `sm`'s timed loads, in issue order (its timing order),
    /// through `land(load, arrivals)`, and forgets its requests.
    pub fn land(&self, sm: &mut Sm, mut land: impl FnMut(&mut Sm, &Pending, Arrivals)) {
        if !self.timed || sm.requests.is_empty() {
            return;
        }
        // The share whose SMs include it (the ranges ascend).
        let m = self.shares.partition_point(|s| s.sms.end <= sm.id as usize);
        let share = &self.shares[m];
        let first = self.request_bases[m] + share.first_request[sm.id as usize - share.sms.start];
        let requests = std::mem::take(&mut sm.requests);
        for (i, p) in requests.iter().enumerate() {
            if p.store && !sm.drain.is_on() {
                continue;
            }
            let r = first as usize + i;
            let mut done = Arrivals::at_least(p.start + 1);
            self.groups.iter().for_each(|g| done.merge(&g.done[r]));
            if p.store {
                sm.drain.taken(p.start + p.delay, done.last);
                continue;
            }
            land(sm, p, done);
        }
        sm.requests = requests;
        sm.requests.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GpuConfig;
    use crate::resolve::Batch;

    /// A request of SM `sm` at cycle `t` with sectors `first..first + n`
    /// of the SM's list; `pc` tells it apart.
    fn request(t: u64, sm: u32, first: u32, n: u32, store: bool, pc: u32) -> Pending {
        Pending {
            t,
            sm,
            start: t + u64::from(pc % 3),
            first,
            n,
            store,
            lines: 0,
            wavefronts: 0,
            slot: 0,
            age: 0,
            pc,
            seq: crate::l1::NO_LOAD,
            after: crate::l1::NO_LOAD,
            floor: 0,
            delay: 0,
        }
    }

    /// Per SM, its loads' (pc, done) in the order they landed.
    type Landed = Vec<Vec<(u32, Arrivals)>>;

    #[test]
    fn a_team_times_every_batch_as_one_thread_does() {
        // Four partitions of two-way sets that few lines crowd (evictions
        // and write-backs), three sectors a cycle from the LSU, five SMs
        // over two or three members (two or three groups of partitions):
        // each SM's loads complete when the one-thread path says, and the
        // memory counters and the last store agree, batch after batch.
        let mut cfg = GpuConfig::tiny();
        cfg.num_sms = 5;
        cfg.mem_partitions = 4;
        cfg.l2_bytes = 8192;
        cfg.lsu_sectors_per_cycle = 3;
        let per_cycle = u64::from(cfg.lsu_sectors_per_cycle);
        let mut rng = crate::tests::util::Rng(0x5851_f42d_4c95_7f2d);
        for members in [2usize, 3] {
            let mut one = MemTiming::new(&cfg);
            one.start_launch(1);
            let mut team = MemTiming::new(&cfg);
            team.start_launch(members);
            assert!(team.group_map().is_some(), "the groups are several");
            let starts: Vec<usize> = (0..=members).map(|m| 5 * m / members).collect();
            let mut tb = TeamBatch::new(&starts);
            let mut batch = Batch::default();
            let (mut stats_one, mut stats_team) = (KernelStats::default(), KernelStats::default());
            let (mut last_one, mut last_team) = (0, 0);
            let mut pc = 0;
            for quantum in 0..12u64 {
                let mut sms: Vec<Sm> = (0..5).map(|i| Sm::new(i, &cfg)).collect();
                for sm in &mut sms {
                    let mut t = quantum * 40 + rng.next() % 4;
                    for _ in 0..rng.next() % 7 {
                        t += rng.next() % 3;
                        let first = sm.request_sectors.len() as u32;
                        let n = 1 + rng.next() % 9;
                        if rng.next().is_multiple_of(2) {
                            // Coalesced: consecutive sectors, which may
                            // cross into the next partition.
                            let base = rng.next() % 2048;
                            sm.request_sectors.extend(base..base + n);
                        } else {
                            sm.request_sectors.extend((0..n).map(|_| rng.next() % 2048));
                        }
                        let store = rng.next().is_multiple_of(4);
                        sm.requests
                            .push(request(t, sm.id, first, n as u32, store, pc));
                        pc += 1;
                    }
                }
                let mut copies: Vec<Sm> = (0..5).map(|i| Sm::new(i, &cfg)).collect();
                for (c, sm) in copies.iter_mut().zip(&sms) {
                    c.requests = sm.requests.clone();
                    c.request_sectors = sm.request_sectors.clone();
                }
                // One thread.
                let mut want: Landed = vec![Vec::new(); 5];
                batch.gather(&mut copies);
                batch.time(&mut one, per_cycle);
                for (p, done) in batch.loads() {
                    want[p.sm as usize].push((p.pc, done));
                }
                last_one = last_one.max(batch.finish(&mut stats_one));
                // The team's steps, one member after the other.
                let mut got: Landed = vec![Vec::new(); 5];
                if tb.begin(&sms) {
                    let map = team.group_map();
                    let (shares, span) = tb.shares();
                    let mut rest = &mut sms[..];
                    for share in shares.iter_mut() {
                        let (own, tail) = rest.split_at_mut(share.sms().len());
                        rest = tail;
                        share.list(own, span, map);
                    }
                    let stamp = team.stamp(0);
                    let (sectors, outs) = tb.bases(per_cycle as u32);
                    for (i, (mut g, out)) in team.groups().into_iter().zip(outs).enumerate() {
                        sectors.time_group(&mut g, i, stamp, out);
                    }
                    last_team = last_team.max(tb.finish(&mut team, &mut stats_team));
                    for sm in &mut sms {
                        tb.land(sm, |sm, p, done| got[sm.id as usize].push((p.pc, done)));
                        assert!(sm.requests.is_empty() && sm.request_sectors.is_empty());
                    }
                    tb.landed();
                }
                assert_eq!(got, want, "{members} members, quantum {quantum}");
            }
            assert_eq!(stats_team, stats_one, "{members} members");
            assert!(stats_one.l2_sector_misses > 0 && stats_one.dram_sectors_write > 0);
            assert_eq!(last_team, last_one, "{members} members");
        }
    }
}
