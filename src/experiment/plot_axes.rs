//! How a sweep's axes become a plot's: which swept axis runs across (x),
//! which gives the series and which the small multiples, what each is
//! called (with its unit) and how its values read.

use super::options::{Axis, column, label, takers};
use super::sort::Algo;

/// The roles the swept axes play in a plot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roles {
    /// Across.
    pub x: String,
    /// One series per value.
    pub series: Option<String>,
    /// One panel per combination of values.
    pub facets: Vec<String>,
}

/// The plot options of `sweep` (`--plot-x`, `--plot-series`,
/// `--plot-facet`, `--plot-metric`, `--plot-relative`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlotChoice {
    /// The axis across.
    pub x: Option<String>,
    /// The axis of the series.
    pub series: Option<String>,
    /// The axes of the panels.
    pub facets: Option<Vec<String>>,
    /// The y quantity, by its report name (default: cycles/key).
    pub metric: Option<String>,
    /// `AXIS=VALUE`: plot each configuration against the one with VALUE.
    pub relative: Option<String>,
}

/// The axis `given` names among `axes`: by its flag (`smem-layout`), its
/// config name (`smem_layout`) or its column (`layout`).
pub fn find_axis<'a>(axes: &'a [Axis], given: &str) -> Option<&'a Axis> {
    let g = given.trim().trim_start_matches("--").replace('-', "_");
    axes.iter()
        .find(|a| a.name == g)
        .or_else(|| axes.iter().find(|a| column(&a.name).replace('-', "_") == g))
}

/// Whether every value of `axis` is a number (`default` aside).
pub fn numeric(axis: &Axis) -> bool {
    axis.values
        .iter()
        .filter(|v| *v != "default")
        .all(|v| v.parse::<f64>().is_ok())
}

/// The roles of the swept axes: the user's where given, else the axis
/// with most values across (numbers before categories on a tie), the next
/// (categories first: plain against pad reads best as lines side by side)
/// as series, the rest as panels. `Err` names a flag that is wrong.
pub fn roles(axes: &[Axis], choice: &PlotChoice) -> Result<Roles, String> {
    let swept: Vec<&Axis> = axes.iter().filter(|a| a.values.len() > 1).collect();
    let names: Vec<String> = swept.iter().map(|a| a.name.replace('_', "-")).collect();
    let pick = |flag: &str, given: &str| -> Result<String, String> {
        match find_axis(axes, given) {
            Some(a) if a.values.len() > 1 => Ok(a.name.clone()),
            _ => Err(format!(
                "{flag} {given}: not an axis the sweep varies (varied: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )),
        }
    };
    let mut taken: Vec<String> = Vec::new();
    let x = match &choice.x {
        Some(g) => pick("--plot-x", g)?,
        None => {
            let Some(best) = swept
                .iter()
                .enumerate()
                .max_by_key(|(i, a)| (a.values.len(), numeric(a), *i))
            else {
                // Nothing varies: one point, across the keys.
                return Ok(Roles {
                    x: "keys".into(),
                    series: None,
                    facets: Vec::new(),
                });
            };
            best.1.name.clone()
        }
    };
    taken.push(x.clone());
    let facets_given: Vec<String> = match &choice.facets {
        Some(list) => list
            .iter()
            .map(|g| pick("--plot-facet", g))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let series = match &choice.series {
        Some(g) => Some(pick("--plot-series", g)?),
        None => swept
            .iter()
            .enumerate()
            .filter(|(_, a)| !taken.contains(&a.name) && !facets_given.contains(&a.name))
            .max_by_key(|(i, a)| (a.values.len(), !numeric(a), std::cmp::Reverse(*i)))
            .map(|(_, a)| a.name.clone()),
    };
    if let Some(s) = &series {
        if taken.contains(s) {
            return Err(format!(
                "--plot-series {}: already the x axis",
                s.replace('_', "-")
            ));
        }
        taken.push(s.clone());
    }
    let mut facets = Vec::new();
    for f in facets_given {
        if taken.contains(&f) {
            return Err(format!(
                "--plot-facet {}: already the x axis or the series",
                f.replace('_', "-")
            ));
        }
        taken.push(f.clone());
        facets.push(f);
    }
    // Every other swept axis gets panels too: points never pile up.
    for a in &swept {
        if !taken.contains(&a.name) {
            facets.push(a.name.clone());
        }
    }
    Ok(Roles { x, series, facets })
}

/// An axis's name on a plot, with its unit.
pub fn axis_title(name: &str) -> String {
    match name {
        "warp" => "warp width (lanes)".into(),
        "slab_height" => "slab height (keys per lane)".into(),
        "block_slabs" => "block slabs (warps per block)".into(),
        "keys" => "keys".into(),
        "key_bits" => "key width (bits)".into(),
        "vector" => "vector width L (keys per thread)".into(),
        "block_threads" => "block size (threads)".into(),
        "items_per_thread" => "items per thread (keys)".into(),
        "record_bytes" => "record size (bytes)".into(),
        "key_bytes" => "key size (bytes)".into(),
        "run_records" => "records per run".into(),
        "buckets" => "buckets per level k".into(),
        "oversample" => "oversampling a (samples per bucket)".into(),
        "small_size" => "small-bucket size M (keys)".into(),
        "counter_copies" => "counter copies C".into(),
        "smem_layout" => "shared-memory layout".into(),
        "merge" => "warp-merge exchange".into(),
        "dist" => "key distribution".into(),
        "bitonic_fused" => "bitonic kernels".into(),
        "bitonic_swizzle" => "store swizzle".into(),
        "algo" => "algorithm".into(),
        "gpu" => "machine".into(),
        "num_sms" => "SMs".into(),
        field => match with_unit(field) {
            Some((stem, unit)) => format!("{stem} ({unit})"),
            None => label(field),
        },
    }
}

/// A field whose name ends in its unit (`dram_latency_cycles`), as its
/// words and the unit: `("DRAM latency", "cycles")`.
fn with_unit(field: &str) -> Option<(String, &'static str)> {
    let words = field.replace('_', " ");
    [
        (" cycles", "cycles"),
        (" mhz", "MHz"),
        (" bytes", "bytes"),
        (" kib", "KiB"),
        (" sectors", "sectors"),
    ]
    .into_iter()
    .find_map(|(suffix, unit)| {
        words
            .strip_suffix(suffix)
            .map(|stem| (stem.replace("dram", "DRAM"), unit))
    })
}

/// How a value of axis `name` reads in a legend or panel title: booleans
/// by what they mean (`fused`/`plain`), categories alone (`pad`), numbers
/// with their axis (`warp 32`).
pub fn value_name(name: &str, value: &str) -> String {
    let flag = |yes: &str, no: &str| {
        if value == "true" {
            yes.to_string()
        } else {
            no.to_string()
        }
    };
    match (name, value) {
        ("bitonic_fused", "true" | "false") => flag("fused", "plain"),
        ("bitonic_swizzle", "true" | "false") => flag("swizzled", "not swizzled"),
        ("values", "true" | "false") => flag("keys and values", "keys only"),
        ("per_output", "true" | "false") => flag("per output", "per pair"),
        (_, "true" | "false") => format!("{} {value}", label(name)),
        ("smem_layout", v) => format!("layout {v}"),
        ("merge", v) => format!("merge {v}"),
        ("dist", v) => v.to_string(),
        ("algo", v) => algo_title(v),
        ("gpu", v) => v.to_string(),
        // A machine field reads with its unit: `DRAM latency 320 cycles`.
        (n, v) => match with_unit(n) {
            Some((stem, unit)) => format!("{stem} {v} {unit}"),
            None => format!("{} {v}", label(n)),
        },
    }
}

/// How a value of a categorical x axis reads under its tick.
pub fn category_name(name: &str, value: &str) -> String {
    match (name, value) {
        ("smem_layout" | "merge", v) => v.to_string(),
        _ => value_name(name, value),
    }
}

/// An algorithm by its usual name.
pub fn algo_title(name: &str) -> String {
    match name {
        "hotsort" => "HotSort".into(),
        "mergesort" => "mergesort".into(),
        "bitonic" => "bitonic sort".into(),
        "samplesort" => "sample sort".into(),
        "terasort" => "GPUTeraSort".into(),
        other => other.into(),
    }
}

/// Whether option `name` means anything to the algorithms `algos` (the
/// title leaves out options of other algorithms).
pub fn relevant(name: &str, algos: &[Algo]) -> bool {
    match takers(name) {
        None => true,
        Some(list) => algos.iter().any(|a| list.contains(a)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(name: &str, values: &[&str]) -> Axis {
        Axis {
            name: name.into(),
            values: values.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn the_axis_with_most_values_goes_across_and_categories_make_series() {
        let axes = [
            axis("algo", &["bitonic"]),
            axis("vector", &["1", "2", "4", "8"]),
            axis("bitonic_fused", &["false", "true"]),
        ];
        let r = roles(&axes, &PlotChoice::default()).unwrap();
        assert_eq!(r.x, "vector");
        assert_eq!(r.series.as_deref(), Some("bitonic_fused"));
        assert!(r.facets.is_empty());
        // Three of each: numbers across, the layout as series, warps as panels.
        let axes = [
            axis("smem_layout", &["plain", "pad", "xor"]),
            axis("warp", &["8", "16", "32"]),
            axis("slab_height", &["4", "8", "16"]),
        ];
        let r = roles(&axes, &PlotChoice::default()).unwrap();
        assert_eq!(r.x, "slab_height");
        assert_eq!(r.series.as_deref(), Some("smem_layout"));
        assert_eq!(r.facets, ["warp"]);
    }

    #[test]
    fn the_user_chooses_by_flag_config_or_column_name() {
        let axes = [
            axis("smem_layout", &["plain", "pad"]),
            axis("warp", &["8", "16", "32"]),
            axis("dram_latency_cycles", &["200", "400"]),
        ];
        let choice = PlotChoice {
            x: Some("dram-latency-cycles".into()),
            series: Some("layout".into()),
            ..PlotChoice::default()
        };
        let r = roles(&axes, &choice).unwrap();
        assert_eq!(r.x, "dram_latency_cycles");
        assert_eq!(r.series.as_deref(), Some("smem_layout"));
        assert_eq!(r.facets, ["warp"]);
        let bad = PlotChoice {
            x: Some("seed".into()),
            ..PlotChoice::default()
        };
        assert_eq!(
            roles(&axes, &bad).unwrap_err(),
            "--plot-x seed: not an axis the sweep varies (varied: smem-layout, warp, \
             dram-latency-cycles)"
        );
    }

    #[test]
    fn names_carry_units_and_booleans_read_as_what_they_mean() {
        assert_eq!(axis_title("dram_latency_cycles"), "DRAM latency (cycles)");
        assert_eq!(axis_title("vector"), "vector width L (keys per thread)");
        assert_eq!(value_name("bitonic_fused", "false"), "plain");
        assert_eq!(value_name("warp", "32"), "warp 32");
        assert_eq!(
            value_name("dram_latency_cycles", "320"),
            "DRAM latency 320 cycles"
        );
        assert_eq!(value_name("clock_mhz", "1980"), "clock 1980 MHz");
    }
}
