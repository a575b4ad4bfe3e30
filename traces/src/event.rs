//! The events of a trace.
//!
//! Every event carries the cycle it happened in. Within a launch, blocks are
//! named by their linear index in the grid and warps by their index within
//! the block, so `(block, warp)` names one warp of the launch; `sm` says
//! where it ran. Instructions are named by `pc`, the instruction number of
//! the kernel's printed IR in the header. Launches are synchronous, so every
//! event between a [`Event::KernelLaunch`] and its [`Event::KernelEnd`]
//! belongs to that launch.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::RegRef;

/// What a shared-memory access did.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AccessKind {
    /// A load.
    Load,
    /// A store.
    Store,
    /// An atomic read-modify-write (`atom.shared.*`).
    Atomic,
}

impl AccessKind {
    /// Every kind, by code.
    pub const ALL: [AccessKind; 3] = [AccessKind::Load, AccessKind::Store, AccessKind::Atomic];

    /// The kind's number in the binary format: 0 and 1 are the load and
    /// store flag of traces written before atomics existed, so those stay
    /// readable unchanged.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The kind with number `code`, if any.
    pub fn from_code(code: u64) -> Option<AccessKind> {
        AccessKind::ALL
            .into_iter()
            .find(|k| u64::from(k.code()) == code)
    }

    /// A short name for tables: `ld`, `st`, `atom`.
    pub const fn short(self) -> &'static str {
        match self {
            AccessKind::Load => "ld",
            AccessKind::Store => "st",
            AccessKind::Atomic => "atom",
        }
    }
}

/// One thing that happened on the simulated GPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// A kernel launch begins.
    KernelLaunch {
        /// Cycle of the launch.
        cycle: u64,
        /// Launch number, 0, 1, 2, ... in order over the whole trace.
        launch: u32,
        /// Index of the kernel in the trace's kernel list.
        kernel: u32,
        /// Grid size in blocks (x, y, z).
        grid: [u32; 3],
        /// Block size in threads (x, y, z).
        block: [u32; 3],
        /// What the host calls this launch (`level 2: find_buckets (61
        /// buckets)`, `pass 5: merge 2048 -> 4096`), so launches of one
        /// kernel can be told apart; empty when the host gave none (and in
        /// traces of format version 1, which had no labels).
        label: String,
    },
    /// The launch's last block finished.
    KernelEnd {
        /// Cycle the launch completed.
        cycle: u64,
        /// The launch number given by its [`Event::KernelLaunch`].
        launch: u32,
    },
    /// A block became resident on an SM.
    BlockStart {
        /// Cycle.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// Linear block index in the grid.
        block: u32,
    },
    /// A block's last warp exited.
    BlockEnd {
        /// Cycle.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// Linear block index in the grid.
        block: u32,
    },
    /// A scheduler issued one warp instruction.
    Issue {
        /// Cycle of issue.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// The scheduler (sub-partition) within the SM.
        sched: u32,
        /// Linear block index.
        block: u32,
        /// Warp index within the block.
        warp: u32,
        /// Instruction number.
        pc: u32,
        /// Active lanes (bit `i` = lane `i`); the format holds warps of at
        /// most 64 lanes.
        active: u64,
        /// Issue slots it took, from `cycle` on (a `cmpx` takes 2): the
        /// warp-cycles charged [`StallReason::Selected`], as the report's
        /// `selected` and `smsp__inst_executed` count them. Traces before
        /// format version 3 did not record it and read back 1.
        slots: u32,
    },
    /// A warp was charged `cycles` warp-cycles of `reason`, from `cycle`
    /// on, waiting with instruction `pc` next: one charge of the simulator's
    /// stall accounting, recorded where it is made, so the stall events of
    /// a warp plus its issue slots tile its resident cycles exactly and
    /// sum, over the warps, to the report's per-kernel stall cycles. A
    /// charge may be recorded after later events (a barrier wait is known
    /// only when the barrier releases). Traces before format version 3
    /// recorded reason changes instead; their stall records are skipped on
    /// reading (see [`crate::TraceReader::has_stall_charges`]).
    Stall {
        /// First cycle charged.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// Linear block index.
        block: u32,
        /// Warp index within the block.
        warp: u32,
        /// The instruction the warp waited to issue (Nsight Compute's
        /// source view charges a stall to it).
        pc: u32,
        /// Why it did not issue (never [`StallReason::Selected`]: issues
        /// are [`Event::Issue`]s).
        reason: StallReason,
        /// Warp-cycles charged (at least 1).
        cycles: u64,
    },
    /// One warp-wide shared-memory instruction was served.
    SharedAccess {
        /// Cycle the access started in the memory pipeline.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// Linear block index.
        block: u32,
        /// Warp index within the block.
        warp: u32,
        /// Instruction number.
        pc: u32,
        /// Load, store or atomic.
        kind: AccessKind,
        /// Wavefronts needed (Nsight Compute's
        /// `l1tex__data_pipe_lsu_wavefronts_mem_shared`).
        wavefronts: u32,
        /// Wavefronts beyond the minimum for the access width (Nsight's
        /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared`).
        conflicts: u32,
        /// Distinct words each bank delivered, one entry per bank (so its
        /// length is the machine's bank count); saturates at 255.
        words_per_bank: Vec<u8>,
        /// Bytes each lane accesses (4, 8 or 16), which sets the minimum
        /// wavefronts; 0 in traces before format version 3.
        bytes: u32,
        /// The lanes that took part; 0 before format version 3.
        active: u64,
        /// Each lane's byte address in the block's shared memory, one entry
        /// per lane of the warp (inactive lanes 0), so a reader can say which
        /// lanes collide in which bank; empty before format version 3.
        addrs: Vec<u64>,
    },
    /// One warp-wide global-memory instruction (one request).
    GlobalRequest {
        /// Cycle the request left the SM.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// Linear block index.
        block: u32,
        /// Warp index within the block.
        warp: u32,
        /// Instruction number.
        pc: u32,
        /// Store (`true`) or load.
        is_store: bool,
        /// Distinct 32-byte sectors touched.
        sectors: u32,
    },
    /// A warp arrived at a `bar.sync`.
    BarrierArrive {
        /// Cycle.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// Linear block index.
        block: u32,
        /// Warp index within the block.
        warp: u32,
    },
    /// Every warp of a block arrived; the barrier released them.
    BarrierRelease {
        /// Cycle.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// Linear block index.
        block: u32,
    },
    /// A focused warp wrote a register (written only for focused warps).
    RegWrite {
        /// Cycle the value became visible (writeback).
        cycle: u64,
        /// Linear block index.
        block: u32,
        /// Warp index within the block.
        warp: u32,
        /// The register.
        reg: RegRef,
        /// Lanes that wrote (bit `i` = lane `i`); others keep their value.
        mask: u64,
        /// One value per lane of the warp (so its length is the warp
        /// width, at most 64); entries of lanes outside `mask` are ignored
        /// and read back as 0. 32-bit registers hold values below 2^32,
        /// predicates 0 or 1.
        values: Vec<u64>,
    },
    /// One SM's counters over the last sample interval (deltas, not totals).
    Counters {
        /// Last cycle of the interval.
        cycle: u64,
        /// The SM.
        sm: u32,
        /// The counts.
        sample: CounterSample,
    },
}

impl Event {
    /// The cycle the event happened in.
    pub fn cycle(&self) -> u64 {
        match self {
            Event::KernelLaunch { cycle, .. }
            | Event::KernelEnd { cycle, .. }
            | Event::BlockStart { cycle, .. }
            | Event::BlockEnd { cycle, .. }
            | Event::Issue { cycle, .. }
            | Event::Stall { cycle, .. }
            | Event::SharedAccess { cycle, .. }
            | Event::GlobalRequest { cycle, .. }
            | Event::BarrierArrive { cycle, .. }
            | Event::BarrierRelease { cycle, .. }
            | Event::RegWrite { cycle, .. }
            | Event::Counters { cycle, .. } => *cycle,
        }
    }

    /// The event's kind as a short name (`issue`, `stall`, `smem`, ...).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Event::KernelLaunch { .. } => "kernel_launch",
            Event::KernelEnd { .. } => "kernel_end",
            Event::BlockStart { .. } => "block_start",
            Event::BlockEnd { .. } => "block_end",
            Event::Issue { .. } => "issue",
            Event::Stall { .. } => "stall",
            Event::SharedAccess { .. } => "shared_access",
            Event::GlobalRequest { .. } => "global_request",
            Event::BarrierArrive { .. } => "barrier_arrive",
            Event::BarrierRelease { .. } => "barrier_release",
            Event::RegWrite { .. } => "reg_write",
            Event::Counters { .. } => "counters",
        }
    }

    /// The cycle the event happened in, to change it (e.g. to lay
    /// launches that each count from 0 end to end).
    pub fn cycle_mut(&mut self) -> &mut u64 {
        match self {
            Event::KernelLaunch { cycle, .. }
            | Event::KernelEnd { cycle, .. }
            | Event::BlockStart { cycle, .. }
            | Event::BlockEnd { cycle, .. }
            | Event::Issue { cycle, .. }
            | Event::Stall { cycle, .. }
            | Event::SharedAccess { cycle, .. }
            | Event::GlobalRequest { cycle, .. }
            | Event::BarrierArrive { cycle, .. }
            | Event::BarrierRelease { cycle, .. }
            | Event::RegWrite { cycle, .. }
            | Event::Counters { cycle, .. } => cycle,
        }
    }

    /// The `(block, warp)` a per-warp event is about.
    pub fn warp(&self) -> Option<(u32, u32)> {
        match *self {
            Event::Issue { block, warp, .. }
            | Event::Stall { block, warp, .. }
            | Event::SharedAccess { block, warp, .. }
            | Event::GlobalRequest { block, warp, .. }
            | Event::BarrierArrive { block, warp, .. }
            | Event::RegWrite { block, warp, .. } => Some((block, warp)),
            _ => None,
        }
    }

    /// The block a detail event (issue, stall, memory, barrier) is about;
    /// `None` for launches, block starts and ends, register writes and
    /// counters, which are not subject to the level's detail filter.
    pub fn detail_block(&self) -> Option<u32> {
        match *self {
            Event::Issue { block, .. }
            | Event::Stall { block, .. }
            | Event::SharedAccess { block, .. }
            | Event::GlobalRequest { block, .. }
            | Event::BarrierArrive { block, .. }
            | Event::BarrierRelease { block, .. } => Some(block),
            _ => None,
        }
    }
}

impl CounterSample {
    /// Adds `other` to `self`, field by field.
    pub fn add(&mut self, other: &CounterSample) {
        self.inst_issued += other.inst_issued;
        self.smem_wavefronts += other.smem_wavefronts;
        self.smem_bank_conflicts += other.smem_bank_conflicts;
        self.gmem_requests += other.gmem_requests;
        self.gmem_sectors += other.gmem_sectors;
        let n = other.stall_warp_cycles.len();
        if self.stall_warp_cycles.len() < n {
            self.stall_warp_cycles.resize(n, 0);
        }
        for (a, b) in self
            .stall_warp_cycles
            .iter_mut()
            .zip(&other.stall_warp_cycles)
        {
            *a += b;
        }
    }
}

/// One SM's activity over a counter interval.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CounterSample {
    /// Warp instructions issued (`smsp__inst_executed`).
    pub inst_issued: u64,
    /// Shared-memory wavefronts, loads and stores.
    pub smem_wavefronts: u64,
    /// Shared-memory bank conflicts, loads and stores.
    pub smem_bank_conflicts: u64,
    /// Global-memory requests, loads and stores.
    pub gmem_requests: u64,
    /// Global-memory sectors, loads and stores.
    pub gmem_sectors: u64,
    /// Warp-cycles spent in each stall reason, indexed by
    /// [`StallReason::index`] (shorter vectors mean zeros for the rest).
    pub stall_warp_cycles: Vec<u64>,
}

macro_rules! stall_reasons {
    ($($variant:ident = $name:literal, $doc:literal;)*) => {
        /// Why a warp did not issue, named as Nsight Compute names it.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum StallReason {
            $(#[doc = $doc] $variant,)*
        }

        impl StallReason {
            /// Every reason, in index order.
            pub const ALL: &'static [StallReason] = &[$(StallReason::$variant,)*];

            /// The Nsight Compute name (`long_scoreboard`, ...).
            pub const fn name(self) -> &'static str {
                match self {
                    $(StallReason::$variant => $name,)*
                }
            }
        }
    };
}

stall_reasons! {
    LongScoreboard = "long_scoreboard", "Waiting on a global/local memory result.";
    ShortScoreboard = "short_scoreboard", "Waiting on a shared-memory or other MIO result.";
    MioThrottle = "mio_throttle", "The memory input/output queue is full.";
    LgThrottle = "lg_throttle", "The local/global memory queue is full.";
    Barrier = "barrier", "Waiting at a block barrier.";
    MathPipeThrottle = "math_pipe_throttle", "The execution pipe is busy.";
    NotSelected = "not_selected", "Eligible, but another warp was picked.";
    Wait = "wait", "A fixed-latency dependency.";
    DispatchStall = "dispatch_stall", "The dispatcher could not take the instruction.";
    NoInstruction = "no_instruction", "No instruction fetched yet.";
    BranchResolving = "branch_resolving", "Waiting for a branch target.";
    Membar = "membar", "Waiting on a memory barrier.";
    Selected = "selected", "Issuing this cycle (not a stall).";
}

impl StallReason {
    /// The number of reasons.
    pub const COUNT: usize = Self::ALL.len();

    /// The reason's index in [`StallReason::ALL`] (and its binary code).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The reason with index `i`, if any.
    pub fn from_index(i: usize) -> Option<Self> {
        Self::ALL.get(i).copied()
    }
}

impl fmt::Display for StallReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stall_reason_indices_round_trip() {
        for (i, r) in StallReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
            assert_eq!(StallReason::from_index(i), Some(*r));
        }
        assert_eq!(StallReason::from_index(StallReason::COUNT), None);
        assert_eq!(StallReason::LongScoreboard.to_string(), "long_scoreboard");
    }
}
