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
    /// The width of the row names at the left: `None` to fit them (up to
    /// 40% of the panel), `Some(0.0)` for none (a panel beside another
    /// that names the same rows), `Some(w)` for `w` pixels.
    pub label_space: Option<f64>,
    /// What every bar of the panel belongs to (a kernel), said first in
    /// each hover text.
    pub context: Option<String>,
    /// Said in a row that has nothing to draw (`not launched`).
    pub empty: String,
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
    let marks: Vec<(f64, f64)> = p
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|pt| pt.y.is_finite() && (!my.log || pt.y > 0.0))
        .map(|pt| (mx.at(pt.x), my.at(pt.y)))
        .collect();
    let notes: Vec<(f64, f64, String)> = p
        .notes
        .iter()
        .map(|n| (mx.at(n.x), my.at(n.y), n.text.clone()))
        .collect();
    for placed in place_notes(&notes, &marks, (px0, py0, px1, py1)) {
        if let Some(leader) = placed.leader {
            scene.line(leader.to_vec(), MUTED, 1.0, "leader");
        }
        let (l, t, _, b) = placed.rect;
        scene.text(
            l,
            (t + b) / 2.0,
            &placed.text,
            NOTE_SIZE,
            Anchor::Start,
            INK,
            "note",
        );
    }
    scene.close();
}

/// A note where [`place_notes`] put it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedNote {
    /// The text.
    pub text: String,
    /// Its box: left, top, right, bottom.
    pub rect: (f64, f64, f64, f64),
    /// The line from the point to the box, where the box had to move away
    /// from its point.
    pub leader: Option<[(f64, f64); 2]>,
}

/// How far a marker reaches from its centre, with a pixel to spare.
const MARK_REACH: f64 = 6.5;

/// Places each note `(x, y, text)` (in pixels, in order: the first gets
/// the best place) beside its point inside `area` (left, top, right,
/// bottom), off every marker at `marks`, off the notes already placed and
/// their leader lines: the first of a fixed list of places that is free,
/// trying above-right, below-right, above-left, below-left, above, below,
/// right and left of the point, at growing distances. A note set further
/// than beside its point gets a leader line, which passes no other point
/// where such a place exists. Where no place is free the note is set at
/// the first place inside the area that keeps off the other notes, and
/// where there is none of those it is left out. Deterministic: the same
/// notes and points give the same places.
pub fn place_notes(
    notes: &[(f64, f64, String)],
    marks: &[(f64, f64)],
    area: (f64, f64, f64, f64),
) -> Vec<PlacedNote> {
    const DIRECTIONS: [(i8, i8); 8] = [
        (1, -1),
        (1, 1),
        (-1, -1),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, 0),
        (-1, 0),
    ];
    let mark_boxes: Vec<(f64, f64, f64, f64)> = marks
        .iter()
        .map(|&(x, y)| {
            (
                x - MARK_REACH,
                y - MARK_REACH,
                x + MARK_REACH,
                y + MARK_REACH,
            )
        })
        .collect();
    let mut placed: Vec<PlacedNote> = Vec::new();
    for (x, y, text) in notes {
        let (x, y) = (*x, *y);
        let (tw, th) = measure(text, NOTE_SIZE, false);
        let mut candidates: Vec<((f64, f64, f64, f64), bool)> = Vec::new();
        for step in 0..10 {
            let (ox, oy) = (8.0 + 18.0 * step as f64, 7.0 + 14.0 * step as f64);
            for (dx, dy) in DIRECTIONS {
                let left = match dx {
                    1 => x + ox,
                    -1 => x - ox - tw,
                    _ => x - tw / 2.0,
                };
                let top = match dy {
                    -1 => y - oy - th,
                    1 => y + oy,
                    _ => y - th / 2.0,
                };
                candidates.push(((left, top, left + tw, top + th), step > 0));
            }
        }
        let inside = |r: &(f64, f64, f64, f64)| {
            r.0 >= area.0 + 2.0 && r.2 <= area.2 - 2.0 && r.1 >= area.1 + 2.0 && r.3 <= area.3 - 2.0
        };
        let apart = |r: &(f64, f64, f64, f64)| {
            let grown = (r.0 - 2.0, r.1 - 1.0, r.2 + 2.0, r.3 + 1.0);
            placed
                .iter()
                .all(|q| !overlap(q.rect, grown) && q.leader.is_none_or(|l| !crosses(l, grown)))
        };
        let leader_of = |r: &(f64, f64, f64, f64)| -> [(f64, f64); 2] {
            let to = (x.clamp(r.0, r.2), y.clamp(r.1, r.3));
            let (vx, vy) = (to.0 - x, to.1 - y);
            let len = (vx * vx + vy * vy).sqrt().max(1e-9);
            [(x + vx / len * 5.0, y + vy / len * 5.0), to]
        };
        // Off the points, and (`clear_leader`) with a leader that passes
        // no other point; either way the leader crosses no other note.
        let free = |(r, far): &((f64, f64, f64, f64), bool), clear_leader: bool| {
            inside(r)
                && apart(r)
                && mark_boxes.iter().all(|m| !overlap(*m, *r))
                && (!far || {
                    let l = leader_of(r);
                    placed.iter().all(|q| !crosses(l, q.rect))
                        && (!clear_leader
                            || mark_boxes
                                .iter()
                                .zip(marks)
                                .filter(|(_, c)| **c != (x, y))
                                .all(|(m, _)| !crosses(l, *m)))
                })
        };
        // A point inside a cloud has no clear way out: its leader may
        // then pass over its neighbours, but its note still keeps off them.
        let spot = candidates
            .iter()
            .find(|c| free(c, true))
            .or_else(|| candidates.iter().find(|c| free(c, false)))
            .or_else(|| candidates.iter().find(|(r, _)| inside(r) && apart(r)));
        if let Some(&(rect, far)) = spot {
            placed.push(PlacedNote {
                text: text.clone(),
                rect,
                leader: far.then(|| leader_of(&rect)),
            });
        }
    }
    placed
}

/// Whether the segment `s` passes through the rectangle `r` (left, top,
/// right, bottom): sampled every pixel or so, which is all a drawing needs.
fn crosses(s: [(f64, f64); 2], r: (f64, f64, f64, f64)) -> bool {
    let [(x0, y0), (x1, y1)] = s;
    let n = ((x1 - x0).abs().max((y1 - y0).abs()).ceil() as usize).max(1);
    (0..=n).any(|i| {
        let t = i as f64 / n as f64;
        let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
        x > r.0 && x < r.2 && y > r.1 && y < r.3
    })
}

/// Whether two rectangles (left, top, right, bottom) overlap.
pub fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

fn draw_bars(b: &BarPanel, scene: &mut Scene, rect: (f64, f64, f64, f64)) {
    let (x0, y0, w, _) = rect;
    scene.open("bars", b.title.clone());
    draw_title(scene, &b.title, rect);
    let max_label = b.label_space.unwrap_or(w * 0.4);
    let labels: Vec<String> = b
        .rows
        .iter()
        .map(|r| fit(&r.label, TICK_SIZE, max_label))
        .collect();
    let px0 = match b.label_space {
        Some(space) if space <= 0.0 => x0 + 10.0,
        Some(space) => x0 + 10.0 + space + 8.0,
        None => {
            let label_w = labels
                .iter()
                .map(|l| measure(l, TICK_SIZE, false).0)
                .fold(0.0, f64::max);
            x0 + 10.0 + label_w + 8.0
        }
    };
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
        if b.label_space.is_none_or(|space| space > 0.0) {
            scene.text(px0 - 8.0, yc, label, TICK_SIZE, Anchor::End, INK, "tick-y");
        }
        if row.segments.iter().all(|(_, v, _)| *v <= 0.0) && !b.empty.is_empty() {
            scene.text(
                px0 + 6.0,
                yc,
                &b.empty,
                NOTE_SIZE,
                Anchor::Start,
                MUTED,
                "empty",
            );
        }
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
                    "{}{}: {name} {}",
                    b.context
                        .as_ref()
                        .map_or(String::new(), |c| format!("{c}, ")),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn check(placed: &[PlacedNote], marks: &[(f64, f64)], area: (f64, f64, f64, f64)) {
        for (i, n) in placed.iter().enumerate() {
            let r = n.rect;
            assert!(
                r.0 >= area.0 && r.2 <= area.2 && r.1 >= area.1 && r.3 <= area.3,
                "{n:?} leaves the plot"
            );
            for &(x, y) in marks {
                let m = (x - 4.5, y - 4.5, x + 4.5, y + 4.5);
                assert!(!overlap(m, r), "{} sits on the point at {x},{y}", n.text);
            }
            for o in &placed[i + 1..] {
                assert!(!overlap(o.rect, r), "{} overlaps {}", n.text, o.text);
            }
        }
    }

    #[test]
    fn notes_in_a_crowd_keep_off_every_point_and_each_other_with_leaders_when_moved() {
        // A calibrate plot's worst launches sit among the others: a tight
        // cloud of points, five of them labelled.
        let mut marks = Vec::new();
        for i in 0..6 {
            for j in 0..4 {
                marks.push((
                    300.0 + 11.0 * i as f64 + 3.0 * j as f64,
                    200.0 + 9.0 * j as f64,
                ));
            }
        }
        let notes: Vec<(f64, f64, String)> = [0, 5, 9, 14, 23]
            .iter()
            .map(|&k| (marks[k].0, marks[k].1, format!("hs64k_h16 bs {k}: +30%")))
            .collect();
        let area = (50.0, 20.0, 750.0, 560.0);
        let placed = place_notes(&notes, &marks, area);
        assert_eq!(placed.len(), 5, "every note placed: {placed:?}");
        check(&placed, &marks, area);
        assert!(placed.iter().any(|n| n.leader.is_some()), "{placed:?}");
        // Each leader starts at its own point and ends on its note's box.
        for (n, (x, y, _)) in placed.iter().zip(&notes) {
            if let Some([from, to]) = n.leader {
                assert!(((from.0 - x).powi(2) + (from.1 - y).powi(2)).sqrt() < 6.0);
                let r = n.rect;
                assert!(to.0 >= r.0 && to.0 <= r.2 && to.1 >= r.1 && to.1 <= r.3);
            }
        }
        assert_eq!(place_notes(&notes, &marks, area), placed, "deterministic");
    }

    #[test]
    fn a_lone_point_gets_its_note_beside_it_without_a_leader() {
        let marks = [(100.0, 100.0)];
        let area = (0.0, 0.0, 400.0, 300.0);
        let placed = place_notes(&[(100.0, 100.0, "bs +12%".into())], &marks, area);
        assert_eq!(placed.len(), 1);
        assert_eq!(placed[0].leader, None);
        assert!(
            placed[0].rect.0 > 100.0 && placed[0].rect.3 < 100.0,
            "above right"
        );
        // At the right edge the note turns to the left.
        let placed = place_notes(&[(398.0, 100.0, "bs +12%".into())], &[(398.0, 100.0)], area);
        assert!(placed[0].rect.2 < 398.0, "{placed:?}");
        check(&placed, &[(398.0, 100.0)], area);
    }
}
