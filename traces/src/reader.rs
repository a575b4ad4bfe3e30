//! The trace reader: header and index up front, events chunk by chunk.
//!
//! Opening reads only the header and the index at the end of the file, so
//! it takes milliseconds whatever the size; events are decoded one chunk at
//! a time (a chunk is at most [`MAX_CHUNK_BYTES`] decoded). Every length,
//! offset and checksum is checked before it is used, so a truncated, corrupt
//! or newer-version file gives a [`TraceError`], never a panic.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::codec::Decoder;
use crate::format::{
    CHUNK_HEAD_LEN, ChunkInfo, END_MAGIC, FOOTER_HEAD_LEN, FORMAT_VERSION, Footer, LaunchInfo,
    MAGIC, MAX_CHUNK_BYTES, PREFIX_LEN, TRAILER_LEN,
};
use crate::{Event, KernelSource, TraceError, TraceHeader};

/// A trace opened for reading.
#[derive(Debug)]
pub struct TraceReader<R> {
    source: R,
    version: u32,
    header: TraceHeader,
    kernels: Vec<KernelSource>,
    footer: Footer,
}

/// Whether `data` has checksum `expected`. Fuzz builds (`--cfg fuzzing`)
/// take every checksum as right, so the fuzzer reaches the decoders behind
/// them instead of stopping at a CRC it cannot guess.
fn checksum_ok(data: &[u8], expected: u32) -> bool {
    cfg!(fuzzing) || crc32fast::hash(data) == expected
}

impl TraceReader<BufReader<File>> {
    /// Opens the trace file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TraceError> {
        TraceReader::new(BufReader::new(File::open(path)?))
    }
}

impl<R: Read + Seek> TraceReader<R> {
    /// Reads the header and the index of a trace.
    pub fn new(mut source: R) -> Result<Self, TraceError> {
        let file_len = source.seek(SeekFrom::End(0))?;
        source.seek(SeekFrom::Start(0))?;
        let mut prefix = [0u8; PREFIX_LEN as usize];
        let got = read_up_to(&mut source, &mut prefix)?;
        if prefix[..got.min(8)] != MAGIC[..got.min(8)] {
            return Err(TraceError::NotATrace);
        }
        if got < prefix.len() {
            return Err(TraceError::Truncated(
                "the file ends inside the header".to_string(),
            ));
        }
        let version = le_u32(&prefix[8..12]);
        if version > FORMAT_VERSION {
            return Err(damaged_version(&mut source, &prefix, file_len).unwrap_or(
                TraceError::NewerVersion {
                    found: version,
                    supported: FORMAT_VERSION,
                },
            ));
        }
        if version == 0 {
            return Err(TraceError::corrupt("format version 0"));
        }
        let header_len = u64::from(le_u32(&prefix[12..16]));
        if PREFIX_LEN + header_len > file_len {
            return Err(TraceError::Truncated(
                "the file ends inside the header".to_string(),
            ));
        }
        let json = read_exact_vec(&mut source, header_len, "header")?;
        if !checksum_ok(&json, le_u32(&prefix[16..20])) {
            return Err(TraceError::corrupt("header checksum mismatch"));
        }
        let header: TraceHeader = serde_json::from_slice(&json)
            .map_err(|e| TraceError::corrupt(format!("header is not valid: {e}")))?;
        let body_start = PREFIX_LEN + header_len;
        let footer = read_footer(&mut source, body_start, file_len)?;
        let mut kernels = header.kernels.clone();
        kernels.extend(footer.late_kernels.iter().cloned());
        check_index(&footer, kernels.len())?;
        Ok(TraceReader {
            source,
            version,
            header,
            kernels,
            footer,
        })
    }

    /// The format version of the file.
    pub fn format_version(&self) -> u32 {
        self.version
    }

    /// Whether the file's [`Event::Stall`]s are charges (format version 3
    /// on); older files recorded reason changes, which are skipped, so a
    /// reader of one has no per-warp stall cycles to show.
    pub fn has_stall_charges(&self) -> bool {
        self.version >= 3
    }

    /// The header.
    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// Every kernel: the header's, then those added later.
    pub fn kernels(&self) -> &[KernelSource] {
        &self.kernels
    }

    /// Every launch, in order (index = launch number).
    pub fn launches(&self) -> &[LaunchInfo] {
        &self.footer.launches
    }

    /// Every chunk, in file order (time order before format version 4;
    /// from version 4 on, a block's chunks are written when full or when
    /// it ends, so chunks of one launch overlap in time).
    pub fn chunks(&self) -> &[ChunkInfo] {
        &self.footer.chunks
    }

    /// Total number of events.
    pub fn event_count(&self) -> u64 {
        self.footer.events
    }

    /// The index of the first chunk whose events reach `cycle` (so reading
    /// from it on yields every event at or after `cycle`), or the number of
    /// chunks if none does.
    pub fn chunk_at_cycle(&self, cycle: u64) -> usize {
        // last_cycle is not monotonic in general (events may be recorded a
        // little out of cycle order), so take the running maximum.
        let mut reach = 0;
        for (i, c) in self.footer.chunks.iter().enumerate() {
            reach = reach.max(c.last_cycle);
            if reach >= cycle {
                return i;
            }
        }
        self.footer.chunks.len()
    }

    /// Reads, checks and decompresses chunk `i` into `raw` (reusing
    /// `compressed` as scratch); returns the event count the index gives.
    fn load_chunk(
        &mut self,
        i: usize,
        compressed: &mut Vec<u8>,
        raw: &mut Vec<u8>,
    ) -> Result<u32, TraceError> {
        let head = self.read_compressed(i, compressed)?;
        decompress(i, head, compressed, raw)?;
        Ok(head.events)
    }

    /// Reads chunk `i`'s record header, checks it against the index, and
    /// reads its compressed bytes into `compressed`.
    fn read_compressed(
        &mut self,
        i: usize,
        compressed: &mut Vec<u8>,
    ) -> Result<ChunkHead, TraceError> {
        let info = self
            .footer
            .chunks
            .get(i)
            .ok_or_else(|| TraceError::corrupt(format!("no chunk {i}")))?;
        let (offset, raw_len, comp_len, events) =
            (info.offset, info.raw_len, info.compressed_len, info.events);
        self.source.seek(SeekFrom::Start(offset))?;
        let mut head = [0u8; CHUNK_HEAD_LEN as usize];
        self.source
            .read_exact(&mut head)
            .map_err(|e| TraceError::from_read(e, "event chunk"))?;
        let fields = (
            le_u32(&head[1..5]),
            le_u32(&head[5..9]),
            le_u32(&head[9..13]),
        );
        if head[0] != b'C' || fields != (raw_len, comp_len, events) {
            return Err(TraceError::corrupt(format!(
                "chunk {i} does not match the index"
            )));
        }
        compressed.resize(comp_len as usize, 0);
        self.source
            .read_exact(compressed)
            .map_err(|e| TraceError::from_read(e, "chunk"))?;
        Ok(ChunkHead {
            raw_len,
            events,
            crc: le_u32(&head[13..17]),
        })
    }

    /// Decodes chunk `i` into `out` (cleared first).
    pub fn read_chunk_into(&mut self, i: usize, out: &mut Vec<Event>) -> Result<(), TraceError> {
        out.clear();
        for e in self.events_of_chunk_list(vec![i]) {
            out.push(e?);
        }
        Ok(())
    }

    /// Decodes chunk `i`.
    pub fn read_chunk(&mut self, i: usize) -> Result<Vec<Event>, TraceError> {
        let mut v = Vec::new();
        self.read_chunk_into(i, &mut v)?;
        Ok(v)
    }

    /// Every event of the trace, in order, one chunk in memory at a time.
    pub fn events(&mut self) -> Events<'_, R> {
        let end = self.footer.chunks.len();
        self.events_in_chunks(0, end)
    }

    /// The events of chunks `first..end`.
    pub fn events_in_chunks(&mut self, first: usize, end: usize) -> Events<'_, R> {
        let end = end.min(self.footer.chunks.len());
        self.events_of_chunk_list((first.min(end)..end).collect())
    }

    /// The events of the given chunks (indices into [`Self::chunks`]), in
    /// the given order.
    pub fn events_of_chunks(&mut self, chunks: Vec<usize>) -> Events<'_, R> {
        self.events_of_chunk_list(chunks)
    }

    /// The events of the given chunks, in the given order.
    fn events_of_chunk_list(&mut self, chunks: Vec<usize>) -> Events<'_, R> {
        Events {
            reader: self,
            chunks: chunks.into_iter(),
            compressed: Vec::new(),
            raw: Vec::new(),
            state: (0, 0),
            chunk: None,
        }
    }

    /// The events of launch `launch` from every chunk that may hold
    /// per-block events of `block` (see [`ChunkInfo::may_hold_block`]),
    /// every chunk with no per-block events (the launch-wide ones: from
    /// format version 4 on, every counter sample and block start and end of
    /// the launch), and the launch's first and last chunks (its launch and
    /// end events). Other events of those chunks may come too: filter by
    /// block. Events of different chunks are not in cycle order.
    pub fn block_events(&mut self, launch: usize, block: u32) -> Events<'_, R> {
        let list = self.block_chunks(launch, block);
        self.events_of_chunk_list(list)
    }

    /// The chunks [`Self::block_events`] reads, in file order.
    pub fn block_chunks(&self, launch: usize, block: u32) -> Vec<usize> {
        let Some(l) = self.footer.launches.get(launch) else {
            return Vec::new();
        };
        let (first, end) = (l.first_chunk as usize, l.end_chunk as usize);
        let chunks = &self.footer.chunks;
        (first..end)
            .filter(|&i| {
                i == first
                    || i + 1 == end
                    || chunks[i].blocks.is_none()
                    || chunks[i].may_hold_block(block)
            })
            .collect()
    }

    /// The launch-wide events of launch `launch` (its launch and end, block
    /// starts and ends, counter samples) from its chunks that hold no
    /// per-block events. From format version 4 on that is all of them,
    /// whatever the level; in older files, chunks holding detail events
    /// also held launch-wide ones, which this misses (read the launch).
    pub fn launch_wide_events(&mut self, launch: usize) -> Events<'_, R> {
        let Some(l) = self.footer.launches.get(launch) else {
            return self.events_of_chunk_list(Vec::new());
        };
        let (first, end) = (l.first_chunk as usize, l.end_chunk as usize);
        let chunks = &self.footer.chunks;
        let list = (first..end)
            .filter(|&i| chunks[i].blocks.is_none())
            .collect();
        self.events_of_chunk_list(list)
    }

    /// Whether each chunk holds one block's events or only launch-wide ones
    /// (format version 4 on): then [`Self::block_events`] decodes one
    /// block's events and the launch's counters and block starts and ends,
    /// whatever else ran at the time.
    pub fn has_block_chunks(&self) -> bool {
        self.version >= 4
    }

    /// Every event of launch `launch` (nothing if there is no such launch).
    pub fn launch_events(&mut self, launch: usize) -> Events<'_, R> {
        let (first, end) = self
            .footer
            .launches
            .get(launch)
            .map_or((0, 0), |l| (l.first_chunk as usize, l.end_chunk as usize));
        self.events_in_chunks(first, end)
    }
}

/// An iterator over events, decoding one chunk at a time, event by event
/// (no chunk is ever held as a vector of events); it stops after the first
/// error.
#[derive(Debug)]
pub struct Events<'a, R> {
    reader: &'a mut TraceReader<R>,
    chunks: std::vec::IntoIter<usize>,
    compressed: Vec<u8>,
    raw: Vec<u8>,
    /// The decoder's position and previous cycle in `raw`.
    state: (usize, u64),
    /// The chunk being decoded: its index, events promised and decoded.
    chunk: Option<(usize, u32, u32)>,
}

impl<R: Read + Seek> Events<'_, R> {
    fn fail(&mut self, e: TraceError) -> Option<Result<Event, TraceError>> {
        self.chunks = Vec::new().into_iter();
        self.chunk = None;
        Some(Err(e))
    }
}

impl<R: Read + Seek> Iterator for Events<'_, R> {
    type Item = Result<Event, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((i, promised, done)) = self.chunk {
                if self.state.0 < self.raw.len() {
                    let mut dec = Decoder::resume(&self.raw, self.state, self.reader.version);
                    let r = dec.next_record();
                    self.state = dec.state();
                    match r {
                        Ok(e) => {
                            self.chunk = Some((i, promised, done + 1));
                            match e {
                                Some(e) => return Some(Ok(e)),
                                None => continue,
                            }
                        }
                        Err(e) => return self.fail(e),
                    }
                }
                self.chunk = None;
                if done != promised {
                    let msg = format!("chunk {i} holds {done} events, the index says {promised}");
                    return self.fail(TraceError::corrupt(msg));
                }
            }
            let i = self.chunks.next()?;
            match self
                .reader
                .load_chunk(i, &mut self.compressed, &mut self.raw)
            {
                Ok(promised) => {
                    self.chunk = Some((i, promised, 0));
                    self.state = (0, 0);
                }
                Err(e) => return self.fail(e),
            }
        }
    }
}

/// What a chunk record's header promises.
#[derive(Copy, Clone, Debug)]
struct ChunkHead {
    raw_len: u32,
    events: u32,
    crc: u32,
}

/// Checks chunk `i`'s compressed bytes and decompresses them into `raw`.
fn decompress(
    i: usize,
    head: ChunkHead,
    compressed: &[u8],
    raw: &mut Vec<u8>,
) -> Result<(), TraceError> {
    if !checksum_ok(compressed, head.crc) {
        return Err(TraceError::corrupt(format!("chunk {i} checksum mismatch")));
    }
    raw.resize(head.raw_len as usize, 0);
    let n = lz4_flex::block::decompress_into(compressed, raw)
        .map_err(|e| TraceError::corrupt(format!("chunk {i} does not decompress: {e}")))?;
    if n != raw.len() {
        return Err(TraceError::corrupt(format!(
            "chunk {i} decompresses to {n} bytes"
        )));
    }
    Ok(())
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Reads as many bytes as are there, up to `buf.len()`.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> Result<usize, TraceError> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(got)
}

/// Reads exactly `len` bytes (the caller has checked `len` against the file).
fn read_exact_vec(r: &mut impl Read, len: u64, what: &str) -> Result<Vec<u8>, TraceError> {
    let mut v = vec![0u8; len as usize];
    r.read_exact(&mut v)
        .map_err(|e| TraceError::from_read(e, what))?;
    Ok(v)
}

/// A version field above [`FORMAT_VERSION`] is a newer format, unless the
/// intact header says this version of simsort wrote the file: then the
/// field itself is damaged, and "upgrade simsort" would be bad advice.
fn damaged_version<R: Read + Seek>(
    source: &mut R,
    prefix: &[u8],
    file_len: u64,
) -> Option<TraceError> {
    let header_len = u64::from(le_u32(&prefix[12..16]));
    if PREFIX_LEN + header_len > file_len {
        return None;
    }
    let json = read_exact_vec(source, header_len, "header").ok()?;
    if !checksum_ok(&json, le_u32(&prefix[16..20])) {
        return None;
    }
    let header: serde_json::Value = serde_json::from_slice(&json).ok()?;
    let writer = header.get("simsort_version")?.as_str()?;
    (writer == env!("CARGO_PKG_VERSION")).then(|| {
        TraceError::corrupt(format!(
            "the format version field holds {}, but the header says simsort {writer} wrote \
             the file, which writes version {FORMAT_VERSION}: the field is damaged",
            le_u32(&prefix[8..12])
        ))
    })
}

/// Where a finished trace ends inside a longer file (bytes appended after
/// its trailer): the end of the last "SSTEND" marker whose offset points at
/// an index record, if there is one.
fn end_before_junk<R: Read + Seek>(source: &mut R, body_start: u64, file_len: u64) -> Option<u64> {
    // Only the failure path reads this much; a trace of gigabytes is not
    // searched.
    let len = file_len.checked_sub(body_start)?;
    if len > 1 << 30 {
        return None;
    }
    source.seek(SeekFrom::Start(body_start)).ok()?;
    let body = read_exact_vec(source, len, "trace").ok()?;
    let mut end = body.len();
    while let Some(at) = body[..end]
        .windows(END_MAGIC.len())
        .rposition(|w| w == END_MAGIC)
    {
        let trailer_start = at.checked_sub(8)?;
        let offset = u64::from_le_bytes(body[trailer_start..at].try_into().ok()?);
        let record = usize::try_from(offset.checked_sub(body_start)?).ok()?;
        if body.get(record) == Some(&b'F') {
            return Some(body_start + (at + END_MAGIC.len()) as u64);
        }
        end = at;
    }
    None
}

fn read_footer<R: Read + Seek>(
    source: &mut R,
    body_start: u64,
    file_len: u64,
) -> Result<Footer, TraceError> {
    let unfinished = || {
        TraceError::Truncated(
            "the end-of-trace index is missing (the run that wrote it did not finish)".to_string(),
        )
    };
    if file_len < body_start + FOOTER_HEAD_LEN + TRAILER_LEN {
        return Err(unfinished());
    }
    source.seek(SeekFrom::Start(file_len - TRAILER_LEN))?;
    let mut trailer = [0u8; TRAILER_LEN as usize];
    source
        .read_exact(&mut trailer)
        .map_err(|e| TraceError::from_read(e, "trailer"))?;
    if &trailer[8..] != END_MAGIC {
        if let Some(end) = end_before_junk(source, body_start, file_len) {
            return Err(TraceError::corrupt(format!(
                "{} bytes follow the end of the trace (byte {end}): something was appended \
                 to the file; its first {end} bytes are the trace",
                file_len - end
            )));
        }
        return Err(unfinished());
    }
    let offset = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
    let footer_room = file_len - TRAILER_LEN;
    if offset < body_start || offset > footer_room - FOOTER_HEAD_LEN {
        return Err(TraceError::corrupt(format!(
            "index offset {offset} is outside the file"
        )));
    }
    source.seek(SeekFrom::Start(offset))?;
    let mut head = [0u8; FOOTER_HEAD_LEN as usize];
    source
        .read_exact(&mut head)
        .map_err(|e| TraceError::from_read(e, "index"))?;
    let len = u64::from(le_u32(&head[1..5]));
    if head[0] != b'F' || offset + FOOTER_HEAD_LEN + len != footer_room {
        return Err(TraceError::corrupt("index record header is wrong"));
    }
    let json = read_exact_vec(source, len, "index")?;
    if !checksum_ok(&json, le_u32(&head[5..9])) {
        return Err(TraceError::corrupt("index checksum mismatch"));
    }
    let footer: Footer = serde_json::from_slice(&json)
        .map_err(|e| TraceError::corrupt(format!("index is not valid: {e}")))?;
    // Chunks must tile the body exactly, up to the footer.
    let mut at = body_start;
    for (i, c) in footer.chunks.iter().enumerate() {
        if c.offset != at || c.raw_len > MAX_CHUNK_BYTES {
            return Err(TraceError::corrupt(format!(
                "chunk {i} has a bad offset or size"
            )));
        }
        at = c.offset + CHUNK_HEAD_LEN + u64::from(c.compressed_len);
    }
    if at != offset {
        return Err(TraceError::corrupt("chunks do not reach the index"));
    }
    Ok(footer)
}

fn check_index(footer: &Footer, kernels: usize) -> Result<(), TraceError> {
    let chunks = footer.chunks.len() as u32;
    for (i, l) in footer.launches.iter().enumerate() {
        if l.kernel as usize >= kernels || l.first_chunk > l.end_chunk || l.end_chunk > chunks {
            return Err(TraceError::corrupt(format!(
                "launch {i} has a bad kernel or chunk range"
            )));
        }
    }
    if footer
        .chunks
        .iter()
        .map(|c| u64::from(c.events))
        .sum::<u64>()
        != footer.events
    {
        return Err(TraceError::corrupt(
            "event counts in the index do not add up",
        ));
    }
    for (i, c) in footer.chunks.iter().enumerate() {
        if c.launch
            .is_some_and(|l| l as usize >= footer.launches.len())
        {
            return Err(TraceError::corrupt(format!(
                "chunk {i} names a missing launch"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
