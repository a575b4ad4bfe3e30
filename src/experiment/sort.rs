//! One sort experiment: build the machine and the kernels from the options,
//! generate the input, run the selected algorithm (any [`sorts::Algorithm`])
//! on the simulated GPU, check the output against a reference sort, and
//! report. Nothing here names an algorithm but [`Algo`] and [`Sorter`], the
//! one place `--algo` values map to implementations.

use std::time::Instant;

use kernels_ir::{Device, Hooked, Kernel};
use serde::Serialize;
use sim::{Gpu, GpuConfig, RunOptions, SimError};
use sorts::bitonic::{Bitonic, BitonicOptions};
use sorts::hotsort::{HotSort, HotSortConfig, HotSortOptions};
use sorts::mergesort::{Mergesort, MergesortOptions};
use sorts::samplesort::{Samplesort, SamplesortConfig, SamplesortOptions};
use sorts::terasort::{TeraSort, TeraSortOptions};
use sorts::{Algorithm, Key, Limits, SortError, SortRun};

use super::check::{CheckError, check_against, check_pairs, reference_sort};
use super::input::{Distribution, generate_u32, generate_u64};
use super::machine::Assembled;
pub use super::options::SortOptions;
use super::plan::{PlannedLaunch, Progress, ProgressHook, plan};
use super::report::{Report, aggregate};

/// The sorting algorithm (`--algo`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algo {
    /// HotSort: the slab sort of the patent.
    Hotsort,
    /// Merge-path mergesort (Sean Baxter's moderngpu).
    Mergesort,
    /// The vectorised bitonic merge sort (patent CN102750131A).
    Bitonic,
    /// GPU sample sort: k-way distribution levels, then small sorts (Leischner, Osipov and Sanders).
    Samplesort,
    /// GPUTeraSort: key-pointer bitonic sort of records, hybrid refinement, reorder.
    Terasort,
}

impl Algo {
    /// The name `--algo` takes (the algorithm's [`Algorithm::NAME`]).
    pub const fn name(self) -> &'static str {
        match self {
            Algo::Hotsort => HotSort::NAME,
            Algo::Mergesort => Mergesort::NAME,
            Algo::Bitonic => Bitonic::NAME,
            Algo::Terasort => TeraSort::NAME,
            Algo::Samplesort => Samplesort::NAME,
        }
    }
}

/// An algorithm as the experiment layer runs it: the [`Algorithm`] and the
/// options it takes from a [`SortOptions`].
pub trait Selected: Algorithm<Options: 'static> {
    /// The `--algo` value: which of the options table's algorithm options
    /// it takes (an entry's `for [...]` list; given with a non-default
    /// value to an algorithm not listed, an option is refused, see
    /// [`foreign_options`]).
    const ALGO: Algo;
    /// Whether the algorithm carries a 32-bit value beside a 64-bit key
    /// (`--key-bits 64 --values`, see [`sorts::Algorithm::sort_pairs`]).
    const CARRIES_VALUES: bool = false;
    /// The algorithm's options before its own options are filled in: the
    /// machine's warp width and the key type from `opts` (options of every
    /// experiment), every other field at the algorithm's default.
    fn base(opts: &SortOptions) -> Self::Options;
    /// The algorithm's options in `opts`: [`Selected::base`], then every
    /// field the options table maps an option of this algorithm to
    /// (`for [Hotsort.layout]`, see [`super::options::fill_algorithm_options`]).
    fn options(opts: &SortOptions) -> Self::Options {
        let mut o = Self::base(opts);
        super::options::fill_algorithm_options::<Self>(opts, &mut o);
        o
    }
    /// The verified algorithm as a [`Sorter`].
    fn into_sorter(self) -> Sorter;
    /// Writes into `opts` the values of options left to adapt to the
    /// machine as `cfg` resolved them, so the report shows what ran.
    fn resolved(_cfg: &Self::Config, _opts: &mut SortOptions) {}
}

impl Selected for HotSort {
    const ALGO: Algo = Algo::Hotsort;
    const CARRIES_VALUES: bool = true;

    fn base(opts: &SortOptions) -> HotSortOptions {
        HotSortOptions {
            warp: opts.warp,
            key_bits: opts.word_bits(),
            values: opts.carries_values(),
            ..HotSortOptions::default()
        }
    }

    fn resolved(cfg: &HotSortConfig, opts: &mut SortOptions) {
        opts.slab_height = Some(cfg.slab_height);
    }

    fn into_sorter(self) -> Sorter {
        Sorter::Hotsort(self)
    }
}

impl Selected for Mergesort {
    const ALGO: Algo = Algo::Mergesort;

    fn base(opts: &SortOptions) -> MergesortOptions {
        MergesortOptions {
            warp: opts.warp,
            key_bits: opts.word_bits(),
            ..MergesortOptions::default()
        }
    }

    fn into_sorter(self) -> Sorter {
        Sorter::Mergesort(self)
    }
}

impl Selected for Bitonic {
    const ALGO: Algo = Algo::Bitonic;

    fn base(opts: &SortOptions) -> BitonicOptions {
        BitonicOptions {
            warp: opts.warp,
            key_bits: opts.word_bits(),
            ..BitonicOptions::default()
        }
    }

    fn into_sorter(self) -> Sorter {
        Sorter::Bitonic(self)
    }
}

impl Selected for TeraSort {
    const ALGO: Algo = Algo::Terasort;

    fn base(opts: &SortOptions) -> TeraSortOptions {
        TeraSortOptions {
            warp: opts.warp,
            // With `--values` the 64-bit word (key over value) is the key.
            key_bits: opts.word_bits(),
            ..TeraSortOptions::default()
        }
    }

    fn into_sorter(self) -> Sorter {
        Sorter::Terasort(self)
    }
}

impl Selected for Samplesort {
    const ALGO: Algo = Algo::Samplesort;

    fn base(opts: &SortOptions) -> SamplesortOptions {
        SamplesortOptions {
            warp: opts.warp,
            key_bits: opts.word_bits(),
            ..SamplesortOptions::default()
        }
    }

    fn resolved(cfg: &SamplesortConfig, opts: &mut SortOptions) {
        opts.buckets = Some(cfg.buckets);
        opts.oversample = Some(cfg.oversample);
        opts.small_size = Some(cfg.small_size);
        opts.counter_copies = Some(cfg.counter_copies);
        opts.block_threads = Some(cfg.block_threads);
    }

    fn into_sorter(self) -> Sorter {
        Sorter::Samplesort(self)
    }
}

/// A verified algorithm, ready to sort on any device.
// One per experiment, never in a collection: the variants' sizes differ
// (HotSort holds seven kernels), which costs nothing here.
#[allow(clippy::large_enum_variant)]
pub enum Sorter {
    /// HotSort.
    Hotsort(HotSort),
    /// Merge-path mergesort.
    Mergesort(Mergesort),
    /// The vectorised bitonic merge sort.
    Bitonic(Bitonic),
    /// GPUTeraSort.
    Terasort(TeraSort),
    /// GPU sample sort.
    Samplesort(Samplesort),
}

/// Runs `$body` with `$a` bound to the algorithm of `$sorter` (every
/// variant of [`Sorter`]).
macro_rules! with_sorter {
    ($sorter:expr, $a:ident => $body:expr) => {
        match $sorter {
            Sorter::Hotsort($a) => $body,
            Sorter::Mergesort($a) => $body,
            Sorter::Bitonic($a) => $body,
            Sorter::Terasort($a) => $body,
            Sorter::Samplesort($a) => $body,
        }
    };
}

/// Runs `$body` with `$A` the algorithm type `$algo` selects.
macro_rules! with_algo {
    ($algo:expr, $A:ident => $body:expr) => {
        match $algo {
            Algo::Hotsort => {
                type $A = HotSort;
                $body
            }
            Algo::Mergesort => {
                type $A = Mergesort;
                $body
            }
            Algo::Bitonic => {
                type $A = Bitonic;
                $body
            }
            Algo::Terasort => {
                type $A = TeraSort;
                $body
            }
            Algo::Samplesort => {
                type $A = Samplesort;
                $body
            }
        }
    };
}

impl Algo {
    /// Whether the algorithm carries a 32-bit value beside a 64-bit key
    /// ([`Selected::CARRIES_VALUES`]).
    pub fn carries_values(self) -> bool {
        with_algo!(self, A => A::CARRIES_VALUES)
    }
}

/// Whether the sort option `name` (a `config` key) means something to
/// `algo`: the options of the experiment (keys, machine, ...) apply to
/// every algorithm, an algorithm's own options (see
/// [`super::options::takers`]) only to the algorithms their entry lists.
pub fn option_applies(algo: Algo, name: &str) -> bool {
    super::options::takers(name).is_none_or(|takers| takers.contains(&algo))
}

/// Every algorithm option given with a non-default value that algorithm
/// `A` does not take, as one problem each naming the flag and the
/// algorithms that take it.
pub fn foreign_options<A: Selected>(opts: &SortOptions) -> Vec<String> {
    super::options::changed(opts)
        .into_iter()
        .filter(|name| !option_applies(A::ALGO, name))
        .filter_map(|name| {
            let takers = super::options::takers(name)?;
            let names: Vec<&str> = takers.iter().map(|a| a.name()).collect();
            Some(format!(
                "--{} {}: an option of {}, not of {} (leave it out with --algo {})",
                name.replace('_', "-"),
                super::options::axis_value(opts, name),
                names.join(" and "),
                A::NAME,
                A::NAME
            ))
        })
        .collect()
}

impl Sorter {
    /// Sorts 64-bit `keys` carrying `values` on `dev` (see
    /// [`sorts::Algorithm::sort_pairs`]).
    pub fn sort_pairs<D: Device>(
        &self,
        dev: &mut D,
        keys: &[u64],
        values: &[u32],
    ) -> Result<SortRun<D::Stats, sorts::Pair>, SortError<D::Error>> {
        with_sorter!(self, a => a.sort_pairs(dev, keys, values))
    }

    /// Whether the sorter's kernels carry values beside 64-bit keys.
    pub fn carries_values(&self) -> bool {
        matches!(self, Sorter::Hotsort(h) if h.config().values)
    }

    /// Sorts `keys` on `dev`.
    pub fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        with_sorter!(self, a => a.sort(dev, keys))
    }

    /// The launches of a sort on a device without contents: what the plan
    /// counts (see [`Algorithm::dry_run`]).
    pub fn dry_run<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        with_sorter!(self, a => a.dry_run(dev, keys))
    }

    /// Whether the launches depend on the keys (GPUTeraSort's refinement
    /// reads tied prefixes back), so that only a run that computes them
    /// (the simulator, not a dry run) lists them.
    pub fn schedule_reads_keys(&self) -> bool {
        matches!(self, Sorter::Terasort(_) | Sorter::Samplesort(_))
    }

    /// Whether the sort's result is records holding the keys rather than
    /// the keys themselves (GPUTeraSort's records, whose key bytes and
    /// payloads a bundle checks as the simulator read them back).
    pub fn result_is_records(&self) -> bool {
        matches!(self, Sorter::Terasort(_))
    }

    /// Host-side lines about the last sort that stay out of the
    /// deterministic report (GPUTeraSort: runs, key rounds, refinement
    /// launches and the host merge's seconds).
    pub fn notes(&self) -> Vec<String> {
        match self {
            Sorter::Hotsort(_) | Sorter::Mergesort(_) | Sorter::Bitonic(_) => Vec::new(),
            Sorter::Samplesort(s) => vec![sorts::samplesort::note(s)],
            Sorter::Terasort(t) => {
                let s = t.summary();
                let phase2 = match t.config().phase2 {
                    sorts::terasort::Phase2::Gpu(_) => {
                        "phase 2 on the simulated GPU (merge path)".to_string()
                    }
                    sorts::terasort::Phase2::Host => {
                        format!("phase 2 (host k-way merge) {:.3} s", s.merge_seconds)
                    }
                };
                vec![format!(
                    "terasort: {} run(s), {} key round(s), {} refinement launch(es); {phase2}",
                    s.runs, s.rounds, s.refine_launches
                )]
            }
        }
    }

    /// Every verified kernel with its generator's marks, in launch order.
    pub fn marked_kernels(&self) -> Vec<(&kernels_ir::VerifiedKernel, &sorts::KernelMarks)> {
        with_sorter!(self, a => a.marked_kernels())
    }
}

/// Why an experiment did not produce a report.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The options describe an impossible experiment (every problem
    /// listed). Shown one problem a line, each after the `error: ` the
    /// command line puts before the first.
    #[error("{}", .0.join("\nerror: "))]
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
    /// Host-side lines about the sort (see [`Sorter::notes`]), for stderr.
    pub notes: Vec<String>,
}

impl SortOptions {
    /// The bits of one word the sort moves: the key width, or 64 for a
    /// 32-bit key with its 32-bit value (the pair sorts as one word, key in
    /// the high half, so the value moves with every exchange).
    pub fn word_bits(&self) -> u32 {
        if self.values { 64 } else { self.key_bits }
    }

    /// Whether each key carries its value beside it, in a register and a
    /// buffer of its own (`--key-bits 64 --values`): a 64-bit key and a
    /// 32-bit value do not fit one word.
    pub fn carries_values(&self) -> bool {
        self.values && self.key_bits == 64
    }
}

/// The machine config the options describe: the preset, then `--warp`, then
/// every override; validated, with every violation listed.
pub fn machine_config(opts: &SortOptions) -> Result<GpuConfig, ExperimentError> {
    let m = machine_config_unchecked(opts)?;
    if m.problems.is_empty() {
        Ok(m.config)
    } else {
        Err(ExperimentError::Invalid(m.problems))
    }
}

/// The machine config with every problem found in it (an unknown preset
/// stops at once: nothing else can be checked without a machine).
fn machine_config_unchecked(opts: &SortOptions) -> Result<Assembled, ExperimentError> {
    super::machine::assemble(&opts.gpu, Some(opts.warp), &opts.overrides)
        .map_err(ExperimentError::Invalid)
}

/// The limits of `gpu` an algorithm's options are checked against.
pub fn limits(gpu: &GpuConfig) -> Limits {
    Limits {
        warp_size: gpu.warp_size,
        smem_banks: gpu.smem_banks,
        smem_bytes_per_block: gpu.smem_bytes_per_block,
        max_threads_per_block: gpu.max_threads_per_block,
        max_warps_per_sm: gpu.max_warps_per_sm,
        regs_per_sm: gpu.regs_per_sm,
        reg_alloc_unit: gpu.reg_alloc_unit,
        max_regs_per_thread: gpu.max_regs_per_thread,
        reg_words_beyond_live: gpu.reg_words_beyond_live,
        reg_words_beyond_live_b128: gpu.reg_words_beyond_live_b128,
    }
}

/// The configuration of algorithm `A` the options describe on machine `gpu`.
pub fn algo_config<A: Selected>(
    opts: &SortOptions,
    gpu: &GpuConfig,
) -> Result<A::Config, ExperimentError> {
    A::configure(&A::options(opts), &limits(gpu)).map_err(ExperimentError::Invalid)
}

/// The HotSort config the options describe on machine `gpu` (see
/// [`sorts::hotsort::configure`]).
pub fn hotsort_config(
    opts: &SortOptions,
    gpu: &GpuConfig,
) -> Result<HotSortConfig, ExperimentError> {
    algo_config::<HotSort>(opts, gpu)
}

/// The selected algorithm's kernels for these options (unverified, in launch
/// order) with a one-line title and the machine's limits (the registers it
/// allocates them): what `simsort kernels` lists.
pub fn algo_kernels(opts: &SortOptions) -> Result<(String, Vec<Kernel>, Limits), ExperimentError> {
    let gpu = machine_config(opts)?;
    with_algo!(opts.algo, A => {
        let foreign = foreign_options::<A>(opts);
        if !foreign.is_empty() {
            return Err(ExperimentError::Invalid(foreign));
        }
        let cfg = algo_config::<A>(opts, &gpu)?;
        Ok((A::describe(&cfg), A::generate(&cfg), limits(&gpu)))
    })
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
    // A machine file is reported by its machine's name, as a preset is.
    if super::machine_file::is_file(&opts.gpu) {
        let name = super::machine_file::report_name(&opts.gpu);
        map.insert("gpu".to_string(), name.into());
    }
    if opts.algo == Algo::Terasort {
        // Which phase 2 merged the runs (the paper's: on the host CPU).
        let phase2 = match opts.terasort_merge {
            super::options::TeraMerge::Host => "host-merge",
            super::options::TeraMerge::Gpu => "gpu-merge",
        };
        map.insert("phase2".to_string(), phase2.into());
    }
    map
}

/// The keys an experiment sorts: 32-bit keys, or 64-bit words (64-bit
/// keys, or a 32-bit key in the high half over its 32-bit value).
pub enum Input {
    /// 32-bit keys.
    U32(Vec<u32>),
    /// 64-bit keys or key-value pairs.
    U64(Vec<u64>),
    /// 64-bit keys, each with the 32-bit value at its index.
    Pairs(Vec<u64>, Vec<u32>),
}

/// The input the options describe (distribution, count, seed, key type).
pub fn input(opts: &SortOptions) -> Input {
    let (n, seed) = (opts.keys as usize, opts.seed);
    let value_seed = seed ^ 0xB7E1_5162_8AED_2A6A;
    if opts.carries_values() {
        let keys = generate_u64(opts.dist, n, seed);
        Input::Pairs(keys, generate_u32(Distribution::Uniform, n, value_seed))
    } else if opts.values {
        let keys = generate_u32(opts.dist, n, seed);
        let values = generate_u32(Distribution::Uniform, n, value_seed);
        Input::U64(
            keys.iter()
                .zip(&values)
                .map(|(&k, &v)| (u64::from(k) << 32) | u64::from(v))
                .collect(),
        )
    } else if opts.key_bits == 64 {
        Input::U64(generate_u64(opts.dist, n, seed))
    } else {
        Input::U32(generate_u32(opts.dist, n, seed))
    }
}

/// An experiment checked against the machine and ready to run: the
/// machine, the verified kernels and every launch the sort will make.
pub struct Prepared {
    /// The options.
    pub opts: SortOptions,
    /// The machine.
    pub gpu: GpuConfig,
    /// The verified algorithm.
    pub sorter: Sorter,
    /// Every launch, in order.
    pub plan: Vec<PlannedLaunch>,
    /// Host threads that simulate each launch's SMs (1 after [`prepare`]):
    /// the speed, never the results, depends on it.
    pub threads: usize,
}

/// Checks every option against the machine without running anything: the
/// machine config, the HotSort config and the key count (every problem of
/// these listed together), then every kernel's block against one SM's
/// threads, registers and shared memory.
pub fn prepare(opts: &SortOptions) -> Result<Prepared, ExperimentError> {
    with_algo!(opts.algo, A => prepare_algo::<A>(opts))
}

/// A warp width the machine refuses (`--warp 0`) said in the algorithm's
/// terms where it has a rule of its own (HotSort: a power of two in
/// 4..=64), so that `--warp 0` and `--warp 1` name the same range.
fn algo_warp(
    opts: &SortOptions,
    mut problems: Vec<String>,
    m: &super::machine::Assembled,
) -> Vec<String> {
    let machine_says = format!("invalid machine (--warp {})", opts.warp);
    let Some(at) = problems.iter().position(|p| p.starts_with(&machine_says)) else {
        return problems;
    };
    let mut gpu = m.checkable.clone();
    gpu.warp_size = opts.warp;
    let own = with_algo!(opts.algo, A => algo_config::<A>(opts, &gpu).err());
    let warp_flag = format!("--warp {}:", opts.warp);
    if let Some(ExperimentError::Invalid(own)) = own
        && let Some(p) = own.into_iter().find(|p| p.starts_with(&warp_flag))
    {
        problems[at] = p;
    }
    problems
}

/// [`prepare`] for algorithm `A`.
fn prepare_algo<A: Selected>(opts: &SortOptions) -> Result<Prepared, ExperimentError> {
    let m = machine_config_unchecked(opts)?;
    let (gpu_cfg, mut problems) = (m.config.clone(), algo_warp(opts, m.problems.clone(), &m));
    problems.extend(foreign_options::<A>(opts));
    // The algorithm is checked on the machine with its bad fields at the
    // preset's values (its warp width too), so one bad machine value is one
    // problem.
    let mut checkable_opts = opts.clone();
    checkable_opts.warp = m.checkable.warp_size;
    let algo_cfg = match algo_config::<A>(&checkable_opts, &m.checkable) {
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
    if opts.values && opts.key_bits != 32 && !A::CARRIES_VALUES {
        problems.push(format!(
            "--values with --key-bits {}: {} carries a 32-bit value only with 32-bit keys (the \
             pair sorts as one 64-bit word)",
            opts.key_bits,
            A::NAME
        ));
    }
    let keys = usize::try_from(opts.keys).ok().filter(|&k| k <= 1 << 31);
    if keys.is_none() {
        problems.push(format!(
            "--keys {} is more than this sort addresses (at most 2^31)",
            opts.keys
        ));
    }
    let (Some(algo_cfg), Some(keys), true) = (algo_cfg, keys, problems.is_empty()) else {
        return Err(ExperimentError::Invalid(problems));
    };
    let algo = A::build(&algo_cfg).map_err(|e| match e {
        SortError::Config(errors) => {
            ExperimentError::Invalid(errors.iter().map(ToString::to_string).collect())
        }
        other => ExperimentError::Invalid(vec![other.to_string()]),
    })?;
    let mut opts = opts.clone();
    A::resolved(&algo_cfg, &mut opts);
    let gpu = Gpu::new(gpu_cfg.clone(), RunOptions::default())?;
    let sorter = algo.into_sorter();
    let plan = plan(&sorter, &gpu, keys, opts.word_bits()).map_err(ExperimentError::Invalid)?;
    Ok(Prepared {
        opts,
        gpu: gpu_cfg,
        sorter,
        plan,
        threads: 1,
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
        let (launches, host_seconds) = self.run_input(&input(opts), progress, sink)?;
        let rows = aggregate(launches.iter().map(|l| (l.name, &l.stats)));
        let warp_instructions = rows.iter().map(|r| r.stats.inst_executed).sum();
        let report = Report::new(config_json(opts, &self.gpu), opts.keys, rows);
        Ok(Outcome {
            report,
            host_seconds,
            warp_instructions,
            notes: self.sorter.notes(),
        })
    }

    /// Runs `sort` and makes the reference sort of `keys`: on another
    /// host thread while `sort` runs when the run has several host threads
    /// (the simulator's threads wait for the main thread between quanta,
    /// and this work fills those gaps), after it on one.
    fn beside<K: Ord + Copy + Send + Sync, R>(
        &self,
        keys: &[K],
        sort: impl FnOnce() -> R,
    ) -> (R, Vec<K>) {
        if self.threads < 2 {
            return (sort(), reference_sort(keys));
        }
        std::thread::scope(|s| {
            let reference = std::thread::Builder::new()
                .name("simsort-check".into())
                .spawn_scoped(s, || reference_sort(keys));
            match reference {
                Ok(reference) => {
                    let run = sort();
                    let reference = reference.join().unwrap_or_else(|panic| {
                        std::panic::resume_unwind(panic);
                    });
                    (run, reference)
                }
                // No thread to be had: sort after, as on one thread.
                Err(_) => (sort(), reference_sort(keys)),
            }
        })
    }

    /// Sorts `input` on a fresh simulated machine (tracing into `sink` when
    /// given), checks the result, and returns the launches and the host
    /// seconds spent.
    fn run_input(
        &self,
        input: &Input,
        progress: &mut dyn FnMut(Progress),
        sink: Option<&mut (dyn sim::TraceSink + '_)>,
    ) -> Result<(Vec<sorts::Launch<sim::KernelStats>>, f64), ExperimentError> {
        let options = RunOptions {
            threads: self.threads,
            ..RunOptions::default()
        };
        let mut gpu = Gpu::new(self.gpu.clone(), options)?;
        let start = Instant::now();
        let mut traced = sim::traced(&mut gpu, sink);
        let mut dev = Hooked {
            dev: &mut traced,
            hook: ProgressHook {
                plan: &self.plan,
                report: progress,
                done: 0,
                work_done: 0,
            },
        };
        let failed = |e: SortError<SimError>| match e {
            SortError::Device(e) => ExperimentError::Sim(e),
            other => ExperimentError::Invalid(vec![other.to_string()]),
        };
        // Equal to the reference sort: ascending and the same multiset (for
        // a 32-bit key with its value, of the (key, value) words); for
        // 64-bit keys carrying values, keys ascending and the same multiset
        // of (key, value) pairs.
        let (launches, check, pairs) = match input {
            Input::U32(keys) => {
                let (run, reference) = self.beside(keys, || self.sorter.sort(&mut dev, keys));
                let run = run.map_err(failed)?;
                (run.launches, check_against(&reference, &run.sorted), None)
            }
            Input::U64(keys) => {
                let (run, reference) = self.beside(keys, || self.sorter.sort(&mut dev, keys));
                let run = run.map_err(failed)?;
                (run.launches, check_against(&reference, &run.sorted), None)
            }
            Input::Pairs(keys, values) => {
                let run = self
                    .sorter
                    .sort_pairs(&mut dev, keys, values)
                    .map_err(failed)?;
                (run.launches, Ok(()), Some((keys, values, run.sorted)))
            }
        };
        dev.hook.finish();
        let host_seconds = start.elapsed().as_secs_f64();
        check?;
        // The pairs' check makes a sorted copy of the input: free the
        // simulated machine's memory first.
        drop(gpu);
        if let Some((keys, values, mut sorted)) = pairs {
            check_pairs(keys, values, &mut sorted)?;
        }
        Ok((launches, host_seconds))
    }
}

#[cfg(test)]
#[path = "sort_options_tests.rs"]
mod options_tests;
