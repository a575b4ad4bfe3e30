//! Export to the Chrome trace-event JSON that Perfetto (ui.perfetto.dev)
//! and `chrome://tracing` open.
//!
//! The mapping: one process per SM (`pid` = SM number) plus one process
//! for the kernel launches (`pid` = [`KERNELS_PID`]); `ts` = cycle (the
//! viewers label it microseconds: read "µs" as "cycles"). Inside an SM's
//! process, each block has a lifetime track and each warp two tracks:
//! the instructions it issued (1-cycle slices named by their IR text) and
//! its stall reasons (one slice per stretch of one reason). Thread ids are
//! `block * 1_000_000 + k` with `k = 0` for the block, `1 + 2*warp` for the
//! warp's issues and `2 + 2*warp` for its stalls; every track is named.
//! Counter tracks per SM come from the counter samples: bank conflicts,
//! wavefronts, instructions issued, global sectors, and the warp-cycles of
//! each stall reason (stacked). Shared and global accesses and barriers are
//! instant events on the warp's issue track.
//!
//! The JSON is written as it is produced, event by event, so exporting a
//! large trace needs memory only for the warps currently resident.

use std::collections::{BTreeMap, HashMap, HashSet};
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

/// Writes `reader`'s events as Chrome trace JSON to `out`.
pub fn export_perfetto<R: Read + Seek, W: Write>(
    reader: &mut TraceReader<R>,
    out: W,
) -> Result<ExportSummary, TraceError> {
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
    let mut ex = Exporter {
        out: JsonOut::new(out)?,
        texts,
        names,
        kernel: None,
        label: String::new(),
        launch_start: 0,
        open_stalls: HashMap::new(),
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
    for e in reader.events() {
        ex.event(e?)?;
    }
    ex.close_all_stalls()?;
    ex.summary.events_out = ex.out.count;
    let summary = ex.summary.clone();
    ex.out.finish()?;
    Ok(summary)
}

struct Exporter<W: Write> {
    out: JsonOut<W>,
    texts: Vec<Vec<String>>,
    names: Vec<String>,
    kernel: Option<usize>,
    /// The open launch's label (the slice name when not empty).
    label: String,
    launch_start: u64,
    /// (sm, block, warp) -> (reason, since cycle)
    open_stalls: HashMap<(u32, u32, u32), (StallReason, u64)>,
    named_sms: HashSet<u32>,
    named_tracks: HashSet<(u32, u64)>,
    summary: ExportSummary,
    last_cycle: u64,
    /// Added to every cycle of the current launch.
    offset: u64,
}

impl<W: Write> Exporter<W> {
    fn event(&mut self, mut e: Event) -> Result<(), TraceError> {
        self.summary.events_in += 1;
        if let Event::KernelLaunch { cycle, .. } = e
            && cycle.saturating_add(self.offset) < self.last_cycle
        {
            self.offset = self.last_cycle - cycle;
        }
        *e.cycle_mut() = e.cycle().saturating_add(self.offset);
        self.last_cycle = self.last_cycle.max(e.cycle());
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
                self.out
                    .event(&json!({"ph": "X", "name": name, "cat": "kernel",
                    "pid": KERNELS_PID, "tid": 0, "ts": self.launch_start,
                    "dur": cycle - self.launch_start.min(cycle),
                    "args": {"launch": launch, "kernel": kernel}}))?;
                self.kernel = None;
            }
            Event::BlockStart { cycle, sm, block } => {
                let tid = self.track(sm, block, 0, || format!("block {block}"))?;
                self.out
                    .event(&json!({"ph": "B", "name": format!("block {block}"),
                    "cat": "block", "pid": sm, "tid": tid, "ts": cycle}))?;
            }
            Event::BlockEnd { cycle, sm, block } => {
                let ended: Vec<_> = self
                    .open_stalls
                    .keys()
                    .filter(|k| k.0 == sm && k.1 == block)
                    .copied()
                    .collect();
                for key in ended {
                    self.close_stall(key, cycle)?;
                }
                let tid = self.track(sm, block, 0, || format!("block {block}"))?;
                self.out
                    .event(&json!({"ph": "E", "pid": sm, "tid": tid, "ts": cycle}))?;
            }
            Event::Issue {
                cycle,
                sm,
                sched,
                block,
                warp,
                pc,
                active,
            } => {
                let tid = self.warp_track(sm, block, warp)?;
                self.out
                    .event(&json!({"ph": "X", "name": self.text(pc), "cat": "issue",
                    "pid": sm, "tid": tid, "ts": cycle, "dur": 1,
                    "args": {"pc": pc, "sched": sched, "active_lanes": active.count_ones()}}))?;
            }
            Event::Stall {
                cycle,
                sm,
                block,
                warp,
                reason,
            } => {
                self.close_stall((sm, block, warp), cycle)?;
                self.open_stalls.insert((sm, block, warp), (reason, cycle));
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
                    "pid": sm, "tid": tid, "ts": cycle,
                    "args": {"pc": pc, "wavefronts": wavefronts, "bank_conflicts": conflicts}}))?;
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
                    "pid": sm, "tid": tid, "ts": cycle,
                    "args": {"pc": pc, "sectors": sectors}}))?;
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
                    "cat": "barrier", "pid": sm, "tid": tid, "ts": cycle}))?;
            }
            Event::BarrierRelease { cycle, sm, block } => {
                let tid = self.track(sm, block, 0, || format!("block {block}"))?;
                self.out
                    .event(&json!({"ph": "i", "s": "t", "name": "barrier release",
                    "cat": "barrier", "pid": sm, "tid": tid, "ts": cycle}))?;
            }
            Event::RegWrite { .. } => {}
            Event::Counters { cycle, sm, sample } => {
                self.name_sm(sm)?;
                let c = |name: &str, key: &str, v: u64| json!({"ph": "C", "name": name, "pid": sm, "ts": cycle, "args": {key: v}});
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
                    "ts": cycle, "args": stalls}))?;
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

    fn close_stall(&mut self, key: (u32, u32, u32), now: u64) -> Result<(), TraceError> {
        let Some((reason, since)) = self.open_stalls.remove(&key) else {
            return Ok(());
        };
        let (sm, block, warp) = key;
        if now <= since || reason == StallReason::Selected {
            return Ok(());
        }
        let tid = self.track(sm, block, 2 + 2 * u64::from(warp), || {
            format!("block {block} warp {warp} stalls")
        })?;
        self.out.event(
            &json!({"ph": "X", "name": reason.name(), "cat": "stall", "pid": sm,
            "tid": tid, "ts": since, "dur": now - since}),
        )
    }

    fn close_all_stalls(&mut self) -> Result<(), TraceError> {
        let mut keys: Vec<_> = self.open_stalls.keys().copied().collect();
        keys.sort_unstable();
        for key in keys {
            self.close_stall(key, self.last_cycle)?;
        }
        Ok(())
    }
}

/// Writes `{"traceEvents":[e1,e2,...],"displayTimeUnit":"ns"}` incrementally.
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

    fn finish(mut self) -> Result<(), TraceError> {
        self.out.write_all(b"\n],\"displayTimeUnit\":\"ns\"}\n")?;
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
        let mut h = TraceHeader::new(TraceOptions {
            level: TraceLevel::Full,
            ..Default::default()
        });
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
                reason: StallReason::Barrier,
            },
            Event::Issue {
                cycle: 3,
                sm: 2,
                sched: 0,
                block: 0,
                warp: 1,
                pc: 0,
                active: 0xff,
            },
            Event::Stall {
                cycle: 3,
                sm: 2,
                block: 0,
                warp: 1,
                reason: StallReason::Selected,
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
                reason: StallReason::ShortScoreboard,
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

    fn export() -> Vec<Value> {
        let mut r = TraceReader::new(Cursor::new(trace())).unwrap();
        let mut out = Vec::new();
        let s = export_perfetto(&mut r, &mut out).unwrap();
        assert_eq!(s.events_in, 10);
        let v: Value = serde_json::from_slice(&out).unwrap();
        let events = v["traceEvents"].as_array().unwrap().clone();
        assert_eq!(events.len() as u64, s.events_out);
        events
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
    fn stalls_become_slices_that_end_at_the_next_change() {
        let ev = export();
        let bar = find(&ev, "X", "barrier");
        assert_eq!(
            (bar[0]["ts"].as_u64(), bar[0]["dur"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(bar[0]["tid"], 4);
        // The short-scoreboard stretch is closed by the block's end.
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
        export_perfetto(&mut r, &mut out).unwrap();
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
        export_perfetto(&mut r, &mut out).unwrap();
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
