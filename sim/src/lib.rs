//! The simsort cycle-level SIMT GPU simulator.
//!
//! [`Gpu`] runs [`kernels_ir::VerifiedKernel`]s on a machine described by one
//! [`GpuConfig`] (presets [`GpuConfig::h200`], the default, and
//! [`GpuConfig::tiny`] for tests), computes exactly what the reference
//! interpreter `kernels_ir::interp` computes, and counts what Nsight Compute
//! counts: cycles, warp instructions, shared-memory wavefronts and bank
//! conflicts, global requests and sectors, and the stall reason of every
//! resident warp in every cycle ([`KernelStats`]).
//!
//! ```
//! use kernels_ir::{Dim3, KernelBuilder, ParamType, ParamValue, Special, verify_kernel};
//! use sim::{Cycle, Gpu, GpuConfig, RunOptions};
//!
//! // out[tid] = tid * 3
//! let mut b = KernelBuilder::new("triple");
//! let out = b.param("out", ParamType::U64);
//! let (tid, v, off, addr) = (b.reg32(), b.reg32(), b.reg64(), b.reg64());
//! b.mov(tid, Special::TidX);
//! b.mul(v, tid, 3);
//! b.cvt_u64_u32(off, tid);
//! b.shl(off, off, 2);
//! b.add(addr, out, off);
//! b.st_global_b32(addr, 0, v);
//! b.exit();
//! let kernel = verify_kernel(b.build()).unwrap();
//!
//! let mut gpu = Gpu::new(GpuConfig::tiny(), RunOptions::default())?;
//! let buf = gpu.alloc(4 * 16);
//! let stats = gpu.launch(&kernel, Dim3::x(1), Dim3::x(16), &[ParamValue::U64(buf)])?;
//! assert_eq!(gpu.read_u32s(buf, 4)?, [0, 3, 6, 9]);
//! // Two warps of 8 lanes, 6 instructions each: the `cvt` is a register
//! // rename in SASS and issues nothing.
//! assert_eq!(stats.inst_executed, 2 * 6);
//! assert!(stats.cycles > Cycle(0));
//! println!("{} cycles, {:?}", stats.cycles, stats.metrics()["smsp__inst_executed.sum"]);
//! # Ok::<(), sim::SimError>(())
//! ```
//!
//! # The timing model
//! Each SM has `num_subpartitions` warp schedulers; each issues at most one
//! warp instruction per cycle (loose round robin or greedy-then-oldest). An
//! instruction issues when its operands are ready (a per-warp scoreboard:
//! ALU results after `alu_latency_cycles`, shuffles and shared loads through
//! the MIO pipe, global loads through the LSU and memory partitions) and its
//! pipe can take it:
//! - **ALU**: `ceil(warp_size / alu_lanes_per_cycle)` cycles per instruction
//!   per sub-partition. `cmpx` is two SASS min/max instructions: it counts 2
//!   in `smsp__inst_executed`, takes two issue slots and the ALU twice as long.
//!   Packing a 64-bit value's 32-bit halves is a register rename in SASS,
//!   and so is the second of a pair ptxas writes as one `IMAD`, `IADD3` or
//!   `LEA` (`three_input.rs`): each issues nothing where a warp reaches it
//!   after another instruction.
//! - **Shared memory and shuffles** (MIO): a per-sub-partition queue of
//!   `mio_queue_depth` into one SM-wide pipe that serves one wavefront (or
//!   one shuffle of `shfl_lanes_per_cycle` lanes) per cycle; extra
//!   wavefronts of a conflicted access occupy the pipe and delay the result
//!   ([`shared_mem`] has the exact wavefront rule).
//! - **Global memory** (LSU): a per-sub-partition queue of `lsu_queue_depth`
//!   into the SM's L1TEX, `lsu_sectors_per_cycle` sectors per cycle, then
//!   the memory partitions ([`global_mem`] says what is and is not modelled).
//! - **Control**: a branch delays its warp `branch_latency_cycles`;
//!   `bar.sync`: the SM's barrier unit takes the block's arrivals, one every
//!   `bar_release_cycles_per_warp` cycles, and releases the block's warps
//!   together `bar_latency_cycles` after the last (exited warps count as
//!   arrived).
//! - **Instruction fetch**: a warp whose next instruction starts another
//!   128-byte line of the kernel's SASS (each IR instruction as many 16-byte
//!   instructions as its issue slots) looks it up in its sub-partition's L0,
//!   then the SM's L1, and waits (`no_instruction`) for a miss; a launch
//!   starts with the kernel's first bytes in both, so a kernel that fits the
//!   L0 never waits (the `icache` module).
//!
//! Warps issue each basic block in the order `load_sched.rs` gives it: a
//! global load moves up past the instructions that wait for an earlier
//! load, as ptxas schedules (instructions keep their pc for every counter).
//!
//! Blocks are placed on SMs under the occupancy limits (warps, blocks,
//! registers allocated per warp in `reg_alloc_unit` units, shared memory).
//! Functional effects happen at issue; register bank conflicts, the L1
//! data cache and dual issue are not modelled.
//!
//! The `h200` preset reproduces `hardware.md`'s dependent-chain figures
//! (tests in `src/tests/calibration.rs`): a min/max/add chain 12.1 cycles per 3
//! ops, shuffle + add 30.1, a shared-memory pointer chase 29.2, an L2 chase
//! about 317, a DRAM chase 649, `bar.sync` in a loop 14.1 cycles with one
//! warp and 77.8 with 32.
//!
//! # Stalls and counters
//! Every resident warp is charged exactly one [`StallReason`] per cycle
//! (`selected` when it issues), so the reasons sum to resident warp-cycles;
//! charges are made in bulk when the wait's end is known, which is what lets
//! idle stretches cost nothing to simulate. `dispatch_stall` and `membar`
//! are not modelled and stay 0; `no_instruction` is a warp waiting for an
//! instruction-cache line (the `icache` module: kernels larger than a
//! sub-partition's L0).
//! [`KernelStats::metrics`] names the counters as Nsight Compute does.
//!
//! # Speed
//! Instructions are pre-decoded into a flat array with resolved operands;
//! registers are `[register][lane]` vectors at their native width (`u32` or
//! `u64` lanes) and each ALU instruction or shuffle carries a loop chosen at
//! decode for its operation, width and operand shape (see the `exec`
//! module), so executing it is one call to a loop the compiler vectorises;
//! SMs run in quanta of the shortest memory latency with global-memory
//! timing resolved afterwards in exact cycle-by-cycle order (see the
//! `engine` module; [`RunOptions::lockstep`] runs cycle by cycle and gives the
//! same results). A scheduling pass reads small per-sub-partition arrays
//! (ready cycle, pc, throttle class, age) and works out each pipe's
//! busy-until once; the kernel's share of not-selected charges is one add.
//! `cargo bench -p sim --bench speed` reports simulated warp instructions
//! and cycles per host second. [`RunOptions::threads`] host threads
//! simulate a quantum's SMs at once, with the same results for any count
//! (`docs/ARCHITECTURE.md` says what runs in parallel and what waits).
//!
//! # Traces
//! [`Gpu::launch_traced`] reports to a [`TraceSink`] (a [`Recorder`] around
//! a `traces::TraceWriter`, or a [`VecSink`]): launches, blocks, issues,
//! stall changes, shared accesses, global requests, barriers, the register
//! writes of focused warps, and per-SM counter samples.
#![deny(missing_docs)]
#![warn(clippy::print_stdout, clippy::panic)]

mod aligned;
mod coalescer;
mod config;
mod counters;
mod decode;
mod engine;
mod error;
mod exec;
pub mod global_mem;
mod gpu;
mod icache;
mod ids;
mod init;
mod interrupt;
mod issue;
mod l1;
mod l1_fill;
mod l2;
mod l2_port;
mod lanes;
mod launch;
mod line_return;
mod load_sched;
mod lookahead;
mod lsu_pipe;
mod memory;
mod options;
pub mod phases;
mod regfile;
mod rename;
mod resolve;
mod s2r;
mod sass_size;
mod sass_slots;
mod scheduler;
mod scoreboard;
mod select_fold;
mod shared_atomic;
pub mod shared_mem;
mod shared_pairs;
mod slice_hash;
mod sm;
mod stats;
mod store_combine;
mod store_drain;
mod store_log;
mod store_staging;
mod team;
mod team_batch;
mod three_input;
mod time;
mod trace;
mod traced;
mod warp;
mod yield_loop;

pub use config::{ConfigError, GpuConfig, SchedulerPolicy};
pub use error::{Fault, FaultKind, LaunchProblem, SimError};
pub use gpu::{Gpu, Occupancy};
pub use ids::{BlockId, SmId, WarpAt, WarpId};
pub use interrupt::{launch_progress, request_stop, stop_flag, stop_requested};
pub use kernels_ir::{Dim3, ParamValue};
pub use options::RunOptions;
pub use sass_size::code_size as sass_code_size;
pub use stats::{
    KernelStats, NUM_STALL_REASONS, PcStats, STALL_METRICS, StallReason, Stalls, metric_is_count,
};
pub use time::Cycle;
pub use trace::{Recorder, TraceSink, VecSink};
pub use traced::{TraceHook, TracedGpu, traced};

/// The statistics of a launch (the name the architecture notes use).
pub type Stats = KernelStats;

/// The text of the instruction at `pc` (the printer's form).
pub(crate) fn inst_text(kernel: &kernels_ir::VerifiedKernel, pc: u32) -> String {
    let k = kernel.kernel();
    match k.insts.get(pc as usize) {
        Some(inst) => kernels_ir::printer::print_inst(k, inst),
        None => "exit (implicit, at the end of the kernel)".to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::panic)] // tests fail by panicking
mod tests;
