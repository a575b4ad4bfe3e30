//! The sort algorithms simsort runs: for each one, the generators of its
//! kernels (in the `kernels-ir` IR) and the host schedule that launches them
//! on any [`kernels_ir::Device`] (the interpreter or the simulator).
//!
//! The IR crate keeps the IR, its interpreter and the small example kernels;
//! everything specific to an algorithm lives here, behind one trait,
//! [`Algorithm`]: the experiment layer (the main job, sweeps, reports, plots,
//! traces) is written once against it.
#![deny(missing_docs)]

use std::fmt;

use kernels_ir::{Device, Dim3, Kernel, VerifierErrors};

pub mod hotsort;

/// The limits of the machine an algorithm's options are checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Lanes per warp.
    pub warp_size: u32,
    /// Shared-memory banks.
    pub smem_banks: u32,
    /// Shared memory one block may use, in bytes.
    pub smem_bytes_per_block: u32,
    /// Threads one block may have.
    pub max_threads_per_block: u32,
    /// Warps one SM holds.
    pub max_warps_per_sm: u32,
}

/// One sort algorithm: its options, their check against a machine, its
/// kernels and its host schedule.
pub trait Algorithm: Sized {
    /// The name `--algo` takes and reports show.
    const NAME: &'static str;
    /// What the user chooses.
    type Options: Clone + fmt::Debug;
    /// The complete configuration the options describe on one machine.
    type Config: Clone + fmt::Debug;

    /// The configuration `opts` describe on a machine with `limits`, or
    /// every violation (of the algorithm's rules and of the limits) at once.
    fn configure(opts: &Self::Options, limits: &Limits) -> Result<Self::Config, Vec<String>>;

    /// The configuration in one line (`simsort kernels` titles).
    fn describe(cfg: &Self::Config) -> String;

    /// Every kernel of `cfg`, unverified, in launch order.
    fn generate(cfg: &Self::Config) -> Vec<Kernel>;

    /// Generates and verifies the kernels of `cfg` (a valid configuration).
    fn build(cfg: &Self::Config) -> Result<Self, SortError<std::convert::Infallible>>;

    /// Sorts `keys` on `dev`, launching every kernel through it.
    fn sort<D: Device>(
        &self,
        dev: &mut D,
        keys: &[u32],
    ) -> Result<SortRun<D::Stats>, SortError<D::Error>>;
}

/// One kernel launch of a sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch<S> {
    /// The kernel's name (HotSort: `fill_in`, `fill_out`, `bs`, `fm`, `hm`,
    /// `bc` or `transpose`).
    pub name: &'static str,
    /// The grid.
    pub grid: Dim3,
    /// The block.
    pub block: Dim3,
    /// What the device reported.
    pub stats: S,
}

/// The result of a sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortRun<S> {
    /// The keys read back, ascending.
    pub sorted: Vec<u32>,
    /// Every launch, in order.
    pub launches: Vec<Launch<S>>,
}

/// One violated rule of an algorithm's configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// Why a sort could not run.
#[derive(Debug, thiserror::Error)]
pub enum SortError<E: std::error::Error> {
    /// The configuration is invalid (every violation).
    #[error("invalid hotsort configuration: {}", join(.0))]
    Config(Vec<ConfigError>),
    /// A generated kernel failed verification (a generator bug).
    #[error("generated kernel `{kernel}` does not verify: {errors}")]
    Verify {
        /// The kernel.
        kernel: String,
        /// What the verifier found.
        errors: VerifierErrors,
    },
    /// The device's warp width differs from the configuration's.
    #[error("the device has {device}-lane warps but the kernels are built for {config}")]
    WarpMismatch {
        /// The device's warp width.
        device: u32,
        /// The configuration's.
        config: u32,
    },
    /// More keys than 32-bit key indices address.
    #[error("{0} keys are more than this sort addresses (at most 2^31)")]
    TooManyKeys(usize),
    /// A device error (a kernel fault or a memory error).
    #[error("{0}")]
    Device(E),
}

fn join(errors: &[ConfigError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
