//! The replay model: a trace's index plus the decoded detail of one launch
//! and one block, and the queries the panels and the controls need.
//!
//! Opening reads only the header and the index. A launch is decoded when
//! the cursor enters it, keeping only the focused block's detail (so even a
//! `full`-level trace of a big launch costs memory for one block), plus the
//! whole machine's counter samples.

use std::io::{Read, Seek};

use traces::{CounterSample, Event, KernelSource, StallReason, TraceError, TraceReader};

use crate::cache;
use crate::inst::InstKind;
use crate::machine::{LaunchMachine, Machine, Residency, RunMachine, Sample};
use crate::pending::{Landing, landings};
use crate::rank::{KeyRanks, slab_rows};
use crate::regs::{RegWriteRec, WarpRegs};

/// A byte source a trace can be read from.
pub trait Source: Read + Seek {}
impl<T: Read + Seek> Source for T {}

/// One kernel's text with lookup tables.
#[derive(Clone, Debug)]
pub struct KernelView {
    /// The kernel as the trace holds it.
    pub source: KernelSource,
    /// For each pc, the line index in `source.lines`.
    pub line_of_pc: Vec<Option<usize>>,
    /// For each pc, what the slab panel draws for it.
    pub kind_of_pc: Vec<InstKind>,
    /// The slab's registers: the header's `slab_regs` (the generator's
    /// marks); empty for a kernel without them.
    pub key_regs: Vec<traces::RegRef>,
    /// For each pc, the registers it writes (see [`crate::pending::dests`]).
    dests_of_pc: Vec<[Option<traces::RegRef>; 2]>,
}

impl KernelView {
    pub(crate) fn new(source: KernelSource) -> Self {
        let mut line_of_pc = Vec::new();
        let mut kind_of_pc = Vec::new();
        let mut dests_of_pc = Vec::new();
        for (i, l) in source.lines.iter().enumerate() {
            if let Some(pc) = l.pc {
                let pc = pc as usize;
                if pc >= line_of_pc.len() {
                    line_of_pc.resize(pc + 1, None);
                    kind_of_pc.resize(pc + 1, InstKind::Other);
                    dests_of_pc.resize(pc + 1, [None; 2]);
                }
                line_of_pc[pc] = Some(i);
                kind_of_pc[pc] = InstKind::parse(&l.text);
                dests_of_pc[pc] = crate::pending::dests(&l.text);
            }
        }
        let key_regs = source.slab_regs.clone();
        KernelView {
            source,
            line_of_pc,
            kind_of_pc,
            key_regs,
            dests_of_pc,
        }
    }

    /// The registers instruction `pc` writes.
    pub fn dests(&self, pc: u32) -> [Option<traces::RegRef>; 2] {
        self.dests_of_pc
            .get(pc as usize)
            .copied()
            .unwrap_or([None; 2])
    }

    /// What instruction `pc` is.
    pub fn kind(&self, pc: u32) -> InstKind {
        self.kind_of_pc
            .get(pc as usize)
            .copied()
            .unwrap_or(InstKind::Other)
    }
}

/// One issued instruction of a warp.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IssueRec {
    /// Cycle.
    pub cycle: u64,
    /// Instruction.
    pub pc: u32,
    /// Active lanes.
    pub active: u64,
    /// Issue slots (cycles charged `selected`).
    pub slots: u32,
}

/// One stall charge of a warp: `cycles` cycles of `reason` from `cycle`
/// on, waiting to issue `pc` ([`traces::Event::Stall`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StallRec {
    /// First cycle charged.
    pub cycle: u64,
    /// Cycles charged.
    pub cycles: u64,
    /// The reason.
    pub reason: StallReason,
    /// The instruction waited for.
    pub pc: u32,
}

impl StallRec {
    /// One past the last cycle charged.
    pub fn end(&self) -> u64 {
        self.cycle + self.cycles
    }
}

/// One shared-memory access of the focused block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemRec {
    /// Cycle.
    pub cycle: u64,
    /// Warp within the block.
    pub warp: u32,
    /// Instruction.
    pub pc: u32,
    /// Load, store or atomic.
    pub kind: traces::AccessKind,
    /// Wavefronts.
    pub wavefronts: u32,
    /// Bank conflicts.
    pub conflicts: u32,
    /// Distinct words per bank.
    pub words_per_bank: Vec<u8>,
    /// Bytes per lane (0: not recorded, traces before format version 3).
    pub bytes: u32,
    /// Lanes that took part (0 when not recorded).
    pub active: u64,
    /// Each lane's byte address (empty when not recorded).
    pub addrs: Vec<u64>,
}

/// The decoded detail of one launch, for one block.
#[derive(Clone, Debug, Default)]
pub struct LaunchData {
    /// Launch number.
    pub launch: usize,
    /// Kernel index.
    pub kernel: usize,
    /// First cycle.
    pub start: u64,
    /// Last cycle (the end event, or the last event seen).
    pub end: u64,
    /// The block shown, if any block has detail events.
    pub block: Option<u32>,
    /// The SM that ran it.
    pub sm: Option<u32>,
    /// Blocks with detail events, ascending.
    pub detail_blocks: Vec<u32>,
    /// Per warp of the block: its issues, in cycle order.
    pub issues: Vec<Vec<IssueRec>>,
    /// Per warp: its stall charges, in cycle order.
    pub stalls: Vec<Vec<StallRec>>,
    /// Per warp: its registers over time.
    pub regs: Vec<WarpRegs>,
    /// Shared accesses of the block, in cycle order.
    pub smem: Vec<SmemRec>,
    /// Global requests of the block: (warp, pc, sectors).
    pub gmem: Vec<(u32, u32, u32)>,
    /// The cycle the block ended (else the launch's end).
    pub block_end: u64,
    /// The cycle the block started (its warps' first resident cycle).
    pub block_start: u64,
    /// Whether the trace's stall events are charges (format 3 on); older
    /// traces have none to show.
    pub stall_charges: bool,
    /// The whole machine's counters summed over the launch.
    pub machine: CounterSample,
    /// Per warp: its slab rows' ranks in its output (see [`crate::rank`]).
    pub ranks: Vec<KeyRanks>,
    /// Per warp: its register writes with their issue cycles.
    pub landings: Vec<Vec<Landing>>,
    /// Every SM's samples and blocks (when the whole launch was decoded).
    pub gpu: Machine,
}

impl LaunchData {
    /// Warps of the focused block with any event.
    pub fn warps(&self) -> u32 {
        self.issues.len() as u32
    }

    /// The last issue of `warp` at or before `cycle`.
    pub fn current_issue(&self, warp: u32, cycle: u64) -> Option<IssueRec> {
        let v = self.issues.get(warp as usize)?;
        let n = v.partition_point(|i| i.cycle <= cycle);
        n.checked_sub(1).map(|i| v[i])
    }

    /// The issues of `warp` (empty if none).
    pub fn warp_issues(&self, warp: u32) -> &[IssueRec] {
        self.issues.get(warp as usize).map_or(&[], Vec::as_slice)
    }

    /// What `warp` was charged for `cycle`: a stall reason, or
    /// [`StallReason::Selected`] in its issue slots; `None` outside its
    /// charges (before it started, after it exited, or no detail).
    pub fn stall_at(&self, warp: u32, cycle: u64) -> Option<StallReason> {
        if let Some(v) = self.stalls.get(warp as usize) {
            let n = v.partition_point(|s| s.cycle <= cycle);
            if let Some(s) = n.checked_sub(1).map(|i| v[i])
                && cycle < s.end()
            {
                return Some(s.reason);
            }
        }
        let i = self.current_issue(warp, cycle)?;
        (cycle < i.cycle + u64::from(i.slots)).then_some(StallReason::Selected)
    }

    /// The stall charges of `warp` (empty if none).
    pub fn warp_stalls(&self, warp: u32) -> &[StallRec] {
        self.stalls.get(warp as usize).map_or(&[], Vec::as_slice)
    }

    /// The cycles `warp` was resident as its charges tell: from the
    /// block's start to the end of its last issue or charge.
    pub fn resident(&self, warp: u32) -> (u64, u64) {
        let last_issue = self
            .warp_issues(warp)
            .last()
            .map_or(0, |i| i.cycle + u64::from(i.slots));
        let last_stall = self.warp_stalls(warp).iter().map(StallRec::end).max();
        let end = last_issue.max(last_stall.unwrap_or(0));
        (self.block_start, end.max(self.block_start))
    }
}

/// An open trace and the launch under the cursor.
pub struct Replay {
    reader: TraceReader<Box<dyn Source>>,
    kernels: Vec<KernelView>,
    /// The loaded launch.
    pub data: LaunchData,
    /// Other blocks of the loaded launch, already decoded.
    cache: cache::BlockCache,
    /// Every launch's SMs, for the machine view (read when first opened).
    run: Option<RunMachine>,
    /// The worst conflicts of launches of old traces, found by reading
    /// them (format 4 on, the index has them).
    worst: std::collections::HashMap<usize, Option<traces::ConflictMark>>,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("data", &self.data)
            .finish_non_exhaustive()
    }
}

impl Replay {
    /// Opens a trace and loads its first launch (the header's focus block).
    pub fn new(source: Box<dyn Source>) -> Result<Self, TraceError> {
        let reader = TraceReader::new(source)?;
        if reader.launches().is_empty() {
            return Err(TraceError::Truncated(
                "the trace holds no kernel launch".into(),
            ));
        }
        let kernels = reader
            .kernels()
            .iter()
            .cloned()
            .map(KernelView::new)
            .collect();
        let block = reader.header().options.focus.block;
        let mut r = Replay {
            reader,
            kernels,
            data: LaunchData::default(),
            cache: cache::BlockCache::default(),
            run: None,
            worst: Default::default(),
        };
        r.load(0, block)?;
        Ok(r)
    }

    /// The trace's header.
    pub fn header(&self) -> &traces::TraceHeader {
        self.reader.header()
    }

    /// Number of launches.
    pub fn launch_count(&self) -> usize {
        self.reader.launches().len()
    }

    /// `(start, end)` cycles of every launch.
    pub fn launch_spans(&self) -> Vec<(u64, u64)> {
        let chunks = self.reader.chunks();
        self.reader
            .launches()
            .iter()
            .map(|l| {
                let last = (l.first_chunk..l.end_chunk)
                    .map(|c| chunks[c as usize].last_cycle)
                    .max()
                    .unwrap_or(l.start_cycle);
                (
                    l.start_cycle,
                    l.end_cycle.unwrap_or(last).max(l.start_cycle),
                )
            })
            .collect()
    }

    /// What to call the loaded launch: the label the host gave it (`round
    /// 2: hm span 32 slabs`), or its kernel's name in traces without one.
    pub fn launch_title(&self) -> &str {
        self.reader.launches()[self.data.launch].title(self.reader.kernels())
    }

    /// What to call launch `launch` (see [`Replay::launch_title`]).
    pub fn title_of(&self, launch: usize) -> &str {
        self.reader.launches()[launch].title(self.reader.kernels())
    }

    /// The kernel of the loaded launch.
    pub fn kernel(&self) -> &KernelView {
        &self.kernels[self.data.kernel]
    }

    /// The shared access with the most bank conflicts in launch `launch`
    /// (the earliest of equals), over every block with detail: from the
    /// index (format 4 on), else by reading the launch once.
    pub fn worst_conflict(
        &mut self,
        launch: usize,
    ) -> Result<Option<traces::ConflictMark>, TraceError> {
        if self.reader.has_block_chunks() {
            return Ok(self.reader.launches()[launch].worst_conflict);
        }
        if let Some(w) = self.worst.get(&launch) {
            return Ok(*w);
        }
        let mut worst: Option<traces::ConflictMark> = None;
        for e in self.reader.launch_events(launch) {
            if let Event::SharedAccess {
                cycle,
                block,
                warp,
                pc,
                conflicts,
                ..
            } = e?
                && conflicts > 0
            {
                let m = traces::ConflictMark {
                    block,
                    warp,
                    cycle,
                    pc,
                    conflicts,
                };
                if worst.as_ref().is_none_or(|w| m.worse_than(w)) {
                    worst = Some(m);
                }
            }
        }
        self.worst.insert(launch, worst);
        Ok(worst)
    }

    /// Every launch's SMs, if [`Replay::read_run_machine`] has read them.
    pub fn run_machine(&self) -> Option<&RunMachine> {
        self.run.as_ref()
    }

    /// Reads every launch's counter samples and block residencies for the
    /// machine view, once. A trace with block chunks (format 4 on) keeps
    /// them in chunks of their own, so this reads little; in older traces
    /// they share chunks with every block's detail, and a launch of more
    /// than [`cache::WHOLE_LAUNCH_EVENTS`] events is left out (blank).
    pub fn read_run_machine(&mut self) -> Result<&RunMachine, TraceError> {
        if self.run.is_none() {
            let spans = self.launch_spans();
            let separate = self.reader.has_block_chunks();
            let mut run = RunMachine::default();
            for (l, &(start, end)) in spans.iter().enumerate() {
                let info = &self.reader.launches()[l];
                let events: u64 = self.reader.chunks()
                    [info.first_chunk as usize..info.end_chunk as usize]
                    .iter()
                    .map(|c| u64::from(c.events))
                    .sum();
                let title = self.title_of(l).to_string();
                let mut machine = Machine::default();
                let read = separate || events <= cache::WHOLE_LAUNCH_EVENTS;
                if read {
                    let events = if separate {
                        self.reader.launch_wide_events(l)
                    } else {
                        self.reader.launch_events(l)
                    };
                    for e in events {
                        gpu_event(&mut machine, &e?, end);
                    }
                    machine.complete = true;
                }
                run.sms = run.sms.max(machine.sms);
                run.launches.push(LaunchMachine {
                    start,
                    end,
                    title,
                    machine,
                });
            }
            self.run = Some(run);
        }
        Ok(self.run.as_ref().expect("just read"))
    }

    /// Per pc, the source view's numbers over every block of launch
    /// `launch` with detail events: from the index (format 4 on), else one
    /// pass over the launch's chunks.
    pub fn launch_table(
        &mut self,
        launch: usize,
    ) -> Result<Vec<crate::source::LineStats>, TraceError> {
        let mut t = Vec::new();
        if self.reader.has_block_chunks() {
            for p in &self.reader.launches()[launch].lines {
                crate::source::LineStats::add_totals(&mut t, p);
            }
            return Ok(t);
        }
        for e in self.reader.launch_events(launch) {
            crate::source::LineStats::add_event(&mut t, &e?);
        }
        Ok(t)
    }

    /// Decodes launch `launch`, keeping the detail of `block` (or, if it
    /// has none, of the first block that has). Only the chunks the index
    /// says may hold that block's events are read; the machine-wide
    /// counters come from the index.
    pub fn load(&mut self, launch: usize, block: u32) -> Result<(), TraceError> {
        let info = self.reader.launches()[launch].clone();
        let want = if info.has_detail(block) {
            Some(block)
        } else {
            info.first_detail_block()
        };
        // A block seen in this launch before: no decoding.
        if let Some(d) = want.and_then(|b| self.cache.take(launch, b)) {
            let old = std::mem::replace(&mut self.data, d);
            self.cache.keep(old);
            return Ok(());
        }
        // A trace with each block in its own chunks (format 4 on) reads
        // one block's chunks and the launch-wide ones. In older traces,
        // where every block of a launch shares every chunk (all resident
        // at once), reading one block decodes the whole launch: decode it
        // once for all its blocks, when they fit the cache.
        let per_block = self.reader.has_block_chunks();
        let chunks = &self.reader.chunks()[info.first_chunk as usize..info.end_chunk as usize];
        let events: u64 = chunks.iter().map(|c| u64::from(c.events)).sum();
        let all: Vec<u32> = info
            .detail_blocks
            .iter()
            .flat_map(|&(lo, hi)| lo..=hi)
            .collect();
        let wanted = match want {
            Some(_) if !per_block && all.len() > 1 && events <= cache::WHOLE_LAUNCH_EVENTS => all,
            Some(b) => vec![b],
            None => Vec::new(),
        };
        let mut decoded = self.decode(launch, &wanted, want)?;
        let i = decoded.iter().position(|d| d.block == want).unwrap_or(0);
        let d = decoded.swap_remove(i);
        let old = std::mem::replace(&mut self.data, d);
        if per_block {
            // The blocks just left, for `B` after `b`; others are read again.
            self.cache.keep_few(old, cache::RECENT_BLOCKS);
            return Ok(());
        }
        self.cache.keep(old);
        for d in decoded {
            self.cache.keep(d);
        }
        Ok(())
    }

    /// Decodes launch `launch` for the blocks `wanted` (reading every chunk
    /// of the launch when there are several, else the chunks that may hold
    /// `read`); one [`LaunchData`] per block (one with no block when
    /// `wanted` is empty).
    fn decode(
        &mut self,
        launch: usize,
        wanted: &[u32],
        read: Option<u32>,
    ) -> Result<Vec<LaunchData>, TraceError> {
        let info = self.reader.launches()[launch].clone();
        let (start, end) = self.launch_spans()[launch];
        let base = LaunchData {
            launch,
            kernel: info.kernel as usize,
            start,
            end,
            block: None,
            detail_blocks: info
                .detail_blocks
                .iter()
                .flat_map(|&(lo, hi)| lo..=hi)
                .collect(),
            machine: info.counters.clone(),
            block_start: u64::MAX,
            ..LaunchData::default()
        };
        type Building = (LaunchData, Vec<Vec<RegWriteRec>>, Option<u64>);
        let mut builds: Vec<Building> = if wanted.is_empty() {
            vec![(base.clone(), Vec::new(), None)]
        } else {
            wanted
                .iter()
                .map(|&b| {
                    let d = LaunchData {
                        block: Some(b),
                        ..base.clone()
                    };
                    (d, Vec::new(), None)
                })
                .collect()
        };
        let index: std::collections::HashMap<u32, usize> =
            wanted.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        // Every chunk when decoding every block, or when the trace holds
        // only counters and the focused block (small); else, with no
        // detail anywhere, only the launch's first and last chunks.
        let counters_only = self.reader.header().options.level == traces::TraceLevel::CountersOnly;
        let whole = wanted.len() > 1 || counters_only;
        // Every launch-wide event is read: the whole launch, or the
        // launch-wide chunks of a trace with block chunks.
        let machine = whole || self.reader.has_block_chunks();
        let events = if whole {
            self.reader.launch_events(launch)
        } else {
            self.reader.block_events(launch, read.unwrap_or(u32::MAX))
        };
        let mut gpu = Machine::default();
        for e in events {
            let e = e?;
            if machine {
                gpu_event(&mut gpu, &e, end);
            }
            let of = match e {
                Event::BlockStart { block, .. } | Event::BlockEnd { block, .. } => Some(block),
                _ => e.detail_block().or(e.warp().map(|w| w.0)),
            };
            let i = match (of, wanted) {
                (Some(b), &[only]) => (b == only).then_some(0),
                (Some(b), _) => index.get(&b).copied(),
                (None, _) => None,
            };
            if let Some(i) = i {
                let (d, writes, block_end) = &mut builds[i];
                add_detail(d, writes, block_end, e);
            }
        }
        gpu.complete = machine;
        Ok(builds
            .into_iter()
            .map(|(mut d, writes, block_end)| {
                d.gpu = gpu.clone();
                self.finish(d, writes, block_end)
            })
            .collect())
    }

    /// Sorts a block's events and derives what the panels need.
    fn finish(
        &self,
        mut d: LaunchData,
        mut writes: Vec<Vec<RegWriteRec>>,
        block_end: Option<u64>,
    ) -> LaunchData {
        let warps = d.issues.len().max(d.stalls.len()).max(writes.len());
        d.issues.resize(warps, Vec::new());
        d.stalls.resize(warps, Vec::new());
        writes.resize(warps, Vec::new());
        for v in &mut d.issues {
            v.sort_by_key(|i| i.cycle);
        }
        for v in &mut d.stalls {
            v.sort_by_key(|s| s.cycle);
        }
        d.smem.sort_by_key(|s| s.cycle);
        d.regs = writes.into_iter().map(WarpRegs::new).collect();
        let k = &self.kernels[d.kernel];
        d.ranks = d
            .regs
            .iter()
            .map(|r| KeyRanks::new(&slab_rows(&k.key_regs, r), r, d.end))
            .collect();
        d.landings = d
            .regs
            .iter()
            .zip(&d.issues)
            .map(|(r, i)| landings(k, i, r))
            .collect();
        d.block_end = block_end.unwrap_or(d.end).min(d.end).max(d.start);
        d.block_start = d.block_start.clamp(d.start, d.block_end);
        d.stall_charges = self.reader.has_stall_charges();
        d
    }
}

/// Adds a counter sample or a block start or end to the machine view.
fn gpu_event(gpu: &mut Machine, e: &Event, end: u64) {
    match e {
        Event::Counters { cycle, sm, sample } => {
            gpu.sms = gpu.sms.max(sm + 1);
            gpu.samples.push(Sample {
                sm: *sm,
                cycle: *cycle,
                counters: sample.clone(),
            });
        }
        Event::BlockStart { cycle, sm, block } => {
            gpu.sms = gpu.sms.max(sm + 1);
            gpu.blocks.push(Residency {
                sm: *sm,
                block: *block,
                start: *cycle,
                end,
            });
        }
        Event::BlockEnd { cycle, sm, block } => {
            if let Some(r) = gpu
                .blocks
                .iter_mut()
                .rev()
                .find(|r| r.sm == *sm && r.block == *block)
            {
                r.end = *cycle;
            }
        }
        _ => {}
    }
}

fn slot<T: Clone + Default>(v: &mut Vec<T>, i: u32) -> &mut T {
    let i = i as usize;
    if v.len() <= i {
        v.resize(i + 1, T::default());
    }
    &mut v[i]
}

fn add_detail(
    d: &mut LaunchData,
    writes: &mut Vec<Vec<RegWriteRec>>,
    block_end: &mut Option<u64>,
    e: Event,
) {
    match e {
        Event::Issue {
            cycle,
            sm,
            warp,
            pc,
            active,
            slots,
            ..
        } => {
            d.sm = Some(sm);
            slot(&mut d.issues, warp).push(IssueRec {
                cycle,
                pc,
                active,
                slots,
            });
        }
        Event::Stall {
            cycle,
            warp,
            pc,
            reason,
            cycles,
            ..
        } => slot(&mut d.stalls, warp).push(StallRec {
            cycle,
            cycles,
            reason,
            pc,
        }),
        Event::GlobalRequest {
            warp, pc, sectors, ..
        } => d.gmem.push((warp, pc, sectors)),
        Event::SharedAccess {
            cycle,
            warp,
            pc,
            kind,
            wavefronts,
            conflicts,
            words_per_bank,
            bytes,
            active,
            addrs,
            ..
        } => d.smem.push(SmemRec {
            cycle,
            warp,
            pc,
            kind,
            wavefronts,
            conflicts,
            words_per_bank,
            bytes,
            active,
            addrs,
        }),
        Event::RegWrite {
            cycle,
            warp,
            reg,
            mask,
            values,
            ..
        } => slot(writes, warp).push(RegWriteRec {
            cycle,
            reg,
            mask,
            values,
        }),
        Event::BlockStart { cycle, .. } => d.block_start = d.block_start.min(cycle),
        Event::BlockEnd { cycle, sm, .. } => {
            d.sm.get_or_insert(sm);
            *block_end = Some(cycle);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use traces::{RegClass, RegRef};

    use super::*;

    #[test]
    fn key_registers_are_the_marked_ones_and_never_guessed() {
        let text = "kernel bs {\n    shfl.xor r8, r3, 1, 8\n    cmpx.u r3, r8\n    \
                    cmpx.u r3, r4\n    add r9, r3, r4\n}\n";
        let k = KernelView::new(KernelSource::from_text("bs", text));
        let r = |index| RegRef {
            class: RegClass::B32,
            index,
        };
        assert!(k.key_regs.is_empty(), "no marks, no guessing");
        assert_eq!(k.kind(1), InstKind::Cmpx { lo: r(3), hi: r(8) });
        let mut marked = KernelSource::from_text("bs", text);
        marked.slab_regs = vec![r(4)];
        assert_eq!(KernelView::new(marked).key_regs, [r(4)]);
    }

    #[test]
    fn the_launch_table_from_the_index_equals_the_sum_of_every_event() {
        let bytes = crate::synthetic::Synthetic {
            blocks: 5,
            sms: 5,
            ..crate::synthetic::Synthetic::default()
        }
        .write(Vec::new())
        .unwrap();
        let mut r = Replay::new(Box::new(std::io::Cursor::new(bytes))).unwrap();
        for launch in 0..r.launch_count() {
            let mut summed = Vec::new();
            for e in r.reader.launch_events(launch) {
                crate::source::LineStats::add_event(&mut summed, &e.unwrap());
            }
            let indexed = r.launch_table(launch).unwrap();
            if launch == 0 {
                assert!(summed.iter().any(|l| l.excess > 0 && l.exec > 0));
            }
            let trimmed = |t: &[crate::source::LineStats]| {
                let n = t.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
                t[..n].to_vec()
            };
            assert_eq!(trimmed(&indexed), trimmed(&summed), "launch {launch}");
        }
    }

    #[test]
    fn a_block_decoded_with_its_launch_equals_the_block_decoded_alone() {
        let bytes = crate::synthetic::Synthetic {
            blocks: 3,
            ..crate::synthetic::Synthetic::default()
        }
        .write(Vec::new())
        .unwrap();
        let mut r = Replay::new(Box::new(std::io::Cursor::new(bytes))).unwrap();
        let all = r.decode(0, &[0, 1, 2], Some(1)).unwrap();
        let alone = r.decode(0, &[1], Some(1)).unwrap();
        let (a, b) = (&all[1], &alone[0]);
        assert_eq!(a.block, Some(1));
        assert_eq!(
            (
                &a.issues,
                &a.stalls,
                &a.smem,
                &a.gmem,
                a.block_end,
                a.block_start,
                a.stall_charges,
                a.sm
            ),
            (
                &b.issues,
                &b.stalls,
                &b.smem,
                &b.gmem,
                b.block_end,
                b.block_start,
                b.stall_charges,
                b.sm
            )
        );
        // `b` then takes block 1 from the cache, and `B` block 0 back.
        r.load(0, 1).unwrap();
        assert_eq!(r.data.issues, b.issues);
        r.load(0, 0).unwrap();
        assert_eq!(r.data.issues, all[0].issues);
    }
}
