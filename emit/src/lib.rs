//! Emitters from the simsort kernel IR to code a real GPU runs.
//!
//! [`emit_ptx`] turns a [`VerifiedKernel`] into PTX text for `sm_90` (or any
//! target the options name), one IR instruction to as few PTX instructions
//! as the IR's semantics allow. The output is meant for `ptxas` or the
//! driver's JIT (`cuModuleLoadData`), so the same kernel the simulator runs
//! can be timed on hardware.
//!
//! ```
//! use kernels_ir::kernels::examples::vcopy;
//! use kernels_ir::verify_kernel;
//!
//! let kernel = verify_kernel(vcopy()).expect("vcopy verifies");
//! let ptx = emit::emit_ptx(&kernel, &emit::PtxOptions::default()).expect("vcopy emits");
//! assert!(ptx.contains(".visible .entry vcopy("));
//! assert!(ptx.contains("ld.global.u32"));
//! ```
//!
//! # How the IR maps onto PTX
//! - IR registers `rN`, `dN`, `pN` become `%rN` (`.b32`), `%rdN` (`.b64`) and
//!   `%pN` (`.pred`); each is set to 0 / false at entry, as the IR promises
//!   (`ptxas` removes the moves it does not need).
//! - Parameters are `.param` entries named `param_<index>` in declaration
//!   order, loaded once at entry into `%pw<i>` (`u32`) or `%pd<i>` (`u64`).
//! - Special values are read once at entry into `%sr<i>` (the index in
//!   [`kernels_ir::Special::ALL`]). `%warpid` is the IR's warp index in the
//!   block (linear thread index / 32, not PTX's volatile `%warpid`), `%nwarps`
//!   is `ceil(threads / 32)` and `%warpsize` is 32.
//! - Shared memory is the dynamic array `.extern .shared .align 16 .b8
//!   smem[]`, so any size the machine allows works (static arrays stop at
//!   48 KiB); IR shared addresses are offsets into it. Launch with
//!   [`shared_launch_bytes`] bytes of dynamic shared memory.
//! - `cmpx` is a min/max pair through a temporary; a guarded shuffle is an
//!   unguarded `shfl.sync` into a temporary and a guarded `mov`, because a
//!   guarded `shfl.sync` with a full member mask is undefined.
//! - Shuffle lane operands of the width or more: PTX reads only the low five
//!   bits of a shuffle's delta or mask, and `shfl.sync.bfly` checks only the
//!   upper end of the segment, while the IR gives the lane's own value when a
//!   `shfl.up`/`shfl.down` delta or a `shfl.xor` mask is the width or more.
//!   An immediate operand folds (such a shuffle becomes a `mov`); a run-time
//!   operand adds a `setp` and a `selp` around the shuffle (no generated
//!   kernel has one).
//!
//! # Where hardware differs from the IR's semantics
//! The emitted PTX follows the IR wherever PTX can express it. These
//! differences remain, and a kernel that depends on them behaves differently
//! on hardware:
//! - **Shuffles in divergent code or after lanes exited.** Every shuffle uses
//!   the full member mask `0xffffffff`. The IR lets inactive and exited lanes
//!   supply their value; on hardware a `shfl.sync` whose mask names a lane
//!   that does not execute it is undefined (in practice it can hang). Partial
//!   warps (block sizes not a multiple of 32) have the same problem.
//! - **Lock step.** The IR runs a warp's lanes in lock step, so a lane sees a
//!   shared-memory store of another lane of its warp at once. Since Volta,
//!   threads of a warp are scheduled independently: such an exchange needs a
//!   `warp.sync` (`bar.warp.sync`) between the store and the load, or it is a
//!   data race. Which side of a divergent branch runs first is also
//!   unspecified on hardware (the IR runs the taken side first).
//! - **Barriers after exits.** The IR's `bar.sync` waits only for the
//!   threads that have not exited. PTX's `bar.sync 0` counts every thread of
//!   the block; current GPUs release a barrier whose missing threads have
//!   exited, but the PTX ISA does not promise it.
//! - **Faults.** The IR faults on any out-of-bounds access. Hardware faults on
//!   misaligned accesses and on shared accesses outside the block's window,
//!   but a global access past the end of an allocation may go unnoticed, and
//!   a shared access inside the rounded-up array succeeds.
//! - **Shared memory starts zeroed** only with [`PtxOptions::zero_shared`];
//!   without it, shared memory holds whatever the previous block left.
#![deny(missing_docs)]

mod ptx;

pub use kernels_ir::VerifiedKernel;

/// How to emit PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxOptions {
    /// The `.target` architecture, e.g. `sm_90`.
    pub target: String,
    /// The PTX ISA version written in `.version`, e.g. `8.0`.
    pub version: String,
    /// The warp width the kernel was built for, in lanes. PTX has 32-lane
    /// warps only; any other width is an error.
    pub warp_size: u32,
    /// Zero the block's shared memory at entry (a loop over every thread and
    /// a `bar.sync 0`), as the IR's semantics promise. Kernels known to
    /// write shared memory before they read it can leave this off.
    pub zero_shared: bool,
}

impl Default for PtxOptions {
    fn default() -> PtxOptions {
        PtxOptions {
            // The H200 and H100.
            target: "sm_90".to_string(),
            // PTX ISA 8.0 (CUDA 12.0) has everything emitted here, and
            // drivers from CUDA 12.0 on can JIT it.
            version: "8.0".to_string(),
            warp_size: 32,
            zero_shared: true,
        }
    }
}

/// Why a kernel could not be emitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    /// The kernel was built for warps of another width than PTX's 32 lanes.
    #[error(
        "PTX warps have 32 lanes; this kernel is built for {warp_size}-lane warps \
         (build it with a warp width of 32)"
    )]
    WarpSize {
        /// The warp width asked for.
        warp_size: u32,
    },
    /// The kernel's name cannot be a PTX entry name: `_` (not a PTX
    /// identifier) or `WARP_SZ` (a predefined PTX constant).
    #[error("kernel name `{name}` cannot name a PTX entry (`_` and `WARP_SZ` cannot)")]
    Name {
        /// The name.
        name: String,
    },
    /// One instruction has no PTX form.
    #[error("pc {pc}: `{text}`: {reason}")]
    Inst {
        /// The instruction's index.
        pc: u32,
        /// The instruction as IR text.
        text: String,
        /// Why it cannot be emitted.
        reason: String,
    },
}

/// The dynamic shared memory a launch of the emitted `kernel` must ask for:
/// its shared bytes rounded up to a whole word.
pub fn shared_launch_bytes(kernel: &kernels_ir::Kernel) -> u32 {
    ptx::shared_array_bytes(kernel)
}

/// Emits `kernel` as a PTX module holding one `.entry` of the kernel's name.
pub fn emit_ptx(kernel: &VerifiedKernel, opts: &PtxOptions) -> Result<String, EmitError> {
    ptx::emit(kernel, opts)
}
