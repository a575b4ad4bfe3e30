//! The GPU: device memory, the SMs, and launches.
//!
//! A launch decodes the kernel, places blocks on SMs under the occupancy
//! limits (breadth first: block 0 on SM 0, block 1 on SM 1, ...; a retiring
//! block's SM takes the next one), then runs the SMs in global time order:
//! a queue holds each SM's next event, so an SM whose warps all wait on
//! memory or a barrier costs nothing until its next event, and every SM
//! event at cycle `t` is processed before any at `t + 1` (SMs in index order
//! within a cycle), which keeps shared resources (the memory partitions)
//! causal and the run deterministic.

use kernels_ir::{Device, Dim3, InstData, ParamValue, VerifiedKernel};

use crate::config::GpuConfig;
use crate::decode::{Shape, decode};
use crate::engine::Shared;
use crate::error::{LaunchProblem, SimError};
use crate::global_mem::MemTiming;
use crate::launch::{Launch, Worker};
use crate::memory::GlobalMem;
use crate::options::RunOptions;
use crate::shared_mem::Banks;
use crate::sm::Sm;
use crate::stats::KernelStats;
use crate::store_log::StoreLog;
use crate::team::Team;
use crate::time::Cycle;
use crate::trace::{TraceSink, Tracer};

/// How many blocks of a kernel fit on one SM, and what limits it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Resident blocks per SM.
    pub blocks_per_sm: u32,
    /// Warps per block.
    pub warps_per_block: u32,
    /// 32-bit registers one warp is allocated.
    pub regs_per_warp: u64,
    /// The binding limit: `warps`, `blocks`, `registers` or `shared memory`.
    pub limited_by: &'static str,
}

/// A simulated GPU: a machine config, device memory, and the SMs.
pub struct Gpu {
    cfg: GpuConfig,
    options: RunOptions,
    mem: GlobalMem,
    timing: MemTiming,
    sms: Vec<Sm>,
    /// Per SM, its stores of the running quantum.
    logs: Vec<StoreLog>,
    /// The host threads that run SMs ([`RunOptions::threads`] members, the
    /// launching thread one of them), started at the first launch.
    team: Option<Team>,
}

impl Gpu {
    /// A GPU of `cfg`, which must be valid (every violation is reported).
    pub fn new(cfg: GpuConfig, options: RunOptions) -> Result<Gpu, SimError> {
        cfg.validate().map_err(SimError::Config)?;
        let sms = (0..cfg.num_sms).map(|i| Sm::new(i, &cfg)).collect();
        let logs = (0..cfg.num_sms).map(|_| StoreLog::default()).collect();
        Ok(Gpu {
            timing: MemTiming::new(&cfg),
            cfg,
            options,
            mem: GlobalMem::default(),
            sms,
            logs,
            team: None,
        })
    }

    /// The machine config.
    pub fn config(&self) -> &GpuConfig {
        &self.cfg
    }

    /// The run options.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// The run options, to change between launches.
    pub fn options_mut(&mut self) -> &mut RunOptions {
        &mut self.options
    }

    /// Allocates `bytes` of zeroed device memory; returns its address
    /// (256-byte aligned, the same addresses as `kernels_ir::interp`).
    ///
    /// # Panics
    /// When the host cannot provide the memory; use [`Gpu::try_alloc`]
    /// for sizes that come from a user.
    pub fn alloc(&mut self, bytes: u64) -> u64 {
        self.try_alloc(bytes)
            .expect("the host has memory for the device allocation")
    }

    /// Allocates `bytes` of zeroed device memory (256-byte aligned), or
    /// fails with [`SimError::HostOutOfMemory`] instead of aborting. Pages
    /// cost host memory only once touched.
    pub fn try_alloc(&mut self, bytes: u64) -> Result<u64, SimError> {
        self.mem
            .try_alloc(bytes)
            .ok_or(SimError::HostOutOfMemory { bytes })
    }

    /// Copies `data` to device memory at `addr`.
    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        let len = data.len() as u64;
        self.mem
            .write(addr, data)
            .ok_or(SimError::HostOutOfBounds { addr, len })
    }

    /// Copies `len` bytes of device memory at `addr` out.
    pub fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, SimError> {
        let bytes = self
            .mem
            .read(addr, len)
            .ok_or(SimError::HostOutOfBounds { addr, len })?;
        Ok(bytes.to_vec())
    }

    /// Writes 32-bit words at `addr` (little endian).
    pub fn write_u32s(&mut self, addr: u64, words: &[u32]) -> Result<(), SimError> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write_bytes(addr, &bytes)
    }

    /// Reads `n` 32-bit words at `addr`.
    pub fn read_u32s(&self, addr: u64, n: usize) -> Result<Vec<u32>, SimError> {
        let bytes = self.mem.read(addr, n as u64 * 4);
        let bytes = bytes.ok_or(SimError::HostOutOfBounds {
            addr,
            len: n as u64 * 4,
        })?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Writes 64-bit words at `addr` (little endian).
    pub fn write_u64s(&mut self, addr: u64, words: &[u64]) -> Result<(), SimError> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write_bytes(addr, &bytes)
    }

    /// Reads `n` 64-bit words at `addr`.
    pub fn read_u64s(&self, addr: u64, n: usize) -> Result<Vec<u64>, SimError> {
        let bytes = self.mem.read(addr, n as u64 * 8);
        let bytes = bytes.ok_or(SimError::HostOutOfBounds {
            addr,
            len: n as u64 * 8,
        })?;
        let word = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("8-byte chunk"));
        Ok(bytes.chunks_exact(8).map(word).collect())
    }

    /// How many blocks of `kernel` with `block` threads fit on one SM.
    pub fn occupancy(
        &self,
        kernel: &VerifiedKernel,
        block: Dim3,
    ) -> Result<Occupancy, LaunchProblem> {
        let cfg = &self.cfg;
        let k = kernel.kernel();
        let threads = block.count();
        if threads > u64::from(cfg.max_threads_per_block) {
            return Err(LaunchProblem::BlockTooLarge {
                threads,
                max: cfg.max_threads_per_block,
            });
        }
        let regs = k.regs.words_per_thread();
        if regs > cfg.max_regs_per_thread {
            return Err(LaunchProblem::TooManyRegisters {
                regs,
                max: cfg.max_regs_per_thread,
            });
        }
        if k.shared_bytes > cfg.smem_bytes_per_block {
            let max = cfg.smem_bytes_per_block;
            return Err(LaunchProblem::SharedTooLarge {
                bytes: k.shared_bytes,
                max,
            });
        }
        let warps = threads.div_ceil(cfg.warp_size.into()).max(1);
        // The registers the machine code would allocate: the live words and
        // what the compiler adds, never more than the IR declares but for
        // kernels moving 16 bytes a lane in an access.
        let allocated = kernels_ir::live::RegAllocation {
            reg_words_beyond_live: cfg.reg_words_beyond_live,
            reg_words_beyond_live_b128: cfg.reg_words_beyond_live_b128,
            max_regs_per_thread: cfg.max_regs_per_thread,
        }
        .words(kernel.live_words(), regs, kernel.moves_16_bytes());
        let regs_per_warp = (u64::from(allocated) * u64::from(cfg.warp_size))
            .next_multiple_of(cfg.reg_alloc_unit.into());
        let limits = [
            ("warps", u64::from(cfg.max_warps_per_sm) / warps),
            ("blocks", cfg.max_blocks_per_sm.into()),
            (
                "registers",
                u64::from(cfg.regs_per_sm)
                    .checked_div(regs_per_warp * warps)
                    .unwrap_or(u64::MAX),
            ),
            (
                "shared memory",
                u64::from(cfg.smem_bytes_per_sm)
                    .checked_div(k.shared_bytes.into())
                    .unwrap_or(u64::MAX),
            ),
        ];
        let (limited_by, blocks) = limits
            .into_iter()
            .min_by_key(|&(_, n)| n)
            .expect("four limits");
        if blocks == 0 {
            let why = match limited_by {
                "warps" => format!("{warps} warps, the SM holds {}", cfg.max_warps_per_sm),
                "registers" => format!(
                    "{} registers ({allocated} per thread), the SM has {}",
                    regs_per_warp * warps,
                    cfg.regs_per_sm
                ),
                _ => format!(
                    "{} bytes of shared memory, the SM has {}",
                    k.shared_bytes, cfg.smem_bytes_per_sm
                ),
            };
            return Err(LaunchProblem::DoesNotFit(why));
        }
        Ok(Occupancy {
            blocks_per_sm: blocks as u32,
            warps_per_block: warps as u32,
            regs_per_warp,
            limited_by,
        })
    }

    fn check_launch(
        &self,
        vk: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<Occupancy, LaunchProblem> {
        let k = vk.kernel();
        if k.params.len() != params.len() {
            return Err(LaunchProblem::ParamCount {
                expected: k.params.len(),
                got: params.len(),
            });
        }
        for (decl, value) in k.params.iter().zip(params) {
            if decl.ty != value.ty() {
                return Err(LaunchProblem::ParamType {
                    param: decl.name.clone(),
                    expected: decl.ty,
                });
            }
        }
        if grid.count() == 0 || block.count() == 0 {
            return Err(LaunchProblem::Empty { grid, block });
        }
        for inst in &k.insts {
            if let InstData::Shfl { width, .. } = inst.data
                && width > self.cfg.warp_size
            {
                return Err(LaunchProblem::ShflWidth {
                    width,
                    warp_size: self.cfg.warp_size,
                });
            }
        }
        self.occupancy(vk, block)
    }

    /// Runs `kernel` to completion on `grid` blocks of `block` threads.
    pub fn launch(
        &mut self,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<KernelStats, SimError> {
        self.run(kernel, grid, block, params, None)
    }

    /// [`Gpu::launch`], reporting what happens to `sink`.
    pub fn launch_traced(
        &mut self,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
        sink: &mut dyn TraceSink,
    ) -> Result<KernelStats, SimError> {
        self.run(kernel, grid, block, params, Some(sink))
    }

    fn run(
        &mut self,
        vk: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
        sink: Option<&mut dyn TraceSink>,
    ) -> Result<KernelStats, SimError> {
        let name = &vk.kernel().name;
        let occ = self
            .check_launch(vk, grid, block, params)
            .map_err(|problem| SimError::Launch {
                kernel: name.clone(),
                problem,
            })?;
        let shape = Shape {
            warp_size: self.cfg.warp_size,
            grid,
            block,
            params,
            icache_line_bytes: self.cfg.icache_line_bytes,
        };
        let prog = decode(vk, &shape);
        let (limit, lockstep) = (self.options.max_cycles, self.options.lockstep);
        let threads = self.options.threads.clamp(1, self.sms.len().max(1));
        // Traced and lockstep runs time memory on one thread, as one
        // group; parallel runs in a group per member.
        let ordered = sink.is_some() || lockstep;
        self.timing.start_launch(if ordered { 1 } else { threads });
        let stats = KernelStats::new(name, grid, block, vk.kernel().insts.len());
        let l = Launch {
            cfg: &self.cfg,
            prog: &prog,
            kernel: vk,
            grid,
            block,
            total_blocks: grid.count(),
            warps_per_block: occ.warps_per_block,
            blocks_per_sm: occ.blocks_per_sm,
            banks: Banks {
                banks: self.cfg.smem_banks,
                width: self.cfg.smem_bank_width_bytes,
            },
        };
        let mut sh = Shared::new(&mut self.mem, &mut self.timing, &mut self.logs);
        let mut tracer = Tracer::new(sink);
        let (end, mut stats) = if ordered {
            // One thread, SMs in global event order: trace events in order.
            for sm in &mut self.sms {
                sm.reset(&l);
            }
            tracer.start_samples(self.sms.len());
            let dims = ([grid.x, grid.y, grid.z], [block.x, block.y, block.z]);
            let launch = tracer.begin(vk.kernel(), dims.0, dims.1);
            let mut worker = Worker::new(stats);
            let end = crate::engine::run_ordered(
                &l,
                &mut self.sms,
                &mut sh,
                &mut tracer,
                &mut worker,
                limit,
                lockstep,
            )?;
            let end = launch_end(&self.cfg, end, sh.last_store_done, &worker.stats);
            for sm in 0..self.sms.len() as u32 {
                tracer.flush_samples(sm, u64::MAX / 2);
            }
            tracer.end(end, launch);
            if let Some(e) = tracer.error.take() {
                return Err(SimError::Trace(e.to_string()));
            }
            (end, worker.stats)
        } else {
            let team = match self.team.take() {
                Some(t) if t.threads() == threads => t,
                _ => Team::new(threads, "simsort-sm")
                    .map_err(|e| SimError::Threads(e.to_string()))?,
            };
            let team = &*self.team.insert(team);
            let insts = vk.kernel().insts.len();
            // One worker per member; every worker's counters start alike
            // (name, grid, launches), so any may be the one the others
            // are added to.
            let mut workers = vec![Worker::new(stats)];
            workers.extend(
                (1..threads).map(|_| Worker::new(KernelStats::new(name, grid, block, insts))),
            );
            let end =
                crate::engine::run_parallel(&l, &mut self.sms, &mut sh, &mut workers, team, limit)?;
            // Integer sums: any order gives the same.
            let stats = workers.into_iter().map(|w| w.stats).reduce(|mut a, b| {
                a.add_part(&b);
                a
            });
            let stats = stats.expect("one worker");
            (
                launch_end(&self.cfg, end, sh.last_store_done, &stats),
                stats,
            )
        };
        stats.cycles = Cycle(end);
        stats.sm_cycles_elapsed = end * u64::from(self.cfg.num_sms);
        stats.count_issues();
        Ok(stats)
    }
}

impl Device for Gpu {
    type Stats = KernelStats;
    type Error = SimError;

    fn warp_size(&self) -> u32 {
        self.cfg.warp_size
    }

    fn alloc(&mut self, bytes: u64) -> u64 {
        Gpu::alloc(self, bytes)
    }

    fn try_alloc(&mut self, bytes: u64) -> Result<u64, SimError> {
        Gpu::try_alloc(self, bytes)
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        Gpu::write_bytes(self, addr, data)
    }

    fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, SimError> {
        Gpu::read_bytes(self, addr, len)
    }

    fn launch(
        &mut self,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<KernelStats, SimError> {
        Gpu::launch(self, kernel, grid, block, params)
    }
}

/// The cycle a launch ends whose last warp left at `warps_done` and
/// whose last store was written into L2 at `last_store` (0: none), with
/// `stats` its counters: the fixed cost of every launch, and more for one
/// that read or wrote global memory (`memory_launch_cycles`). The first
/// wave's warps already spent `warp_start_fetch_cycles` of the fixed cost
/// waiting at their start ([`crate::sm::Sm::start_block`]).
fn launch_end(cfg: &GpuConfig, warps_done: u64, last_store: u64, stats: &KernelStats) -> u64 {
    let spent = u64::from(cfg.warp_start_fetch_cycles);
    (warps_done.max(last_store) + fixed_launch_cycles(cfg, stats)).saturating_sub(spent)
}

/// The cycles a launch with counters `stats` costs beyond its blocks'
/// work: `launch_overhead_cycles`, `memory_launch_cycles` more when it
/// read or wrote global memory, and the part of `launch_all_sms_cycles`
/// for the SMs its blocks used ([`sms_part`]).
pub(crate) fn fixed_launch_cycles(cfg: &GpuConfig, stats: &KernelStats) -> u64 {
    let memory = if stats.gmem_ld_requests + stats.gmem_st_requests > 0 {
        cfg.memory_launch_cycles
    } else {
        0
    };
    let blocks: u64 = stats.grid.iter().map(|&d| u64::from(d)).product();
    u64::from(cfg.launch_overhead_cycles) + u64::from(memory) + sms_part(cfg, blocks)
}

/// What a launch of `blocks` blocks pays of `launch_all_sms_cycles`: the
/// field times sqrt((s - 1) / (n - 1)) for s of the n SMs used (the first
/// wave puts block i on SM i). On the H200 the same kernel ends some
/// 300-500 cycles later over 132 SMs than over one, about 180 later over
/// 16 (hw/calib/suite_launch_sms.txt), while its blocks start within 64 ns
/// of each other on every SM and end within 128 (hw/launch_spread.cu): the
/// time is the launch's, outside the blocks, so it is charged at the end.
fn sms_part(cfg: &GpuConfig, blocks: u64) -> u64 {
    let n = u64::from(cfg.num_sms);
    let used = blocks.min(n);
    if n < 2 || used < 2 {
        return 0;
    }
    let share = ((used - 1) as f64 / (n - 1) as f64).sqrt();
    (f64::from(cfg.launch_all_sms_cycles) * share).round() as u64
}
