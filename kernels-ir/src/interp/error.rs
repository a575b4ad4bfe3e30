//! Why an interpreted launch failed.

/// A launch or memory error of the reference interpreter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InterpError {
    /// The warp width is outside 1..=64.
    #[error("warp size {0} is outside 1..=64")]
    BadWarpSize(u32),
    /// Wrong number of parameters.
    #[error("kernel `{kernel}` takes {expected} parameters, {got} given")]
    ParamCount {
        /// The kernel.
        kernel: String,
        /// Declared count.
        expected: usize,
        /// Given count.
        got: usize,
    },
    /// A parameter of the wrong type.
    #[error("kernel `{kernel}`: parameter `{param}` must be {expected}")]
    ParamType {
        /// The kernel.
        kernel: String,
        /// The parameter.
        param: String,
        /// Its declared type.
        expected: &'static str,
    },
    /// A grid or block with no threads.
    #[error("kernel `{kernel}`: launch with an empty grid or block")]
    EmptyLaunch {
        /// The kernel.
        kernel: String,
    },
    /// A shuffle segment wider than the warp.
    #[error("kernel `{kernel}`: shuffle width {width} exceeds the warp size {warp_size}")]
    ShflWidth {
        /// The kernel.
        kernel: String,
        /// The segment width.
        width: u32,
        /// The warp size.
        warp_size: u32,
    },
    /// A host copy outside every allocation.
    #[error("host access of {len} bytes at {addr:#x} is outside device memory")]
    HostOutOfBounds {
        /// Address.
        addr: u64,
        /// Length.
        len: u64,
    },
    /// A kernel fault at one instruction.
    #[error(
        "kernel `{kernel}` faulted: {what} (block {block}, warp {warp}, lane {lane}, pc {pc}: {inst})"
    )]
    Fault {
        /// The kernel.
        kernel: String,
        /// Linear block index.
        block: u64,
        /// Warp in block.
        warp: u32,
        /// First faulting lane.
        lane: u32,
        /// Instruction index.
        pc: u32,
        /// The instruction, as debug text.
        inst: String,
        /// What went wrong.
        what: String,
    },
    /// The launch ran past its step limit.
    #[error("kernel `{kernel}` ran past its limit of {limit} warp instructions")]
    StepLimit {
        /// The kernel.
        kernel: String,
        /// The limit.
        limit: u64,
    },
}
