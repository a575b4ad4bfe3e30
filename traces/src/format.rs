//! The file layout, shared by the writer and the reader.
//!
//! ```text
//! "SSTRACE\0"  format version (u32 LE)  header length (u32 LE)  header CRC-32 (u32 LE)
//! header: JSON (TraceHeader)
//! chunk records, each:
//!     'C'  raw length (u32)  compressed length (u32)  event count (u32)  CRC-32 (u32)
//!     LZ4 block of the encoded events (see codec.rs)
//! footer record:
//!     'F'  footer length (u32)  CRC-32 (u32)  footer: JSON (Footer: the chunk index,
//!     the launches, kernels added after the header)
//! trailer: footer offset (u64 LE)  "SSTEND\0\0"
//! ```
//! The header comes first so a reader knows the machine before any event;
//! the index comes last so the writer needs no seeking and bounded memory.
//! A file without its trailer was not finished: the reader says "truncated".

use serde::{Deserialize, Serialize};

use crate::{CounterSample, KernelSource};

/// The first eight bytes of every trace.
pub const MAGIC: &[u8; 8] = b"SSTRACE\0";
/// The last eight bytes of every finished trace.
pub const END_MAGIC: &[u8; 8] = b"SSTEND\0\0";
/// The newest format version this crate writes and reads. Version 2 added
/// launch labels (in [`crate::Event::KernelLaunch`] and [`LaunchInfo`]);
/// version 1 files read with every label empty. Version 3 holds two
/// changes: each shared access records its width, active lanes and
/// per-lane addresses (in [`crate::Event::SharedAccess`]), and
/// [`crate::Event::Stall`] is a charge (pc, reason, cycles) with
/// [`crate::Event::Issue`] carrying its issue slots. Older files read with
/// the shared-access fields empty, their stall records skipped and one
/// slot per issue. Version 4 gives every block its own chunks (see
/// `writer.rs`): a chunk holds one block's per-block events, or only
/// launch-wide events (block starts and ends, counters), so its events are
/// in cycle order but the chunks of a launch are not; and each launch
/// records its worst bank conflict ([`LaunchInfo::worst_conflict`]).
/// Files of versions 1-3 read as before (their chunks are in time order,
/// each holding every block that ran then).
pub const FORMAT_VERSION: u32 = 4;
/// The longest launch label, in bytes (a sanity bound for readers).
pub const MAX_LABEL_BYTES: usize = 1024;
/// Bytes before the header JSON.
pub const PREFIX_LEN: u64 = 20;
/// Bytes of a chunk record's header.
pub const CHUNK_HEAD_LEN: u64 = 17;
/// Bytes of the footer record's header.
pub const FOOTER_HEAD_LEN: u64 = 9;
/// Bytes of the trailer.
pub const TRAILER_LEN: u64 = 16;
/// The writer starts a new chunk once this many encoded bytes are buffered
/// in one stream.
pub const CHUNK_TARGET_BYTES: usize = 256 * 1024;
/// The most encoded bytes the writer's block streams hold together (many
/// blocks resident at once); beyond it the largest is written as a chunk.
pub const BLOCK_BUFFER_BYTES: usize = 64 * 1024 * 1024;
/// The largest decoded chunk a reader accepts (bounds its allocation).
pub const MAX_CHUNK_BYTES: u32 = 16 * 1024 * 1024;

/// Where one chunk of events lies and what it covers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkInfo {
    /// Byte offset of the chunk record in the file.
    pub offset: u64,
    /// Length of the compressed events.
    pub compressed_len: u32,
    /// Length of the encoded events once decompressed.
    pub raw_len: u32,
    /// Number of events.
    pub events: u32,
    /// The smallest cycle of its events.
    pub first_cycle: u64,
    /// The largest cycle of its events.
    pub last_cycle: u64,
    /// The launch its events belong to (`None` between launches). A chunk
    /// never spans two launches.
    pub launch: Option<u32>,
    /// The smallest and largest block of its per-block events (detail
    /// events and register writes; before version 4 also the block starts
    /// and ends of blocks the trace has detail for), so a reader after one
    /// block can skip chunks. From version 4 on, `(b, b)`: a chunk holds
    /// one block's events or none. `None` when it has none.
    #[serde(default)]
    pub blocks: Option<(u32, u32)>,
}

impl ChunkInfo {
    /// Whether the chunk may hold per-block events of `block`.
    pub fn may_hold_block(&self, block: u32) -> bool {
        self.blocks
            .is_some_and(|(lo, hi)| lo <= block && block <= hi)
    }
}

/// One kernel launch, as the index records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchInfo {
    /// Index of the kernel in [`crate::TraceReader::kernels`].
    pub kernel: u32,
    /// Grid size in blocks.
    pub grid: [u32; 3],
    /// Block size in threads.
    pub block: [u32; 3],
    /// What the host calls the launch (see [`crate::Event::KernelLaunch`]);
    /// empty when none was given. Written when the launch begins, so a run
    /// that stops inside a launch keeps it.
    #[serde(default)]
    pub label: String,
    /// Cycle of the launch.
    pub start_cycle: u64,
    /// Cycle it ended (`None` if the run stopped inside it, e.g. on a fault).
    pub end_cycle: Option<u64>,
    /// Its chunks: `first_chunk..end_chunk` in [`crate::TraceReader::chunks`].
    pub first_chunk: u32,
    /// One past its last chunk.
    pub end_chunk: u32,
    /// The blocks with detail events, as inclusive ranges in order.
    #[serde(default)]
    pub detail_blocks: Vec<(u32, u32)>,
    /// The sum of the launch's counter samples over every SM.
    #[serde(default)]
    pub counters: CounterSample,
    /// The shared access with the most bank conflicts in the launch (the
    /// earliest of equals), so a reader can go to it without decoding
    /// every block; `None` without conflicts, or in files before version 4.
    #[serde(default)]
    pub worst_conflict: Option<ConflictMark>,
    /// Per instruction, its totals over the launch's blocks with detail
    /// (the instructions with any), so a reader can show them without
    /// decoding every block; empty in files before version 4.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<PcTotals>,
}

/// One instruction's totals over a launch's detail events: what a reader
/// summing its [`crate::Event::Issue`], [`crate::Event::Stall`],
/// [`crate::Event::SharedAccess`] and [`crate::Event::GlobalRequest`]
/// events by pc would get.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PcTotals {
    /// The instruction.
    pub pc: u32,
    /// Issue slots.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub slots: u64,
    /// Stall cycles charged while it was the next instruction, as
    /// `(reason index, cycles)` for each reason with any
    /// ([`crate::StallReason::index`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stalls: Vec<(u8, u64)>,
    /// Shared-memory wavefronts.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub wavefronts: u64,
    /// Shared-memory bank conflicts.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub conflicts: u64,
    /// Global requests.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub requests: u64,
    /// Global sectors.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sectors: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Where a shared access with bank conflicts happened.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConflictMark {
    /// The block.
    pub block: u32,
    /// The warp within the block.
    pub warp: u32,
    /// The access's cycle.
    pub cycle: u64,
    /// The instruction.
    pub pc: u32,
    /// Its bank conflicts (excess wavefronts).
    pub conflicts: u32,
}

impl ConflictMark {
    /// Whether `self` is worse than `other`: more conflicts, else earlier,
    /// else a lower block, else a lower warp (so the choice depends only on
    /// the events, not on the order they were recorded in).
    pub fn worse_than(&self, other: &ConflictMark) -> bool {
        let key = |m: &ConflictMark| (std::cmp::Reverse(m.conflicts), m.cycle, m.block, m.warp);
        key(self) < key(other)
    }
}

impl LaunchInfo {
    /// What to call the launch: its label, or its kernel's name when it
    /// has none (`kernels` as [`crate::TraceReader::kernels`] lists them).
    pub fn title<'a>(&'a self, kernels: &'a [crate::KernelSource]) -> &'a str {
        if self.label.is_empty() {
            kernels
                .get(self.kernel as usize)
                .map_or("?", |k| k.name.as_str())
        } else {
            &self.label
        }
    }

    /// Whether `block` has detail events in this launch.
    pub fn has_detail(&self, block: u32) -> bool {
        self.detail_blocks
            .iter()
            .any(|&(lo, hi)| lo <= block && block <= hi)
    }

    /// The first block with detail events, if any.
    pub fn first_detail_block(&self) -> Option<u32> {
        self.detail_blocks.first().map(|r| r.0)
    }
}

/// The index written at the end of the file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footer {
    /// Every chunk, in file order.
    pub chunks: Vec<ChunkInfo>,
    /// Every launch, in launch order.
    pub launches: Vec<LaunchInfo>,
    /// Kernels added after the header was written.
    pub late_kernels: Vec<KernelSource>,
    /// Total number of events.
    pub events: u64,
}
