//! The streaming trace writer.
//!
//! Memory stays bounded: events are encoded into one chunk buffer of about
//! [`CHUNK_TARGET_BYTES`], which is compressed and written when full (and at
//! every launch boundary); only the small chunk index is kept until
//! [`TraceWriter::finish`] writes it at the end.

use std::io::Write;

use crate::codec::{self, Encoder};
use crate::format::{
    CHUNK_TARGET_BYTES, ChunkInfo, END_MAGIC, FORMAT_VERSION, Footer, LaunchInfo, MAGIC,
};
use crate::{Event, KernelSource, TraceError, TraceHeader, TraceOptions};

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
    enc: Encoder,
    raw: Vec<u8>,
    chunk_events: u32,
    chunk_first: u64,
    chunk_last: u64,
    open_launch: Option<u32>,
    chunk_blocks: Option<(u32, u32)>,
    /// Blocks with detail in the open launch.
    launch_detail: std::collections::BTreeSet<u32>,
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
            enc: Encoder::default(),
            raw: Vec::with_capacity(CHUNK_TARGET_BYTES + 4096),
            chunk_events: 0,
            chunk_first: u64::MAX,
            chunk_last: 0,
            open_launch: None,
            chunk_blocks: None,
            launch_detail: std::collections::BTreeSet::new(),
            footer: Footer::default(),
            failed: None,
        })
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
            } => self.begin_launch(*cycle, *launch, *kernel, (*grid, *block), label)?,
            Event::KernelEnd { launch, .. } if Some(*launch) != self.open_launch => {
                return Err(TraceError::InvalidEvent(format!(
                    "end of launch {launch}, but the open launch is {:?}",
                    self.open_launch
                )));
            }
            _ => {}
        }
        self.note_blocks(e);
        let cycle = e.cycle();
        self.enc.encode(e, &mut self.raw);
        self.chunk_events += 1;
        self.chunk_first = self.chunk_first.min(cycle);
        self.chunk_last = self.chunk_last.max(cycle);
        self.footer.events += 1;
        if let Event::KernelEnd { cycle, .. } = *e {
            if let Some(l) = self.footer.launches.last_mut() {
                l.end_cycle = Some(cycle);
            }
            self.close_launch_detail();
            self.flush_chunk()?;
            self.open_launch = None;
        } else if self.raw.len() >= CHUNK_TARGET_BYTES {
            self.flush_chunk()?;
        }
        Ok(())
    }

    /// Widens the chunk's block range and the launch's detail set.
    fn note_blocks(&mut self, e: &Event) {
        let block = match *e {
            Event::BlockStart { block, .. } | Event::BlockEnd { block, .. }
                if self.wants_detail(block) =>
            {
                Some(block)
            }
            _ => e.detail_block().or(e.warp().map(|w| w.0)),
        };
        if let Some(b) = block {
            let (lo, hi) = self.chunk_blocks.unwrap_or((b, b));
            self.chunk_blocks = Some((lo.min(b), hi.max(b)));
        }
        if let Some(b) = e.detail_block() {
            self.launch_detail.insert(b);
        }
        if let (Event::Counters { sample, .. }, Some(_)) = (e, self.open_launch)
            && let Some(l) = self.footer.launches.last_mut()
        {
            l.counters.add(sample);
        }
    }

    /// Stores the open launch's detail blocks as ranges.
    fn close_launch_detail(&mut self) {
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for &b in &self.launch_detail {
            match ranges.last_mut() {
                Some(r) if r.1 + 1 == b => r.1 = b,
                _ => ranges.push((b, b)),
            }
        }
        self.launch_detail.clear();
        if let Some(l) = self.footer.launches.last_mut() {
            l.detail_blocks = ranges;
        }
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
        self.flush_chunk()?;
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
        });
        self.open_launch = Some(launch);
        Ok(())
    }

    fn flush_chunk(&mut self) -> Result<(), TraceError> {
        if self.chunk_events == 0 {
            return Ok(());
        }
        let compressed = lz4_flex::block::compress(&self.raw);
        let info = ChunkInfo {
            offset: self.written,
            compressed_len: compressed.len() as u32,
            raw_len: self.raw.len() as u32,
            events: self.chunk_events,
            first_cycle: self.chunk_first,
            last_cycle: self.chunk_last,
            launch: self.open_launch,
            blocks: self.chunk_blocks.take(),
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
        self.raw.clear();
        self.enc.reset();
        self.chunk_events = 0;
        self.chunk_first = u64::MAX;
        self.chunk_last = 0;
        Ok(())
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

    /// Writes the last chunk, the index and the trailer, flushes, and
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
        self.flush_chunk()?;
        if self.open_launch.is_some() {
            // A run that stopped inside a launch: keep what it recorded.
            self.close_launch_detail();
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
