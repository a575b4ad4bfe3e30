//! Why a simulation could not start or did not finish.

use std::fmt;

use kernels_ir::{Dim3, ParamType, Space};

use crate::config::ConfigError;
use crate::ids::{BlockId, SmId, WarpAt, WarpId};
use crate::time::Cycle;

/// Everything that can go wrong in the simulator. Messages are lower case
/// and name the bad value; a fault names the kernel, block, warp,
/// instruction and cycle.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The machine config is impossible; every violation is listed.
    #[error("invalid gpu config: {}", join(.0))]
    Config(Vec<ConfigError>),
    /// The launch itself is impossible (parameters, shapes, resources).
    #[error("kernel `{kernel}`: {problem}")]
    Launch {
        /// The kernel.
        kernel: String,
        /// What is wrong.
        problem: LaunchProblem,
    },
    /// A host copy outside every allocation.
    #[error("host access of {len} bytes at {addr:#x} is outside device memory")]
    HostOutOfBounds {
        /// Address.
        addr: u64,
        /// Length in bytes.
        len: u64,
    },
    /// The host threads that run SMs in parallel could not be started.
    #[error("cannot start the simulator's host threads: {0}")]
    Threads(String),
    /// The host could not provide the memory for a device allocation.
    #[error("cannot allocate {bytes} bytes of device memory: the host is out of memory")]
    HostOutOfMemory {
        /// The allocation's size in bytes.
        bytes: u64,
    },
    /// A kernel instruction faulted.
    #[error("{0}")]
    Fault(Box<Fault>),
    /// Warps wait at a barrier that can never complete.
    #[error(
        "kernel `{kernel}` deadlocked at cycle {cycle}: {} wait at a barrier that can never complete",
        list(.warps)
    )]
    Deadlock {
        /// The kernel.
        kernel: String,
        /// When it was detected.
        cycle: Cycle,
        /// The stuck warps and their instructions.
        warps: Vec<WarpAt>,
    },
    /// The trace sink failed (the run itself was fine up to then).
    #[error("trace: {0}")]
    Trace(String),
    /// A stop was requested ([`crate::request_stop`], Ctrl-C) while the
    /// launch ran.
    #[error("kernel `{kernel}` interrupted at cycle {cycle} (a stop was requested)")]
    Interrupted {
        /// The kernel.
        kernel: String,
        /// About the cycle it had reached.
        cycle: Cycle,
    },
    /// The launch ran past [`crate::RunOptions::max_cycles`].
    #[error(
        "kernel `{kernel}` ran past its cycle limit of {limit}; still running: {}",
        list(.warps)
    )]
    CycleLimit {
        /// The kernel.
        kernel: String,
        /// The limit.
        limit: Cycle,
        /// Warps still resident (at most 8 listed) and their instructions.
        warps: Vec<WarpAt>,
    },
}

impl SimError {
    /// Whether the error is the kernel's doing at run time (a fault,
    /// deadlock or cycle limit) rather than bad input to the simulator.
    pub fn is_runtime(&self) -> bool {
        matches!(
            self,
            SimError::Fault(_)
                | SimError::Deadlock { .. }
                | SimError::CycleLimit { .. }
                | SimError::Interrupted { .. }
        )
    }
}

fn join(errors: &[ConfigError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

fn list(warps: &[WarpAt]) -> String {
    if warps.is_empty() {
        return "no warps".into();
    }
    warps
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a launch cannot start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchProblem {
    /// Wrong number of parameters.
    #[error("takes {expected} parameters, {got} given")]
    ParamCount {
        /// Declared.
        expected: usize,
        /// Given.
        got: usize,
    },
    /// A parameter of the wrong type.
    #[error("parameter `{param}` must be {}", .expected.name())]
    ParamType {
        /// The parameter.
        param: String,
        /// Its declared type.
        expected: ParamType,
    },
    /// A grid or block with no threads.
    #[error("empty launch: grid {grid}, block {block}")]
    Empty {
        /// Grid.
        grid: Dim3,
        /// Block.
        block: Dim3,
    },
    /// A block with more threads than the machine allows.
    #[error("block of {threads} threads exceeds the limit of {max}")]
    BlockTooLarge {
        /// Threads per block.
        threads: u64,
        /// `max_threads_per_block`.
        max: u32,
    },
    /// More registers per thread than the machine allows.
    #[error("{regs} registers per thread exceed the limit of {max}")]
    TooManyRegisters {
        /// 32-bit registers per thread.
        regs: u32,
        /// `max_regs_per_thread`.
        max: u32,
    },
    /// More shared memory per block than the machine allows.
    #[error("{bytes} bytes of shared memory per block exceed the limit of {max}")]
    SharedTooLarge {
        /// Bytes per block.
        bytes: u32,
        /// `smem_bytes_per_block`.
        max: u32,
    },
    /// Not even one block fits on an SM.
    #[error("one block does not fit on an SM: {0}")]
    DoesNotFit(String),
    /// A shuffle segment wider than the warp.
    #[error("shuffle width {width} exceeds the warp size {warp_size}")]
    ShflWidth {
        /// Segment width.
        width: u32,
        /// Warp size.
        warp_size: u32,
    },
}

/// Where and how an instruction faulted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The kernel.
    pub kernel: String,
    /// The SM it ran on.
    pub sm: SmId,
    /// The block (linear index).
    pub block: BlockId,
    /// The block's index in the grid, (x, y, z).
    pub ctaid: [u32; 3],
    /// The warp within the block.
    pub warp: WarpId,
    /// The first faulting lane.
    pub lane: u32,
    /// The instruction index.
    pub pc: u32,
    /// The instruction as text.
    pub inst: String,
    /// The cycle it issued in.
    pub cycle: Cycle,
    /// What went wrong.
    pub kind: FaultKind,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.ctaid;
        write!(
            f,
            "kernel `{}` faulted at cycle {}: {} ({} ({x},{y},{z}), {}, lane {}, pc {}: `{}`)",
            self.kernel,
            self.cycle,
            self.kind,
            self.block,
            self.warp,
            self.lane,
            self.pc,
            self.inst
        )
    }
}

/// The kind of a fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FaultKind {
    /// An access not aligned to its width.
    #[error("misaligned {bytes}-byte {} access at {addr:#x}", space_name(*.space))]
    Misaligned {
        /// Global or shared.
        space: Space,
        /// The address.
        addr: u64,
        /// The access width.
        bytes: u32,
    },
    /// A global access outside every allocation.
    #[error("global access of {bytes} bytes at {addr:#x} is out of bounds")]
    GlobalOutOfBounds {
        /// The address.
        addr: u64,
        /// The access width.
        bytes: u32,
    },
    /// A shared access past the block's shared memory.
    #[error(
        "shared access of {bytes} bytes at {addr:#x} is out of bounds (the block has {size} bytes)"
    )]
    SharedOutOfBounds {
        /// The address.
        addr: u64,
        /// The access width.
        bytes: u32,
        /// The block's shared memory size.
        size: u32,
    },
    /// `bar.sync` reached by part of a warp. No verified kernel does that
    /// (`kernels-ir`'s `verify/barrier.rs` says why): it is an internal
    /// error, the verifier's bug, reported as a fault for its location.
    #[error(
        "internal error: bar.sync reached by a divergent warp (active lanes {active:#x} of \
         {live:#x}), which the verifier's barrier rule rules out (a simsort bug: please report \
         it with this kernel)"
    )]
    DivergentBarrier {
        /// Lanes at the barrier.
        active: u64,
        /// Lanes that have not exited.
        live: u64,
    },
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "global",
        Space::Shared => "shared",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_errors_are_all_listed() {
        let e = SimError::Config(vec![
            ConfigError {
                field: "a".into(),
                message: "x".into(),
            },
            ConfigError {
                field: "b".into(),
                message: "y".into(),
            },
        ]);
        assert_eq!(
            e.to_string(),
            "invalid gpu config: config field `a`: x; config field `b`: y"
        );
    }

    #[test]
    fn faults_name_kernel_block_warp_instruction_and_cycle() {
        let e = SimError::Fault(Box::new(Fault {
            kernel: "k".into(),
            sm: SmId(0),
            block: BlockId(3),
            ctaid: [3, 0, 0],
            warp: WarpId(1),
            lane: 5,
            pc: 7,
            inst: "ld.global.b32 r0, [d0]".into(),
            cycle: Cycle(42),
            kind: FaultKind::GlobalOutOfBounds {
                addr: 0x10,
                bytes: 4,
            },
        }));
        assert_eq!(
            e.to_string(),
            "kernel `k` faulted at cycle 42: global access of 4 bytes at 0x10 is out of bounds \
             (block 3 (3,0,0), warp 1, lane 5, pc 7: `ld.global.b32 r0, [d0]`)"
        );
        assert!(e.is_runtime());
    }
}
