//! The simsort trace format: a self-describing header, compact events, a
//! streaming [`TraceWriter`] and an indexed [`TraceReader`].
//!
//! A trace lets the replay UI (`tui`) and the Perfetto export show a run
//! without `sim` or `kernels-ir`: the [`TraceHeader`] holds the machine
//! config as plain values, the sort options, and each kernel's printed IR
//! with instruction numbers; [`Event`]s refer to instructions by `pc`.
//!
//! # How the simulator records a trace
//! 1. Build a header: `TraceHeader::new(options)` with a [`TraceOptions`]
//!    (level from `--trace-level`, focus parsed from `--trace-focus
//!    block=B,warp=W` with `str::parse::<Focus>()`), then fill `config`
//!    (`with_config(&gpu_config)` if it is `Serialize`), `sort_options`, and
//!    `kernels` (one [`KernelSource`] per kernel that will be launched, e.g.
//!    `KernelSource::with_inst_lines(name, &text, &lines)` from
//!    `kernels_ir::print_with_lines`; set `slab_regs` and
//!    `stages` where known). Kernels met later go through
//!    [`TraceWriter::add_kernel`].
//! 2. `TraceWriter::new(BufWriter::new(File::create(path)?), &header)?`.
//! 3. For every launch, in this order: [`Event::KernelLaunch`] (launch
//!    numbers 0, 1, 2, ... over the whole run; `kernel` = index in the
//!    kernel list; `label` = what the host calls the launch, or empty), then
//!    the launch's events, then [`Event::KernelEnd`].
//!    Inside a launch: [`Event::BlockStart`]/[`Event::BlockEnd`] for every
//!    block; per SM every `counter_interval_cycles` an [`Event::Counters`]
//!    with the deltas since the last sample; and, where
//!    [`TraceWriter::wants_detail`]`(block)`: [`Event::Issue`] per issued
//!    warp instruction, [`Event::Stall`] for every stall charge (pc, reason, cycles),
//!    [`Event::SharedAccess`], [`Event::GlobalRequest`],
//!    [`Event::BarrierArrive`]/[`Event::BarrierRelease`]; where
//!    [`TraceWriter::wants_registers`]`(block, warp)`: [`Event::RegWrite`]
//!    for every register write (at writeback). Blocks are linear grid
//!    indices, warps are indices within the block.
//! 4. [`TraceWriter::finish`] writes the index. A writer that is dropped
//!    unfinished (an error path, a panic) finishes itself, best effort.
//!
//! The writer drops events the level or focus excludes, so calling
//! `wants_*` first only saves building them. Events should come in roughly
//! cycle order (small reorderings are fine).
//!
//! ```
//! use traces::{Event, TraceHeader, TraceOptions, TraceReader, TraceWriter, KernelSource};
//!
//! let mut header = TraceHeader::new(TraceOptions::default());
//! header.kernels.push(KernelSource::from_text("k", "block0:\n    exit\n"));
//! let mut w = TraceWriter::new(Vec::new(), &header)?;
//! w.record(&Event::KernelLaunch { cycle: 0, launch: 0, kernel: 0, grid: [1, 1, 1], block: [32, 1, 1], label: "pass 1".into() })?;
//! w.record(&Event::Issue { cycle: 1, sm: 0, sched: 0, block: 0, warp: 0, pc: 0, active: u32::MAX.into(), slots: 1 })?;
//! w.record(&Event::KernelEnd { cycle: 9, launch: 0 })?;
//! let bytes = w.finish()?;
//!
//! let mut r = TraceReader::new(std::io::Cursor::new(bytes))?;
//! assert_eq!(r.launches()[0].end_cycle, Some(9));
//! assert_eq!(r.launches()[0].label, "pass 1");
//! assert_eq!(r.events().count(), 3);
//! # Ok::<(), traces::TraceError>(())
//! ```
#![deny(missing_docs)]
#![warn(clippy::print_stdout, clippy::print_stderr, clippy::panic)]

mod codec;
mod error;
mod event;
mod format;
mod header;
mod options;
mod perfetto;
mod reader;
mod writer;

pub use codec::{MAX_BANKS, MAX_LANES};
pub use error::TraceError;
pub use event::{AccessKind, CounterSample, Event, StallReason};
pub use format::{ChunkInfo, ConflictMark, FORMAT_VERSION, LaunchInfo, PcTotals};
pub use header::{IrLine, KernelSource, RegClass, RegRef, StageMark, TraceHeader};
pub use options::{Focus, TraceLevel, TraceOptions};
pub use perfetto::{
    Estimate, ExportOptions, ExportSummary, KERNELS_PID, Span, TimeUnit, estimate_perfetto,
    export_perfetto, export_perfetto_with,
};
pub use reader::{Events, TraceReader};
pub use writer::TraceWriter;
