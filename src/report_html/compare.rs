//! The report of a comparison (`simsort compare --report FILE.html`): the
//! text report's rows (per algorithm, per group of the other lists), cycles
//! and simulated time per key against the number of keys (one line per
//! algorithm), where each run's warp-cycles went, and every run's
//! per-kernel tables.

use serde_json::Value;

use super::chart::{Chart, Point, Series, XyChart};
use super::kernels;
use super::page::{Block, Cell, Page, Provenance, Table};
use super::sweep::{describe, fixed, flag, placeholder_row};
use crate::experiment::compare::{Row, group_axes};
use crate::experiment::report::group;
use crate::experiment::sweep::{Axis, RunResult, SweepRun, axis_value};

/// A number of a row's JSON with `digits` decimals.
fn figure(row: &Value, key: &str, digits: usize) -> String {
    row[key]
        .as_f64()
        .map_or("-".to_string(), |v| format!("{v:.digits$}"))
}

/// The rows' table: the group's lists, the algorithm, then per-key figures.
fn table(by: &[&Axis], runs: &[SweepRun]) -> Table {
    let mut header: Vec<String> = by.iter().map(|a| flag(&a.name)).collect();
    header.extend(
        [
            "algo",
            "launches",
            "cycles",
            "time us",
            "cycles/key",
            "inst/key",
            "wavefronts/key",
            "conflicts/key",
            "sectors/key",
            "DRAM bytes/key",
            "top stalls",
        ]
        .map(String::from),
    );
    let rows = runs
        .iter()
        .map(|r| {
            let mut cells: Vec<Cell> = by
                .iter()
                .map(|a| Cell::text(axis_value(&r.opts, &a.name)))
                .collect();
            cells.push(Cell::text(r.opts.algo.name()));
            match &r.result {
                RunResult::Done(report) => {
                    let row = Row::of(report).json();
                    cells.extend([
                        Cell::num(group(row["launches"].as_u64().unwrap_or(0))),
                        Cell::num(group(row["cycles"].as_u64().unwrap_or(0))),
                        Cell::num(figure(&row, "microseconds", 1)),
                        Cell::num(figure(&row, "cycles_per_key", 2)),
                        Cell::num(figure(&row, "warp_instructions_per_key", 3)),
                        Cell::num(figure(&row, "shared_wavefronts_per_key", 3)),
                        Cell::num(figure(&row, "bank_conflicts_per_key", 3)),
                        Cell::num(figure(&row, "global_sectors_per_key", 3)),
                        Cell::num(figure(&row, "dram_bytes_per_key", 2)),
                        Cell::text(kernels::top_stalls(&kernels::total(report))),
                    ]);
                }
                unfinished => cells.extend(placeholder_row(unfinished, 10)),
            }
            cells
        })
        .collect();
    Table {
        caption: "one row per run (per key: warp instructions, shared wavefronts, bank \
                  conflicts beyond the minimum, global sectors at L1, DRAM bytes)"
            .into(),
        header,
        rows,
    }
}

/// `metric` of each finished run (from its row's JSON) against the keys,
/// one series per algorithm and group of the other lists.
fn chart(title: &str, y_label: &str, metric: &str, by: &[&Axis], runs: &[SweepRun]) -> Chart {
    let keys: Vec<u64> = {
        let mut k: Vec<u64> = runs.iter().map(|r| r.opts.keys).collect();
        k.sort_unstable();
        k.dedup();
        k
    };
    let others: Vec<&Axis> = by.iter().copied().filter(|a| a.name != "keys").collect();
    let mut series: Vec<Series> = Vec::new();
    for r in runs {
        let RunResult::Done(report) = &r.result else {
            continue;
        };
        let row = Row::of(report).json();
        let Some(y) = row[metric].as_f64() else {
            continue;
        };
        let config = describe(&r.opts, by);
        let name = format!("{} {}", r.opts.algo.name(), describe(&r.opts, &others))
            .trim_end()
            .to_string();
        let point = Point {
            x: keys.iter().position(|k| *k == r.opts.keys).unwrap_or(0) as f64,
            y,
            tip: format!(
                "{config}\n{}",
                kernels::counters(&kernels::total(report), report.keys)
            )
            .trim_start()
            .to_string(),
        };
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                name,
                points: vec![point],
            }),
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    Chart::Xy(XyChart {
        title: title.to_string(),
        x_label: "keys".into(),
        y_label: y_label.to_string(),
        x_categories: keys.iter().map(|k| group(*k)).collect(),
        y_log: true,
        lines: true,
        series,
        ..XyChart::default()
    })
}

/// The page of a comparison over `axes`.
pub fn page(axes: &[Axis], runs: &[SweepRun], provenance: Provenance) -> Page {
    let names = group_axes(axes);
    let by: Vec<&Axis> = axes.iter().filter(|a| names.contains(&a.name)).collect();
    let algos: Vec<&str> = {
        let mut a: Vec<&str> = Vec::new();
        for r in runs {
            if !a.contains(&r.opts.algo.name()) {
                a.push(r.opts.algo.name());
            }
        }
        a
    };
    let title = format!("simsort compare: {}", algos.join(", "));
    let mut blocks = vec![
        Block::Heading("What was compared".into()),
        Block::Text(format!(
            "Every algorithm on the same input and machine. Held fixed: {}.",
            fixed(axes)
        )),
        Block::Heading("Runs".into()),
        Block::Table(table(&by, runs)),
    ];
    if runs.iter().any(|r| matches!(r.result, RunResult::Done(_))) {
        blocks.push(Block::Heading(
            "Charts (hover a point for its counters)".into(),
        ));
        blocks.push(Block::Chart(chart(
            "Simulated cycles per key against the number of keys (log y)",
            "cycles per key",
            "cycles_per_key",
            &by,
            runs,
        )));
        blocks.push(Block::Chart(chart(
            "Simulated time against the number of keys, at the machine's clock (log y)",
            "time (microseconds)",
            "microseconds",
            &by,
            runs,
        )));
        let bars = runs
            .iter()
            .filter_map(|r| match &r.result {
                RunResult::Done(report) => {
                    let s = kernels::total(report);
                    let label = format!("{} {}", r.opts.algo.name(), describe(&r.opts, &by))
                        .trim_end()
                        .to_string();
                    let tip = kernels::counters(&s, report.keys);
                    Some(kernels::stall_bar(label, &s, tip))
                }
                _ => None,
            })
            .collect();
        blocks.push(Block::Chart(kernels::stall_chart(
            "Where warp-cycles go, per run (all kernels)".into(),
            bars,
        )));
    }
    blocks.push(Block::Heading("Per kernel, per run".into()));
    for r in runs {
        if let RunResult::Done(report) = &r.result {
            let summary = format!(
                "{} {}: {} cycles",
                r.opts.algo.name(),
                describe(&r.opts, &by),
                group(report.total.cycles)
            );
            blocks.push(Block::Details(summary, kernels::tables(report)));
        }
    }
    Page {
        title,
        provenance,
        blocks,
    }
}
