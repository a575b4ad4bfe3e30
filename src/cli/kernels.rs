//! `simsort kernels [--print NAME]`: list the generated kernels, or print
//! one in canonical IR text.

use std::io::Write;

use clap::Args;
use kernels_ir::Kernel;
use kernels_ir::kernels::{self, STRIDES};
use kernels_ir::parser::closest_name;
use kernels_ir::printer::print_kernel;
use simsort::experiment::options::KernelOptionArgs;
use simsort::experiment::sort::algo_kernels;
use sorts::{bitonic, hotsort};

use super::{Failure, output_error};

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
/// `simsort emit ptx --kernel`): the options table's kernel options
/// ([`KernelOptionArgs`]), so an algorithm's new option needs no line here.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The algorithm, machine, key type and algorithm options.
    #[command(flatten)]
    pub options: KernelOptionArgs,
}

impl BuildArgs {
    /// The warp width the kernels are built for.
    pub fn warp(&self) -> u32 {
        self.options.warp
    }

    /// Checks `--warp`.
    fn check_warp(&self) -> Result<(), Failure> {
        let warp = self.warp();
        if !(4..=64).contains(&warp) || !warp.is_power_of_two() {
            return Err(Failure::input(format!(
                "--warp {warp}: the warp width must be a power of two in 4..=64"
            )));
        }
        Ok(())
    }

    /// The selected algorithm's kernels these flags describe, with the
    /// machine's limits, or every problem with them.
    fn hotsort(&self) -> Result<(String, Vec<Kernel>, sorts::Limits), Failure> {
        let invalid = |e: simsort::experiment::ExperimentError| Failure {
            status: e.exit_status(),
            message: format!("error: {e}"),
        };
        algo_kernels(&self.options.options()).map_err(invalid)
    }

    /// The kernel called `name` built with these flags: a kernel of the
    /// selected algorithm or a catalogue entry; `flag` named it (`--print`
    /// or `--kernel`), for the message when there is none.
    pub fn find(&self, name: &str, flag: &str) -> Result<Kernel, Failure> {
        self.check_warp()?;
        let (_, hotsort, _) = self.hotsort()?;
        match hotsort.into_iter().find(|k| k.name == *name) {
            Some(k) => Ok(k),
            None => match kernels::find(name, self.warp()) {
                Some(k) => Ok(k.kernel),
                None => Err(unknown(name, self.warp(), flag)),
            },
        }
    }
}

/// Runs `simsort kernels`.
pub fn run(args: &KernelsArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let text = match &args.print {
        Some(name) => print_kernel(&args.build.find(name, "--print")?),
        None => {
            args.build.check_warp()?;
            let (title, hotsort, limits) = args.build.hotsort()?;
            list(args.build.warp()) + &list_hotsort(&title, &hotsort, &limits)
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

/// The algorithm's kernels with their size: instructions, registers (the
/// IR's declared words, the most it keeps live, and what the machine
/// allocates for occupancy), shared memory.
fn list_hotsort(title: &str, hotsort: &[Kernel], limits: &sorts::Limits) -> String {
    let mut text = format!("\n{title}:\n");
    // As wide as the longest name, so `small_sort_512` keeps the columns.
    let w = hotsort
        .iter()
        .map(|k| k.name.len())
        .max()
        .unwrap_or(0)
        .max(10);
    for k in hotsort {
        text += &format!(
            "{:w$}  {:>6} instructions, {:>3} register words per thread ({:>3} live, {:>3} allocated), {:>6} bytes shared\n",
            k.name,
            k.insts.len(),
            k.regs.words_per_thread(),
            kernels_ir::live::max_live_words(k),
            limits.allocated_words(k),
            k.shared_bytes
        );
        if let Some(meaning) = simsort::experiment::glossary::kernel_meaning(&k.name) {
            text += &format!("{:w$}  {meaning}\n", "");
        }
    }
    text
}

fn unknown(name: &str, warp: u32, flag: &str) -> Failure {
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
                "error: no such kernel ({flag} {name}): the stride {stride} is outside \
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
