//! What one launch hands an SM while it runs, split by who may change it:
//! - [`Launch`]: launch-wide and read-only (the machine, the decoded
//!   program, the grid), shared by every host thread;
//! - [`Worker`]: one host thread's counters and scratch, merged at the end
//!   of the launch (an SM's global requests wait in the SM itself);
//! - per SM (in [`Ctx`]): its store log, and the tracer of a traced launch
//!   (which runs on one thread).
//!
//! The engine builds a [`Ctx`] each time it runs an SM; an SM sees device
//! memory only read-only, so SMs on different threads share nothing
//! mutable while a quantum runs.

use std::ops::{Deref, DerefMut};

use kernels_ir::{Dim3, VerifiedKernel};

use crate::config::GpuConfig;
use crate::decode::Program;
use crate::memory::GlobalMem;
use crate::shared_mem::Banks;
use crate::stats::{KernelStats, StallReason};
use crate::store_log::StoreLog;
use crate::trace::Tracer;

/// Launch-wide data no SM changes.
#[derive(Clone, Copy)]
pub(crate) struct Launch<'a> {
    pub cfg: &'a GpuConfig,
    pub prog: &'a Program,
    pub kernel: &'a VerifiedKernel,
    pub grid: Dim3,
    pub block: Dim3,
    pub total_blocks: u64,
    pub warps_per_block: u32,
    /// Blocks one SM holds at once (the occupancy).
    pub blocks_per_sm: u32,
    pub banks: Banks,
}

impl Launch<'_> {
    /// The SMs the grid keeps busy (`min(num_sms, blocks)`): they share
    /// the L2's store rate ([`crate::l2_port`]).
    pub fn busy_sms(&self) -> u64 {
        u64::from(self.cfg.num_sms).min(self.total_blocks)
    }
}

/// One host thread's share of a launch: what it counted and what its SMs
/// asked of the shared memory system.
pub(crate) struct Worker {
    pub stats: KernelStats,
    /// Scratch: the sectors of one request.
    pub sectors: Vec<u64>,
    /// The cycle after the last warp exit so far.
    pub last_exit: u64,
    /// Lane vectors for executing instructions.
    pub scratch: crate::exec::Scratch,
}

impl Worker {
    pub fn new(stats: KernelStats) -> Worker {
        Worker {
            stats,
            sectors: Vec::new(),
            last_exit: 0,
            scratch: Default::default(),
        }
    }
}

/// What an SM works with while it runs: the launch, device memory as the
/// quantum found it, its own store log, a tracer and its thread's
/// [`Worker`] (fields of which read as the context's own).
pub(crate) struct Ctx<'a, 't> {
    pub cfg: &'a GpuConfig,
    pub prog: &'a Program,
    pub kernel: &'a VerifiedKernel,
    pub grid: Dim3,
    pub block: Dim3,
    pub warps_per_block: u32,
    pub banks: Banks,
    /// Whether the grid had blocks left to start when this run began (a
    /// retiring block then stops the SM's run: see [`crate::engine`]).
    pub blocks_left: bool,
    pub mem: &'a GlobalMem,
    pub log: &'a mut StoreLog,
    pub tracer: &'a mut Tracer<'t>,
    worker: &'a mut Worker,
}

impl<'a, 't> Ctx<'a, 't> {
    pub fn new(
        l: &Launch<'a>,
        blocks_left: bool,
        mem: &'a GlobalMem,
        log: &'a mut StoreLog,
        tracer: &'a mut Tracer<'t>,
        worker: &'a mut Worker,
    ) -> Ctx<'a, 't> {
        Ctx {
            cfg: l.cfg,
            prog: l.prog,
            kernel: l.kernel,
            grid: l.grid,
            block: l.block,
            warps_per_block: l.warps_per_block,
            banks: l.banks,
            blocks_left,
            mem,
            log,
            tracer,
            worker,
        }
    }

    /// Charges `n` warp-cycles of `reason` from cycle `from` on to the
    /// instruction at `pc` of a warp of SM `sm`.
    #[inline]
    pub fn charge(&mut self, sm: u32, pc: u32, reason: StallReason, from: u64, n: u64) {
        self.worker.stats.charge(pc, reason, n);
        self.tracer.sample_stall(sm, reason, from, n);
    }

    /// The per-instruction half of [`Self::charge`]: `n` warp-cycles of
    /// `reason` to the instruction at `pc` (the kernel's totals and the
    /// samples are charged for several warps at once by [`Self::charge_all`]).
    #[inline]
    pub fn charge_pc(&mut self, pc: u32, reason: StallReason, n: u64) {
        if let Some(p) = self.worker.stats.per_pc.get_mut(pc as usize) {
            p.stalls[reason.index()] += n;
        }
    }

    /// The other half: `warps` warps of SM `sm` each waited `n` cycles
    /// from `from` on for `reason`.
    #[inline]
    pub fn charge_all(&mut self, sm: u32, reason: StallReason, from: u64, n: u64, warps: u64) {
        self.worker.stats.stalls[reason.index()] += n * warps;
        if self.tracer.sampling() {
            for _ in 0..warps {
                self.tracer.sample_stall(sm, reason, from, n);
            }
        }
    }

    pub fn prog_shared_bytes(&self) -> usize {
        self.kernel.kernel().shared_bytes as usize
    }
}

impl Deref for Ctx<'_, '_> {
    type Target = Worker;
    fn deref(&self) -> &Worker {
        self.worker
    }
}

impl DerefMut for Ctx<'_, '_> {
    fn deref_mut(&mut self) -> &mut Worker {
        self.worker
    }
}
