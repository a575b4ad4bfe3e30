//! A sweep's results as CSV (one row per configuration and kernel, plus a
//! `total` row per configuration), as JSON (every report, every skipped and
//! failed configuration) and as a summary table for the terminal. Column
//! and key names are the JSON report's (`docs/report.md`).

use std::fmt::Write as _;

use serde_json::{Map, Value, json};
use sim::GpuConfig;

use super::options::{column, csv_keys};
use super::report::{Report, group};
use super::sweep::{Axis, RunResult, SweepRun, axis_value};

/// Config keys left out of the CSV: the overrides are already in the
/// machine fields they set.
const SKIPPED_KEYS: &[&str] = &["overrides"];

/// The reports of the runs that finished, in grid order.
pub fn reports(runs: &[SweepRun]) -> impl Iterator<Item = &Report> {
    runs.iter().filter_map(|r| match &r.result {
        RunResult::Done(report) => Some(report.as_ref()),
        _ => None,
    })
}

/// A value as one CSV cell: numbers in Rust's shortest round-trip form,
/// `null` empty, arrays joined with `x` (grid and block shapes).
fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(cell).collect::<Vec<_>>().join("x"),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.to_string(),
            (None, Some(i), _) => i.to_string(),
            (None, None, Some(f)) => f.to_string(),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// Quotes a CSV field when it holds a comma, a quote or a line break
/// (RFC 4180).
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// The config columns: sort options, machine fields, then anything else
/// the config holds, sorted.
fn config_columns(config: &Map<String, Value>) -> Vec<String> {
    let mut cols: Vec<String> = csv_keys().iter().map(ToString::to_string).collect();
    cols.extend(GpuConfig::field_names().iter().map(ToString::to_string));
    cols.retain(|c| config.contains_key(c));
    for key in config.keys() {
        if !cols.contains(key) && !SKIPPED_KEYS.contains(&key.as_str()) {
            cols.push(key.clone());
        }
    }
    cols
}

/// One kernel's (or the total's) cells by column name.
fn row_cells(
    name: &str,
    launches: u64,
    extra: &Value,
    cycles: u64,
    metrics: &Value,
    stalls: &Value,
) -> Vec<(String, String)> {
    let mut cells = vec![
        ("name".to_string(), name.to_string()),
        ("launches".to_string(), launches.to_string()),
        ("grid".to_string(), cell(&extra["grid"])),
        ("block".to_string(), cell(&extra["block"])),
        ("cycles".to_string(), cycles.to_string()),
    ];
    if let Value::Object(m) = metrics {
        cells.extend(m.iter().map(|(k, v)| (k.clone(), cell(v))));
    }
    if let Value::Object(s) = stalls {
        cells.extend(s.iter().map(|(k, v)| (format!("stalls.{k}"), cell(v))));
    }
    cells
}

/// The CSV of finished runs: a header, then for every run one row per
/// kernel and a `total` row. Empty (header only when there is no run).
pub fn to_csv(runs: &[SweepRun]) -> String {
    let reports: Vec<Value> = reports(runs)
        .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
        .collect();
    csv_of(&reports)
}

/// [`to_csv`] from the reports' JSON objects (as `--json` prints them), so
/// that `sweep merge` rebuilds the CSV from the shards' JSON files.
pub fn csv_of(reports: &[Value]) -> String {
    let mut header: Vec<String> = Vec::new();
    let mut rows: Vec<Vec<(String, String)>> = Vec::new();
    let empty = Map::new();
    for report in reports {
        let config_map = report["config"].as_object().unwrap_or(&empty);
        let config: Vec<(String, String)> = config_columns(config_map)
            .into_iter()
            .map(|c| {
                let v = cell(&config_map[&c]);
                (c, v)
            })
            .collect();
        let kernels = report["kernels"].as_array().map_or(&[][..], Vec::as_slice);
        let count = |v: &Value| v.as_u64().unwrap_or(0);
        let mut per_kernel = Vec::new();
        for k in kernels {
            per_kernel.push(row_cells(
                k["name"].as_str().unwrap_or_default(),
                count(&k["launches"]),
                k,
                count(&k["cycles"]),
                &k["metrics"],
                &k["stalls"],
            ));
        }
        let launches = kernels.iter().map(|k| count(&k["launches"])).sum();
        let total = &report["total"];
        per_kernel.push(row_cells(
            "total",
            launches,
            &Value::Null,
            count(&total["cycles"]),
            &total["metrics"],
            &total["stalls"],
        ));
        let sorted = report["sorted"].as_bool().unwrap_or(false);
        for cells in per_kernel {
            let mut row = config.clone();
            row.push(("sorted".to_string(), sorted.to_string()));
            row.extend(cells);
            for (col, _) in &row {
                if !header.contains(col) {
                    header.push(col.clone());
                }
            }
            rows.push(row);
        }
    }
    let mut out = String::new();
    let line = |fields: Vec<String>| {
        fields
            .iter()
            .map(|f| quote(f))
            .collect::<Vec<_>>()
            .join(",")
    };
    let _ = writeln!(out, "{}", line(header.clone()));
    for row in rows {
        let fields = header
            .iter()
            .map(|h| {
                row.iter()
                    .find(|(c, _)| c == h)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            })
            .collect();
        let _ = writeln!(out, "{}", line(fields));
    }
    out
}

/// A sweep's results as its JSON file holds them: the reports of the
/// finished configurations, the skipped and the failed ones, each list in
/// grid order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// The report of every finished configuration.
    pub runs: Vec<Value>,
    /// `{options, problems}` of every configuration that does not fit.
    pub skipped: Vec<Value>,
    /// `{options, error}` of every configuration that failed.
    pub failed: Vec<Value>,
}

impl Results {
    /// The results of `runs`.
    pub fn of(runs: &[SweepRun]) -> Results {
        let mut out = Results::default();
        for r in runs {
            let options = serde_json::to_value(&r.opts).unwrap_or(Value::Null);
            match &r.result {
                RunResult::Done(report) => out
                    .runs
                    .push(serde_json::to_value(report).unwrap_or_default()),
                RunResult::Skipped(problems) => out
                    .skipped
                    .push(json!({ "options": options, "problems": problems })),
                RunResult::Failed(error) => out
                    .failed
                    .push(json!({ "options": options, "error": error })),
            }
        }
        out
    }

    /// The JSON file: `axes` (every list), `runs`, `skipped`, `failed`,
    /// and `shard` when the results are one shard's (see `super::shard`).
    pub fn to_json(&self, axes: &Map<String, Value>, shard: Option<Value>) -> String {
        let mut value = json!({
            "axes": axes,
            "runs": self.runs,
            "skipped": self.skipped,
            "failed": self.failed,
        });
        if let (Some(shard), Value::Object(map)) = (shard, &mut value) {
            map.insert("shard".to_string(), shard);
        }
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }
}

/// The axes as the JSON file's `axes` object.
pub fn axes_json(axes: &[Axis]) -> Map<String, Value> {
    axes.iter()
        .map(|a| (a.name.clone(), json!(a.values)))
        .collect()
}

/// The sweep as one JSON object: `axes` (every list), `runs` (the report of
/// every finished configuration, in grid order), `skipped` and `failed`.
pub fn to_json(axes: &[Axis], runs: &[SweepRun]) -> String {
    Results::of(runs).to_json(&axes_json(axes), None)
}

/// Cycles per key and bank conflicts (loads plus stores) per key of a
/// report's total; `None` without keys.
pub fn per_key(report: &Report) -> Option<(f64, f64)> {
    if report.keys == 0 {
        return None;
    }
    let m = &report.total.metrics;
    let conflicts = m
        .get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
        .copied()
        .unwrap_or(0.0)
        + m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
            .copied()
            .unwrap_or(0.0);
    let keys = report.keys as f64;
    Some((report.total.cycles as f64 / keys, conflicts / keys))
}

/// A table for the terminal: one line per configuration, with a column
/// for each axis that has more than one value (and always warp, and slab
/// height and layout when HotSort is swept), then total cycles, cycles per
/// key and conflicts per key.
pub fn summary(axes: &[Axis], runs: &[SweepRun]) -> String {
    let hotsort = axes
        .iter()
        .find(|a| a.name == "algo")
        .is_none_or(|a| a.values.iter().any(|v| v == "hotsort"));
    let always: &[&str] = if hotsort {
        &["smem_layout", "warp", "slab_height"]
    } else {
        &["warp"]
    };
    let shown: Vec<&Axis> = axes
        .iter()
        .filter(|a| a.values.len() > 1 || always.contains(&a.name.as_str()))
        .collect();
    let title = column;
    let widths: Vec<usize> = shown
        .iter()
        .map(|a| {
            let longest = a.values.iter().map(String::len).max().unwrap_or(0);
            longest.max(title(&a.name).len())
        })
        .collect();
    let mut out = String::new();
    for (a, w) in shown.iter().zip(&widths) {
        let _ = write!(out, "{:<w$} ", title(&a.name));
    }
    let _ = writeln!(out, "{:>13} {:>9} {:>10}", "cycles", "cyc/key", "confl/key");
    for r in runs {
        for (a, w) in shown.iter().zip(&widths) {
            let _ = write!(out, "{:<w$} ", axis_value(&r.opts, &a.name));
        }
        match &r.result {
            RunResult::Done(report) => {
                let (cpk, bpk) = per_key(report).map_or(("-".into(), "-".into()), |(c, b)| {
                    (format!("{c:.2}"), format!("{b:.3}"))
                });
                let _ = writeln!(out, "{:>13} {cpk:>9} {bpk:>10}", group(report.total.cycles));
            }
            RunResult::Skipped(_) => {
                let _ = writeln!(out, "skipped: does not fit the machine");
            }
            RunResult::Failed(_) => {
                let _ = writeln!(out, "FAILED");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(quote("bs"), "bs");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn cells_print_numbers_shapes_and_nulls_plainly() {
        assert_eq!(cell(&json!(466176.0)), "466176");
        assert_eq!(cell(&json!(1.25)), "1.25");
        assert_eq!(cell(&json!(7)), "7");
        assert_eq!(cell(&json!([64, 1, 1])), "64x1x1");
        assert_eq!(cell(&Value::Null), "");
        assert_eq!(cell(&json!("pad")), "pad");
    }

    #[test]
    fn config_columns_put_the_sort_options_first() {
        let mut config = Map::new();
        for k in ["zeta", "num_sms", "warp", "overrides", "keys", "warp_size"] {
            config.insert(k.to_string(), json!(1));
        }
        assert_eq!(
            config_columns(&config),
            ["warp", "keys", "num_sms", "warp_size", "zeta"]
        );
    }
}
