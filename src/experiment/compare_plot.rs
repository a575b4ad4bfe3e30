//! The picture of `simsort compare`: cycles per key against the number of
//! keys (both axes logarithmic, a tick at every key count, labels below 1
//! too), one line per algorithm, with the time per key at the machine's
//! clock as a second y scale; beside it, stacked bars of where each
//! algorithm's kernels spend their warp-cycles at the largest key count.
//! One row per combination of the other lists that vary. SVG or PNG.

use std::collections::BTreeMap;

use super::compare::{Row, group_axes};
use super::options::label;
use super::plot_axes::{algo_title, relevant, value_name};
use super::report::Report;
use super::stall_bars;
use super::sweep::{Axis, RunResult, SweepRun, axis_value};
use crate::atomic::AtomicFile;
use crate::chart::axis::{AxisSpec, range_of};
use crate::chart::panel::{Panel, Point, Series, XyPanel};
use crate::chart::{Block, Figure, Legend, Sample, style, ticks};

pub use crate::chart::{Format, PlotError, register_font};

/// Kernels per algorithm that get a bar (the longest).
const KERNEL_BARS: usize = 5;

/// One finished run as the plot shows it.
struct Pt<'a> {
    chart: String,
    algo: String,
    keys: f64,
    cycles_per_key: f64,
    clock_mhz: Option<f64>,
    report: &'a Report,
}

fn points<'a>(axes: &[Axis], runs: &'a [SweepRun]) -> Vec<Pt<'a>> {
    let by: Vec<String> = group_axes(axes)
        .into_iter()
        .filter(|a| a != "keys")
        .collect();
    runs.iter()
        .filter_map(|r| match &r.result {
            RunResult::Done(report) if report.keys > 0 => {
                let row = Row::of(report);
                let chart = by
                    .iter()
                    .map(|a| value_name(a, &axis_value(&r.opts, a)))
                    .collect::<Vec<_>>()
                    .join(", ");
                Some(Pt {
                    chart,
                    algo: row.algo.clone(),
                    keys: row.keys as f64,
                    cycles_per_key: row.cycles as f64 / row.keys as f64,
                    clock_mhz: report.config.get("clock_mhz").and_then(|v| v.as_f64()),
                    report,
                })
            }
            _ => None,
        })
        .collect()
}

fn unique(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The comparison's figure.
pub fn figure(axes: &[Axis], runs: &[SweepRun]) -> Result<Figure, PlotError> {
    let pts = points(axes, runs);
    if pts.is_empty() {
        return Err(PlotError::Empty);
    }
    let charts = unique(pts.iter().map(|p| p.chart.clone()));
    let algos = unique(pts.iter().map(|p| p.algo.clone()));
    let keys: Vec<f64> = pts.iter().map(|p| p.keys).collect();
    let ys: Vec<f64> = pts.iter().map(|p| p.cycles_per_key).collect();
    let mut x = AxisSpec::log("keys sorted");
    x.at = Some(keys.clone());
    let mut y = AxisSpec::log("simulated cycles per key");
    y.range = Some(range_of(&y.scale, false, &ys));
    // One clock for every run: time per key is the same curve, rescaled.
    let clocks = unique(pts.iter().map(|p| format!("{:?}", p.clock_mhz)));
    let clock = (clocks.len() == 1).then_some(pts[0].clock_mhz).flatten();
    let mut blocks = vec![Block::Legend(Legend {
        title: "algorithm:".into(),
        entries: algos
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let (c, m) = style::series(i);
                (Sample::Series(c, m, true), algo_title(a))
            })
            .collect(),
    })];
    let mut stall_legend_rows: Vec<(String, &BTreeMap<&'static str, u64>)> = Vec::new();
    let mut rows = Vec::new();
    for chart_name in &charts {
        let mut panel = XyPanel::new(
            if chart_name.is_empty() {
                "cycles per key by algorithm".to_string()
            } else {
                format!("cycles per key by algorithm: {chart_name}")
            },
            x.clone(),
            y.clone(),
        );
        if let Some(mhz) = clock {
            panel.y2 = Some((
                format!("time per key at {} MHz (ns)", ticks::exact(mhz)),
                1000.0 / mhz,
            ));
        }
        let mut bars: Vec<(String, &BTreeMap<&'static str, u64>)> = Vec::new();
        let in_chart: Vec<&Pt> = pts.iter().filter(|p| &p.chart == chart_name).collect();
        let largest = in_chart.iter().map(|p| p.keys).fold(0.0, f64::max);
        for (i, algo) in algos.iter().enumerate() {
            let (colour, marker) = style::series(i);
            let mut line: Vec<Point> = in_chart
                .iter()
                .filter(|p| &p.algo == algo)
                .map(|p| Point {
                    x: p.keys,
                    y: p.cycles_per_key,
                    tip: format!(
                        "{}, {} keys: {} cycles per key ({} cycles)",
                        algo_title(algo),
                        ticks::exact(p.keys),
                        ticks::significant(p.cycles_per_key, 4),
                        ticks::exact(p.report.total.cycles as f64)
                    ),
                })
                .collect();
            if line.is_empty() {
                continue;
            }
            line.sort_by(|a, b| a.x.total_cmp(&b.x));
            panel.series.push(Series {
                name: algo_title(algo),
                colour,
                marker,
                line: true,
                points: line,
            });
            if let Some(p) = in_chart
                .iter()
                .find(|p| &p.algo == algo && p.keys == largest)
            {
                bars.push((
                    format!("{}: all kernels", algo_title(algo)),
                    &p.report.total.stalls,
                ));
                let mut kernels: Vec<_> = p.report.kernels.iter().collect();
                kernels.sort_by_key(|k| std::cmp::Reverse(k.cycles));
                for k in kernels.into_iter().take(KERNEL_BARS) {
                    bars.push((format!("{}: {}", algo_title(algo), k.name), &k.stalls));
                }
            }
        }
        stall_legend_rows.extend(bars.iter().cloned());
        let bar_title = format!(
            "where the warps' time goes at {} keys (longest kernels)",
            ticks::exact(largest)
        );
        rows.push(Block::Row(vec![
            (0.56, Panel::Xy(panel)),
            (0.44, Panel::Bars(stall_bars::panel(&bar_title, &bars))),
        ]));
    }
    blocks.push(Block::Legend(stall_bars::legend(&stall_legend_rows)));
    blocks.extend(rows);
    let gpu = axes
        .iter()
        .find(|a| a.name == "gpu")
        .map(|a| a.values.join(", "))
        .unwrap_or_default();
    Ok(Figure {
        width: 1500.0,
        title: format!(
            "simsort compare on {gpu}: cycles per key by number of keys, every algorithm"
        ),
        subtitle: configuration(axes),
        blocks,
    })
}

/// The configuration every run shares: the lists of one value that
/// concern every algorithm, and the machine fields set.
fn configuration(axes: &[Axis]) -> String {
    let fixed: Vec<String> = axes
        .iter()
        .filter(|a| a.values.len() == 1 && a.name != "gpu" && a.name != "algo")
        .filter(|a| relevant(&a.name, &[]) || a.values[0] != "default")
        .map(|a| format!("{} {}", label(&a.name), a.values[0]))
        .collect();
    format!("configuration: {}", fixed.join(", "))
}

/// The comparison's plot as an SVG document.
pub fn svg(axes: &[Axis], runs: &[SweepRun]) -> Result<String, PlotError> {
    register_font()?;
    Ok(figure(axes, runs)?.render().to_svg())
}

/// Draws the comparison into `file`'s temporary file; the caller commits.
pub fn plot_to(file: &AtomicFile, axes: &[Axis], runs: &[SweepRun]) -> Result<(), PlotError> {
    Format::of(file.target())
        .ok_or_else(|| PlotError::Format(file.target().display().to_string()))?;
    register_font()?;
    let scene = figure(axes, runs)?.render();
    crate::chart::write_to(file, &scene)
}
