//! The picture of `simsort compare`: cycles per key against the number of
//! keys (both axes logarithmic), one line per algorithm, one chart per
//! combination of the other lists that vary. SVG or PNG, by extension.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::compare::{Row, group_axes};
use super::plot::{COLOURS, Format, PlotError, present_error, register_font};
use super::sweep::{Axis, RunResult, SweepRun, axis_value};
use crate::atomic::AtomicFile;

/// One finished run as the plot shows it.
struct Point {
    chart: String,
    algo: String,
    keys: f64,
    cycles_per_key: f64,
}

fn points(axes: &[Axis], runs: &[SweepRun]) -> Vec<Point> {
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
                    .map(|a| format!("{}={}", a.replace('_', "-"), axis_value(&r.opts, a)))
                    .collect::<Vec<_>>()
                    .join(" ");
                Some(Point {
                    chart,
                    algo: row.algo.clone(),
                    keys: row.keys as f64,
                    cycles_per_key: row.cycles as f64 / row.keys as f64,
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

/// Draws the comparison into `file`'s temporary file; the caller commits.
pub fn plot_to(file: &AtomicFile, axes: &[Axis], runs: &[SweepRun]) -> Result<(), PlotError> {
    let target = file.target();
    let format =
        Format::of(target).ok_or_else(|| PlotError::Format(target.display().to_string()))?;
    let pts = points(axes, runs);
    if pts.is_empty() {
        return Err(PlotError::Empty);
    }
    register_font()?;
    let charts = unique(pts.iter().map(|p| p.chart.clone()));
    let size = (1100, 560 * charts.len() as u32);
    let draw_err = |message: String| PlotError::Draw {
        path: target.display().to_string(),
        message,
    };
    let path = file.temp_path();
    match format {
        Format::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw(&root, &charts, &pts).map_err(draw_err)?;
            root.present().map_err(|e| draw_err(present_error(e)))
        }
        Format::Png => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            draw(&root, &charts, &pts).map_err(draw_err)?;
            root.present().map_err(|e| draw_err(present_error(e)))
        }
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    charts: &[String],
    pts: &[Point],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (lo_k, hi_k) = pts.iter().fold((f64::MAX, 0f64), |(lo, hi), p| {
        (lo.min(p.keys), hi.max(p.keys))
    });
    let (lo_c, hi_c) = pts.iter().fold((f64::MAX, 0f64), |(lo, hi), p| {
        (lo.min(p.cycles_per_key), hi.max(p.cycles_per_key))
    });
    let algos = unique(pts.iter().map(|p| p.algo.clone()));
    for (area, chart_name) in root.split_evenly((charts.len(), 1)).iter().zip(charts) {
        let caption = if chart_name.is_empty() {
            "cycles per key by algorithm".to_string()
        } else {
            format!("cycles per key by algorithm: {chart_name}")
        };
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(
                (lo_k / 1.5..hi_k * 1.5).log_scale(),
                (lo_c / 1.5..hi_c * 1.5).log_scale(),
            )
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("keys")
            .y_desc("simulated cycles per key")
            .axis_desc_style(("sans-serif", 15))
            .label_style(("sans-serif", 13))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.3}"))
            .draw()
            .map_err(e)?;
        for (i, algo) in algos.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let mut line: Vec<(f64, f64)> = pts
                .iter()
                .filter(|p| &p.chart == chart_name && &p.algo == algo)
                .map(|p| (p.keys, p.cycles_per_key))
                .collect();
            if line.is_empty() {
                continue;
            }
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(line.clone(), colour.stroke_width(2)))
                .map_err(e)?
                .label(algo.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
            chart
                .draw_series(line.iter().map(|&p| Circle::new(p, 4, colour.filled())))
                .map_err(e)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(e)?;
    }
    Ok(())
}
