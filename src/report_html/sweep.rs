//! The report of a sweep (`simsort sweep --report FILE.html`): what was
//! held fixed and what varied, one row per configuration, cycles and bank
//! conflicts per key against the list with most values (one line per
//! combination of the other lists), where each configuration's warp-cycles
//! went, in all and per kernel, and every configuration's per-kernel
//! tables.

use super::chart::{Chart, Point, Series, XyChart};
use super::kernels;
use super::page::{Block, Cell, Page, Provenance, Table};
use crate::experiment::SortOptions;
use crate::experiment::report::{Report, group};
use crate::experiment::sweep::{Axis, RunResult, SweepRun, axis_value};
use crate::experiment::sweep_out::per_key;

/// An axis's name as its flag spells it (`slab-height`).
pub fn flag(name: &str) -> String {
    name.replace('_', "-")
}

/// `opts` by the values of `axes`: `warp=32 slab-height=8`.
pub fn describe(opts: &SortOptions, axes: &[&Axis]) -> String {
    axes.iter()
        .map(|a| format!("{}={}", flag(&a.name), axis_value(opts, &a.name)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the sweep held fixed, as `gpu h200, keys 65536, ...`.
pub fn fixed(axes: &[Axis]) -> String {
    axes.iter()
        .filter(|a| a.values.len() == 1)
        .map(|a| format!("{} {}", flag(&a.name), a.values[0]))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The cells of a run that did not finish, across `columns` cells: why
/// (skipped, with the problems, or FAILED, with the error) in the first,
/// the rest blank, so the table keeps its shape.
pub fn placeholder_row(result: &RunResult, columns: usize) -> Vec<Cell> {
    let message = match result {
        RunResult::Done(_) => String::new(),
        RunResult::Skipped(problems) => format!("skipped: {}", problems.join("; ")),
        RunResult::Failed(error) => format!("FAILED: {error}"),
    };
    std::iter::once(Cell::text(message))
        .chain((1..columns).map(|_| Cell::text("")))
        .collect()
}

/// The lines a hover tells about a finished configuration.
fn tip(opts: &SortOptions, varying: &[&Axis], report: &Report) -> String {
    let config = describe(opts, varying);
    let counters = kernels::counters(&kernels::total(report), report.keys);
    if config.is_empty() {
        counters
    } else {
        format!("{config}\n{counters}")
    }
}

/// The x positions of the charts: `axis`'s values in list order (any value
/// a run has beyond them last).
fn positions(axis: &Axis, runs: &[SweepRun]) -> Vec<String> {
    let mut out = axis.values.clone();
    for r in runs {
        let v = axis_value(&r.opts, &axis.name);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// One chart of `metric` (per finished run, or `None`) against `x`, one
/// series per combination of the `series` axes' values.
#[allow(clippy::too_many_arguments)]
fn metric_chart(
    title: String,
    y_label: &str,
    y_zero: bool,
    x: &Axis,
    series: &[&Axis],
    varying: &[&Axis],
    runs: &[SweepRun],
    metric: &dyn Fn(&Report) -> Option<f64>,
) -> Chart {
    let xs = positions(x, runs);
    let mut out: Vec<Series> = Vec::new();
    for r in runs {
        let RunResult::Done(report) = &r.result else {
            continue;
        };
        let Some(y) = metric(report) else {
            continue;
        };
        let name = describe(&r.opts, series);
        let value = axis_value(&r.opts, &x.name);
        let point = Point {
            x: xs.iter().position(|v| *v == value).unwrap_or(0) as f64,
            y,
            tip: tip(&r.opts, varying, report),
        };
        match out.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(point),
            None => out.push(Series {
                name,
                points: vec![point],
            }),
        }
    }
    for s in &mut out {
        if s.name.is_empty() {
            s.name = y_label.to_string();
        }
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    Chart::Xy(XyChart {
        title,
        x_label: flag(&x.name),
        y_label: y_label.to_string(),
        x_categories: xs,
        y_zero,
        lines: true,
        series: out,
        ..XyChart::default()
    })
}

/// The configurations' table: the varying lists, then the totals.
fn table(varying: &[&Axis], runs: &[SweepRun]) -> Table {
    let mut header: Vec<String> = varying.iter().map(|a| flag(&a.name)).collect();
    header.extend(
        [
            "cycles",
            "cycles/key",
            "warp inst/key",
            "wavefronts/key",
            "conflicts/key",
            "gld sectors/req",
            "gst sectors/req",
            "top stalls",
        ]
        .map(String::from),
    );
    let rows = runs
        .iter()
        .map(|r| {
            let mut cells: Vec<Cell> = varying
                .iter()
                .map(|a| Cell::text(axis_value(&r.opts, &a.name)))
                .collect();
            match &r.result {
                RunResult::Done(report) => {
                    let s = kernels::total(report);
                    let per = |n: u64| {
                        if report.keys == 0 {
                            "-".to_string()
                        } else {
                            format!("{:.3}", n as f64 / report.keys as f64)
                        }
                    };
                    let ratio = |a: u64, b: u64| {
                        if b == 0 {
                            "-".to_string()
                        } else {
                            format!("{:.2}", a as f64 / b as f64)
                        }
                    };
                    cells.extend([
                        Cell::num(group(report.total.cycles)),
                        Cell::num(per(report.total.cycles)),
                        Cell::num(per(s.inst_executed)),
                        Cell::num(per(s.smem_ld_wavefronts + s.smem_st_wavefronts)),
                        Cell::num(per(s.smem_ld_bank_conflicts + s.smem_st_bank_conflicts)),
                        Cell::num(ratio(s.gmem_ld_sectors, s.gmem_ld_requests)),
                        Cell::num(ratio(s.gmem_st_sectors, s.gmem_st_requests)),
                        Cell::text(kernels::top_stalls(&s)),
                    ]);
                }
                unfinished => cells.extend(placeholder_row(unfinished, 8)),
            }
            cells
        })
        .collect();
    Table {
        caption: "one row per configuration, in grid order (per key: of the whole sort)".into(),
        header,
        rows,
    }
}

/// Most bars the per-kernel chart draws (one per kernel and configuration).
const MAX_KERNEL_BARS: usize = 240;

/// A kernel's share of a configuration's cycles (percent) that earns it
/// bars: smaller kernels are named as left out.
const MIN_KERNEL_SHARE: f64 = 1.0;

/// Where each kernel's warp-cycles go in each configuration: a bar per
/// kernel and configuration, grouped by kernel in launch order. Nothing
/// when the runs launch one kernel (the per-configuration bars say it).
fn kernel_stalls(runs: &[SweepRun], varying: &[&Axis]) -> Vec<Block> {
    let done: Vec<(&SweepRun, &Report)> = runs
        .iter()
        .filter_map(|r| match &r.result {
            RunResult::Done(report) => Some((r, report.as_ref())),
            _ => None,
        })
        .collect();
    // Kernels in launch order, with their largest share of a run's cycles.
    let mut names: Vec<(String, f64)> = Vec::new();
    for (_, report) in &done {
        let total: u64 = report.kernels.iter().map(|k| k.cycles).sum();
        for k in &report.kernels {
            let share = 100.0 * k.cycles as f64 / total.max(1) as f64;
            match names.iter_mut().find(|(n, _)| *n == k.name) {
                Some((_, s)) => *s = s.max(share),
                None => names.push((k.name.clone(), share)),
            }
        }
    }
    let (shown, left_out): (Vec<_>, Vec<_>) =
        names.into_iter().partition(|(_, s)| *s >= MIN_KERNEL_SHARE);
    if shown.len() < 2 {
        return Vec::new();
    }
    let mut bars = Vec::new();
    for (name, _) in &shown {
        for (r, report) in &done {
            if let Some(k) = report.kernels.iter().find(|k| &k.name == name) {
                let config = describe(&r.opts, varying);
                let label = format!("{name} · {config}")
                    .trim_end_matches(" · ")
                    .to_string();
                let tip = format!(
                    "{name}, {config}\n{}",
                    kernels::counters(&k.stats, report.keys)
                );
                bars.push(kernels::stall_bar(label, &k.stats, tip));
            }
        }
    }
    let left = if left_out.is_empty() {
        String::new()
    } else {
        format!(
            "; left out, under {MIN_KERNEL_SHARE}% of every configuration's cycles: {}",
            left_out
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    if bars.len() > MAX_KERNEL_BARS {
        return vec![Block::Text(format!(
            "Per-kernel stall bars left out: {} bars, at most {MAX_KERNEL_BARS}{left}.",
            bars.len()
        ))];
    }
    vec![Block::Chart(kernels::stall_chart(
        format!(
            "Where warp-cycles go, per kernel and configuration (kernels in launch order{left})"
        ),
        bars,
    ))]
}

/// The page of a sweep over `axes` (every list, one value or more).
pub fn page(axes: &[Axis], runs: &[SweepRun], provenance: Provenance) -> Page {
    let varying: Vec<&Axis> = axes.iter().filter(|a| a.values.len() > 1).collect();
    let algos = axes
        .iter()
        .find(|a| a.name == "algo")
        .map_or("hotsort".to_string(), |a| a.values.join(", "));
    let gpus = axes
        .iter()
        .find(|a| a.name == "gpu")
        .map_or("h200".to_string(), |a| a.values.join(", "));
    let title = format!("simsort sweep: {algos} on {gpus}");
    // x: the list with most values (the first of equals); the others one
    // line each. Without a varying list, the keys.
    let x = varying
        .iter()
        .copied()
        .rev()
        .max_by_key(|a| a.values.len())
        .or_else(|| axes.iter().find(|a| a.name == "keys"))
        .or(axes.first());
    let series: Vec<&Axis> = varying
        .iter()
        .copied()
        .filter(|a| Some(a.name.as_str()) != x.map(|x| x.name.as_str()))
        .collect();
    let done = runs
        .iter()
        .filter(|r| matches!(r.result, RunResult::Done(_)))
        .count();
    let mut blocks = vec![
        Block::Heading("What was swept".into()),
        Block::Text(format!("Held fixed: {}.", fixed(axes))),
        Block::Text(if varying.is_empty() {
            "Varied: nothing (one configuration).".to_string()
        } else {
            format!(
                "Varied: {}. {} configurations, {done} finished.",
                varying
                    .iter()
                    .map(|a| format!("{} ({})", flag(&a.name), a.values.join(", ")))
                    .collect::<Vec<_>>()
                    .join("; "),
                runs.len()
            )
        }),
        Block::Heading("Configurations".into()),
        Block::Table(table(&varying, runs)),
    ];
    if let (Some(x), true) = (x, done > 0) {
        let against = format!(
            "against {}{}",
            flag(&x.name),
            if series.is_empty() {
                String::new()
            } else {
                format!(
                    ", one line per {}",
                    series
                        .iter()
                        .map(|a| flag(&a.name))
                        .collect::<Vec<_>>()
                        .join(" x ")
                )
            }
        );
        blocks.push(Block::Heading(
            "Charts (hover a point for its counters)".into(),
        ));
        blocks.push(Block::Chart(metric_chart(
            format!("Simulated cycles per key {against}"),
            "cycles per key",
            false,
            x,
            &series,
            &varying,
            runs,
            &|r| per_key(r).map(|(c, _)| c),
        )));
        blocks.push(Block::Chart(metric_chart(
            format!("Shared-memory bank conflicts per key {against}"),
            "bank conflicts per key",
            true,
            x,
            &series,
            &varying,
            runs,
            &|r| per_key(r).map(|(_, b)| b),
        )));
        let bars = runs
            .iter()
            .filter_map(|r| match &r.result {
                RunResult::Done(report) => {
                    let label = describe(&r.opts, &varying);
                    let label = if label.is_empty() {
                        "total".to_string()
                    } else {
                        label
                    };
                    Some(kernels::stall_bar(
                        label,
                        &kernels::total(report),
                        tip(&r.opts, &varying, report),
                    ))
                }
                _ => None,
            })
            .collect();
        blocks.push(Block::Chart(kernels::stall_chart(
            "Where warp-cycles go, per configuration (all kernels)".into(),
            bars,
        )));
        blocks.extend(kernel_stalls(runs, &varying));
    }
    blocks.push(Block::Heading("Per kernel, per configuration".into()));
    for r in runs {
        if let RunResult::Done(report) = &r.result {
            let label = describe(&r.opts, &varying);
            let summary = format!(
                "{}: {} cycles",
                if label.is_empty() { "the run" } else { &label },
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::options::SweepSpec;
    use crate::experiment::sweep::{check, run};

    #[test]
    fn a_sweep_page_has_a_point_per_configuration_and_a_line_per_other_value() {
        let spec = SweepSpec {
            gpu: vec!["tiny".into()],
            keys: vec![512],
            warp: vec![8, 16],
            slab_height: vec![Some(2), Some(4), Some(8)],
            ..SweepSpec::default()
        };
        let runs = run(check(&spec).unwrap(), 1, &|_, _| {}).unwrap();
        let page = page(&spec.axes(), &runs, Provenance::of_args(["simsort".into()]));
        let charts = page.charts();
        assert_eq!(charts.len(), 4);
        let Chart::Xy(cycles) = charts[0] else {
            panic!("xy first")
        };
        assert_eq!(cycles.x_label, "slab-height");
        assert_eq!(cycles.x_categories, ["2", "4", "8"]);
        let names: Vec<&str> = cycles.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["warp=8", "warp=16"]);
        let done = runs
            .iter()
            .filter(|r| matches!(r.result, RunResult::Done(_)))
            .count();
        assert!(done > 0);
        assert_eq!(charts[0].marks(), done);
        assert_eq!(charts[2].marks(), done);
        // Per kernel: a bar for each kernel of each finished configuration
        // (HotSort on 512 keys launches more than one kernel that counts).
        assert!(
            charts[3]
                .title()
                .starts_with("Where warp-cycles go, per kernel and configuration"),
            "{}",
            charts[3].title()
        );
        let Chart::Bars(per_kernel) = charts[3] else {
            panic!("bars")
        };
        assert!(per_kernel.bars.len() >= 2 * done, "{per_kernel:?}");
        assert!(
            per_kernel.bars[0].label.contains(" · warp=8 slab-height=2"),
            "{:?}",
            per_kernel.bars[0].label
        );
        assert!(
            cycles.series[0].points[0]
                .tip
                .contains("warp=8 slab-height=2")
        );
        let html = page.to_html();
        assert!(html.contains("Held fixed: gpu tiny"), "{html}");
        // A configuration that did not finish keeps the table's shape.
        let row = placeholder_row(&RunResult::Failed("out of memory".into()), 8);
        assert_eq!(row.len(), 8);
        assert_eq!(row[0], Cell::text("FAILED: out of memory"));
        assert_eq!(row[7], Cell::text(""));
        assert!(
            html.contains("<th>warp</th><th>slab-height</th><th>cycles</th>"),
            "{html}"
        );
    }
}
