//! `simsort kernels [--print NAME]`: list the generated kernels, or print
//! one in canonical IR text.

use std::io::Write;

use clap::Args;
use kernels_ir::kernels::{self, REFERENCE_WARP_SIZE, STRIDES};
use kernels_ir::parser::closest_name;
use kernels_ir::printer::print_kernel;

use super::{Failure, output_error};

/// Arguments of `simsort kernels`.
#[derive(Debug, Args)]
pub struct KernelsArgs {
    /// Print this kernel's IR text instead of the list.
    #[arg(long, value_name = "NAME")]
    pub print: Option<String>,
    /// Build the kernels for warps of this many lanes (a power of two, 4..=64).
    #[arg(long, value_name = "N", default_value_t = REFERENCE_WARP_SIZE)]
    pub warp: u32,
}

/// Runs `simsort kernels`.
pub fn run(args: &KernelsArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if !(4..=64).contains(&args.warp) || !args.warp.is_power_of_two() {
        return Err(Failure::input(format!(
            "--warp {}: the warp width must be a power of two in 4..=64",
            args.warp
        )));
    }
    let text = match &args.print {
        Some(name) => match kernels::find(name, args.warp) {
            Some(k) => print_kernel(&k.kernel),
            None => return Err(unknown(name, args.warp)),
        },
        None => list(args.warp),
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

fn unknown(name: &str, warp: u32) -> Failure {
    let catalog = kernels::catalog(warp);
    let names = catalog.iter().map(|k| k.name());
    let hint = match closest_name(name, names) {
        Some(close) => format!("; did you mean `{close}`?"),
        None => "; `simsort kernels` lists them".to_string(),
    };
    Failure::input(format!("unknown kernel `{name}`{hint}"))
}
