//! The two kinds of panel: an x-y chart (lines with markers, or points
//! alone, with optional error bands, reference lines, labelled points and
//! a second y scale) and horizontal stacked bars (where time goes). Each
//! draws itself into a rectangle of a [`Scene`], measuring its text so
//! that labels fit and never collide.

use super::axis::{AxisSpec, Mapping, Scale, range_of, ticks_of};
use super::scene::{Anchor, Item, Scene, measure};
use super::style::{
    AXIS_LABEL_SIZE, GRID, INK, MUTED, Marker, NOTE_SIZE, PANEL_TITLE_SIZE, Rgb, TICK_SIZE,
};
use super::ticks;

/// One point of a series.
#[derive(Clone, Debug)]
pub struct Point {
    /// x (a category's index on a categorical axis).
    pub x: f64,
    /// y.
    pub y: f64,
    /// Hover text: the point's configuration and value.
    pub tip: String,
}

/// A series.
#[derive(Clone, Debug)]
pub struct Series {
    /// Its name (the legend's entry).
    pub name: String,
    /// Colour.
    pub colour: Rgb,
    /// Marker.
    pub marker: Marker,
    /// Joined by a line (else points alone).
    pub line: bool,
    /// The points, in x order for lines.
    pub points: Vec<Point>,
}

/// A band between two lines `y = x * lo` and `y = x * hi` (calibrate's
/// error bands).
#[derive(Clone, Debug)]
pub struct Band {
    /// Lower factor.
    pub lo: f64,
    /// Upper factor.
    pub hi: f64,
    /// Fill.
    pub colour: Rgb,
    /// Fill opacity.
    pub opacity: f64,
}

/// A text beside a point.
#[derive(Clone, Debug)]
pub struct Note {
    /// The point.
    pub x: f64,
    /// The point.
    pub y: f64,
    /// The text.
    pub text: String,
}

/// An x-y chart.
#[derive(Clone, Debug)]
pub struct XyPanel {
    /// Title above the chart (may be empty).
    pub title: String,
    /// The x axis.
    pub x: AxisSpec,
    /// The y axis.
    pub y: AxisSpec,
    /// A second y scale on the right: its name and the factor from the
    /// left scale's values to its own.
    pub y2: Option<(String, f64)>,
    /// The series.
    pub series: Vec<Series>,
    /// Bands around `y = x`.
    pub bands: Vec<Band>,
    /// Draw `y = x`.
    pub diagonal: bool,
    /// A horizontal reference line at this y (the baseline of a relative
    /// plot).
    pub reference: Option<f64>,
    /// Labelled points.
    pub notes: Vec<Note>,
    /// The height the chart wants, if not the row's.
    pub height: Option<f64>,
}

impl XyPanel {
    /// A chart with axes `x` and `y` and nothing on it yet.
    pub fn new(title: impl Into<String>, x: AxisSpec, y: AxisSpec) -> XyPanel {
        XyPanel {
            title: title.into(),
            x,
            y,
            y2: None,
            series: Vec::new(),
            bands: Vec::new(),
            diagonal: false,
            reference: None,
            notes: Vec::new(),
            height: None,
        }
    }

    /// Every x and y value of the series.
    pub fn values(&self) -> (Vec<f64>, Vec<f64>) {
        let pts = self.series.iter().flat_map(|s| &s.points);
        (
            pts.clone().map(|p| p.x).collect(),
            pts.map(|p| p.y).collect(),
        )
    }
}

/// One row of a stacked bar chart.
#[derive(Clone, Debug)]
pub struct BarRow {
    /// The row's name (a configuration, a kernel).
    pub label: String,
    /// Its segments, left to right: name, value, colour.
    pub segments: Vec<(String, f64, Rgb)>,
}

/// Horizontal stacked bars.
#[derive(Clone, Debug)]
pub struct BarPanel {
    /// Title above the bars.
    pub title: String,
    /// The x axis's name, with its unit.
    pub x_label: String,
    /// The rows, top to bottom.
    pub rows: Vec<BarRow>,
    /// The x axis's end (100 for shares in percent).
    pub max: f64,
}

/// Rows of a bar chart, in pixels.
const BAR_ROW: f64 = 22.0;

impl BarPanel {
    /// The height the panel needs.
    pub fn height(&self) -> f64 {
        title_height(&self.title) + self.rows.len() as f64 * BAR_ROW + 64.0
    }
}

/// A panel of a figure (a figure holds a handful: their size is no
/// concern, so the x-y chart is not boxed).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Panel {
    /// An x-y chart.
    Xy(XyPanel),
    /// Stacked bars.
    Bars(BarPanel),
}

impl Panel {
    /// The height the panel wants (x-y charts take what they are given).
    pub fn height(&self) -> Option<f64> {
        match self {
            Panel::Xy(p) => p.height,
            Panel::Bars(b) => Some(b.height()),
        }
    }

    /// Draws the panel into the rectangle `(x, y, w, h)` of `scene`.
    pub fn draw(&self, scene: &mut Scene, rect: (f64, f64, f64, f64)) {
        match self {
            Panel::Xy(p) => draw_xy(p, scene, rect),
            Panel::Bars(b) => draw_bars(b, scene, rect),
        }
    }
}

fn title_height(title: &str) -> f64 {
    if title.is_empty() { 0.0 } else { 26.0 }
}

/// `text` cut at spaces (after commas first) into lines no wider than
/// `width` at `size` pixels; a word wider than the line stands alone.
pub fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && measure(&candidate, size, false).0 > width {
            lines.push(std::mem::take(&mut line));
            line = word.to_string();
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` shortened with an ellipsis to fit `width`.
fn fit(text: &str, size: f64, width: f64) -> String {
    if measure(text, size, false).0 <= width {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let t: String = chars.iter().collect::<String>() + "…";
        if measure(&t, size, false).0 <= width {
            return t;
        }
    }
    String::new()
}

fn draw_title(scene: &mut Scene, title: &str, rect: (f64, f64, f64, f64)) {
    if !title.is_empty() {
        let (x, y, w, _) = rect;
        scene.items.push(Item::Text {
            x: x + w / 2.0,
            y: y + 13.0,
            text: fit(title, PANEL_TITLE_SIZE, w - 8.0),
            size: PANEL_TITLE_SIZE,
            anchor: Anchor::Middle,
            vertical: false,
            bold: true,
            colour: INK,
            class: "panel-title",
        });
    }
}

/// The labels of `ticks` that can be shown without two touching: along
/// the axis, each needs its own extent (`extent(label)`) plus a gap.
fn spaced(ticks: &[(f64, f64, String)], extent: impl Fn(&str) -> f64) -> Vec<bool> {
    let mut keep = vec![false; ticks.len()];
    let mut last_end = f64::MIN;
    let mut order: Vec<usize> = (0..ticks.len()).collect();
    order.sort_by(|&a, &b| ticks[a].1.total_cmp(&ticks[b].1));
    for i in order {
        let half = extent(&ticks[i].2) / 2.0;
        if ticks[i].1 - half >= last_end + 6.0 {
            keep[i] = true;
            last_end = ticks[i].1 + half;
        }
    }
    keep
}

fn vtext(scene: &mut Scene, x: f64, y: f64, text: &str, class: &'static str) {
    scene.items.push(Item::Text {
        x,
        y,
        text: text.to_string(),
        size: AXIS_LABEL_SIZE,
        anchor: Anchor::Middle,
        vertical: true,
        bold: false,
        colour: INK,
        class,
    });
}

/// Tick labels of a categorical x axis, each cut into lines that fit its
/// slot.
fn category_lines(names: &[String], slot: f64) -> Vec<Vec<String>> {
    names
        .iter()
        .map(|n| {
            wrap(n, TICK_SIZE, slot - 6.0)
                .into_iter()
                .map(|l| fit(&l, TICK_SIZE, slot - 6.0))
                .collect()
        })
        .collect()
}

fn draw_xy(p: &XyPanel, scene: &mut Scene, rect: (f64, f64, f64, f64)) {
    let (x0, y0, w, h) = rect;
    scene.open("panel", p.title.clone());
    draw_title(scene, &p.title, rect);
    let (xs, ys) = p.values();
    let mut xr = p.x.span(&xs);
    let mut yr = p.y.span(&ys);
    if p.diagonal {
        let lo = xr.0.min(yr.0);
        let hi = xr.1.max(yr.1);
        xr = (lo, hi);
        yr = (lo, hi);
    }
    let xt = ticks_of(&p.x, xr);
    let mut yt = ticks_of(&p.y, yr);
    yt.retain(|(v, _)| *v >= yr.0 - 1e-12 && *v <= yr.1 + 1e-12);
    let tick_w = yt
        .iter()
        .map(|(_, l)| measure(l, TICK_SIZE, false).0)
        .fold(0.0, f64::max);
    let left = 10.0 + AXIS_LABEL_SIZE * 1.3 + 6.0 + tick_w + 8.0;
    let y2 = p.y2.as_ref().map(|(label, factor)| {
        let lo = yr.0 * factor;
        let hi = yr.1 * factor;
        let values = match p.y.scale {
            Scale::Log => ticks::log(lo, hi),
            _ => ticks::linear(lo, hi, 6),
        };
        let t: Vec<(f64, String)> = values
            .into_iter()
            .map(|v| (v / factor, ticks::label(v)))
            .collect();
        let width = t
            .iter()
            .map(|(_, l)| measure(l, TICK_SIZE, false).0)
            .fold(0.0, f64::max);
        (label.clone(), t, width)
    });
    let right = match &y2 {
        Some((_, _, width)) => 8.0 + width + 8.0 + AXIS_LABEL_SIZE * 1.3 + 10.0,
        None => 16.0,
    };
    let top = y0 + title_height(&p.title) + 8.0;
    let plot_w = (w - left - right).max(40.0);
    // Categorical x labels wrap into their slot; numeric ones are one line.
    let cat_lines = match &p.x.scale {
        Scale::Category(names) => Some(category_lines(names, plot_w / names.len().max(1) as f64)),
        _ => None,
    };
    let label_lines = cat_lines
        .as_ref()
        .map_or(1, |c| c.iter().map(Vec::len).max().unwrap_or(1));
    let bottom = 8.0 + label_lines as f64 * TICK_SIZE * 1.25 + 8.0 + AXIS_LABEL_SIZE * 1.3 + 6.0;
    let plot_h = (y0 + h - top - bottom).max(40.0);
    let (px0, py0) = (x0 + left, top);
    let (px1, py1) = (px0 + plot_w, py0 + plot_h);
    let mx = Mapping {
        lo: xr.0,
        hi: xr.1,
        p0: px0,
        p1: px1,
        log: p.x.scale == Scale::Log,
    };
    let my = Mapping {
        lo: yr.0,
        hi: yr.1,
        p0: py1,
        p1: py0,
        log: p.y.scale == Scale::Log,
    };
    // Grid and frame.
    for (v, _) in &yt {
        let y = my.at(*v);
        scene.line(vec![(px0, y), (px1, y)], GRID, 1.0, "grid");
    }
    for (v, _) in &xt {
        if mx.contains(*v) {
            let x = mx.at(*v);
            scene.line(vec![(x, py0), (x, py1)], GRID, 1.0, "grid");
        }
    }
    // Bands, the diagonal and the reference line under the data.
    let diag_pts = |f: f64| {
        // y = f x, sampled (straight on log-log axes, where bands are used).
        let n = 24;
        (0..=n)
            .map(|i| {
                let t = i as f64 / n as f64;
                let x = if mx.log {
                    (xr.0.ln() + (xr.1.ln() - xr.0.ln()) * t).exp()
                } else {
                    xr.0 + (xr.1 - xr.0) * t
                };
                (x, f * x)
            })
            .collect::<Vec<_>>()
    };
    let clip = |(x, y): (f64, f64)| (mx.at(x), my.at(y).clamp(py0, py1));
    for band in &p.bands {
        let mut pts: Vec<(f64, f64)> = diag_pts(band.hi).into_iter().map(clip).collect();
        pts.extend(diag_pts(band.lo).into_iter().rev().map(clip));
        scene.items.push(Item::Polygon {
            points: pts,
            fill: band.colour,
            opacity: band.opacity,
            class: "band",
        });
    }
    if p.diagonal {
        let pts = diag_pts(1.0).into_iter().map(clip).collect();
        scene.items.push(Item::Line {
            points: pts,
            colour: INK,
            width: 1.2,
            dashed: true,
            class: "diagonal",
        });
    }
    if let Some(r) = p.reference
        && my.contains(r)
    {
        let y = my.at(r);
        scene.items.push(Item::Line {
            points: vec![(px0, y), (px1, y)],
            colour: MUTED,
            width: 1.2,
            dashed: true,
            class: "reference",
        });
    }
    scene.line(vec![(px0, py0), (px0, py1), (px1, py1)], INK, 1.0, "frame");
    if y2.is_some() {
        scene.line(vec![(px1, py0), (px1, py1)], INK, 1.0, "frame");
    }
    // Y ticks.
    let ylab: Vec<(f64, f64, String)> =
        yt.iter().map(|(v, l)| (*v, my.at(*v), l.clone())).collect();
    let keep = spaced(&ylab, |_| TICK_SIZE * 1.2);
    scene.open("axis-y", p.y.label.clone());
    for ((_, y, label), keep) in ylab.iter().zip(keep) {
        scene.line(vec![(px0 - 5.0, *y), (px0, *y)], INK, 1.0, "tick");
        if keep {
            scene.text(px0 - 8.0, *y, label, TICK_SIZE, Anchor::End, INK, "tick-y");
        }
    }
    vtext(
        scene,
        x0 + 10.0 + AXIS_LABEL_SIZE * 0.65,
        (py0 + py1) / 2.0,
        &fit(&p.y.label, AXIS_LABEL_SIZE, plot_h),
        "axis-y",
    );
    scene.close();
    if let Some((label, t, _)) = &y2 {
        scene.open("axis-y2", label.clone());
        let lab: Vec<(f64, f64, String)> = t
            .iter()
            .filter(|(v, _)| my.contains(*v))
            .map(|(v, l)| (*v, my.at(*v), l.clone()))
            .collect();
        let keep = spaced(&lab, |_| TICK_SIZE * 1.2);
        for ((_, y, l), keep) in lab.iter().zip(keep) {
            scene.line(vec![(px1, *y), (px1 + 5.0, *y)], INK, 1.0, "tick");
            if keep {
                scene.text(px1 + 8.0, *y, l, TICK_SIZE, Anchor::Start, INK, "tick-y2");
            }
        }
        vtext(
            scene,
            x0 + w - 10.0 - AXIS_LABEL_SIZE * 0.65,
            (py0 + py1) / 2.0,
            &fit(label, AXIS_LABEL_SIZE, plot_h),
            "axis-y2",
        );
        scene.close();
    }
    // X ticks.
    scene.open("axis-x", p.x.label.clone());
    match &cat_lines {
        Some(lines) => {
            for (i, lines) in lines.iter().enumerate() {
                let x = mx.at(i as f64);
                scene.line(vec![(x, py1), (x, py1 + 5.0)], INK, 1.0, "tick");
                for (k, l) in lines.iter().enumerate() {
                    let y = py1 + 8.0 + TICK_SIZE * 0.6 + k as f64 * TICK_SIZE * 1.25;
                    scene.text(x, y, l, TICK_SIZE, Anchor::Middle, INK, "tick-x");
                }
            }
        }
        None => {
            let xlab: Vec<(f64, f64, String)> = xt
                .iter()
                .filter(|(v, _)| mx.contains(*v))
                .map(|(v, l)| (*v, mx.at(*v), l.clone()))
                .collect();
            let keep = spaced(&xlab, |l| measure(l, TICK_SIZE, false).0);
            for ((_, x, l), keep) in xlab.iter().zip(keep) {
                scene.line(vec![(*x, py1), (*x, py1 + 5.0)], INK, 1.0, "tick");
                if keep {
                    let y = py1 + 8.0 + TICK_SIZE * 0.6;
                    scene.text(*x, y, l, TICK_SIZE, Anchor::Middle, INK, "tick-x");
                }
            }
        }
    }
    let label_y = py1 + 8.0 + label_lines as f64 * TICK_SIZE * 1.25 + 6.0 + AXIS_LABEL_SIZE * 0.65;
    scene.text(
        (px0 + px1) / 2.0,
        label_y,
        fit(&p.x.label, AXIS_LABEL_SIZE, plot_w),
        AXIS_LABEL_SIZE,
        Anchor::Middle,
        INK,
        "axis-x",
    );
    scene.close();
    // Series.
    for s in &p.series {
        scene.open("series", s.name.clone());
        let pts: Vec<(f64, f64, &Point)> = s
            .points
            .iter()
            .filter(|pt| pt.y.is_finite() && (!my.log || pt.y > 0.0))
            .map(|pt| (mx.at(pt.x), my.at(pt.y), pt))
            .collect();
        if s.line && pts.len() > 1 {
            scene.line(
                pts.iter().map(|&(x, y, _)| (x, y)).collect(),
                s.colour,
                2.0,
                "series-line",
            );
        }
        for (x, y, pt) in &pts {
            scene.items.push(Item::Mark {
                x: *x,
                y: *y,
                shape: s.marker,
                colour: s.colour,
                r: 4.5,
                tip: Some(pt.tip.clone()),
            });
        }
        scene.close();
    }
    // Notes: beside their point, kept inside the plot, off each other and
    // off the other points where there is room.
    let mut placed: Vec<(f64, f64, f64, f64)> = Vec::new();
    let marks: Vec<(f64, f64, f64, f64)> = p
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|pt| pt.y.is_finite() && (!my.log || pt.y > 0.0))
        .map(|pt| {
            let (x, y) = (mx.at(pt.x), my.at(pt.y));
            (x - 5.0, y - 5.0, x + 5.0, y + 5.0)
        })
        .collect();
    for n in &p.notes {
        let (tw, th) = measure(&n.text, NOTE_SIZE, false);
        let (x, y) = (mx.at(n.x), my.at(n.y));
        let candidates = [
            (x + 8.0, y - th / 2.0 - 6.0),
            (x + 8.0, y + 6.0),
            (x - 8.0 - tw, y - th / 2.0 - 6.0),
            (x - 8.0 - tw, y + 6.0),
            (x + 8.0, y - th * 1.6),
            (x - 8.0 - tw, y + th * 1.2),
        ];
        let fits = |&&(l, t): &&(f64, f64)| {
            let r = (l, t, l + tw, t + th);
            r.0 >= px0 + 2.0
                && r.2 <= px1 - 2.0
                && r.1 >= py0 + 2.0
                && r.3 <= py1 - 2.0
                && placed.iter().all(|q| !overlap(*q, r))
        };
        let clear =
            |&&(l, t): &&(f64, f64)| marks.iter().all(|m| !overlap(*m, (l, t, l + tw, t + th)));
        let spot = candidates
            .iter()
            .find(|c| fits(c) && clear(c))
            .or_else(|| candidates.iter().find(fits));
        if let Some(&(l, t)) = spot {
            placed.push((l, t, l + tw, t + th));
            scene.text(
                l,
                t + th / 2.0,
                &n.text,
                NOTE_SIZE,
                Anchor::Start,
                INK,
                "note",
            );
        }
    }
    scene.close();
}

/// Whether two rectangles (left, top, right, bottom) overlap.
pub fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

fn draw_bars(b: &BarPanel, scene: &mut Scene, rect: (f64, f64, f64, f64)) {
    let (x0, y0, w, _) = rect;
    scene.open("bars", b.title.clone());
    draw_title(scene, &b.title, rect);
    let max_label = w * 0.4;
    let labels: Vec<String> = b
        .rows
        .iter()
        .map(|r| fit(&r.label, TICK_SIZE, max_label))
        .collect();
    let label_w = labels
        .iter()
        .map(|l| measure(l, TICK_SIZE, false).0)
        .fold(0.0, f64::max);
    let px0 = x0 + 10.0 + label_w + 8.0;
    let px1 = x0 + w - 20.0;
    let py0 = y0 + title_height(&b.title) + 6.0;
    let py1 = py0 + b.rows.len() as f64 * BAR_ROW;
    let mx = Mapping {
        lo: 0.0,
        hi: b.max,
        p0: px0,
        p1: px1,
        log: false,
    };
    let xt = ticks::linear(0.0, b.max, 5);
    for v in &xt {
        let x = mx.at(*v);
        scene.line(vec![(x, py0), (x, py1)], GRID, 1.0, "grid");
    }
    for (i, (row, label)) in b.rows.iter().zip(&labels).enumerate() {
        let yc = py0 + (i as f64 + 0.5) * BAR_ROW;
        scene.open("bar", row.label.clone());
        scene.text(px0 - 8.0, yc, label, TICK_SIZE, Anchor::End, INK, "tick-y");
        let mut at = 0.0;
        for (name, value, colour) in &row.segments {
            if *value <= 0.0 {
                continue;
            }
            let (l, r) = (mx.at(at), mx.at((at + value).min(b.max)));
            scene.items.push(Item::Rect {
                x: l,
                y: yc - BAR_ROW * 0.34,
                w: r - l,
                h: BAR_ROW * 0.68,
                fill: Some(*colour),
                stroke: None,
                tip: Some(format!(
                    "{}: {name} {}",
                    row.label,
                    ticks::significant(*value, 3)
                )),
                class: "segment",
            });
            at += value;
        }
        scene.close();
    }
    scene.line(vec![(px0, py0), (px0, py1), (px1, py1)], INK, 1.0, "frame");
    scene.open("axis-x", b.x_label.clone());
    for v in &xt {
        let x = mx.at(*v);
        scene.line(vec![(x, py1), (x, py1 + 5.0)], INK, 1.0, "tick");
        scene.text(
            x,
            py1 + 8.0 + TICK_SIZE * 0.6,
            ticks::label(*v),
            TICK_SIZE,
            Anchor::Middle,
            INK,
            "tick-x",
        );
    }
    scene.text(
        (px0 + px1) / 2.0,
        py1 + 8.0 + TICK_SIZE * 1.25 + 6.0 + AXIS_LABEL_SIZE * 0.65,
        fit(&b.x_label, AXIS_LABEL_SIZE, px1 - px0),
        AXIS_LABEL_SIZE,
        Anchor::Middle,
        INK,
        "axis-x",
    );
    scene.close();
    scene.close();
}

/// The shared y range of several panels' data (small multiples share
/// their scale so they compare at a glance).
pub fn shared_range(spec: &AxisSpec, values: &[f64]) -> (f64, f64) {
    range_of(&spec.scale, spec.from_zero, values)
}
