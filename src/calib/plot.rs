//! The correlation plot Accel-Sim users know: simulated against hardware
//! cycles, log-log, one point per launch, coloured by the kernel family
//! (the algorithm the suite entry runs) with a marker per kernel, the
//! y = x line inside bands of ±10% and ±20%, the worst launches labelled
//! with their entry and kernel, and the MAPE and Pearson's r in the title.

use std::path::Path;

use super::compare::{Pair, Summary};
use crate::chart::axis::AxisSpec;
use crate::chart::panel::{Band, Note, Panel, Point, Series, XyPanel};
use crate::chart::style::{INK, MARKERS, PALETTE, Rgb};
use crate::chart::{Block, Figure, Legend, Sample, register_font, ticks};

pub use crate::chart::{Format, PlotError};

/// Launches labelled on the plot: the worst, by relative error.
const LABELLED: usize = 5;

/// A suite entry's kernel family: the algorithm its name starts with
/// (`hs64k_h4` is HotSort), or the name's letters.
pub fn family(entry: &str, kernel: &str) -> String {
    let head: String = entry
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    match head.as_str() {
        "hs" => "HotSort".into(),
        "bi" => "bitonic".into(),
        "ms" | "merge" => "mergesort".into(),
        "ss" | "sample" => "sample sort".into(),
        "ts" | "tera" => "GPUTeraSort".into(),
        "" => kernel.to_string(),
        other => other.to_string(),
    }
}

/// The correlation figure.
pub fn figure(pairs: &[Pair], summary: &Summary) -> Result<Figure, PlotError> {
    if pairs.is_empty() {
        return Err(PlotError::Empty);
    }
    let x = AxisSpec::log("hardware cycles (sm__cycles_elapsed.max)");
    let y = AxisSpec::log("simulated cycles");
    let mut panel = XyPanel::new("", x, y);
    panel.diagonal = true;
    panel.height = Some(760.0);
    panel.bands = vec![
        Band {
            lo: 0.8,
            hi: 1.2,
            colour: Rgb(0, 114, 178),
            opacity: 0.10,
        },
        Band {
            lo: 0.9,
            hi: 1.1,
            colour: Rgb(0, 114, 178),
            opacity: 0.16,
        },
    ];
    // Families in order of first appearance; kernels within a family.
    let mut families: Vec<String> = Vec::new();
    let mut kernels: Vec<(String, String)> = Vec::new();
    for p in pairs {
        let f = family(&p.entry, &p.kernel);
        if !families.contains(&f) {
            families.push(f.clone());
        }
        let k = (f, p.kernel.clone());
        if !kernels.contains(&k) {
            kernels.push(k);
        }
    }
    let mut entries = vec![
        (Sample::Dashed(INK), "y = x".to_string()),
        (
            Sample::Swatch(Rgb(0, 114, 178), 0.26),
            "within ±10%".to_string(),
        ),
        (
            Sample::Swatch(Rgb(0, 114, 178), 0.10),
            "within ±20%".to_string(),
        ),
    ];
    for (f, k) in &kernels {
        let fi = families.iter().position(|x| x == f).unwrap_or(0);
        let ki = kernels
            .iter()
            .filter(|(g, _)| g == f)
            .position(|(_, kk)| kk == k)
            .unwrap_or(0);
        let colour = PALETTE[fi % PALETTE.len()];
        let marker = MARKERS[ki % MARKERS.len()];
        let points: Vec<Point> = pairs
            .iter()
            .filter(|p| &family(&p.entry, &p.kernel) == f && &p.kernel == k)
            .map(|p| Point {
                x: p.hw_cycles.max(1.0),
                y: p.sim_cycles.max(1.0),
                tip: format!(
                    "{} #{} {}: hardware {} cycles, simulated {} ({:+.1}%)",
                    p.entry,
                    p.index,
                    p.kernel,
                    ticks::exact(p.hw_cycles),
                    ticks::exact(p.sim_cycles),
                    100.0 * p.error()
                ),
            })
            .collect();
        let name = format!("{f}: {k}");
        entries.push((Sample::Series(colour, marker, false), name.clone()));
        panel.series.push(Series {
            name,
            colour,
            marker,
            line: false,
            points,
        });
    }
    let mut worst: Vec<&Pair> = pairs.iter().collect();
    worst.sort_by(|a, b| b.error().abs().total_cmp(&a.error().abs()));
    for p in worst.into_iter().take(LABELLED) {
        let name = if p.entry.is_empty() {
            p.kernel.clone()
        } else {
            format!("{} {}", p.entry, p.kernel)
        };
        panel.notes.push(Note {
            x: p.hw_cycles.max(1.0),
            y: p.sim_cycles.max(1.0),
            text: format!("{name} {:+.0}%", 100.0 * p.error()),
        });
    }
    Ok(Figure {
        width: 1000.0,
        title: format!(
            "simulated vs hardware cycles: {} launches, MAPE {:.1}%, r = {:.3}",
            summary.launches, summary.cycle_mape_percent, summary.cycle_pearson_r
        ),
        subtitle: "one point per launch; colour: kernel family, marker: kernel; the worst \
                   launches are labelled with their entry and kernel"
            .into(),
        blocks: vec![
            Block::Legend(Legend {
                title: "key:".into(),
                entries,
            }),
            Block::Row(vec![(1.0, Panel::Xy(panel))]),
        ],
    })
}

/// The correlation plot as an SVG document.
pub fn svg(pairs: &[Pair], summary: &Summary) -> Result<String, PlotError> {
    register_font()?;
    Ok(figure(pairs, summary)?.render().to_svg())
}

/// Draws the correlation of `pairs` into `path` (SVG or PNG by extension).
pub fn plot(path: &Path, pairs: &[Pair], summary: &Summary) -> Result<(), PlotError> {
    Format::of(path).ok_or_else(|| PlotError::Format(path.display().to_string()))?;
    register_font()?;
    let scene = figure(pairs, summary)?.render();
    crate::chart::write(path, &scene)
}
