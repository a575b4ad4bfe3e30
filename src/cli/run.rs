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
use sim::{Cycle, Gpu, GpuConfig, RunOptions};
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
    /// Machine preset.
    #[arg(long, default_value = "h200")]
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
    /// Print the per-kernel report as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
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

/// Parses a decimal or `0x` hexadecimal number.
fn number(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|e| format!("`{s}` is not a number: {e}"))
}

/// Parses a byte count with an optional `k`/`M`/`G` suffix (powers of 1024).
fn bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    number(digits)?
        .checked_mul(scale)
        .ok_or_else(|| format!("`{s}` bytes is too large"))
}

/// Splits `NAME=REST`.
fn name_value<'a>(flag: &str, s: &'a str) -> Result<(&'a str, &'a str), Failure> {
    s.split_once('=')
        .filter(|(n, _)| !n.is_empty())
        .ok_or_else(|| Failure::input(format!("--{flag} `{s}`: expected NAME=VALUE")))
}

/// The initial contents of a buffer spec.
fn buffer_data(spec: &str) -> Result<Vec<u8>, String> {
    if let Some(path) = spec.strip_prefix('@') {
        return std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"));
    }
    if let Some(n) = spec.strip_prefix("iota:") {
        let n = number(n)?;
        return Ok((0..n).flat_map(|i| (i as u32).to_le_bytes()).collect());
    }
    if let Some(rest) = spec.strip_prefix("rand:") {
        let (n, seed) = rest
            .split_once(':')
            .ok_or_else(|| format!("`{spec}`: expected rand:N:SEED"))?;
        let (n, mut state) = (number(n)?, number(seed)? | 1);
        let mut next = || {
            // xorshift64*: a fixed, documented generator, so runs repeat.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
        };
        return Ok((0..n).flat_map(|_| next().to_le_bytes()).collect());
    }
    Ok(vec![0; bytes(spec)? as usize])
}

/// The machine config: preset, `--warp`, then every override; validated.
pub(super) fn machine(args: &RunArgs) -> Result<GpuConfig, Failure> {
    let (cfg, problems) =
        simsort::experiment::machine::assemble(&args.gpu, args.warp, &args.machine.0)
            .map_err(Failure::input)?;
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(Failure::input(format!(
            "invalid machine:\n  {}",
            problems.join("\n  ")
        )))
    }
}

/// Reads and verifies the kernel.
pub(super) fn kernel(path: &PathBuf) -> Result<VerifiedKernel, Failure> {
    let (name, text) = super::check::read_source(path)?;
    match parse_and_verify(&name, &text) {
        Ok((kernel, _)) => Ok(kernel),
        Err(diagnostics) => Err(Failure::input(render_diagnostics(&diagnostics))),
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
    let mut given: Vec<(String, Result<Vec<u8>, u64>)> = Vec::new();
    for spec in &args.buffers {
        let (name, value) = name_value("buffer", spec)?;
        let data =
            buffer_data(value).map_err(|e| Failure::input(format!("--buffer {name}: {e}")))?;
        given.push((name.to_string(), Ok(data)));
    }
    for spec in &args.params {
        let (name, value) = name_value("param", spec)?;
        let v = number(value).map_err(|e| Failure::input(format!("--param {name}: {e}")))?;
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
            (Some(Ok(data)), ParamType::U64) => {
                let addr = gpu.alloc(data.len() as u64);
                gpu.write_bytes(addr, data)
                    .map_err(|e| Failure::input(e.to_string()))?;
                buffers.push((p.name.clone(), addr, data.len() as u64));
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
        Err(Failure::input(problems.join("\n")))
    }
}

/// Runs `simsort run`.
pub fn run(args: &RunArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let cfg = machine(args)?;
    let vk = kernel(&args.file)?;
    let mut options = RunOptions::default();
    if let Some(limit) = args.max_cycles {
        options.max_cycles = Cycle(limit);
    }
    let mut gpu = Gpu::new(cfg.clone(), options).map_err(|e| Failure::input(e.to_string()))?;
    let (params, buffers) = parameters(args, &vk, &mut gpu)?;
    let mut outs = Vec::new();
    for spec in &args.outs {
        let (name, file) = name_value("out", spec)?;
        match buffers.iter().find(|(n, _, _)| n == name) {
            Some(&(_, addr, len)) => outs.push((addr, len, PathBuf::from(file))),
            None => {
                return Err(Failure::input(format!(
                    "--out {name}: no buffer of that name"
                )));
            }
        }
    }
    let stats = gpu
        .launch(&vk, args.grid, args.block, &params)
        .map_err(|e| {
            if e.is_runtime() {
                Failure::run(e.to_string())
            } else {
                Failure::input(e.to_string())
            }
        })?;
    for (addr, len, path) in outs {
        let data = gpu
            .read_bytes(addr, len)
            .map_err(|e| Failure::run(e.to_string()))?;
        std::fs::write(&path, data)
            .map_err(|e| Failure::run(format!("cannot write {}: {e}", path.display())))?;
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
        Report::new(config, 0, vec![row]).to_table()
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

    #[test]
    fn buffer_specs() {
        assert_eq!(buffer_data("2k").unwrap().len(), 2048);
        assert_eq!(
            buffer_data("iota:3").unwrap(),
            [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]
        );
        let a = buffer_data("rand:4:7").unwrap();
        assert_eq!((a.len(), a.clone()), (16, buffer_data("rand:4:7").unwrap()));
        assert_ne!(a, buffer_data("rand:4:8").unwrap());
        assert!(buffer_data("rand:4").is_err());
        assert!(buffer_data("lots").is_err());
        assert_eq!(number("0x10").unwrap(), 16);
    }
}
