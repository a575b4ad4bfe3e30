//! `simsort run KERNEL.kir`: run one IR kernel from a file on the simulated
//! GPU and print its report.
//!
//! Every `u64` parameter of the kernel is a buffer given with `--buffer
//! NAME=SPEC` (a size in bytes, `@file`, `iota:N` or `rand:N:SEED` words);
//! every `u32` parameter a value given with `--param NAME=VALUE`. A fault on
//! the simulated GPU prints a message naming kernel, block, warp,
//! instruction and cycle and exits with status 1; bad input exits with 2.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use kernels_ir::parser::parse_and_verify;
use kernels_ir::{Device, Dim3, ParamType, ParamValue, VerifiedKernel};
use sim::{Cycle, Gpu, GpuConfig, RunOptions, SimError};
use simsort::atomic::{check_distinct, check_output, write_file};
use simsort::buffer_spec::{BufferInit, buffer_cost, buffer_data, buffer_len, number};
use simsort::experiment::report::{KernelRow, Report};

use super::machine::MachineOverrides;
use super::{Failure, output_error, render_diagnostics};

/// Arguments of `simsort run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The `.kir` file to run, or `-` for standard input.
    pub file: PathBuf,
    /// Grid size in blocks: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3)]
    pub grid: Dim3,
    /// Block size in threads: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3)]
    pub block: Dim3,
    /// Machine preset: h200 (the reference machine), h100 or tiny (a small
    /// one for tests); or a machine file, TOML or JSON (`simsort gpu`).
    #[arg(long, value_name = "NAME|FILE", default_value = "h200")]
    pub gpu: String,
    /// Lanes per warp [default: the preset's].
    #[arg(long)]
    pub warp: Option<u32>,
    /// A buffer for a u64 parameter: NAME=BYTES (zeroed; k/M suffixes),
    /// NAME=@FILE, NAME=iota:N (u32 words 0..N) or NAME=rand:N:SEED (N
    /// random u32 words).
    #[arg(long = "buffer", value_name = "NAME=SPEC")]
    pub buffers: Vec<String>,
    /// A value for a u32 (or u64) parameter: NAME=VALUE (decimal or 0x hex).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Write a buffer's final contents to a file: NAME=FILE.
    #[arg(long = "out", value_name = "NAME=FILE")]
    pub outs: Vec<String>,
    /// Stop the kernel with an error after this many cycles.
    #[arg(long)]
    pub max_cycles: Option<u64>,
    /// Host threads that simulate the SMs (default: `SIMSORT_THREADS`,
    /// else one per core); the report is the same for any count.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Print the per-kernel report as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar (it is drawn only when stderr is a terminal).
    #[arg(short, long)]
    pub quiet: bool,
    /// Machine config overrides.
    #[command(flatten)]
    pub machine: MachineOverrides,
}

/// Parses `X[,Y[,Z]]`.
fn parse_dim3(s: &str) -> Result<Dim3, String> {
    let parts: Result<Vec<u32>, _> = s.split(',').map(|p| p.trim().parse::<u32>()).collect();
    match parts
        .map_err(|e| format!("`{s}` is not X[,Y[,Z]]: {e}"))?
        .as_slice()
    {
        [x] => Ok(Dim3 { x: *x, y: 1, z: 1 }),
        [x, y] => Ok(Dim3 { x: *x, y: *y, z: 1 }),
        [x, y, z] => Ok(Dim3 {
            x: *x,
            y: *y,
            z: *z,
        }),
        _ => Err(format!("`{s}` has more than three dimensions")),
    }
}

/// Splits `NAME=REST`.
fn name_value<'a>(flag: &str, s: &'a str) -> Result<(&'a str, &'a str), Failure> {
    s.split_once('=')
        .filter(|(n, _)| !n.is_empty())
        .ok_or_else(|| {
            Failure::input(format!(
                "error: bad value (--{flag} {s}): expected NAME=VALUE"
            ))
        })
}

/// The machine config: preset, `--warp`, then every override; validated.
pub(super) fn machine(args: &RunArgs) -> Result<GpuConfig, Failure> {
    let m = simsort::experiment::machine::assemble(&args.gpu, args.warp, &args.machine.0)
        .map_err(|e| Failure::input(format!("error: {}", e.join("\nerror: "))))?;
    if m.problems.is_empty() {
        Ok(m.config)
    } else {
        Err(Failure::input(format!(
            "error: {}",
            m.problems.join("\nerror: ")
        )))
    }
}

/// Reads and verifies the kernel.
pub(super) fn kernel(path: &PathBuf) -> Result<VerifiedKernel, Failure> {
    let (name, text) = super::check::read_source(path)?;
    match parse_and_verify(&name, &text) {
        Ok((kernel, _)) => Ok(kernel),
        Err(diagnostics) => Err(Failure::input(render_diagnostics(
            &diagnostics,
            &name,
            &text,
        ))),
    }
}

/// A buffer allocated for a parameter: its name, address and size in bytes.
type Buffer = (String, u64, u64);

/// The launch parameters, allocating and filling the buffers on `gpu` (the
/// simulator, or any device: `emit bundle-run` records them).
/// Returns the parameter values and the buffers.
pub(super) fn parameters<D: Device>(
    args: &RunArgs,
    vk: &VerifiedKernel,
    gpu: &mut D,
) -> Result<(Vec<ParamValue>, Vec<Buffer>), Failure> {
    let k = vk.kernel();
    let mut need = 0u64;
    for spec in &args.buffers {
        let (name, value) = name_value("buffer", spec)?;
        let mut cost = buffer_cost(value)
            .map_err(|e| Failure::input(format!("error: bad buffer (--buffer {name}): {e}")))?;
        if args
            .outs
            .iter()
            .any(|o| o.split_once('=').map(|o| o.0) == Some(name))
        {
            // `--out` reads the buffer back into a host copy.
            cost = cost.saturating_add(buffer_len(value).unwrap_or(0));
        }
        need = need.saturating_add(cost);
        simsort::host_memory::check(&format!("--buffer {spec}"), need).map_err(Failure::input)?;
    }
    let mut given: Vec<(String, Result<BufferInit, u64>)> = Vec::new();
    for spec in &args.buffers {
        let (name, value) = name_value("buffer", spec)?;
        let data = buffer_data(value)
            .map_err(|e| Failure::input(format!("error: bad buffer (--buffer {name}): {e}")))?;
        given.push((name.to_string(), Ok(data)));
    }
    for spec in &args.params {
        let (name, value) = name_value("param", spec)?;
        let v = number(value)
            .map_err(|e| Failure::input(format!("error: bad parameter (--param {name}): {e}")))?;
        given.push((name.to_string(), Err(v)));
    }
    let mut problems = Vec::new();
    for (name, _) in &given {
        if k.param_named(name).is_none() {
            let names: Vec<&str> = k.params.iter().map(|p| p.name.as_str()).collect();
            problems.push(format!(
                "kernel `{}` has no parameter `{name}` (it has: {})",
                k.name,
                names.join(", ")
            ));
        }
        if given.iter().filter(|(n, _)| n == name).count() > 1 {
            problems.push(format!("parameter `{name}` is given twice"));
        }
    }
    let mut values = Vec::new();
    let mut buffers = Vec::new();
    for p in &k.params {
        match (
            given.iter().find(|(n, _)| *n == p.name).map(|(_, v)| v),
            p.ty,
        ) {
            (None, ty) => problems.push(format!(
                "parameter `{}` ({}) is missing: give it with {}",
                p.name,
                ty.name(),
                if ty == ParamType::U64 {
                    "--buffer NAME=SPEC"
                } else {
                    "--param NAME=VALUE"
                }
            )),
            (Some(Ok(init)), ParamType::U64) => {
                let len = match init {
                    BufferInit::Data(data) => data.len() as u64,
                    BufferInit::Zero(len) => *len,
                };
                let addr = gpu.try_alloc(len).map_err(|e| {
                    Failure::input(format!(
                        "error: buffer too large (--buffer {}): {e}",
                        p.name
                    ))
                })?;
                if let BufferInit::Data(data) = init {
                    gpu.write_bytes(addr, data)
                        .map_err(|e| Failure::input(format!("error: {e}")))?;
                }
                buffers.push((p.name.clone(), addr, len));
                values.push(ParamValue::U64(addr));
            }
            (Some(Ok(_)), ParamType::U32) => problems.push(format!(
                "parameter `{}` is u32: give it with --param, not --buffer",
                p.name
            )),
            (Some(Err(v)), ParamType::U64) => values.push(ParamValue::U64(*v)),
            (Some(Err(v)), ParamType::U32) => match u32::try_from(*v) {
                Ok(v) => values.push(ParamValue::U32(v)),
                Err(_) => problems.push(format!("parameter `{}` is u32, {v} does not fit", p.name)),
            },
        }
    }
    if problems.is_empty() {
        Ok((values, buffers))
    } else {
        problems.dedup();
        Err(Failure::input(format!(
            "error: {}",
            problems.join("\nerror: ")
        )))
    }
}

/// The failure of a launch: bad input (exit 2), a fault or the cycle limit
/// (exit 1), or Ctrl-C (exit 130, with how far it got: no report and no
/// `--out` file is written).
fn launch_failure(e: &SimError, blocks: u64) -> Failure {
    match e {
        SimError::Interrupted { kernel, cycle } => {
            let (_, started) = sim::launch_progress();
            Failure {
                status: 130,
                message: format!(
                    "error: interrupted ({}): kernel `{kernel}` stopped at cycle {} with \
                     {started} of {blocks} blocks started; no report or --out file was written",
                    simsort::signals::reason(),
                    cycle.0
                ),
            }
        }
        SimError::CycleLimit { .. } => Failure::run(format!(
            "error: {e} (--max-cycles bounds a launch's simulated cycles; raise it to let the \
             launch finish)"
        )),
        e if e.is_runtime() => Failure::run(format!("error: {e}")),
        e => Failure::input(format!("error: {e}")),
    }
}

/// The files `run` reads, each with its flag: the kernel and every
/// `--buffer NAME=@FILE`.
pub(super) fn input_files(args: &RunArgs) -> Vec<(&'static str, &std::path::Path)> {
    let mut files = vec![("KERNEL", args.file.as_path())];
    for spec in &args.buffers {
        if let Some((_, value)) = spec.split_once('=')
            && let Some(file) = value.strip_prefix('@')
        {
            files.push(("--buffer", std::path::Path::new(file)));
        }
    }
    files
}

/// The files `--out` writes, each with its flag.
fn output_files(args: &RunArgs) -> Vec<(&'static str, &std::path::Path)> {
    args.outs
        .iter()
        .filter_map(|spec| spec.split_once('='))
        .map(|(_, file)| ("--out", std::path::Path::new(file)))
        .collect()
}

/// Runs `simsort run`.
pub fn run(args: &RunArgs, out: &mut dyn Write) -> Result<(), Failure> {
    check_distinct(&output_files(args), &input_files(args))
        .map_err(|why| Failure::input(format!("error: {why}")))?;
    let cfg = machine(args)?;
    let vk = kernel(&args.file)?;
    let mut options = RunOptions {
        threads: super::threads::host_threads(args.threads)?,
        ..RunOptions::default()
    };
    if let Some(limit) = args.max_cycles {
        options.max_cycles = Cycle(limit);
    }
    let max_cycles = options.max_cycles.0;
    let mut gpu =
        Gpu::new(cfg.clone(), options).map_err(|e| Failure::input(format!("error: {e}")))?;
    let (params, buffers) = parameters(args, &vk, &mut gpu)?;
    let mut outs = Vec::new();
    for spec in &args.outs {
        let (name, file) = name_value("out", spec)?;
        match buffers.iter().find(|(n, _, _)| n == name) {
            Some(&(_, addr, len)) => {
                let path = PathBuf::from(file);
                check_output(&path).map_err(|why| {
                    Failure::input(format!("error: cannot write {file} (--out {name}): {why}"))
                })?;
                outs.push((addr, len, path));
            }
            None => {
                let names: Vec<&str> = buffers.iter().map(|(n, _, _)| n.as_str()).collect();
                return Err(Failure::input(format!(
                    "error: no such buffer (--out {name}): the kernel's buffers are {}",
                    names.join(", ")
                )));
            }
        }
    }
    let blocks = u64::from(args.grid.x) * u64::from(args.grid.y) * u64::from(args.grid.z);
    let stats = super::progress::with_launch_bar(blocks, max_cycles, args.quiet, || {
        gpu.launch(&vk, args.grid, args.block, &params)
    })
    .map_err(|e| launch_failure(&e, blocks))?;
    for (addr, len, path) in outs {
        let data = gpu
            .read_bytes(addr, len)
            .map_err(|e| Failure::run(format!("error: {e}")))?;
        write_file(&path, &data)
            .map_err(|e| Failure::run(format!("error: cannot write {}: {e}", path.display())))?;
    }
    let row = KernelRow::new(&vk.kernel().name, stats);
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&row).expect("a row always serialises");
        s.push('\n');
        s
    } else {
        let config = match serde_json::to_value(&cfg) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let report = Report::new(config, 0, vec![row]);
        format!(
            "{}\n{}",
            report.to_table(),
            super::run_config::legend(&report)
        )
    };
    out.write_all(text.as_bytes()).map_err(output_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_with_defaults_of_one() {
        assert_eq!(parse_dim3("4").unwrap(), Dim3 { x: 4, y: 1, z: 1 });
        assert_eq!(parse_dim3("4,2,3").unwrap(), Dim3 { x: 4, y: 2, z: 3 });
        assert!(parse_dim3("4,x").is_err());
        assert!(parse_dim3("1,2,3,4").is_err());
    }
}
