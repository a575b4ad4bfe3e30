//! The picture of one run (`simsort --plot FILE`): for every kernel, its
//! simulated cycles and where its warps' time goes (stacked bars of the
//! stall reasons and issue), with the whole run's split as the last bar.

use std::collections::BTreeMap;
use std::path::Path;

use super::options::label;
use clap::ValueEnum;

use super::plot_axes::{algo_title, relevant};
use super::report::Report;
use super::sort::Algo;
use super::stall_bars;
use crate::chart::panel::{BarPanel, BarRow, Panel};
use crate::chart::{Block, Figure, register_font, style, ticks};

pub use crate::chart::{Format, PlotError};

/// The config keys the subtitle names (the rest are in the report).
const SHOWN: &[&str] = &[
    "key_bits",
    "dist",
    "seed",
    "warp",
    "smem_layout",
    "slab_height",
    "vector",
    "bitonic_fused",
    "block_threads",
    "items_per_thread",
    "num_sms",
    "clock_mhz",
];

/// The run's figure.
pub fn figure(report: &Report) -> Result<Figure, PlotError> {
    if report.kernels.is_empty() {
        return Err(PlotError::Choice(
            "the run launched no kernel: nothing to plot".into(),
        ));
    }
    let text = |k: &str| {
        report
            .config
            .get(k)
            .map(|v| v.to_string().trim_matches('"').to_string())
            .unwrap_or_default()
    };
    let max = report
        .kernels
        .iter()
        .map(|k| k.cycles as f64)
        .fold(1.0, f64::max);
    let top = ticks::nice_bounds(0.0, max, 5).1;
    let cycles = BarPanel {
        title: "simulated cycles per kernel (all its launches)".into(),
        x_label: "simulated cycles".into(),
        max: top,
        label_space: None,
        context: None,
        empty: String::new(),
        rows: report
            .kernels
            .iter()
            .map(|k| BarRow {
                label: match k.launches {
                    1 => format!("{} (1 launch)", k.name),
                    n => format!("{} ({n} launches)", k.name),
                },
                segments: vec![("cycles".into(), k.cycles as f64, style::PALETTE[0])],
            })
            .collect(),
    };
    let mut rows: Vec<(String, &BTreeMap<&'static str, u64>)> = report
        .kernels
        .iter()
        .map(|k| (k.name.clone(), &k.stalls))
        .collect();
    rows.push(("whole run".into(), &report.total.stalls));
    let stalls = stall_bars::panel("where the warps' time goes, per kernel", &rows);
    let algos: Vec<Algo> = Algo::value_variants()
        .iter()
        .filter(|a| a.name() == text("algo"))
        .copied()
        .collect();
    let shown: Vec<String> = SHOWN
        .iter()
        .filter(|k| report.config.get(**k).is_some_and(|v| !v.is_null()))
        .filter(|k| relevant(k, &algos))
        .map(|k| match *k {
            "num_sms" => format!("{} SMs", text(k)),
            "clock_mhz" => format!("clock {} MHz", text(k)),
            _ => format!("{} {}", label(k), text(k)),
        })
        .collect();
    Ok(Figure {
        width: 1300.0,
        title: format!(
            "{} on {}, {} keys: {} cycles in {} kernels",
            algo_title(&text("algo")),
            text("gpu"),
            ticks::exact(report.keys as f64),
            ticks::exact(report.total.cycles as f64),
            report.kernels.len()
        ),
        subtitle: shown.join(", "),
        blocks: vec![
            Block::Legend(stall_bars::legend(&rows)),
            Block::Row(vec![
                (0.42, Panel::Bars(cycles)),
                (0.58, Panel::Bars(stalls)),
            ]),
        ],
    })
}

/// The run's plot as an SVG document.
pub fn svg(report: &Report) -> Result<String, PlotError> {
    register_font()?;
    Ok(figure(report)?.render().to_svg())
}

/// Draws the run's plot into `path` (SVG or PNG by extension).
pub fn plot(path: &Path, report: &Report) -> Result<(), PlotError> {
    Format::of(path).ok_or_else(|| PlotError::Format(path.display().to_string()))?;
    register_font()?;
    let scene = figure(report)?.render();
    crate::chart::write(path, &scene)
}
