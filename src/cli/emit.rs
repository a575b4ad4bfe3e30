//! `simsort emit ptx (FILE.kir | --kernel NAME)`: print a kernel as PTX for
//! a real GPU.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use emit::{PtxOptions, emit_ptx};
use kernels_ir::parser::parse_and_verify;
use kernels_ir::{VerifiedKernel, verify_kernel};

use super::check::read_source;
use super::kernels::BuildArgs;
use super::{Failure, output_error, render_diagnostics};

/// Arguments of `simsort emit`.
#[derive(Debug, Args)]
pub struct EmitArgs {
    /// What to emit.
    #[command(subcommand)]
    pub command: EmitCommand,
}

/// The forms `simsort emit` writes.
#[derive(Debug, Subcommand)]
pub enum EmitCommand {
    /// Print a kernel as PTX (sm_90 by default); `ptxas` accepts it.
    Ptx(PtxArgs),
    /// Write a sort's launch sequence as a bundle to run and profile on a
    /// real GPU: PTX, input, launches, a host program, an ncu script.
    Bundle(super::bundle::BundleArgs),
    /// Write one kernel launch (as `simsort run` takes it) as a bundle.
    BundleRun(super::bundle::BundleRunArgs),
}

/// Arguments of `simsort emit ptx`.
#[derive(Debug, Args)]
pub struct PtxArgs {
    /// The `.kir` file to emit, or `-` for standard input.
    #[arg(required_unless_present = "kernel", conflicts_with = "kernel")]
    pub file: Option<PathBuf>,
    /// Emit this generated kernel (see `simsort kernels`) instead of a file.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Zero shared memory at entry, as the IR's semantics promise; `false`
    /// is safe for kernels that write shared memory before reading it.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub zero_shared: bool,
    /// The PTX `.target`.
    #[arg(long, default_value = "sm_90")]
    pub target: String,
    /// How to build a generated kernel.
    #[command(flatten)]
    pub build: BuildArgs,
}

impl EmitArgs {
    /// Whether this writes a bundle (long for large sorts; it stops on
    /// Ctrl-C and leaves no half-written directory).
    pub fn is_bundle(&self) -> bool {
        matches!(
            self.command,
            EmitCommand::Bundle(_) | EmitCommand::BundleRun(_)
        )
    }
}

/// Runs `simsort emit`.
pub fn run(args: &EmitArgs, out: &mut dyn Write) -> Result<(), Failure> {
    match &args.command {
        EmitCommand::Ptx(args) => ptx(args, out),
        EmitCommand::Bundle(args) => {
            // The sorts' kernels write every shared word before reading it.
            super::bundle::run_sort(args, &bundle_emitter(false), out)
        }
        EmitCommand::BundleRun(args) => {
            super::bundle::run_kernel(args, &bundle_emitter(args.zero_shared), out)
        }
    }
}

/// Emits a bundle's kernels for sm_90 (32-lane warps).
fn bundle_emitter(zero_shared: bool) -> impl Fn(&VerifiedKernel) -> Result<String, String> {
    move |k: &VerifiedKernel| {
        let opts = PtxOptions {
            zero_shared,
            ..PtxOptions::default()
        };
        emit_ptx(k, &opts).map_err(|e| e.to_string())
    }
}

fn ptx(args: &PtxArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let (kernel, warp_size) = match (&args.kernel, &args.file) {
        (Some(name), _) => {
            let kernel = args.build.find(name, "--kernel")?;
            let kernel = verify_kernel(kernel).map_err(|e| {
                Failure::run(format!("error: kernel `{name}` does not verify: {e}"))
            })?;
            (kernel, args.build.warp())
        }
        (None, Some(path)) => (read_kernel(path)?, args.build.warp()),
        (None, None) => return Err(Failure::input("error: give a FILE.kir or --kernel NAME")),
    };
    let opts = PtxOptions {
        target: args.target.clone(),
        warp_size,
        zero_shared: args.zero_shared,
        ..PtxOptions::default()
    };
    let name = &kernel.kernel().name;
    let text = emit_ptx(&kernel, &opts)
        .map_err(|e| Failure::input(format!("error: cannot emit `{name}` as PTX: {e}")))?;
    out.write_all(text.as_bytes()).map_err(output_error)
}

/// Parses and verifies a `.kir` file (or stdin), as `simsort check` does.
fn read_kernel(path: &PathBuf) -> Result<VerifiedKernel, Failure> {
    let (name, text) = read_source(path)?;
    match parse_and_verify(&name, &text) {
        Ok((kernel, _)) => Ok(kernel),
        Err(diagnostics) => Err(Failure::input(format!(
            "{}\n\nerror: {name}: {} error(s) (nothing emitted)",
            render_diagnostics(&diagnostics, &name, &text),
            diagnostics.len()
        ))),
    }
}
