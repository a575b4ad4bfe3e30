//! The correlation plot Accel-Sim users know: simulated against hardware
//! cycles, log-log, one point per launch coloured by kernel, with the
//! y = x line and the summary figures in the caption.

use std::path::Path;

use plotters::prelude::*;

use super::compare::{Pair, Summary};
use crate::atomic::AtomicFile;
use crate::experiment::plot::{Format, PlotError, present_error, register_font};

/// Draws the correlation of `pairs` into `path` (SVG or PNG by extension),
/// replacing the file only when the picture is complete (`crate::atomic`).
pub fn plot(path: &Path, pairs: &[Pair], summary: &Summary) -> Result<(), PlotError> {
    let format = Format::of(path).ok_or_else(|| PlotError::Format(path.display().to_string()))?;
    if pairs.is_empty() {
        return Err(PlotError::Empty);
    }
    register_font()?;
    let draw_err = |message: String| PlotError::Draw {
        path: path.display().to_string(),
        message,
    };
    let file = AtomicFile::create(path).map_err(|e| draw_err(e.to_string()))?;
    let temp = file.temp_path();
    let size = (1000, 900);
    match format {
        Format::Svg => {
            let root = SVGBackend::new(temp, size).into_drawing_area();
            draw(&root, pairs, summary).map_err(draw_err)?;
            root.present().map_err(|e| draw_err(present_error(e)))?;
        }
        Format::Png => {
            let root = BitMapBackend::new(temp, size).into_drawing_area();
            draw(&root, pairs, summary).map_err(draw_err)?;
            root.present().map_err(|e| draw_err(present_error(e)))?;
        }
    }
    file.commit().map_err(|e| draw_err(e.to_string()))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    pairs: &[Pair],
    summary: &Summary,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let values = pairs.iter().flat_map(|p| [p.hw_cycles, p.sim_cycles]);
    let lo = values
        .clone()
        .filter(|v| *v > 0.0)
        .fold(f64::MAX, f64::min)
        .max(1.0);
    let hi = values.fold(1.0, f64::max);
    let (lo, hi) = (lo / 1.5, hi * 1.5);
    let caption = format!(
        "simulated vs hardware cycles: {} launches, MAPE {:.1}%, r = {:.3}",
        summary.launches, summary.cycle_mape_percent, summary.cycle_pearson_r
    );
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("hardware cycles (sm__cycles_elapsed.max)")
        .y_desc("simulated cycles")
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(LineSeries::new([(lo, lo), (hi, hi)], BLACK.stroke_width(1)))
        .map_err(e)?
        .label("y = x");
    let mut kernels: Vec<&str> = pairs.iter().map(|p| p.kernel.as_str()).collect();
    kernels.sort_unstable();
    kernels.dedup();
    for (i, k) in kernels.iter().enumerate() {
        let colour = Palette99::pick(i).mix(0.85);
        let points = pairs.iter().filter(|p| p.kernel == *k).map(|p| {
            Circle::new(
                (p.hw_cycles.max(lo), p.sim_cycles.max(lo)),
                5,
                colour.filled(),
            )
        });
        chart
            .draw_series(points)
            .map_err(e)?
            .label(k.to_string())
            .legend(move |(x, y)| Circle::new((x, y), 5, colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 16))
        .draw()
        .map_err(e)
}
