//! One sort experiment: build the machine and the kernels from the options,
//! generate the input, run the HotSort schedule on the simulated GPU, check
//! the output against a reference sort, and report.

use std::time::Instant;

use serde::Serialize;
use sim::{Gpu, GpuConfig, RunOptions, SimError};
use sorts::hotsort::layout::SmemLayout;
use sorts::hotsort::{self, HotSort, HotSortConfig, Layout, MergeExchange, SortError};

use super::check::{CheckError, check_sorted};
use super::input::{Distribution, generate_u32};
use super::plan::{PlannedLaunch, Progress, ProgressDevice, plan};
use super::report::{Report, aggregate};

/// The sorting algorithm (`--algo`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algo {
    /// HotSort: the slab sort of the patent.
    Hotsort,
}

/// Everything that defines one sort experiment (`cli.md`, sort options).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SortOptions {
    /// The algorithm.
    pub algo: Algo,
    /// Lanes per warp.
    pub warp: u32,
    /// Key registers per lane.
    pub slab_height: u32,
    /// Slabs per block in the block sort; `None`: the largest that fits.
    pub block_slabs: Option<u32>,
    /// Number of keys.
    pub keys: u64,
    /// Key width in bits.
    pub key_bits: u32,
    /// Input distribution.
    pub dist: Distribution,
    /// Input generator seed.
    pub seed: u64,
    /// Machine preset name.
    pub gpu: String,
    /// Machine config fields overridden by name (`--sms 8` is `num_sms = 8`).
    pub overrides: Vec<(String, String)>,
    /// Shared-memory layout.
    #[serde(serialize_with = "serialize_layout")]
    pub smem_layout: Layout,
    /// Warp-merge exchange.
    #[serde(serialize_with = "serialize_merge")]
    pub merge: MergeExchange,
}

fn serialize_layout<S: serde::Serializer>(l: &Layout, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(l.name())
}

fn serialize_merge<S: serde::Serializer>(m: &MergeExchange, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(m.name())
}

impl Default for SortOptions {
    fn default() -> SortOptions {
        SortOptions {
            algo: Algo::Hotsort,
            warp: 32,
            slab_height: 16,
            block_slabs: None,
            keys: 65536,
            key_bits: 32,
            dist: Distribution::Uniform,
            seed: 1,
            gpu: "h200".to_string(),
            overrides: Vec::new(),
            smem_layout: Layout::Pad,
            merge: MergeExchange::Shuffle,
        }
    }
}

/// Why an experiment did not produce a report.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The options describe an impossible experiment (every problem listed).
    #[error("invalid configuration:\n{}", .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<String>),
    /// The simulated GPU faulted or a launch was refused.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The output is not the sorted input.
    #[error("the sort produced a wrong result: {0}")]
    Wrong(#[from] CheckError),
    /// The trace could not be written.
    #[error("cannot write the trace: {0}")]
    Trace(String),
}

impl ExperimentError {
    /// The exit status `cli.md` gives this error: 2 for bad input, 1 for a failed run.
    pub fn exit_status(&self) -> u8 {
        match self {
            ExperimentError::Invalid(_) => 2,
            ExperimentError::Sim(_) | ExperimentError::Wrong(_) | ExperimentError::Trace(_) => 1,
        }
    }
}

/// A finished, verified experiment.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The report.
    pub report: Report,
    /// Host seconds spent simulating (not part of the report, which must be
    /// deterministic).
    pub host_seconds: f64,
    /// Warp instructions simulated.
    pub warp_instructions: u64,
}

/// The machine config the options describe: the preset, then `--warp`, then
/// every override; validated, with every violation listed.
pub fn machine_config(opts: &SortOptions) -> Result<GpuConfig, ExperimentError> {
    let (cfg, problems) = machine_config_unchecked(opts)?;
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(ExperimentError::Invalid(problems))
    }
}

/// The machine config with every problem found in it (an unknown preset
/// stops at once: nothing else can be checked without a machine).
fn machine_config_unchecked(
    opts: &SortOptions,
) -> Result<(GpuConfig, Vec<String>), ExperimentError> {
    let mut problems = Vec::new();
    let mut cfg = GpuConfig::preset(&opts.gpu).ok_or_else(|| {
        ExperimentError::Invalid(vec![format!(
            "unknown --gpu preset `{}` (known: {})",
            opts.gpu,
            GpuConfig::PRESETS.join(", ")
        )])
    })?;
    cfg.warp_size = opts.warp;
    for (name, value) in &opts.overrides {
        if let Err(e) = cfg.set(name, value) {
            problems.push(e.to_string());
        }
    }
    if let Err(errors) = cfg.validate() {
        problems.extend(errors.iter().map(ToString::to_string));
    }
    Ok((cfg, problems))
}

/// The HotSort config the options describe on machine `gpu`: shared memory
/// is bounded by the machine's per-block limit, and without `--block-slabs`
/// the block is the largest (from HotSort's default down) that fits the
/// machine's threads and shared memory per block and warps per SM.
pub fn hotsort_config(
    opts: &SortOptions,
    gpu: &GpuConfig,
) -> Result<HotSortConfig, ExperimentError> {
    let mut cfg = HotSortConfig::new(opts.warp, opts.slab_height);
    cfg.banks = gpu.smem_banks;
    cfg.smem_bytes_max = gpu.smem_bytes_per_block;
    cfg.layout = opts.smem_layout;
    cfg.merge = opts.merge;
    cfg.key_bits = opts.key_bits;
    match opts.block_slabs {
        Some(slabs) => cfg.block_slabs = slabs,
        None => {
            let fits = |c: &HotSortConfig| {
                let threads = u64::from(c.warp) * u64::from(c.block_slabs);
                threads <= u64::from(gpu.max_threads_per_block)
                    && threads.div_ceil(u64::from(gpu.warp_size.max(1)))
                        <= u64::from(gpu.max_warps_per_sm)
                    && SmemLayout::new(c).block_bytes(c.block_slabs) <= u64::from(c.smem_bytes_max)
            };
            while cfg.block_slabs > 1 && !fits(&cfg) {
                cfg.block_slabs /= 2;
            }
        }
    }
    let mut problems: Vec<String> = match hotsort::validate(&cfg) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    };
    let threads = u64::from(cfg.warp) * u64::from(cfg.block_slabs);
    if threads > u64::from(gpu.max_threads_per_block) {
        problems.push(format!(
            "a block of {} slabs of {} lanes is {threads} threads, over the machine's {} per block",
            cfg.block_slabs, cfg.warp, gpu.max_threads_per_block
        ));
    }
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(ExperimentError::Invalid(problems))
    }
}

/// The report's `config` object: every machine field, then the sort options.
pub fn config_json(
    opts: &SortOptions,
    gpu: &GpuConfig,
) -> serde_json::Map<String, serde_json::Value> {
    let mut map = match serde_json::to_value(gpu) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    if let Ok(serde_json::Value::Object(sort)) = serde_json::to_value(opts) {
        map.extend(sort);
    }
    map
}

/// An experiment checked against the machine and ready to run: the
/// machine, the verified kernels and every launch the sort will make.
pub struct Prepared {
    /// The options.
    pub opts: SortOptions,
    /// The machine.
    pub gpu: GpuConfig,
    /// The verified HotSort kernels.
    pub hotsort: HotSort,
    /// Every launch, in order.
    pub plan: Vec<PlannedLaunch>,
}

/// Checks every option against the machine without running anything: the
/// machine config, the HotSort config and the key count (every problem of
/// these listed together), then every kernel's block against one SM's
/// threads, registers and shared memory.
pub fn prepare(opts: &SortOptions) -> Result<Prepared, ExperimentError> {
    let (gpu_cfg, mut problems) = machine_config_unchecked(opts)?;
    let hs_cfg = match hotsort_config(opts, &gpu_cfg) {
        Ok(cfg) => Some(cfg),
        Err(ExperimentError::Invalid(more)) => {
            for p in more {
                if !problems.contains(&p) {
                    problems.push(p);
                }
            }
            None
        }
        Err(other) => return Err(other),
    };
    let keys = usize::try_from(opts.keys).ok().filter(|&k| k <= 1 << 31);
    if keys.is_none() {
        problems.push(format!(
            "--keys {} is more than this sort addresses (at most 2^31)",
            opts.keys
        ));
    }
    let (Some(hs_cfg), Some(keys), true) = (hs_cfg, keys, problems.is_empty()) else {
        return Err(ExperimentError::Invalid(problems));
    };
    let hotsort = HotSort::new::<SimError>(&hs_cfg).map_err(|e| match e {
        SortError::Config(errors) => {
            ExperimentError::Invalid(errors.iter().map(ToString::to_string).collect())
        }
        other => ExperimentError::Invalid(vec![other.to_string()]),
    })?;
    let gpu = Gpu::new(gpu_cfg.clone(), RunOptions::default())?;
    let plan = plan(&hotsort, &gpu, keys).map_err(ExperimentError::Invalid)?;
    Ok(Prepared {
        opts: opts.clone(),
        gpu: gpu_cfg,
        hotsort,
        plan,
    })
}

/// Runs one experiment.
pub fn run_sort(opts: &SortOptions) -> Result<Outcome, ExperimentError> {
    run_sort_with(opts, &mut |_| {})
}

/// Runs one experiment, reporting progress before each kernel launch and
/// once at the end.
pub fn run_sort_with(
    opts: &SortOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Outcome, ExperimentError> {
    prepare(opts)?.run(progress)
}

impl Prepared {
    /// Runs the prepared experiment, reporting progress before each kernel
    /// launch and once at the end.
    pub fn run(&self, progress: &mut dyn FnMut(Progress)) -> Result<Outcome, ExperimentError> {
        self.run_traced(progress, None)
    }

    /// [`Prepared::run`], recording every launch into `sink` when given.
    pub fn run_traced(
        &self,
        progress: &mut dyn FnMut(Progress),
        sink: Option<&mut (dyn sim::TraceSink + '_)>,
    ) -> Result<Outcome, ExperimentError> {
        let opts = &self.opts;
        let input = generate_u32(opts.dist, opts.keys as usize, opts.seed);
        let mut gpu = Gpu::new(self.gpu.clone(), RunOptions::default())?;
        let start = Instant::now();
        let mut dev = ProgressDevice {
            dev: sim::TracedGpu::new(&mut gpu, sink),
            plan: &self.plan,
            report: progress,
            done: 0,
            work_done: 0,
        };
        let run = self.hotsort.sort(&mut dev, &input).map_err(|e| match e {
            SortError::Device(e) => ExperimentError::Sim(e),
            other => ExperimentError::Invalid(vec![other.to_string()]),
        })?;
        dev.finish();
        let host_seconds = start.elapsed().as_secs_f64();
        check_sorted(&input, &run.sorted)?;
        let rows = aggregate(run.launches.iter().map(|l| (l.name, &l.stats)));
        let warp_instructions = rows.iter().map(|r| r.stats.inst_executed).sum();
        let report = Report::new(config_json(opts, &self.gpu), opts.keys, rows);
        Ok(Outcome {
            report,
            host_seconds,
            warp_instructions,
        })
    }
}
