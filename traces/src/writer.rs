//! The streaming trace writer.
//!
//! Events go to one of several streams, each encoded into its own chunk
//! buffer: every per-block event (issues, stalls, memory accesses,
//! barriers, register writes) to its block's stream, everything else (the
//! launch and its end, block starts and ends, counter samples) to the
//! launch-wide stream. A stream becomes a chunk when it holds about
//! [`CHUNK_TARGET_BYTES`], when its block ends, and at the launch's end. So
//! each chunk holds one block's events or none, and a reader after one
//! block decodes only that block's chunks and the launch-wide ones, however
//! many blocks ran at once (with one time-ordered stream, a launch whose
//! blocks are all resident put every block in every chunk). Memory stays
//! bounded: the block streams together hold at most [`BLOCK_BUFFER_BYTES`]
//! (the largest is written when they would hold more), and only the small
//! chunk index is kept until [`TraceWriter::finish`] writes it at the end.

use std::collections::BTreeMap;
use std::io::Write;

use crate::codec::{self, Encoder};
use crate::format::{
    BLOCK_BUFFER_BYTES, CHUNK_TARGET_BYTES, ChunkInfo, ConflictMark, END_MAGIC, FORMAT_VERSION,
    Footer, LaunchInfo, MAGIC, PcTotals,
};
use crate::{Event, KernelSource, StallReason, TraceError, TraceHeader, TraceOptions};

/// One stream's events not yet written: the chunk being filled.
#[derive(Debug)]
struct Stream {
    enc: Encoder,
    raw: Vec<u8>,
    events: u32,
    first: u64,
    last: u64,
}

impl Stream {
    fn new(capacity: usize) -> Self {
        Stream {
            enc: Encoder::default(),
            raw: Vec::with_capacity(capacity),
            events: 0,
            first: u64::MAX,
            last: 0,
        }
    }

    fn push(&mut self, e: &Event) {
        let cycle = e.cycle();
        self.enc.encode(e, &mut self.raw);
        self.events += 1;
        self.first = self.first.min(cycle);
        self.last = self.last.max(cycle);
    }
}

/// One instruction's totals while its launch is open.
#[derive(Clone, Debug, Default)]
struct PcAcc {
    slots: u64,
    stalls: [u64; StallReason::COUNT],
    wavefronts: u64,
    conflicts: u64,
    requests: u64,
    sectors: u64,
}

impl PcAcc {
    /// The index's record, if anything was counted.
    fn totals(&self, pc: u32) -> Option<PcTotals> {
        let stalls: Vec<(u8, u64)> = self
            .stalls
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &c)| (i as u8, c))
            .collect();
        let t = PcTotals {
            pc,
            slots: self.slots,
            stalls,
            wavefronts: self.wavefronts,
            conflicts: self.conflicts,
            requests: self.requests,
            sectors: self.sectors,
        };
        (t != PcTotals {
            pc,
            ..PcTotals::default()
        })
        .then_some(t)
    }
}

/// Writes a trace to `W` (a `BufWriter<File>`, a `Vec<u8>`, ...).
///
/// The writer filters what it is given by the header's level and focus, so
/// a simulator may hand it every event; asking [`TraceWriter::wants_detail`]
/// and [`TraceWriter::wants_registers`] first only saves building events
/// that would be dropped.
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    out: Option<W>,
    options: TraceOptions,
    kernel_count: usize,
    written: u64,
    /// The launch-wide stream.
    machine: Stream,
    /// Each block's stream, while it has unwritten events.
    blocks: BTreeMap<u32, Stream>,
    /// Bytes the block streams hold together.
    buffered: usize,
    /// The most they may hold ([`BLOCK_BUFFER_BYTES`]; tests lower it).
    buffer_limit: usize,
    open_launch: Option<u32>,
    /// Blocks with detail in the open launch.
    launch_detail: std::collections::BTreeSet<u32>,
    /// The open launch's worst bank conflict so far.
    worst: Option<ConflictMark>,
    /// The open launch's totals per pc.
    lines: Vec<PcAcc>,
    footer: Footer,
    failed: Option<String>,
}

impl<W: Write> TraceWriter<W> {
    /// Starts a trace: writes the prefix and the header.
    pub fn new(mut out: W, header: &TraceHeader) -> Result<Self, TraceError> {
        if header.options.counter_interval_cycles == 0 {
            return Err(TraceError::InvalidEvent(
                "counter interval of 0 cycles".to_string(),
            ));
        }
        let json =
            serde_json::to_vec(header).map_err(|e| TraceError::InvalidEvent(e.to_string()))?;
        let len = u32::try_from(json.len())
            .map_err(|_| TraceError::InvalidEvent("header over 4 GiB".to_string()))?;
        out.write_all(MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(&crc32fast::hash(&json).to_le_bytes())?;
        out.write_all(&json)?;
        Ok(TraceWriter {
            out: Some(out),
            options: header.options,
            kernel_count: header.kernels.len(),
            written: crate::format::PREFIX_LEN + u64::from(len),
            machine: Stream::new(CHUNK_TARGET_BYTES + 4096),
            blocks: BTreeMap::new(),
            buffered: 0,
            buffer_limit: BLOCK_BUFFER_BYTES,
            open_launch: None,
            launch_detail: std::collections::BTreeSet::new(),
            worst: None,
            lines: Vec::new(),
            footer: Footer::default(),
            failed: None,
        })
    }

    /// Lowers the bytes the block streams may hold together (tests).
    #[cfg(test)]
    pub(crate) fn limit_block_buffers(&mut self, bytes: usize) {
        self.buffer_limit = bytes;
    }

    /// The level, focus and counter interval this trace records with.
    pub fn options(&self) -> &TraceOptions {
        &self.options
    }

    /// Whether issue, stall, memory and barrier events of `block` are kept.
    pub fn wants_detail(&self, block: u32) -> bool {
        self.options.wants_detail(block)
    }

    /// Whether register writes of `warp` of `block` are kept.
    pub fn wants_registers(&self, block: u32, warp: u32) -> bool {
        self.options.wants_registers(block, warp)
    }

    /// Adds a kernel not in the header; returns the index launches use.
    pub fn add_kernel(&mut self, kernel: KernelSource) -> u32 {
        self.footer.late_kernels.push(kernel);
        self.kernel_count += 1;
        (self.kernel_count - 1) as u32
    }

    /// Records one event (or drops it if the level or focus excludes it).
    ///
    /// Fails on an event the format cannot hold (a launch out of order, an
    /// unknown kernel, a warp over 64 lanes) and on i/o errors; after an
    /// i/o error every later call fails too.
    pub fn record(&mut self, e: &Event) -> Result<(), TraceError> {
        if let Some(msg) = &self.failed {
            return Err(TraceError::Poisoned(msg.clone()));
        }
        if !self.keeps(e) {
            return Ok(());
        }
        codec::validate(e)?;
        match e {
            Event::KernelLaunch {
                cycle,
                launch,
                kernel,
                grid,
                block,
                label,
            } => {
                self.begin_launch(*cycle, *launch, *kernel, (*grid, *block), label)?;
                self.footer.events += 1;
                // The launch event opens the launch's first chunk, alone, so
                // that reading a launch's chunks in order meets it first.
                self.machine.push(e);
                return self.flush_machine();
            }
            Event::KernelEnd { launch, cycle } => {
                if Some(*launch) != self.open_launch {
                    return Err(TraceError::InvalidEvent(format!(
                        "end of launch {launch}, but the open launch is {:?}",
                        self.open_launch
                    )));
                }
                if let Some(l) = self.footer.launches.last_mut() {
                    l.end_cycle = Some(*cycle);
                }
                self.footer.events += 1;
                self.close_launch();
                // Every block's events, then the launch-wide ones ending
                // with this end event: the launch's last chunk.
                self.flush_blocks()?;
                self.machine.push(e);
                self.flush_machine()?;
                self.open_launch = None;
                return Ok(());
            }
            _ => {}
        }
        self.footer.events += 1;
        self.note(e);
        match e.detail_block().or(e.warp().map(|w| w.0)) {
            Some(b) => {
                let s = self
                    .blocks
                    .entry(b)
                    .or_insert_with(|| Stream::new(16 * 1024));
                let before = s.raw.len();
                s.push(e);
                let (after, full) = (s.raw.len(), s.raw.len() >= CHUNK_TARGET_BYTES);
                self.buffered += after - before;
                if full {
                    self.flush_block(b)?;
                } else if self.buffered > self.buffer_limit {
                    self.flush_largest()?;
                }
            }
            None => {
                self.machine.push(e);
                if let Event::BlockEnd { block, .. } = *e {
                    self.flush_block(block)?;
                }
                if self.machine.raw.len() >= CHUNK_TARGET_BYTES {
                    self.flush_machine()?;
                }
            }
        }
        Ok(())
    }

    /// Notes the launch's detail blocks, counters, totals per instruction
    /// and worst bank conflict.
    fn note(&mut self, e: &Event) {
        if let Some(b) = e.detail_block() {
            self.launch_detail.insert(b);
        }
        match (e, self.open_launch) {
            (Event::Counters { sample, .. }, Some(_)) => {
                if let Some(l) = self.footer.launches.last_mut() {
                    l.counters.add(sample);
                }
            }
            (&Event::Issue { pc, slots, .. }, Some(_)) => {
                self.pc_acc(pc).slots += u64::from(slots);
            }
            (
                &Event::Stall {
                    pc, reason, cycles, ..
                },
                Some(_),
            ) => self.pc_acc(pc).stalls[reason.index()] += cycles,
            (&Event::GlobalRequest { pc, sectors, .. }, Some(_)) => {
                let a = self.pc_acc(pc);
                a.requests += 1;
                a.sectors += u64::from(sectors);
            }
            (
                &Event::SharedAccess {
                    cycle,
                    block,
                    warp,
                    pc,
                    wavefronts,
                    conflicts,
                    ..
                },
                Some(_),
            ) => {
                let a = self.pc_acc(pc);
                a.wavefronts += u64::from(wavefronts);
                a.conflicts += u64::from(conflicts);
                if conflicts == 0 {
                    return;
                }
                let mark = ConflictMark {
                    block,
                    warp,
                    cycle,
                    pc,
                    conflicts,
                };
                if self.worst.as_ref().is_none_or(|w| mark.worse_than(w)) {
                    self.worst = Some(mark);
                }
            }
            _ => {}
        }
    }

    /// Stores the open launch's detail blocks as ranges, its worst
    /// conflict and its totals per instruction.
    fn close_launch(&mut self) {
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for &b in &self.launch_detail {
            match ranges.last_mut() {
                Some(r) if r.1 + 1 == b => r.1 = b,
                _ => ranges.push((b, b)),
            }
        }
        self.launch_detail.clear();
        let worst = self.worst.take();
        let lines = std::mem::take(&mut self.lines)
            .into_iter()
            .enumerate()
            .filter_map(|(pc, a)| a.totals(pc as u32))
            .collect();
        if let Some(l) = self.footer.launches.last_mut() {
            l.detail_blocks = ranges;
            l.worst_conflict = worst;
            l.lines = lines;
        }
    }

    /// The open launch's totals of instruction `pc`.
    fn pc_acc(&mut self, pc: u32) -> &mut PcAcc {
        let i = pc as usize;
        if self.lines.len() <= i {
            self.lines.resize(i + 1, PcAcc::default());
        }
        &mut self.lines[i]
    }

    fn keeps(&self, e: &Event) -> bool {
        match *e {
            Event::RegWrite { block, warp, .. } => self.wants_registers(block, warp),
            _ => e.detail_block().is_none_or(|b| self.wants_detail(b)),
        }
    }

    fn begin_launch(
        &mut self,
        cycle: u64,
        launch: u32,
        kernel: u32,
        (grid, block): ([u32; 3], [u32; 3]),
        label: &str,
    ) -> Result<(), TraceError> {
        let expected = self.footer.launches.len();
        if launch as usize != expected || self.open_launch.is_some() {
            return Err(TraceError::InvalidEvent(format!(
                "launch {launch} while expecting launch {expected} (launches are numbered in \
                 order and do not overlap)"
            )));
        }
        if kernel as usize >= self.kernel_count {
            return Err(TraceError::InvalidEvent(format!(
                "launch of kernel {kernel}, but the trace knows {} kernels",
                self.kernel_count
            )));
        }
        // Events recorded between launches keep to themselves.
        self.flush_blocks()?;
        self.flush_machine()?;
        let first = self.footer.chunks.len() as u32;
        self.footer.launches.push(LaunchInfo {
            kernel,
            grid,
            block,
            label: label.to_string(),
            start_cycle: cycle,
            end_cycle: None,
            first_chunk: first,
            end_chunk: first,
            detail_blocks: Vec::new(),
            counters: Default::default(),
            worst_conflict: None,
            lines: Vec::new(),
        });
        self.open_launch = Some(launch);
        Ok(())
    }

    /// Writes the launch-wide stream as a chunk.
    fn flush_machine(&mut self) -> Result<(), TraceError> {
        let s = std::mem::replace(&mut self.machine, Stream::new(0));
        let mut s = self.write_chunk(s, None)?;
        s.raw.clear();
        self.machine = s;
        Ok(())
    }

    /// Writes block `b`'s stream as a chunk, if it has one.
    fn flush_block(&mut self, b: u32) -> Result<(), TraceError> {
        if let Some(s) = self.blocks.remove(&b) {
            self.buffered -= s.raw.len();
            self.write_chunk(s, Some(b))?;
        }
        Ok(())
    }

    /// Writes the block stream holding the most bytes (the lowest block
    /// of equals, so that the file does not depend on anything but the
    /// events).
    fn flush_largest(&mut self) -> Result<(), TraceError> {
        let largest = self
            .blocks
            .iter()
            .max_by_key(|(b, s)| (s.raw.len(), std::cmp::Reverse(**b)))
            .map(|(b, _)| *b);
        match largest {
            Some(b) => self.flush_block(b),
            None => Ok(()),
        }
    }

    /// Writes every block stream, in block order.
    fn flush_blocks(&mut self) -> Result<(), TraceError> {
        while let Some(&b) = self.blocks.keys().next() {
            self.flush_block(b)?;
        }
        Ok(())
    }

    /// Compresses and writes `s` as one chunk (nothing if it is empty);
    /// gives the stream back, reset for a new chunk.
    fn write_chunk(&mut self, mut s: Stream, block: Option<u32>) -> Result<Stream, TraceError> {
        if s.events == 0 {
            return Ok(s);
        }
        let compressed = lz4_flex::block::compress(&s.raw);
        let info = ChunkInfo {
            offset: self.written,
            compressed_len: compressed.len() as u32,
            raw_len: s.raw.len() as u32,
            events: s.events,
            first_cycle: s.first,
            last_cycle: s.last,
            launch: self.open_launch,
            blocks: block.map(|b| (b, b)),
        };
        let mut head = Vec::with_capacity(17);
        head.push(b'C');
        head.extend_from_slice(&info.raw_len.to_le_bytes());
        head.extend_from_slice(&info.compressed_len.to_le_bytes());
        head.extend_from_slice(&info.events.to_le_bytes());
        head.extend_from_slice(&crc32fast::hash(&compressed).to_le_bytes());
        self.write(&head)?;
        self.write(&compressed)?;
        self.footer.chunks.push(info);
        if let (Some(_), Some(l)) = (self.open_launch, self.footer.launches.last_mut()) {
            l.end_chunk = self.footer.chunks.len() as u32;
        }
        s.raw.clear();
        s.enc.reset();
        s.events = 0;
        s.first = u64::MAX;
        s.last = 0;
        Ok(s)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), TraceError> {
        let out = self.out.as_mut().expect("writer used after finish");
        if let Err(e) = out.write_all(bytes) {
            self.failed = Some(e.to_string());
            return Err(e.into());
        }
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Writes the last chunks, the index and the trailer, flushes, and
    /// returns the inner writer.
    pub fn finish(mut self) -> Result<W, TraceError> {
        let result = self.finish_inner();
        // Taken either way, so that `Drop` does not try a second time.
        let out = self.out.take().expect("finish runs once");
        result.map(|()| out)
    }

    fn finish_inner(&mut self) -> Result<(), TraceError> {
        if let Some(msg) = &self.failed {
            return Err(TraceError::Poisoned(msg.clone()));
        }
        self.flush_blocks()?;
        self.flush_machine()?;
        if self.open_launch.is_some() {
            // A run that stopped inside a launch: keep what it recorded.
            self.close_launch();
        }
        let json = serde_json::to_vec(&self.footer)
            .map_err(|e| TraceError::InvalidEvent(e.to_string()))?;
        let offset = self.written;
        let mut head = vec![b'F'];
        head.extend_from_slice(&(json.len() as u32).to_le_bytes());
        head.extend_from_slice(&crc32fast::hash(&json).to_le_bytes());
        self.write(&head)?;
        self.write(&json)?;
        self.write(&offset.to_le_bytes())?;
        self.write(END_MAGIC)?;
        let out = self.out.as_mut().expect("writer used after finish");
        out.flush()?;
        Ok(())
    }
}

impl<W: Write> Drop for TraceWriter<W> {
    /// A writer dropped without [`TraceWriter::finish`] (an early return on
    /// a simulator error, a panic) still finishes the file, best effort, so
    /// the run up to that point can be replayed.
    fn drop(&mut self) {
        if self.out.is_some() && self.failed.is_none() {
            let _ = self.finish_inner();
        }
    }
}
