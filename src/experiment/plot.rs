//! The sweep's picture: for every shared-memory layout (and every
//! combination of the other axes that vary), cycles per key and bank
//! conflicts per key against slab height with one line per warp width, and
//! a heatmap of conflicts per key over warp width x slab height. Line charts
//! of one kind share their y range and the heatmaps share their colour
//! scale, so layouts compare at a glance. SVG or PNG, by file extension.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::RangedCoordusize;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::options::label;
use crate::atomic::AtomicFile;

use super::sweep::{Axis, RunResult, SweepRun, axis_value};
use super::sweep_out::per_key;

/// The image formats, by file extension.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics (`.svg`).
    Svg,
    /// A bitmap (`.png`).
    Png,
}

impl Format {
    /// The format a path asks for, or `None` for an unknown extension.
    pub fn of(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "svg" => Some(Format::Svg),
            "png" => Some(Format::Png),
            _ => None,
        }
    }
}

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The file name does not end in `.svg` or `.png`.
    #[error("cannot tell the plot format of `{0}`: use a .svg or .png file name")]
    Format(String),
    /// No font was found to measure (and, for PNG, draw) the text.
    #[error(
        "no TrueType font found for the plot's text (looked in {0}); set SIMSORT_FONT to a .ttf file"
    )]
    NoFont(String),
    /// No configuration finished, so there is nothing to draw.
    #[error("no configuration of the sweep finished: nothing to plot")]
    Empty,
    /// The drawing backend failed (for example, the file cannot be written).
    #[error("cannot draw {path}: {message}")]
    Draw {
        /// The output file.
        path: String,
        /// The backend's message.
        message: String,
    },
}

/// What went wrong when a drawing backend wrote its file, in words: the
/// I/O error behind it (a full disk, a read-only directory) rather than
/// the backends' debug text (`ImageError(IoError(Custom { .. }))`).
pub(crate) fn present_error<E>(e: DrawingAreaErrorKind<E>) -> String
where
    E: std::error::Error + Send + Sync + 'static,
{
    use plotters_backend::DrawingErrorKind;
    use plotters_bitmap::BitMapBackendError;
    if let DrawingAreaErrorKind::BackendError(DrawingErrorKind::DrawingError(inner)) = &e {
        let inner: &(dyn std::error::Error + 'static) = inner;
        if let Some(io) = inner.downcast_ref::<std::io::Error>() {
            return io.to_string();
        }
        match inner.downcast_ref::<BitMapBackendError>() {
            Some(BitMapBackendError::ImageError(image)) => return image.to_string(),
            Some(BitMapBackendError::IOError(io)) => return io.to_string(),
            _ => {}
        }
    }
    e.to_string()
}

/// Where fonts usually are; the first that exists is used.
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a sans-serif font with plotters once per process: from
/// `SIMSORT_FONT`, else the first of [`FONT_PATHS`] that loads. Fonts are
/// read at run time so the build needs no system font libraries.
pub(crate) fn register_font() -> Result<(), PlotError> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    let result = FONT.get_or_init(|| {
        let env = std::env::var("SIMSORT_FONT").ok();
        let candidates = env
            .iter()
            .map(String::as_str)
            .chain(FONT_PATHS.iter().copied());
        for path in candidates {
            if let Ok(bytes) = std::fs::read(path) {
                // Plotters keeps fonts for the whole process.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return Ok(());
                }
            }
        }
        let looked: Vec<&str> = env
            .iter()
            .map(String::as_str)
            .chain(FONT_PATHS.iter().copied())
            .collect();
        Err(looked.join(", "))
    });
    result.clone().map_err(PlotError::NoFont)
}

/// One finished configuration, reduced to what the plot shows.
struct Point {
    group: String,
    layout: String,
    warp: u32,
    slab: u32,
    cycles_per_key: f64,
    conflicts_per_key: f64,
}

/// The axes the picture is laid out by; the others either vary (a row per
/// combination) or are fixed (the title).
const DRAWN: &[&str] = &["warp", "slab_height", "smem_layout"];

/// The title: what the sweep held fixed.
fn title(axes: &[Axis]) -> String {
    let fixed: Vec<String> = axes
        .iter()
        .filter(|a| a.values.len() == 1 && !DRAWN.contains(&a.name.as_str()))
        .map(|a| format!("{} {}", label(&a.name), a.values[0]))
        .collect();
    format!("HotSort sweep: {}", fixed.join(", "))
}

fn points(axes: &[Axis], runs: &[SweepRun]) -> Vec<Point> {
    let grouping: Vec<&Axis> = axes
        .iter()
        .filter(|a| a.values.len() > 1 && !DRAWN.contains(&a.name.as_str()))
        .collect();
    runs.iter()
        .filter_map(|r| {
            let RunResult::Done(report) = &r.result else {
                return None;
            };
            let (cycles_per_key, conflicts_per_key) = per_key(report)?;
            let group = grouping
                .iter()
                .map(|a| format!("{} {}", label(&a.name), axis_value(&r.opts, &a.name)))
                .collect::<Vec<_>>()
                .join(", ");
            Some(Point {
                group,
                layout: r.opts.smem_layout.name().to_string(),
                warp: r.opts.warp,
                // The height that ran (the report's config resolves a
                // height left to adapt to the machine).
                slab: report
                    .config
                    .get("slab_height")
                    .and_then(serde_json::Value::as_u64)
                    .map_or(0, |h| h as u32),
                cycles_per_key,
                conflicts_per_key,
            })
        })
        .collect()
}

fn sorted_unique<T: Ord + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.collect();
    v.sort();
    v.dedup();
    v
}

/// Line colours, one per warp width (Tableau 10: distinct, readable on white).
pub(crate) const COLOURS: &[RGBColor] = &[
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// A value with three significant digits, without trailing noise.
fn short(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// An axis tick: up to three decimals, trailing zeros dropped.
fn tick(v: f64) -> String {
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Draws the plot of a sweep into `path` (SVG or PNG by extension),
/// replacing the file only when the picture is complete.
pub fn plot(path: &Path, axes: &[Axis], runs: &[SweepRun]) -> Result<(), PlotError> {
    Format::of(path).ok_or_else(|| PlotError::Format(path.display().to_string()))?;
    let draw_err = |message: String| PlotError::Draw {
        path: path.display().to_string(),
        message,
    };
    let file = AtomicFile::create(path).map_err(|e| draw_err(e.to_string()))?;
    plot_to(&file, axes, runs)?;
    file.commit().map_err(|e| draw_err(e.to_string()))
}

/// Draws the plot of a sweep into `file`'s temporary file (the format by
/// the target's extension); the caller commits it.
pub fn plot_to(file: &AtomicFile, axes: &[Axis], runs: &[SweepRun]) -> Result<(), PlotError> {
    let target = file.target();
    let format =
        Format::of(target).ok_or_else(|| PlotError::Format(target.display().to_string()))?;
    let pts = points(axes, runs);
    if pts.is_empty() {
        return Err(PlotError::Empty);
    }
    register_font()?;
    let rows = sorted_rows(&pts);
    let size = (1680, 70 + 420 * rows.len() as u32);
    let draw_err = |message: String| PlotError::Draw {
        path: target.display().to_string(),
        message,
    };
    let path = file.temp_path();
    match format {
        Format::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw(&root, &title(axes), &rows, &pts).map_err(draw_err)?;
            root.present().map_err(|e| draw_err(present_error(e)))
        }
        Format::Png => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            draw(&root, &title(axes), &rows, &pts).map_err(draw_err)?;
            root.present().map_err(|e| draw_err(present_error(e)))
        }
    }
}

/// The rows: every (group, layout) pair present, groups in grid order and
/// layouts in their fixed order.
fn sorted_rows(pts: &[Point]) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    for p in pts {
        let row = (p.group.clone(), p.layout.clone());
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    rows
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    rows: &[(String, String)],
    pts: &[Point],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (head, body) = root.split_vertically(70);
    head.draw(&Text::new(
        title.to_string(),
        (head.dim_in_pixel().0 as i32 / 2, 24),
        ("sans-serif", 26)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center)),
    ))
    .map_err(e)?;
    let warps = sorted_unique(pts.iter().map(|p| p.warp));
    let slabs = sorted_unique(pts.iter().map(|p| p.slab));
    let max_cycles = pts.iter().map(|p| p.cycles_per_key).fold(0.0, f64::max);
    let max_conflicts = pts.iter().map(|p| p.conflicts_per_key).fold(0.0, f64::max);
    let panels = body.split_evenly((rows.len(), 3));
    for (r, (group, layout)) in rows.iter().enumerate() {
        let row: Vec<&Point> = pts
            .iter()
            .filter(|p| &p.group == group && &p.layout == layout)
            .collect();
        let name = if group.is_empty() {
            format!("layout {layout}")
        } else {
            format!("layout {layout}, {group}")
        };
        let lines = |metric: fn(&Point) -> f64, max: f64, what: &str, area| {
            line_chart(
                area,
                &format!("{what}: {name}"),
                what,
                &row,
                &warps,
                &slabs,
                metric,
                max,
            )
        };
        lines(
            |p| p.cycles_per_key,
            max_cycles,
            "cycles per key",
            &panels[3 * r],
        )?;
        lines(
            |p| p.conflicts_per_key,
            max_conflicts,
            "bank conflicts per key",
            &panels[3 * r + 1],
        )?;
        heatmap(
            &panels[3 * r + 2],
            &name,
            &row,
            &warps,
            &slabs,
            max_conflicts,
        )?;
    }
    Ok(())
}

/// `n` equal segments, one per value (a discrete range `0..m` holds `m + 1`
/// values, hence `n - 1`).
fn segments(n: usize) -> SegmentedCoord<RangedCoordusize> {
    (0..n.max(1) - 1).into_segmented()
}

/// Labels the centre of segment `i` with `values[i]`.
fn segment_label<T: ToString>(values: &[T], v: &SegmentValue<usize>) -> String {
    match v {
        SegmentValue::CenterOf(i) => values.get(*i).map(ToString::to_string).unwrap_or_default(),
        _ => String::new(),
    }
}

#[allow(clippy::too_many_arguments)]
fn line_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    y_desc: &str,
    row: &[&Point],
    warps: &[u32],
    slabs: &[u32],
    metric: fn(&Point) -> f64,
    max: f64,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let top = if max > 0.0 { max * 1.3 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(segments(slabs.len()), 0f64..top)
        .map_err(e)?;
    let x_label = |v: &SegmentValue<usize>| segment_label(slabs, v);
    let y_label = |v: &f64| tick(*v);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(slabs.len() + 1)
        .y_labels(8)
        .light_line_style(TRANSPARENT)
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .x_desc("slab height (keys per lane)")
        .y_desc(y_desc)
        .axis_desc_style(("sans-serif", 15))
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    for (wi, &w) in warps.iter().enumerate() {
        let colour = COLOURS[wi % COLOURS.len()];
        let line: Vec<(SegmentValue<usize>, f64)> = slabs
            .iter()
            .enumerate()
            .filter_map(|(si, &s)| {
                row.iter()
                    .find(|p| p.warp == w && p.slab == s)
                    .map(|p| (SegmentValue::CenterOf(si), metric(p)))
            })
            .collect();
        if line.is_empty() {
            continue;
        }
        chart
            .draw_series(LineSeries::new(line.clone(), colour.stroke_width(2)))
            .map_err(e)?
            .label(format!("warp {w} lanes"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        chart
            .draw_series(
                line.iter()
                    .map(|p| Circle::new(p.clone(), 4, colour.filled())),
            )
            .map_err(e)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(e)
}

/// White for 0 to dark red for `max`.
fn heat(v: f64, max: f64) -> RGBColor {
    let t = if max > 0.0 {
        (v / max).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mix = |from: f64, to: f64| (from + (to - from) * t).round() as u8;
    RGBColor(mix(255.0, 165.0), mix(255.0, 15.0), mix(255.0, 21.0))
}

fn heatmap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    name: &str,
    row: &[&Point],
    warps: &[u32],
    slabs: &[u32],
    max: f64,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let caption = format!(
        "bank conflicts per key: {name} (white 0, red {})",
        short(max)
    );
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .margin_right(28)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(segments(warps.len()), segments(slabs.len()))
        .map_err(e)?;
    let x_label = |v: &SegmentValue<usize>| segment_label(warps, v);
    let y_label = |v: &SegmentValue<usize>| segment_label(slabs, v);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(warps.len() + 1)
        .y_labels(slabs.len() + 1)
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .x_desc("warp width (lanes)")
        .y_desc("slab height (keys per lane)")
        .axis_desc_style(("sans-serif", 15))
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    for (wi, &w) in warps.iter().enumerate() {
        for (si, &s) in slabs.iter().enumerate() {
            let value = row
                .iter()
                .find(|p| p.warp == w && p.slab == s)
                .map(|p| p.conflicts_per_key);
            let fill = value.map_or(RGBColor(220, 220, 220), |v| heat(v, max));
            let corners = [
                (SegmentValue::Exact(wi), SegmentValue::Exact(si)),
                (SegmentValue::Exact(wi + 1), SegmentValue::Exact(si + 1)),
            ];
            chart
                .draw_series([
                    Rectangle::new(corners.clone(), fill.filled()),
                    Rectangle::new(corners, RGBColor(190, 190, 190).stroke_width(1)),
                ])
                .map_err(e)?;
            let dark = value.is_some_and(|v| max > 0.0 && v / max > 0.55);
            let text = value.map_or_else(|| "skipped".to_string(), short);
            let style = ("sans-serif", 15)
                .into_font()
                .color(if dark { &WHITE } else { &BLACK })
                .pos(Pos::new(HPos::Center, VPos::Center));
            chart
                .draw_series(std::iter::once(Text::new(
                    text,
                    (SegmentValue::CenterOf(wi), SegmentValue::CenterOf(si)),
                    style,
                )))
                .map_err(e)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_follows_the_extension() {
        assert_eq!(Format::of(Path::new("a/b.svg")), Some(Format::Svg));
        assert_eq!(Format::of(Path::new("b.PNG")), Some(Format::Png));
        assert_eq!(Format::of(Path::new("b.pdf")), None);
        assert_eq!(Format::of(Path::new("b")), None);
    }

    #[test]
    fn values_are_shown_with_three_significant_digits() {
        assert_eq!(short(0.0), "0");
        assert_eq!(short(0.46875), "0.469");
        assert_eq!(short(3.24159), "3.24");
        assert_eq!(short(31.4159), "31.4");
        assert_eq!(short(314.159), "314");
    }

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(0.2), "0.2");
        assert_eq!(tick(1.25), "1.25");
        assert_eq!(tick(400.0), "400");
    }

    #[test]
    fn a_sweep_plots_every_layout_with_labelled_axes_and_a_legend() {
        use crate::experiment::sweep::{SweepSpec, check, run};
        use sorts::hotsort::Layout;
        let spec = SweepSpec {
            gpu: vec!["tiny".into()],
            keys: vec![256],
            warp: vec![4, 8],
            slab_height: vec![Some(2), Some(4), Some(8)],
            smem_layout: vec![Layout::Plain, Layout::Xor],
            ..SweepSpec::default()
        };
        let runs = run(check(&spec).unwrap(), 2, &|_, _| {}).unwrap();
        let dir = std::env::temp_dir().join(format!("simsort-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg = dir.join("sweep.svg");
        plot(&svg, &spec.axes(), &runs).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        for needle in [
            "slab height (keys per lane)",
            "warp width (lanes)",
            "cycles per key: layout plain",
            "bank conflicts per key: layout xor",
            "warp 8 lanes",
            "gpu tiny",
            "keys 256",
        ] {
            assert!(text.contains(needle), "{needle}");
        }
        let png = dir.join("sweep.png");
        plot(&png, &spec.axes(), &runs[..1]).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert!(matches!(
            plot(&dir.join("x.pdf"), &spec.axes(), &runs),
            Err(PlotError::Format(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_heat_scale_runs_from_white_to_red() {
        assert_eq!(heat(0.0, 2.0), RGBColor(255, 255, 255));
        assert_eq!(heat(2.0, 2.0), RGBColor(165, 15, 21));
        assert_eq!(heat(5.0, 0.0), RGBColor(255, 255, 255));
    }
}
