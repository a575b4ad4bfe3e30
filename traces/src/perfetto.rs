//! Export to the Chrome trace-event JSON that Perfetto (ui.perfetto.dev)
//! and `chrome://tracing` open.
//!
//! The mapping: one process per SM (`pid` = SM number) plus one process
//! for the kernel launches (`pid` = [`KERNELS_PID`]). The format defines
//! `ts` and `dur` as microseconds: by default ([`TimeUnit::Ns`]) they are
//! simulated time at the machine's clock (the header's `clock_mhz`), so
//! the viewer's units are true; with [`TimeUnit::Cycles`] they are cycles
//! (the viewer then labels a cycle "1 µs"). Either way every slice and
//! instant keeps its cycle in `args.cycle` (and a slice its length in
//! `args.cycles`), and the top-level `otherData.time` says which unit was
//! written. Inside an SM's process, each block has a lifetime track and
//! each warp two tracks: the instructions it issued (slices as long as
//! their issue slots, named by their IR text) and its stall charges (one
//! slice per charge, named by its reason). Thread ids are
//! `block * 1_000_000 + k` with `k = 0` for the block, `1 + 2*warp` for the
//! warp's issues and `2 + 2*warp` for its stalls; every track is named.
//! Counter tracks per SM come from the counter samples: bank conflicts,
//! wavefronts, instructions issued, global sectors, and the warp-cycles of
//! each stall reason (stacked). Shared and global accesses and barriers are
//! instant events on the warp's issue track.
//!
//! [`ExportOptions`] can keep only some launches, SMs and blocks; only the
//! chosen launches' chunks are read. [`estimate_perfetto`] tells what an
//! export will cost before it is written.
//!
//! The JSON is written as it is produced, event by event, so exporting a
//! large trace needs memory only for the track names.

use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Seek, Write};

use serde_json::{Value, json};

use crate::{AccessKind, Event, StallReason, TraceError, TraceReader};

/// The `pid` of the process that holds kernel-launch slices.
pub const KERNELS_PID: u64 = 1_000_000;

const TID_PER_BLOCK: u64 = 1_000_000;

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Trace events read.
    pub events_in: u64,
    /// JSON trace events written.
    pub events_out: u64,
}

/// The unit of `ts` and `dur`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TimeUnit {
    /// Simulated time at the machine's clock, in the format's microseconds.
    #[default]
    Ns,
    /// Cycles, written where the format expects microseconds.
    Cycles,
}

/// An inclusive range of numbers (launches, SMs, blocks).
pub type Span = (u32, u32);

/// What to export and how.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// The unit of `ts` and `dur`.
    pub time: TimeUnit,
    /// Only these launches (by launch number).
    pub launches: Option<Span>,
    /// Only events of these SMs (kernel-launch slices are kept).
    pub sms: Option<Span>,
    /// Only per-block events of these blocks (SM counter samples and
    /// kernel-launch slices are kept).
    pub blocks: Option<Span>,
}

fn within(span: Option<Span>, v: u32) -> bool {
    span.is_none_or(|(lo, hi)| lo <= v && v <= hi)
}

impl ExportOptions {
    /// Whether an event of a kept launch passes the SM and block filters.
    fn keeps(&self, e: &Event) -> bool {
        let sm = match *e {
            Event::BlockStart { sm, .. }
            | Event::BlockEnd { sm, .. }
            | Event::Issue { sm, .. }
            | Event::Stall { sm, .. }
            | Event::SharedAccess { sm, .. }
            | Event::GlobalRequest { sm, .. }
            | Event::BarrierArrive { sm, .. }
            | Event::BarrierRelease { sm, .. }
            | Event::Counters { sm, .. } => Some(sm),
            _ => None,
        };
        let block = match *e {
            Event::BlockStart { block, .. } | Event::BlockEnd { block, .. } => Some(block),
            _ => e.detail_block(),
        };
        sm.is_none_or(|s| within(self.sms, s)) && block.is_none_or(|b| within(self.blocks, b))
    }

    /// The chunks to read: every chunk, or those of the kept launches,
    /// in order.
    fn chunks<R: Read + Seek>(&self, reader: &TraceReader<R>) -> Vec<usize> {
        if self.launches.is_none() {
            return (0..reader.chunks().len()).collect();
        }
        let mut v = Vec::new();
        for (i, l) in reader.launches().iter().enumerate() {
            if within(self.launches, i as u32) {
                v.extend(l.first_chunk as usize..l.end_chunk as usize);
            }
        }
        v
    }

    /// Nanoseconds per cycle, from the trace's clock (for [`TimeUnit::Ns`]).
    fn ns_per_cycle<R: Read + Seek>(
        &self,
        reader: &TraceReader<R>,
    ) -> Result<Option<f64>, TraceError> {
        if self.time == TimeUnit::Cycles {
            return Ok(None);
        }
        match reader.header().config_u64("clock_mhz") {
            Some(mhz) if mhz > 0 => Ok(Some(1000.0 / mhz as f64)),
            _ => Err(TraceError::InvalidEvent(
                "the trace's header gives no machine clock (clock_mhz) to convert cycles to \
                 time: export with --time cycles"
                    .to_string(),
            )),
        }
    }
}

/// What an export would write.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Recorded events in the chosen launches' chunks.
    pub events_in: u64,
    /// About how many bytes of JSON.
    pub bytes: u64,
}

/// Estimates an export's size without writing it: the JSON bytes per
/// recorded event of the first chunks exported (filters applied) times the
/// recorded events of every chosen chunk.
pub fn estimate_perfetto<R: Read + Seek>(
    reader: &mut TraceReader<R>,
    opts: &ExportOptions,
) -> Result<Estimate, TraceError> {
    let chunks = opts.chunks(reader);
    let events_in: u64 = chunks
        .iter()
        .map(|&i| u64::from(reader.chunks()[i].events))
        .sum();
    let sample: Vec<usize> = chunks.iter().copied().take(4).collect();
    let sample_events: u64 = sample
        .iter()
        .map(|&i| u64::from(reader.chunks()[i].events))
        .sum();
    let mut counter = Counting(0);
    export_chunks(reader, &mut counter, opts, sample)?;
    let bytes = if sample_events == 0 {
        counter.0
    } else {
        (counter.0 as f64 * events_in as f64 / sample_events as f64) as u64
    };
    Ok(Estimate { events_in, bytes })
}

/// A writer that only counts.
struct Counting(u64);

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes `reader`'s events as Chrome trace JSON to `out`, with time at
/// the machine's clock ([`ExportOptions::default`]).
pub fn export_perfetto<R: Read + Seek, W: Write>(
    reader: &mut TraceReader<R>,
    out: W,
) -> Result<ExportSummary, TraceError> {
    export_perfetto_with(reader, out, &ExportOptions::default())
}

/// Writes the events `opts` keeps as Chrome trace JSON to `out`.
pub fn export_perfetto_with<R: Read + Seek, W: Write>(
    reader: &mut TraceReader<R>,
    out: W,
    opts: &ExportOptions,
) -> Result<ExportSummary, TraceError> {
    let chunks = opts.chunks(reader);
    export_chunks(reader, out, opts, chunks)
}

fn export_chunks<R: Read + Seek, W: Write>(
    reader: &mut TraceReader<R>,
    out: W,
    opts: &ExportOptions,
    chunks: Vec<usize>,
) -> Result<ExportSummary, TraceError> {
    let ns = opts.ns_per_cycle(reader)?;
    let texts: Vec<Vec<String>> = reader
        .kernels()
        .iter()
        .map(|k| {
            let mut v = Vec::new();
            for l in &k.lines {
                if let Some(pc) = l.pc {
                    let pc = pc as usize;
                    if v.len() <= pc {
                        v.resize(pc + 1, String::new());
                    }
                    v[pc] = l.text.trim().to_string();
                }
            }
            v
        })
        .collect();
    let names: Vec<String> = reader.kernels().iter().map(|k| k.name.clone()).collect();
    let time = match ns {
        Some(ns) => format!(
            "ts and dur are simulated time in microseconds at the machine's {} MHz clock \
             (1 cycle = {ns} ns); args.cycle is the cycle, args.cycles a slice's length in cycles",
            reader.header().config_u64("clock_mhz").unwrap_or(0)
        ),
        None => "ts and dur are cycles (the viewer labels them microseconds); args.cycle is \
                 the cycle"
            .to_string(),
    };
    let mut ex = Exporter {
        out: JsonOut::new(out)?,
        opts: opts.clone(),
        ns,
        time,
        texts,
        names,
        kernel: None,
        label: String::new(),
        launch_start: 0,
        named_sms: HashSet::new(),
        named_tracks: HashSet::new(),
        summary: ExportSummary::default(),
        last_cycle: 0,
        offset: 0,
    };
    ex.out.event(
        &json!({"ph": "M", "name": "process_name", "pid": KERNELS_PID,
        "args": {"name": "kernel launches"}}),
    )?;
    for e in reader.events_of_chunks(chunks) {
        ex.event(e?)?;
    }
    ex.summary.events_out = ex.out.count;
    let summary = ex.summary.clone();
    let other = json!({"time": ex.time, "unit": match ex.ns {
        Some(_) => "ns",
        None => "cycles",
    }});
    ex.out.finish(&other)?;
    Ok(summary)
}

struct Exporter<W: Write> {
    out: JsonOut<W>,
    opts: ExportOptions,
    /// Nanoseconds per cycle (`None`: write cycles).
    ns: Option<f64>,
    /// What `otherData.time` says.
    time: String,
    texts: Vec<Vec<String>>,
    names: Vec<String>,
    kernel: Option<usize>,
    /// The open launch's label (the slice name when not empty).
    label: String,
    launch_start: u64,
    named_sms: HashSet<u32>,
    named_tracks: HashSet<(u32, u64)>,
    summary: ExportSummary,
    last_cycle: u64,
    /// Added to every cycle of the current launch.
    offset: u64,
}

impl<W: Write> Exporter<W> {
    /// A cycle as `ts` (or a length as `dur`) in the chosen unit.
    fn time(&self, cycles: u64) -> Value {
        match self.ns {
            Some(ns) => json!(cycles as f64 * ns / 1000.0),
            None => json!(cycles),
        }
    }

    fn event(&mut self, mut e: Event) -> Result<(), TraceError> {
        self.summary.events_in += 1;
        if let Event::KernelLaunch { cycle, .. } = e
            && cycle.saturating_add(self.offset) < self.last_cycle
        {
            self.offset = self.last_cycle - cycle;
        }
        *e.cycle_mut() = e.cycle().saturating_add(self.offset);
        self.last_cycle = self.last_cycle.max(e.cycle());
        if !self.opts.keeps(&e) {
            return Ok(());
        }
        let ts = self.time(e.cycle());
        match e {
            Event::KernelLaunch {
                cycle,
                kernel,
                label,
                ..
            } => {
                self.kernel = Some(kernel as usize);
                self.label = label;
                self.launch_start = cycle;
            }
            Event::KernelEnd { cycle, launch } => {
                let kernel = self.kernel.and_then(|k| self.names.get(k)).cloned();
                let kernel = kernel.unwrap_or_default();
                let name = if self.label.is_empty() {
                    kernel.clone()
                } else {
                    std::mem::take(&mut self.label)
                };
                let (start, len) = (self.launch_start, cycle - self.launch_start.min(cycle));
                self.out
                    .event(&json!({"ph": "X", "name": name, "cat": "kernel",
                    "pid": KERNELS_PID, "tid": 0, "ts": self.time(start),
                    "dur": self.time(len),
                    "args": {"launch": launch, "kernel": kernel, "cycle": start, "cycles": len}}))?;
                self.kernel = None;
            }
            Event::BlockStart { cycle, sm, block } => {
                let tid = self.track(sm, block, 0, || format!("block {block}"))?;
                self.out
                    .event(&json!({"ph": "B", "name": format!("block {block}"),
                    "cat": "block", "pid": sm, "tid": tid, "ts": ts, "args": {"cycle": cycle}}))?;
            }
            Event::BlockEnd { cycle, sm, block } => {
                let tid = self.track(sm, block, 0, || format!("block {block}"))?;
                self.out.event(
                    &json!({"ph": "E", "pid": sm, "tid": tid, "ts": ts, "args": {"cycle": cycle}}),
                )?;
            }
            Event::Issue {
                cycle,
                sm,
                sched,
                block,
                warp,
                pc,
                active,
                slots,
            } => {
                let tid = self.warp_track(sm, block, warp)?;
                self.out
                    .event(&json!({"ph": "X", "name": self.text(pc), "cat": "issue",
                    "pid": sm, "tid": tid, "ts": ts, "dur": self.time(slots.into()),
                    "args": {"pc": pc, "sched": sched, "active_lanes": active.count_ones(),
                    "cycle": cycle, "cycles": slots}}))?;
            }
            Event::Stall {
                cycle,
                sm,
                block,
                warp,
                pc,
                reason,
                cycles,
            } => {
                let tid = self.track(sm, block, 2 + 2 * u64::from(warp), || {
                    format!("block {block} warp {warp} stalls")
                })?;
                self.out.event(
                    &json!({"ph": "X", "name": reason.name(), "cat": "stall", "pid": sm,
                    "tid": tid, "ts": ts, "dur": self.time(cycles),
                    "args": {"pc": pc, "cycle": cycle, "cycles": cycles}}),
                )?;
            }
            Event::SharedAccess {
                cycle,
                sm,
                block,
                warp,
                pc,
                kind,
                wavefronts,
                conflicts,
                ..
            } => {
                let tid = self.warp_track(sm, block, warp)?;
                let name = match kind {
                    AccessKind::Load => "shared load",
                    AccessKind::Store => "shared store",
                    AccessKind::Atomic => "shared atomic",
                };
                self.out
                    .event(&json!({"ph": "i", "s": "t", "name": name, "cat": "smem",
                    "pid": sm, "tid": tid, "ts": ts,
                    "args": {"pc": pc, "wavefronts": wavefronts, "bank_conflicts": conflicts,
                    "cycle": cycle}}))?;
            }
            Event::GlobalRequest {
                cycle,
                sm,
                block,
                warp,
                pc,
                is_store,
                sectors,
            } => {
                let tid = self.warp_track(sm, block, warp)?;
                let name = if is_store {
                    "global store"
                } else {
                    "global load"
                };
                self.out
                    .event(&json!({"ph": "i", "s": "t", "name": name, "cat": "gmem",
                    "pid": sm, "tid": tid, "ts": ts,
                    "args": {"pc": pc, "sectors": sectors, "cycle": cycle}}))?;
            }
            Event::BarrierArrive {
                cycle,
                sm,
                block,
                warp,
            } => {
                let tid = self.warp_track(sm, block, warp)?;
                self.out
                    .event(&json!({"ph": "i", "s": "t", "name": "barrier arrive",
                    "cat": "barrier", "pid": sm, "tid": tid, "ts": ts, "args": {"cycle": cycle}}))?;
            }
            Event::BarrierRelease { cycle, sm, block } => {
                let tid = self.track(sm, block, 0, || format!("block {block}"))?;
                self.out
                    .event(&json!({"ph": "i", "s": "t", "name": "barrier release",
                    "cat": "barrier", "pid": sm, "tid": tid, "ts": ts, "args": {"cycle": cycle}}))?;
            }
            Event::RegWrite { .. } => {}
            Event::Counters { sm, sample, .. } => {
                self.name_sm(sm)?;
                // Counter args are the counters' values (each arg is a
                // series), so no cycle here.
                let c = |name: &str, key: &str, v: u64| json!({"ph": "C", "name": name, "pid": sm, "ts": ts, "args": {key: v}});
                self.out.event(&c(
                    "smem bank conflicts",
                    "conflicts",
                    sample.smem_bank_conflicts,
                ))?;
                self.out
                    .event(&c("smem wavefronts", "wavefronts", sample.smem_wavefronts))?;
                self.out
                    .event(&c("inst issued", "instructions", sample.inst_issued))?;
                self.out
                    .event(&c("gmem sectors", "sectors", sample.gmem_sectors))?;
                let stalls: BTreeMap<&str, u64> = StallReason::ALL
                    .iter()
                    .map(|r| {
                        (
                            r.name(),
                            sample
                                .stall_warp_cycles
                                .get(r.index())
                                .copied()
                                .unwrap_or(0),
                        )
                    })
                    .collect();
                self.out
                    .event(&json!({"ph": "C", "name": "stall warp-cycles", "pid": sm,
                    "ts": ts, "args": stalls}))?;
            }
        }
        Ok(())
    }

    fn text(&self, pc: u32) -> String {
        self.kernel
            .and_then(|k| self.texts.get(k))
            .and_then(|t| t.get(pc as usize))
            .filter(|s| !s.is_empty())
            .cloned()
            .unwrap_or_else(|| format!("pc {pc}"))
    }

    fn name_sm(&mut self, sm: u32) -> Result<(), TraceError> {
        // A set, not a flag per SM number: a corrupt trace's SM 4294967295
        // must not cost a 4 GB table (found by the trace fuzz target).
        if !self.named_sms.insert(sm) {
            return Ok(());
        }
        self.out
            .event(&json!({"ph": "M", "name": "process_name", "pid": sm,
            "args": {"name": format!("SM {sm}")}}))?;
        self.out
            .event(&json!({"ph": "M", "name": "process_sort_index", "pid": sm,
            "args": {"sort_index": sm}}))
    }

    /// The tid of track `k` of `block` on `sm`, naming it the first time.
    fn track(
        &mut self,
        sm: u32,
        block: u32,
        k: u64,
        name: impl FnOnce() -> String,
    ) -> Result<u64, TraceError> {
        self.name_sm(sm)?;
        let tid = u64::from(block) * TID_PER_BLOCK + k;
        if self.named_tracks.insert((sm, tid)) {
            self.out.event(
                &json!({"ph": "M", "name": "thread_name", "pid": sm, "tid": tid,
                "args": {"name": name()}}),
            )?;
            self.out
                .event(&json!({"ph": "M", "name": "thread_sort_index", "pid": sm,
                "tid": tid, "args": {"sort_index": tid}}))?;
        }
        Ok(tid)
    }

    fn warp_track(&mut self, sm: u32, block: u32, warp: u32) -> Result<u64, TraceError> {
        self.track(sm, block, 1 + 2 * u64::from(warp), || {
            format!("block {block} warp {warp}")
        })
    }
}

/// Writes `{"traceEvents":[e1,e2,...],"displayTimeUnit":"ns","otherData":{...}}`
/// incrementally.
struct JsonOut<W: Write> {
    out: W,
    count: u64,
}

impl<W: Write> JsonOut<W> {
    fn new(mut out: W) -> Result<Self, TraceError> {
        out.write_all(b"{\"traceEvents\":[\n")?;
        Ok(JsonOut { out, count: 0 })
    }

    fn event(&mut self, v: &Value) -> Result<(), TraceError> {
        if self.count > 0 {
            self.out.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut self.out, v).map_err(std::io::Error::from)?;
        self.count += 1;
        Ok(())
    }

    /// Closes the array and adds `otherData` (what the units are).
    fn finish(mut self, other: &Value) -> Result<(), TraceError> {
        self.out
            .write_all(b"\n],\"displayTimeUnit\":\"ns\",\"otherData\":")?;
        serde_json::to_writer(&mut self.out, other).map_err(std::io::Error::from)?;
        self.out.write_all(b"}\n")?;
        self.out.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;
    use crate::{CounterSample, KernelSource, TraceHeader, TraceLevel, TraceOptions, TraceWriter};

    fn trace() -> Vec<u8> {
        trace_at(Some(2000))
    }

    /// The test trace, its machine clocked at `mhz` if given.
    fn trace_at(mhz: Option<u32>) -> Vec<u8> {
        let mut h = TraceHeader::new(TraceOptions {
            level: TraceLevel::Full,
            ..Default::default()
        });
        if let Some(mhz) = mhz {
            h.config.push(("clock_mhz".to_string(), mhz.into()));
        }
        h.kernels.push(KernelSource::from_text(
            "bs",
            "block0:\n  ld.shared r0, [r1]\n  exit\n",
        ));
        let mut w = TraceWriter::new(Vec::new(), &h).unwrap();
        let events = [
            Event::KernelLaunch {
                cycle: 0,
                launch: 0,
                kernel: 0,
                grid: [1; 3],
                block: [8, 1, 1],
                label: "pass 1: merge 8 -> 16".to_string(),
            },
            Event::BlockStart {
                cycle: 0,
                sm: 2,
                block: 0,
            },
            Event::Stall {
                cycle: 1,
                sm: 2,
                block: 0,
                warp: 1,
                pc: 0,
                reason: StallReason::Barrier,
                cycles: 2,
            },
            Event::Issue {
                cycle: 3,
                sm: 2,
                sched: 0,
                block: 0,
                warp: 1,
                pc: 0,
                active: 0xff,
                slots: 1,
            },
            Event::SharedAccess {
                cycle: 4,
                sm: 2,
                block: 0,
                warp: 1,
                pc: 0,
                kind: AccessKind::Load,
                wavefronts: 3,
                conflicts: 2,
                words_per_bank: vec![3, 0, 0, 0],
                bytes: 4,
                active: 0,
                addrs: Vec::new(),
            },
            Event::Stall {
                cycle: 4,
                sm: 2,
                block: 0,
                warp: 1,
                pc: 1,
                reason: StallReason::ShortScoreboard,
                cycles: 5,
            },
            Event::Counters {
                cycle: 8,
                sm: 2,
                sample: CounterSample {
                    smem_bank_conflicts: 2,
                    stall_warp_cycles: vec![0, 4],
                    ..Default::default()
                },
            },
            Event::BlockEnd {
                cycle: 9,
                sm: 2,
                block: 0,
            },
            Event::KernelEnd {
                cycle: 10,
                launch: 0,
            },
        ];
        for e in &events {
            w.record(e).unwrap();
        }
        w.finish().unwrap()
    }

    /// The test trace exported with `opts`: (its events, `otherData`).
    fn export_with(opts: &ExportOptions) -> (Vec<Value>, Value) {
        let mut r = TraceReader::new(Cursor::new(trace())).unwrap();
        let mut out = Vec::new();
        let s = export_perfetto_with(&mut r, &mut out, opts).unwrap();
        assert_eq!(s.events_in, 9);
        let v: Value = serde_json::from_slice(&out).unwrap();
        let events = v["traceEvents"].as_array().unwrap().clone();
        assert_eq!(events.len() as u64, s.events_out);
        (events, v["otherData"].clone())
    }

    /// The test trace exported in cycles.
    fn export() -> Vec<Value> {
        let opts = ExportOptions {
            time: TimeUnit::Cycles,
            ..ExportOptions::default()
        };
        export_with(&opts).0
    }

    #[test]
    fn time_is_at_the_machine_clock_with_cycles_in_args() {
        let (ev, other) = export_with(&ExportOptions::default());
        // 2000 MHz: a cycle is 0.5 ns, 0.0005 us.
        let issue = find(&ev, "X", "ld.shared r0, [r1]");
        assert_eq!(issue[0]["ts"].as_f64(), Some(0.0015));
        assert_eq!(issue[0]["args"]["cycle"], 3);
        let bar = find(&ev, "X", "barrier");
        assert_eq!(bar[0]["dur"].as_f64(), Some(0.001));
        assert_eq!(bar[0]["args"]["cycles"], 2);
        assert_eq!(other["unit"], "ns");
        assert!(
            other["time"].as_str().unwrap().contains("2000 MHz"),
            "{other}"
        );
        let (_, other) = export_with(&ExportOptions {
            time: TimeUnit::Cycles,
            ..ExportOptions::default()
        });
        assert_eq!(other["unit"], "cycles");
    }

    #[test]
    fn time_without_a_clock_asks_for_cycles() {
        let mut r = TraceReader::new(Cursor::new(trace_at(None))).unwrap();
        let err = export_perfetto(&mut r, Vec::new()).unwrap_err();
        assert!(err.to_string().contains("--time cycles"), "{err}");
    }

    #[test]
    fn filters_keep_the_chosen_sms_and_blocks_and_the_launch_slice() {
        let only = |sms, blocks| {
            export_with(&ExportOptions {
                sms,
                blocks,
                ..ExportOptions::default()
            })
            .0
        };
        let kept = |ev: &[Value]| ev.iter().filter(|e| e["ph"] != "M").count();
        let all = only(None, None);
        let sm3 = only(Some((3, 3)), None);
        // Only the launch's slice is left.
        assert_eq!(kept(&sm3), 1, "{sm3:?}");
        assert_eq!(find(&sm3, "X", "pass 1: merge 8 -> 16").len(), 1);
        assert_eq!(kept(&only(Some((0, 2)), None)), kept(&all));
        // Block 1: its SM's counter samples (5 series) and the launch.
        assert_eq!(kept(&only(None, Some((1, 9)))), 1 + 5);
        let mut r = TraceReader::new(Cursor::new(trace())).unwrap();
        let opts = ExportOptions {
            launches: Some((1, 1)),
            ..ExportOptions::default()
        };
        let s = export_perfetto_with(&mut r, Vec::new(), &opts).unwrap();
        assert_eq!(s.events_in, 0, "no launch 1: nothing read");
    }

    #[test]
    fn the_estimate_of_a_small_trace_is_its_size() {
        let mut r = TraceReader::new(Cursor::new(trace())).unwrap();
        let opts = ExportOptions::default();
        let est = estimate_perfetto(&mut r, &opts).unwrap();
        let mut out = Vec::new();
        export_perfetto_with(&mut r, &mut out, &opts).unwrap();
        assert_eq!(est.events_in, 9);
        assert_eq!(est.bytes, out.len() as u64);
    }

    fn find<'a>(events: &'a [Value], ph: &str, name: &str) -> Vec<&'a Value> {
        events
            .iter()
            .filter(|e| e["ph"] == ph && e["name"] == name)
            .collect()
    }

    #[test]
    fn issues_are_named_by_their_ir_text_on_the_warp_track() {
        let ev = export();
        let issue = find(&ev, "X", "ld.shared r0, [r1]");
        assert_eq!(issue.len(), 1);
        assert_eq!(issue[0]["pid"], 2);
        assert_eq!(issue[0]["tid"], 3);
        assert_eq!(issue[0]["ts"], 3);
        let names = find(&ev, "M", "thread_name");
        assert!(
            names
                .iter()
                .any(|n| n["tid"] == 3 && n["args"]["name"] == "block 0 warp 1")
        );
    }

    #[test]
    fn stall_charges_become_slices_on_the_warps_stall_track() {
        let ev = export();
        let bar = find(&ev, "X", "barrier");
        assert_eq!(
            (bar[0]["ts"].as_u64(), bar[0]["dur"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(bar[0]["tid"], 4);
        let sb = find(&ev, "X", "short_scoreboard");
        assert_eq!(
            (sb[0]["ts"].as_u64(), sb[0]["dur"].as_u64()),
            (Some(4), Some(5))
        );
        assert!(find(&ev, "X", "selected").is_empty());
    }

    #[test]
    fn counters_become_counter_tracks_per_sm() {
        let ev = export();
        let c = find(&ev, "C", "smem bank conflicts");
        assert_eq!(c[0]["args"]["conflicts"], 2);
        assert_eq!(c[0]["pid"], 2);
        let s = find(&ev, "C", "stall warp-cycles");
        assert_eq!(s[0]["args"]["short_scoreboard"], 4);
        assert_eq!(s[0]["args"]["barrier"], 0);
        // The launch's slice is named by its label; its kernel is an arg.
        let k = find(&ev, "X", "pass 1: merge 8 -> 16");
        assert_eq!(
            (k[0]["pid"].as_u64(), k[0]["dur"].as_u64()),
            (Some(KERNELS_PID), Some(10))
        );
        assert_eq!(k[0]["args"]["kernel"], "bs");
        let smem = find(&ev, "i", "shared load");
        assert_eq!(smem[0]["args"]["bank_conflicts"], 2);
    }

    #[test]
    fn launches_that_each_count_from_zero_are_laid_end_to_end() {
        let mut h = TraceHeader::new(TraceOptions::default());
        h.kernels.push(KernelSource::from_text("a", "exit\n"));
        let mut w = TraceWriter::new(Vec::new(), &h).unwrap();
        for launch in 0..2 {
            let (grid, block) = ([1; 3], [8, 1, 1]);
            w.record(&Event::KernelLaunch {
                cycle: 0,
                launch,
                kernel: 0,
                grid,
                block,
                label: String::new(),
            })
            .unwrap();
            w.record(&Event::KernelEnd { cycle: 100, launch }).unwrap();
        }
        let mut r = TraceReader::new(Cursor::new(w.finish().unwrap())).unwrap();
        let mut out = Vec::new();
        let cycles = ExportOptions {
            time: TimeUnit::Cycles,
            ..ExportOptions::default()
        };
        export_perfetto_with(&mut r, &mut out, &cycles).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        let kernels: Vec<&Value> = v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == "kernel")
            .collect();
        let starts: Vec<u64> = kernels.iter().map(|e| e["ts"].as_u64().unwrap()).collect();
        assert_eq!(starts, [0, 100]);
        // Launches without a label are named by their kernel.
        assert!(kernels.iter().all(|e| e["name"] == "a"));
    }

    #[test]
    fn a_huge_sm_number_costs_no_table() {
        // Found by the trace fuzz target: naming SM 4294967295 grew a flag
        // per SM number up to it (4 GB).
        let mut h = TraceHeader::new(TraceOptions::default());
        h.kernels.push(KernelSource::from_text("a", "exit\n"));
        let mut w = TraceWriter::new(Vec::new(), &h).unwrap();
        w.record(&Event::BlockStart {
            cycle: 0,
            sm: u32::MAX,
            block: 0,
        })
        .unwrap();
        let mut r = TraceReader::new(Cursor::new(w.finish().unwrap())).unwrap();
        let mut out = Vec::new();
        let cycles = ExportOptions {
            time: TimeUnit::Cycles,
            ..ExportOptions::default()
        };
        export_perfetto_with(&mut r, &mut out, &cycles).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert!(
            v["traceEvents"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["pid"] == u32::MAX)
        );
    }
}
