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

use kernels_ir::{Device, Dim3, Kernel, Reg, VerifiedKernel, VerifierErrors};

pub mod bitonic;
pub mod hotsort;
#[cfg(test)]
mod limits_tests;
pub mod mergesort;
pub mod samplesort;
pub mod terasort;
#[cfg(test)]
mod test_keys;

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
    /// 32-bit registers of one SM.
    pub regs_per_sm: u32,
    /// Registers are allocated per warp in multiples of this.
    pub reg_alloc_unit: u32,
    /// 32-bit registers one thread may use.
    pub max_regs_per_thread: u32,
    /// Register words a compiler allocates beyond a kernel's live words
    /// (the machine's `reg_words_beyond_live`; see
    /// [`kernels_ir::live::RegAllocation`]).
    pub reg_words_beyond_live: u32,
    /// At least this many beyond the live words for a kernel moving 16
    /// bytes a lane in an access (the machine's
    /// `reg_words_beyond_live_b128`).
    pub reg_words_beyond_live_b128: u32,
}

impl Limits {
    /// Whether one block of `threads` threads using `regs` registers per
    /// thread fits one SM's register file (the simulator's occupancy rule).
    pub fn block_regs_fit(&self, threads: u64, regs: u32) -> bool {
        let warp = u64::from(self.warp_size.max(1));
        let per_warp =
            (u64::from(regs) * warp).next_multiple_of(u64::from(self.reg_alloc_unit.max(1)));
        per_warp * threads.div_ceil(warp) <= u64::from(self.regs_per_sm)
    }

    /// The register words per thread the simulator allocates for `kernel`
    /// on this machine (its live words and what a compiler adds, at most
    /// the declared words but for a kernel moving 16 bytes a lane).
    pub fn allocated_words(&self, kernel: &Kernel) -> u32 {
        kernels_ir::live::RegAllocation {
            reg_words_beyond_live: self.reg_words_beyond_live,
            reg_words_beyond_live_b128: self.reg_words_beyond_live_b128,
            max_regs_per_thread: self.max_regs_per_thread,
        }
        .words(
            kernels_ir::live::max_live_words(kernel),
            kernel.regs.words_per_thread(),
            kernels_ir::live::moves_16_bytes(kernel),
        )
    }

    /// Whether the simulator holds one block of `threads` threads of
    /// `kernel` in one SM's register file: what a user's explicit choice is
    /// checked against. Default sizes are chosen on the declared words
    /// instead, so that they fit whatever a compiler allocates.
    pub fn kernel_block_fits(&self, threads: u64, kernel: &Kernel) -> bool {
        self.block_regs_fit(threads, self.allocated_words(kernel))
    }
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

    /// Every verified kernel with its marks, in launch order: what a trace
    /// records up front so the replay UI can show keys and name stages.
    fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)>;

    /// Sorts `keys` on `dev`, launching every kernel through it.
    fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>>;

    /// The launches of a sort on a device without contents (the plan's dry
    /// run, where every word reads back as zero). An algorithm whose
    /// schedule depends on key values overrides this to launch what
    /// all-equal keys need, an upper bound, and to skip checks of data the
    /// device does not hold.
    fn dry_run<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        self.sort(dev, keys)
    }

    /// Sorts 64-bit `keys`, each carrying the 32-bit value at its index in
    /// `values`, on `dev`: the pairs in key order (equal keys in any
    /// order). Only an algorithm whose configuration carries values in
    /// their own registers and buffer does; the default refuses.
    fn sort_pairs<D: Device>(
        &self,
        dev: &mut D,
        keys: &[u64],
        values: &[u32],
    ) -> Result<SortRun<D::Stats, Pair>, SortError<D::Error>> {
        let _ = (dev, keys, values);
        Err(SortError::Values(format!(
            "{} carries no value beside a 64-bit key",
            Self::NAME
        )))
    }
}

/// What the generator knows about one kernel that the trace and the replay
/// UI need: which registers hold keys and where each merge stage begins.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelMarks {
    /// The registers holding the thread's keys, row 0 first (for a slab
    /// kernel, register `r` of every lane is row `r` of the slab).
    pub key_regs: Vec<Reg>,
    /// The first instruction of each merge stage with its name (`lane
    /// sort`, `flip f=4`, `half m=2`, `block clean`, ...), in pc order.
    pub stages: Vec<(u32, String)>,
}

/// A key type a sort handles: 32-bit or 64-bit unsigned keys.
pub trait Key: Copy + Ord + fmt::Debug + Into<u64> + TryFrom<u64> {
    /// The width in bits.
    const BITS: u32;
    /// Copies `keys` to device memory at `addr`.
    fn write<D: Device>(dev: &mut D, addr: u64, keys: &[Self]) -> Result<(), D::Error>;
    /// Reads `n` keys at `addr`.
    fn read<D: Device>(dev: &D, addr: u64, n: usize) -> Result<Vec<Self>, D::Error>;
}

impl Key for u32 {
    const BITS: u32 = 32;
    fn write<D: Device>(dev: &mut D, addr: u64, keys: &[u32]) -> Result<(), D::Error> {
        dev.write_u32s(addr, keys)
    }
    fn read<D: Device>(dev: &D, addr: u64, n: usize) -> Result<Vec<u32>, D::Error> {
        dev.read_u32s(addr, n)
    }
}

impl Key for u64 {
    const BITS: u32 = 64;
    fn write<D: Device>(dev: &mut D, addr: u64, keys: &[u64]) -> Result<(), D::Error> {
        dev.write_u64s(addr, keys)
    }
    fn read<D: Device>(dev: &D, addr: u64, n: usize) -> Result<Vec<u64>, D::Error> {
        dev.read_u64s(addr, n)
    }
}

/// A 64-bit key and the 32-bit value it carries.
pub type Pair = (u64, u32);

/// One kernel launch of a sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch<S> {
    /// The kernel's name (HotSort: `fill_in`, `fill_out`, `bs`, `fm`, `hm`,
    /// `bc` or `transpose`).
    pub name: &'static str,
    /// What the schedule calls this launch, so launches of one kernel can
    /// be told apart (`round 2: hm span 32 slabs`, `level 1: scatter (128
    /// buckets)`): the label the trace records (handed to the device with
    /// [`Device::label_next_launch`] just before the launch). It starts
    /// with the launch's step in the schedule, and is the same on every
    /// device for the same input.
    pub label: String,
    /// The grid.
    pub grid: Dim3,
    /// The block.
    pub block: Dim3,
    /// What the device reported.
    pub stats: S,
}

/// The result of a sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortRun<S, K = u32> {
    /// The keys read back, ascending.
    pub sorted: Vec<K>,
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
    #[error("invalid configuration: {}", join(.0))]
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
    /// The keys are not as wide as the kernels were generated for.
    #[error("the keys are {keys}-bit but the kernels are built for {config}-bit keys")]
    KeyWidth {
        /// The keys' width.
        keys: u32,
        /// The configuration's.
        config: u32,
    },
    /// Values cannot be carried as asked (an algorithm or kernels without
    /// them, or as many values as keys missing).
    #[error("values: {0}")]
    Values(String),
    /// More keys than 32-bit key indices address.
    #[error("{0} keys are more than this sort addresses (at most 2^31)")]
    TooManyKeys(usize),
    /// The sort's own check of its output failed.
    #[error("wrong output: {0}")]
    Wrong(String),
    /// A device error (a kernel fault or a memory error).
    #[error("{0}")]
    Device(E),
}

/// What every sort checks before it launches anything: the keys are as
/// wide as the kernels were built for, the device's warps as wide as
/// theirs, and there are no more keys than 32-bit indices address.
pub fn check_run<D: Device>(
    dev: &D,
    keys: usize,
    key_bits: u32,
    config_bits: u32,
    warp: u32,
) -> Result<(), SortError<D::Error>> {
    if key_bits != config_bits {
        return Err(SortError::KeyWidth {
            keys: key_bits,
            config: config_bits,
        });
    }
    if dev.warp_size() != warp {
        return Err(SortError::WarpMismatch {
            device: dev.warp_size(),
            config: warp,
        });
    }
    if keys as u64 > 1 << 31 {
        return Err(SortError::TooManyKeys(keys));
    }
    Ok(())
}

fn join(errors: &[ConfigError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
