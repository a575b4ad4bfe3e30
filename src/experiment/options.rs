//! The sort options, declared once. [`sort_options!`] turns one table into
//! everything that names an option: the [`SortOptions`] struct and its JSON
//! `config` keys, the command-line flags of the main job
//! ([`SortOptionArgs`]) and of `sweep` ([`SweepOptionArgs`], each a comma
//! list), the sweep's [`SweepSpec`], its grid order and axes, the CSV column
//! order, the labels of plots and the sweep summary, which algorithms take
//! an option (the rest refuse it), and the flags of `simsort kernels` and
//! `emit ptx --kernel` ([`KernelOptionArgs`]), and, for an algorithm's
//! option, the field of the algorithm's own options struct it fills
//! ([`fill_algorithm_options`]). Adding an option is one entry of the
//! table.

use serde::Serialize;
use serde_json::Value;
use sorts::hotsort::{Layout, MergeExchange, Schedule};
use sorts::samplesort::LevelLaunches;

use super::input::Distribution;
use super::sort::Algo;

/// An option's value as the sweep's axes and CSV spell it (`text`) and as
/// the report's `config` object holds it (`json`).
pub trait OptionValue {
    /// The text form (`default` for an unset optional number).
    fn text(&self) -> String;
    /// The JSON form.
    fn json(&self) -> Value;
}

macro_rules! number_value {
    ($($t:ty),*) => {$(
        impl OptionValue for $t {
            fn text(&self) -> String {
                self.to_string()
            }
            fn json(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
number_value!(u32, u64);

impl OptionValue for bool {
    fn text(&self) -> String {
        self.to_string()
    }
    fn json(&self) -> Value {
        Value::from(*self)
    }
}

impl OptionValue for Option<u32> {
    fn text(&self) -> String {
        self.map_or_else(|| "default".to_string(), |v| v.to_string())
    }
    fn json(&self) -> Value {
        self.map_or(Value::Null, Value::from)
    }
}

impl OptionValue for Option<u64> {
    fn text(&self) -> String {
        self.map_or_else(|| "default".to_string(), |v| v.to_string())
    }
    fn json(&self) -> Value {
        self.map_or(Value::Null, Value::from)
    }
}

impl OptionValue for String {
    fn text(&self) -> String {
        self.clone()
    }
    fn json(&self) -> Value {
        Value::from(self.as_str())
    }
}

macro_rules! named_value {
    ($($t:ty),*) => {$(
        impl OptionValue for $t {
            fn text(&self) -> String {
                self.name().to_string()
            }
            fn json(&self) -> Value {
                Value::from(self.name())
            }
        }
    )*};
}
named_value!(
    Algo,
    Distribution,
    Layout,
    MergeExchange,
    Schedule,
    TeraMerge,
    TeraNetwork,
    LevelLaunches
);

/// One axis of a sweep's grid: its name as in the report's `config` object
/// and the text of each of its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The config key (`warp`, `slab_height`, `num_sms`, ...).
    pub name: String,
    /// Each value as text, in list order.
    pub values: Vec<String>,
}

fn dedup<T: PartialEq + Clone>(list: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(list.len());
    for v in list {
        if !out.contains(v) {
            out.push(v.clone());
        }
    }
    out
}

/// Expands one axis: every option set so far, times every value.
fn expand<T: PartialEq + Clone>(
    grid: Vec<SortOptions>,
    values: &[T],
    set: impl Fn(&mut SortOptions, &T),
) -> Vec<SortOptions> {
    let values = dedup(values);
    let mut out = Vec::with_capacity(grid.len() * values.len());
    for base in grid {
        for v in &values {
            let mut o = base.clone();
            set(&mut o, v);
            out.push(o);
        }
    }
    out
}

fn axis<T: PartialEq + Clone + OptionValue>(name: &str, values: &[T]) -> Axis {
    Axis {
        name: name.to_string(),
        values: dedup(values).iter().map(OptionValue::text).collect(),
    }
}

/// A flag's list as option values; an empty list (a flag without a
/// default, not given) is the option's default alone.
fn list<C: Clone + Into<T>, T>(given: &[C], default: T) -> Vec<T> {
    if given.is_empty() {
        vec![default]
    } else {
        given.iter().cloned().map(Into::into).collect()
    }
}

/// The machine config overrides of a sweep as `(field, values)` lists.
fn override_lists(overrides: &[(String, String)]) -> Vec<(String, Vec<String>)> {
    overrides
        .iter()
        .map(|(field, values)| {
            let list = values.split(',').map(|v| v.trim().to_string()).collect();
            (field.clone(), list)
        })
        .collect()
}

/// Whether a table entry is marked `quiet`: left out of the report's
/// `config`, the CSV and the sweep's axes while it has its default value,
/// so options added later leave existing reports unchanged.
macro_rules! quiet {
    () => {
        false
    };
    (quiet) => {
        true
    };
}

/// The algorithms an entry's scope gives the option to: none for an
/// option of every experiment (`run`, `build`), else the listed ones.
macro_rules! scope_takers {
    (run) => {
        None
    };
    (build) => {
        None
    };
    ([$($algo:ident . $field:ident $(with $conv:path)?),* $(,)?]) => {
        Some(&[$(Algo::$algo),*] as &[Algo])
    };
}

/// The options struct of the algorithm that [`Algo`] variant `$algo`
/// selects: where a table entry's `for [Algo.field]` writes.
macro_rules! options_of {
    (Hotsort) => {
        sorts::hotsort::HotSortOptions
    };
    (Mergesort) => {
        sorts::mergesort::MergesortOptions
    };
    (Bitonic) => {
        sorts::bitonic::BitonicOptions
    };
    (Samplesort) => {
        sorts::samplesort::SamplesortOptions
    };
    (Terasort) => {
        sorts::terasort::TeraSortOptions
    };
}

/// How an entry's value becomes its field's: `with f` calls `f(value,
/// the field's value so far)`; without, the value converts with `Into`.
macro_rules! convert {
    ($value:expr, $old:expr) => {
        same($value, $old)
    };
    ($value:expr, $old:expr, $conv:path) => {
        $conv($value, $old)
    };
}

/// The value itself, converted into the field's type (the default of
/// [`convert!`]; the field's old value only names that type).
fn same<T: Into<U>, U>(value: T, _old: U) -> U {
    value.into()
}

/// `with or_base`: the option's value if given, else the field's value
/// from the algorithm's own defaults.
fn or_base<T>(value: Option<T>, base: T) -> T {
    value.unwrap_or(base)
}

/// `with on_gpu`: whether GPUTeraSort's phase 2 runs on the GPU.
fn on_gpu(value: TeraMerge, _old: bool) -> bool {
    value == TeraMerge::Gpu
}

/// `with is_steps`: whether GPUTeraSort sorts with the paper's network,
/// one launch per step.
fn is_steps(value: TeraNetwork, _old: bool) -> bool {
    value == TeraNetwork::Steps
}

/// One entry's part of [`fill_algorithm_options`]: for each algorithm its
/// scope lists, if `o` is that algorithm's options struct, sets the
/// listed field from option `$name`.
macro_rules! fill_entry {
    ($opts:ident, $o:ident, $name:ident, run) => {};
    ($opts:ident, $o:ident, $name:ident, build) => {};
    ($opts:ident, $o:ident, $name:ident,
        [$($algo:ident . $field:ident $(with $conv:path)?),* $(,)?]) => {
        $(
            if let Some(o) = ($o as &mut dyn std::any::Any).downcast_mut::<options_of!($algo)>() {
                o.$field = convert!($opts.$name.clone(), o.$field.clone() $(, $conv)?);
            }
        )*
    };
}

/// [`KernelOptionArgs`] and its [`KernelOptionArgs::apply`] from the
/// entries whose scope builds kernels (`build` and every algorithm's
/// option; `run` entries are left out), accumulated one entry at a time.
macro_rules! kernel_option_args {
    (@acc [$($field:tt)*] [$($set:ident)*]) => {
        /// The sort options that shape generated kernels (the machine, the
        /// key type and every algorithm's options): the flags of `simsort
        /// kernels` and `emit ptx --kernel`, declared by the table.
        #[derive(Debug, Clone, clap::Args)]
        pub struct KernelOptionArgs {
            $($field)*
        }

        impl KernelOptionArgs {
            /// The sort options these flags describe (every other option at
            /// its default).
            pub fn options(&self) -> SortOptions {
                let mut opts = SortOptions::default();
                $( opts.$set = self.$set.clone().into(); )*
                opts
            }
        }
    };
    (@acc [$($field:tt)*] [$($set:ident)*]
        run $name:ident [$($help:literal)+] $cli:ty [$($attr:tt)*]; $($rest:tt)*) => {
        kernel_option_args!(@acc [$($field)*] [$($set)*] $($rest)*);
    };
    (@acc [$($field:tt)*] [$($set:ident)*]
        $scope:tt $name:ident [$($help:literal)+] $cli:ty [$($attr:tt)*]; $($rest:tt)*) => {
        kernel_option_args!(@acc
            [$($field)* $(#[doc = $help])+ #[arg(long, $($attr)*)] pub $name: $cli,]
            [$($set)* $name]
            $($rest)*);
    };
}

/// The table's entries, in grid order (outermost sweep axis first; the
/// machine overrides follow the first entry, `gpu`). Each entry: help,
/// `name: Type = default`, the command-line type and `#[arg]` attributes,
/// the type of one element of the sweep's list,
/// the CSV rank (column order among the sort options), the summary column
/// header and the plot label, the scope (`run`: an option of every
/// experiment; `build`: one that also shapes kernels; `[Algo.field, ...]`:
/// an option of those algorithms alone, which the others refuse, written
/// into `field` of each one's options struct, converted with `Into` or
/// `with f` (`f(value, the field's default)`), and optionally `quiet` (see
/// [`quiet!`]).
macro_rules! sort_options {
    ($(
        $(#[doc = $help:literal])+
        $name:ident: $ty:ty = $default:expr,
            cli $cli:ty [$($attr:tt)*], list $lcli:ty,
            csv $csv:literal, column $column:literal, label $label:literal,
            for $scope:tt
            $(, $quiet:ident)?;
    )+) => {
        kernel_option_args!(@acc [] [] $( $scope $name [$($help)+] $cli [$($attr)*]; )+);

        /// Sets every field of `o`, the options struct of algorithm `A`,
        /// that a table entry's scope names for `A` (`for [Hotsort.layout]`)
        /// from that option's value in `opts`: the one mapping from the
        /// table to the algorithms' own options
        /// ([`super::sort::Selected::options`]).
        pub fn fill_algorithm_options<A: super::sort::Selected>(
            opts: &SortOptions,
            o: &mut A::Options,
        ) {
            $( fill_entry!(opts, o, $name, $scope); )+
        }

        /// The algorithms that take option `name`: `None` for a name that
        /// is not an algorithm's option (an option of every experiment, a
        /// machine field), else the entry's list, in [`Algo`] order.
        pub fn takers(name: &str) -> Option<Vec<Algo>> {
            use clap::ValueEnum;
            let listed: Option<&[Algo]> = match name {
                $( stringify!($name) => scope_takers!($scope), )+
                _ => None,
            };
            listed.map(|list| {
                Algo::value_variants()
                    .iter()
                    .filter(|a| list.contains(a))
                    .copied()
                    .collect()
            })
        }

        /// Every algorithm's option with the algorithms its entry lists,
        /// in table order (what the table's own tests check).
        pub fn algorithm_options() -> Vec<(&'static str, &'static [Algo])> {
            let mut out = Vec::new();
            $(
                if let Some(list) = scope_takers!($scope) {
                    out.push((stringify!($name), list));
                }
            )+
            out
        }

        /// Everything that defines one sort experiment (`cli.md`, sort options).
        #[derive(Clone, Debug, PartialEq)]
        pub struct SortOptions {
            $( $(#[doc = $help])+ pub $name: $ty, )+
            /// Machine config fields overridden by name (`--sms 8` is
            /// `num_sms = 8`).
            pub overrides: Vec<(String, String)>,
        }

        impl Default for SortOptions {
            fn default() -> SortOptions {
                SortOptions {
                    $( $name: $default, )+
                    overrides: Vec::new(),
                }
            }
        }

        impl Serialize for SortOptions {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(None)?;
                let d = SortOptions::default();
                $(
                    if !(quiet!($($quiet)?) && self.$name == d.$name) {
                        map.serialize_entry(stringify!($name), &self.$name.json())?;
                    }
                )+
                map.serialize_entry("overrides", &self.overrides)?;
                map.end()
            }
        }

        /// The sort options on the command line.
        #[derive(Debug, Clone, clap::Args)]
        pub struct SortOptionArgs {
            $( $(#[doc = $help])+ #[arg(long, $($attr)*)] pub $name: $cli, )+
        }

        impl SortOptionArgs {
            /// The experiment these flags describe, with machine `overrides`.
            pub fn options(&self, overrides: Vec<(String, String)>) -> SortOptions {
                SortOptions {
                    $( $name: self.$name.clone().into(), )+
                    overrides,
                }
            }
        }

        /// The sort options of `sweep`, each a comma list.
        #[derive(Debug, Clone, clap::Args)]
        pub struct SweepOptionArgs {
            $(
                $(#[doc = $help])+
                #[arg(long, value_delimiter = ',', $($attr)*)]
                pub $name: Vec<$lcli>,
            )+
        }

        impl SweepOptionArgs {
            /// The lists as a sweep specification, with machine
            /// `overrides` (each value a comma list).
            pub fn spec(&self, overrides: &[(String, String)]) -> SweepSpec {
                let d = SortOptions::default();
                SweepSpec {
                    $( $name: list(&self.$name, d.$name), )+
                    overrides: override_lists(overrides),
                }
            }
        }

        /// The lists of a sweep, one per sort option.
        #[derive(Clone, Debug, PartialEq)]
        pub struct SweepSpec {
            $( $(#[doc = $help])+ pub $name: Vec<$ty>, )+
            /// Machine config fields, each with its list of values (text form).
            pub overrides: Vec<(String, Vec<String>)>,
        }

        impl Default for SweepSpec {
            /// One configuration: the sort's defaults.
            fn default() -> SweepSpec {
                let d = SortOptions::default();
                SweepSpec {
                    $( $name: vec![d.$name], )+
                    overrides: Vec::new(),
                }
            }
        }

        impl SweepSpec {
            /// How many configurations [`SweepSpec::expand`] gives (the
            /// product of the deduplicated lists; saturates), found
            /// without building them.
            pub fn size(&self) -> u64 {
                let mut n: u64 = 1;
                $( n = n.saturating_mul(dedup(&self.$name).len() as u64); )+
                for (_, values) in &self.overrides {
                    n = n.saturating_mul(dedup(values).len() as u64);
                }
                n
            }

            /// Every configuration, in grid order (the last axis varies fastest).
            pub fn expand(&self) -> Vec<SortOptions> {
                let mut grid = vec![SortOptions::default()];
                let mut first = true;
                $(
                    grid = expand(grid, &self.$name, |o, v| o.$name = v.clone());
                    if std::mem::take(&mut first) {
                        for (field, values) in &self.overrides {
                            grid = expand(grid, values, |o, v| {
                                o.overrides.push((field.clone(), v.clone()));
                            });
                        }
                    }
                )+
                grid
            }

            /// Every axis with its (deduplicated) values, in grid order.
            pub fn axes(&self) -> Vec<Axis> {
                let mut axes = Vec::new();
                let d = SortOptions::default();
                $(
                    if !(quiet!($($quiet)?) && self.$name == [d.$name.clone()]) {
                        axes.push(axis(stringify!($name), &self.$name));
                    }
                    if axes.len() == 1 {
                        for (field, values) in &self.overrides {
                            axes.push(axis(field, values));
                        }
                    }
                )+
                axes
            }
        }

        /// The value of axis `name` in `opts`, as text (see [`SweepSpec::axes`]).
        pub fn axis_value(opts: &SortOptions, name: &str) -> String {
            match name {
                $( stringify!($name) => opts.$name.text(), )+
                field => opts
                    .overrides
                    .iter()
                    .rev()
                    .find(|(f, _)| f == field)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default(),
            }
        }

        /// Sets option `name` of `opts` back to its default (a name that is
        /// not an option, such as a machine field, is left alone).
        pub fn reset_option(opts: &mut SortOptions, name: &str) {
            let d = SortOptions::default();
            match name {
                $( stringify!($name) => opts.$name = d.$name, )+
                _ => {}
            }
        }

        /// The sort options' keys in the report's `config` object, in the
        /// order the CSV gives them (the machine fields follow).
        pub fn csv_keys() -> Vec<&'static str> {
            let mut keys = vec![$( ($csv, stringify!($name)), )+];
            keys.sort_unstable();
            keys.into_iter().map(|(_, k)| k).collect()
        }

        /// The options of `opts` whose value differs from the default, by
        /// name (what [`super::sort::foreign_options`] checks).
        pub fn changed(opts: &SortOptions) -> Vec<&'static str> {
            let d = SortOptions::default();
            let mut names = Vec::new();
            $( if opts.$name != d.$name { names.push(stringify!($name)); } )+
            names
        }

        /// The sweep summary's column header for axis `name`.
        pub fn column(name: &str) -> String {
            match name {
                $( stringify!($name) => $column.to_string(), )+
                other => other.replace('_', "-"),
            }
        }

        /// The plot's label for axis `name` (titles, groups).
        pub fn label(name: &str) -> String {
            match name {
                $( stringify!($name) => $label.to_string(), )+
                other => other.replace('_', " "),
            }
        }
    };
}

sort_options! {
    /// Machine: a preset (`simsort gpu list`) or a machine file.
    gpu: String = "h200".to_string(),
        cli String [default_value = "h200"], list String,
        csv 1, column "gpu", label "gpu", for build;
    /// Sorting algorithm.
    algo: Algo = Algo::Hotsort,
        cli Algo [value_enum, default_value = "hotsort"], list Algo,
        csv 0, column "algo", label "algo", for build;
    /// Number of keys: 0..=2147483648 (2^31), as far as the host's memory
    /// holds them (`--max-host-memory`).
    keys: u64 = 65536,
        cli u64 [default_value = "65536", value_parser = key_count], list u64,
        csv 7, column "keys", label "keys", for run;
    /// Key width in bits: 32 or 64.
    key_bits: u32 = 32,
        cli u32 [default_value = "32", value_parser = key_bits], list u32,
        csv 8, column "key-bits", label "key bits", for build;
    /// Input key distribution.
    dist: Distribution = Distribution::Uniform,
        cli Distribution [value_enum, default_value = "uniform"], list Distribution,
        csv 9, column "dist", label "dist", for run;
    /// Input generator seed.
    seed: u64 = 1,
        cli u64 [default_value = "1"], list u64,
        csv 10, column "seed", label "seed", for run;
    /// How lanes exchange keys in warp merges.
    merge: MergeExchange = MergeExchange::Shuffle,
        cli MergeArg [value_enum, default_value = "shuffle"], list MergeArg,
        csv 6, column "merge", label "merge", for [Hotsort.merge];
    /// Shared-memory layout (bank-conflict avoidance).
    smem_layout: Layout = Layout::Pad,
        cli LayoutArg [value_enum, default_value = "pad"], list LayoutArg,
        csv 5, column "layout", label "layout", for [Hotsort.layout];
    /// Lanes per warp: a power of two, 4..=64.
    warp: u32 = 32,
        cli u32 [default_value = "32"], list u32,
        csv 2, column "warp", label "warp", for build;
    /// Key registers per lane (the slab height), 1..=128; how tall a slab
    /// fits depends on the key width and the register file [default: 16,
    /// or the tallest power of two below it that fits the machine].
    slab_height: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 3, column "slab", label "slab height", for [Hotsort.slab_height];
    /// Slabs (warps) per block in the block sort [default: the largest that fits].
    block_slabs: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 4, column "block-slabs", label "block slabs", for [Hotsort.block_slabs];
    /// HotSort's merge schedule: `sized` cleans with blocks sized to the
    /// span left, as the shipped HotSort does; `full-block` always cleans
    /// with full blocks (the schedule the calibration data were measured
    /// with).
    schedule: Schedule = Schedule::Sized,
        cli ScheduleArg [value_enum, default_value = "sized"], list ScheduleArg,
        csv 12, column "schedule", label "schedule", for [Hotsort.schedule], quiet;
    /// Carry a 32-bit value with every key (`--values` or `--values true`).
    values: bool = false,
        cli bool [default_value = "false", num_args = 0..=1, default_missing_value = "true"],
        list bool,
        csv 11, column "values", label "values", for build, quiet;
    /// Threads per block (mergesort, bitonic, samplesort) [default: the algorithm's].
    block_threads: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 12, column "block-threads", label "block threads",
        for [Mergesort.block_threads, Bitonic.block_threads, Samplesort.block_threads], quiet;
    /// Keys per thread (mergesort [default: 11]; samplesort's find and
    /// scatter [default: per bucket, at least 450 blocks]).
    items_per_thread: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 13, column "items-per-thread", label "items per thread",
        for [Mergesort.items_per_thread, Samplesort.items_per_thread], quiet;
    /// Bitonic: keys per vector L, one thread acting as L comparators: 1, 2, 4, 8 or 16.
    vector: u32 = 4,
        cli u32 [default_value = "4"], list u32,
        csv 14, column "vector", label "vector", for [Bitonic.vector], quiet;
    /// Bitonic: patent CN102750131A's method (shared-memory stages inside a launch);
    /// false: the plain sort, one launch per step through global memory.
    bitonic_fused: bool = true,
        cli bool [default_value = "true", num_args = 0..=1, default_missing_value = "true"],
        list bool,
        csv 15, column "fused", label "fused", for [Bitonic.fused], quiet;
    /// Bitonic: the store-order swizzle of shared write-backs (the patent's
    /// claims 6 and 7); false measures the bank conflicts it avoids.
    bitonic_swizzle: bool = true,
        cli bool [default_value = "true", num_args = 0..=1, default_missing_value = "true"],
        list bool,
        csv 16, column "swizzle", label "swizzle", for [Bitonic.swizzle], quiet;
    /// GPUTeraSort: where phase 2 merges the runs: `host` (k-way, as the
    /// paper's CPU does) or `gpu` (merge path on the simulated GPU, then one
    /// reorder of the records).
    terasort_merge: TeraMerge = TeraMerge::Host,
        cli TeraMergeArg [value_enum, default_value = "host"], list TeraMergeArg,
        csv 17, column "merge-at", label "phase 2 merge",
        for [Terasort.gpu_merge with on_gpu], quiet;
    /// GPUTeraSort: how the key-pointer words are sorted: `fused` (the
    /// bitonic sort's kernels, small distances in shared memory) or `steps`
    /// (the paper's network literally, one launch per step).
    terasort_network: TeraNetwork = TeraNetwork::Fused,
        cli TeraNetworkArg [value_enum, default_value = "fused"], list TeraNetworkArg,
        csv 18, column "network", label "network", for [Terasort.steps with is_steps], quiet;
    /// GPUTeraSort: bytes per record, a positive multiple of 4 [default: 100].
    record_bytes: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 20, column "record-bytes", label "record bytes",
        for [Terasort.record_bytes with or_base], quiet;
    /// GPUTeraSort: key bytes at the start of each record, from the key
    /// width (4 or 8) to --record-bytes [default: 10].
    key_bytes: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 21, column "key-bytes", label "key bytes",
        for [Terasort.key_bytes with or_base], quiet;
    /// GPUTeraSort: records per phase-1 run, 1..=2^31 [default: every record
    /// in one run].
    run_records: Option<u64> = None,
        cli Option<u64> [], list u64,
        csv 22, column "run-records", label "run records",
        for [Terasort.run_records], quiet;
    /// GPUTeraSort: one thread per output element in each bitonic step (the
    /// paper's fragment program) instead of one per pair.
    per_output: bool = false,
        cli bool [default_value = "false", num_args = 0..=1, default_missing_value = "true"],
        list bool,
        csv 23, column "per-output", label "per output",
        for [Terasort.per_output], quiet;
    /// Sample sort: buckets per distribution level k, a power of two
    /// [default: 128, halved until the tree and counters fit shared memory].
    buckets: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 24, column "buckets", label "buckets", for [Samplesort.buckets], quiet;
    /// Sample sort: oversampling a, the sample holds a*k keys [default: 16].
    oversample: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 25, column "oversample", label "oversample", for [Samplesort.oversample], quiet;
    /// Sample sort: buckets of at most M keys go to the small sorter in one
    /// block's shared memory [default: 8192, or what one block holds].
    small_size: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 26, column "small-size", label "small size",
        for [Samplesort.small_size], quiet;
    /// Sample sort: counter copies per bucket C, a power of two (thread t
    /// counts into copy t mod C) [default: 4].
    counter_copies: Option<u32> = None,
        cli Option<u32> [], list u32,
        csv 27, column "copies", label "counter copies",
        for [Samplesort.counter_copies], quiet;
    /// Sample sort: how a distribution level launches `find_buckets`,
    /// the scan and `scatter`: `batched` (one chain for all the level's
    /// large buckets, as the authors' code does) or `per-bucket` (one chain
    /// per bucket: the launches the committed H200 data were recorded with).
    level_launches: LevelLaunches = LevelLaunches::Batched,
        cli LevelLaunchesArg [value_enum, default_value = "batched"], list LevelLaunchesArg,
        csv 28, column "level-launches", label "level launches", for [Samplesort.level_launches], quiet;
}

/// The most keys a sort addresses (2^31).
pub const MAX_KEYS: u64 = 1 << 31;

/// Parses `--keys`: digits only (no sign), 0..=2^31, checked here so that
/// a count no sort takes is named as such before any memory estimate.
pub fn key_count(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{s}` is not a whole number (digits only, no sign, unit or separator)"
        ));
    }
    match s.parse::<u64>() {
        Ok(n) if n <= MAX_KEYS => Ok(n),
        _ => Err(format!(
            "`{s}` is too large: a sort takes at most {MAX_KEYS} (2^31) keys"
        )),
    }
}

/// Parses `--key-bits`: 32 or 64.
pub fn key_bits(s: &str) -> Result<u32, String> {
    match s {
        "32" => Ok(32),
        "64" => Ok(64),
        _ => Err(format!("`{s}` is not a key width: use 32 or 64")),
    }
}

/// Shared-memory layout names for the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutArg {
    /// No conflict avoidance.
    Plain,
    /// One pad word per row of banks (the patent's COLUMN-PAD).
    Pad,
    /// XOR-hashed columns.
    Xor,
}

impl From<LayoutArg> for Layout {
    fn from(l: LayoutArg) -> Layout {
        match l {
            LayoutArg::Plain => Layout::Plain,
            LayoutArg::Pad => Layout::Pad,
            LayoutArg::Xor => Layout::Xor,
        }
    }
}

/// Warp-merge exchange names for the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MergeArg {
    /// Shuffle-xor between lanes.
    Shuffle,
    /// Through shared memory.
    Shared,
}

impl From<MergeArg> for MergeExchange {
    fn from(m: MergeArg) -> MergeExchange {
        match m {
            MergeArg::Shuffle => MergeExchange::Shuffle,
            MergeArg::Shared => MergeExchange::Shared,
        }
    }
}

/// Where GPUTeraSort's phase 2 merges the runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TeraMerge {
    /// On the host (the GPUTeraSort paper's CPU merge).
    Host,
    /// On the simulated GPU.
    Gpu,
}

impl TeraMerge {
    /// The name the command line and the reports use.
    pub const fn name(self) -> &'static str {
        match self {
            TeraMerge::Host => "host",
            TeraMerge::Gpu => "gpu",
        }
    }
}

/// `--terasort-merge` names for the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TeraMergeArg {
    /// The GPUTeraSort paper's k-way merge on the host.
    Host,
    /// Merge path on the simulated GPU.
    Gpu,
}

impl From<TeraMergeArg> for TeraMerge {
    fn from(m: TeraMergeArg) -> TeraMerge {
        match m {
            TeraMergeArg::Host => TeraMerge::Host,
            TeraMergeArg::Gpu => TeraMerge::Gpu,
        }
    }
}

/// How GPUTeraSort sorts its key-pointer words.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TeraNetwork {
    /// The bitonic sort's fused kernels.
    Fused,
    /// The GPUTeraSort paper's network, one launch per step.
    Steps,
}

impl TeraNetwork {
    /// The name the command line and the reports use.
    pub const fn name(self) -> &'static str {
        match self {
            TeraNetwork::Fused => "fused",
            TeraNetwork::Steps => "steps",
        }
    }
}

/// `--terasort-network` names for the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TeraNetworkArg {
    /// The bitonic sort's fused kernels (shared-memory tiles).
    Fused,
    /// The GPUTeraSort paper's network literally, one launch per step.
    Steps,
}

impl From<TeraNetworkArg> for TeraNetwork {
    fn from(m: TeraNetworkArg) -> TeraNetwork {
        match m {
            TeraNetworkArg::Fused => TeraNetwork::Fused,
            TeraNetworkArg::Steps => TeraNetwork::Steps,
        }
    }
}

/// Sample sort's level launch forms for the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LevelLaunchesArg {
    /// One chain of launches for all of a level's large buckets.
    Batched,
    /// One chain per large bucket (the recorded H200 launches).
    PerBucket,
}

impl From<LevelLaunchesArg> for LevelLaunches {
    fn from(l: LevelLaunchesArg) -> LevelLaunches {
        match l {
            LevelLaunchesArg::Batched => LevelLaunches::Batched,
            LevelLaunchesArg::PerBucket => LevelLaunches::PerBucket,
        }
    }
}

/// Merge schedule names for the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScheduleArg {
    /// Block cleans sized to the span left (the shipped HotSort).
    Sized,
    /// Full-block cleans (the measured calibration schedule).
    FullBlock,
}

impl From<ScheduleArg> for Schedule {
    fn from(s: ScheduleArg) -> Schedule {
        match s {
            ScheduleArg::Sized => Schedule::Sized,
            ScheduleArg::FullBlock => Schedule::FullBlock,
        }
    }
}
