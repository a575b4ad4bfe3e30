//! `simsort kernels [--print NAME]`: list the generated kernels, or print
//! one in canonical IR text.

use std::io::Write;

use clap::Args;
use kernels_ir::Kernel;
use kernels_ir::kernels::{self, REFERENCE_WARP_SIZE, STRIDES};
use kernels_ir::parser::closest_name;
use kernels_ir::printer::print_kernel;
use simsort::experiment::SortOptions;
use simsort::experiment::sort::{Algo, algo_kernels};
use sorts::{bitonic, hotsort};

use super::{Failure, output_error};
use simsort::experiment::options::{LayoutArg, MergeArg, ScheduleArg};

/// Arguments of `simsort kernels`.
#[derive(Debug, Args)]
pub struct KernelsArgs {
    /// Print this kernel's IR text instead of the list.
    #[arg(long, value_name = "NAME")]
    pub print: Option<String>,
    /// How to build the kernels.
    #[command(flatten)]
    pub build: BuildArgs,
}

/// The flags that say how to build the generated kernels (shared with
/// `simsort emit ptx --kernel`).
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The algorithm whose kernels to build.
    #[arg(long, value_enum, default_value = "hotsort")]
    pub algo: Algo,
    /// Build the kernels for warps of this many lanes (a power of two, 4..=64).
    #[arg(long, value_name = "N", default_value_t = REFERENCE_WARP_SIZE)]
    pub warp: u32,
    /// Mergesort, bitonic and sample sort: threads per block [default: the
    /// algorithm's, clamped to the machine].
    #[arg(long)]
    pub block_threads: Option<u32>,
    /// Mergesort and sample sort: keys per thread [default: 11; sample
    /// sort: per bucket].
    #[arg(long)]
    pub items_per_thread: Option<u32>,
    /// HotSort: key registers per lane [default: 16, or the tallest power
    /// of two below it that fits the machine].
    #[arg(long)]
    pub slab_height: Option<u32>,
    /// HotSort: slabs per block [default: the largest that fits the machine].
    #[arg(long)]
    pub block_slabs: Option<u32>,
    /// HotSort: shared-memory layout.
    #[arg(long, value_enum, default_value = "pad")]
    pub smem_layout: LayoutArg,
    /// HotSort: warp-merge exchange.
    #[arg(long, value_enum, default_value = "shuffle")]
    pub merge: MergeArg,
    /// HotSort: merge schedule (which block cleans exist).
    #[arg(long, value_enum, default_value = "sized")]
    pub schedule: ScheduleArg,
    /// Machine preset whose limits size the blocks.
    #[arg(long, default_value = "h200")]
    pub gpu: String,
    /// Bitonic: keys per vector L (1, 2, 4, 8, 16).
    #[arg(long, default_value_t = 4)]
    pub vector: u32,
    /// Bitonic: the seed's method (true) or the plain sort (false).
    #[arg(long, default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub bitonic_fused: bool,
    /// GPUTeraSort: bytes per record [default: 100].
    #[arg(long)]
    pub record_bytes: Option<u32>,
    /// GPUTeraSort: key bytes per record [default: 10].
    #[arg(long)]
    pub key_bytes: Option<u32>,
    /// GPUTeraSort: the thread-per-output step kernel.
    #[arg(long)]
    pub per_output: bool,
    /// Sample sort: buckets per level k [default: 128, fitted to the machine].
    #[arg(long)]
    pub buckets: Option<u32>,
    /// Sample sort: oversampling a [default: 16].
    #[arg(long)]
    pub oversample: Option<u32>,
    /// Sample sort: small-sort threshold M [default: 8192, or what one block holds].
    #[arg(long)]
    pub small_size: Option<u32>,
    /// Sample sort: counter copies per bucket C [default: 4].
    #[arg(long)]
    pub counter_copies: Option<u32>,
}

impl BuildArgs {
    /// Checks `--warp`.
    fn check_warp(&self) -> Result<(), Failure> {
        if !(4..=64).contains(&self.warp) || !self.warp.is_power_of_two() {
            return Err(Failure::input(format!(
                "--warp {}: the warp width must be a power of two in 4..=64",
                self.warp
            )));
        }
        Ok(())
    }

    /// The selected algorithm's kernels these flags describe, or every
    /// problem with them.
    fn hotsort(&self) -> Result<(String, Vec<Kernel>), Failure> {
        let opts = SortOptions {
            algo: self.algo,
            block_threads: self.block_threads,
            items_per_thread: self.items_per_thread,
            vector: self.vector,
            bitonic_fused: self.bitonic_fused,
            warp: self.warp,
            slab_height: self.slab_height,
            block_slabs: self.block_slabs,
            smem_layout: self.smem_layout.into(),
            merge: self.merge.into(),
            schedule: self.schedule.into(),
            gpu: self.gpu.clone(),
            record_bytes: self.record_bytes,
            key_bytes: self.key_bytes,
            per_output: self.per_output,
            buckets: self.buckets,
            oversample: self.oversample,
            small_size: self.small_size,
            counter_copies: self.counter_copies,
            ..SortOptions::default()
        };
        let invalid = |e: simsort::experiment::ExperimentError| Failure {
            status: e.exit_status(),
            message: format!("error: {e}"),
        };
        algo_kernels(&opts).map_err(invalid)
    }

    /// The kernel called `name` built with these flags: a kernel of the
    /// selected algorithm or a catalogue entry.
    pub fn find(&self, name: &str) -> Result<Kernel, Failure> {
        self.check_warp()?;
        let (_, hotsort) = self.hotsort()?;
        match hotsort.into_iter().find(|k| k.name == *name) {
            Some(k) => Ok(k),
            None => match kernels::find(name, self.warp) {
                Some(k) => Ok(k.kernel),
                None => Err(unknown(name, self.warp)),
            },
        }
    }
}

/// Runs `simsort kernels`.
pub fn run(args: &KernelsArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let text = match &args.print {
        Some(name) => print_kernel(&args.build.find(name)?),
        None => {
            args.build.check_warp()?;
            let (title, hotsort) = args.build.hotsort()?;
            list(args.build.warp) + &list_hotsort(&title, &hotsort)
        }
    };
    out.write_all(text.as_bytes()).map_err(output_error)
}

fn list(warp: u32) -> String {
    let catalog = kernels::catalog(warp);
    let width = catalog.iter().map(|k| k.name().len()).max().unwrap_or(0);
    let mut text = String::new();
    for k in &catalog {
        text += &format!("{:width$}  {}\n", k.name(), k.description);
    }
    text += &format!(
        "\nsmem_stride_S and gmem_stride_S take any stride S in {}..={}; \
         print one with `simsort kernels --print NAME`.\n",
        STRIDES.start(),
        STRIDES.end()
    );
    text
}

/// The algorithm's kernels with their size: instructions, registers, shared memory.
fn list_hotsort(title: &str, hotsort: &[Kernel]) -> String {
    let mut text = format!("\n{title}:\n");
    for k in hotsort {
        text += &format!(
            "{:10}  {:>6} instructions, {:>3} register words per thread, {:>6} bytes shared\n",
            k.name,
            k.insts.len(),
            k.regs.words_per_thread(),
            k.shared_bytes
        );
    }
    text
}

fn unknown(name: &str, warp: u32) -> Failure {
    let catalog = kernels::catalog(warp);
    let hotsort_names = hotsort::KERNEL_NAMES.iter().copied();
    let bitonic_names = bitonic::KERNEL_NAMES.iter().copied();
    let mergesort_names = sorts::mergesort::KERNEL_NAMES.iter().copied();
    let names = catalog
        .iter()
        .map(|k| k.name())
        .chain(hotsort_names)
        .chain(mergesort_names)
        .chain(bitonic_names)
        .chain(sorts::terasort::KERNEL_NAMES.iter().copied())
        .chain(sorts::samplesort::KERNEL_NAMES.iter().copied());
    // A probe with a stride out of range: name the range, not a neighbour.
    for probe in ["smem_stride_", "gmem_stride_"] {
        if let Some(stride) = name.strip_prefix(probe)
            && stride.parse::<u64>().is_ok()
        {
            let (lo, hi) = (STRIDES.start(), STRIDES.end());
            return Failure::input(format!(
                "error: no such kernel (--print {name}): the stride {stride} is outside \
                 {lo}..={hi}; give {probe}S with S in {lo}..={hi}"
            ));
        }
    }
    let hint = match closest_name(name, names) {
        Some(close) => format!("; did you mean `{close}`?"),
        None => "; `simsort kernels` lists them".to_string(),
    };
    Failure::input(format!("unknown kernel `{name}`{hint}"))
}
