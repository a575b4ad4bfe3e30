//! A figure: a title, the lines that say what was held fixed, legends,
//! and panels laid out in rows (small multiples on a grid, or panels side
//! by side), measured so that the picture is as tall as what it holds.

use super::panel::{Panel, wrap};
use super::scene::{Anchor, Item, Scene, measure};
use super::style::{HEADING_SIZE, INK, LEGEND_SIZE, MUTED, Marker, Rgb, SUBTITLE_SIZE, TITLE_SIZE};

/// A legend entry's sample.
#[derive(Clone, Debug)]
pub enum Sample {
    /// A line with a marker (a series).
    Series(Rgb, Marker, bool),
    /// A dashed line.
    Dashed(Rgb),
    /// A filled box (a bar segment, a band).
    Swatch(Rgb, f64),
}

/// A legend: a heading and entries.
#[derive(Clone, Debug)]
pub struct Legend {
    /// What the entries are (`layout`, `stall reason`).
    pub title: String,
    /// Each entry's sample and text.
    pub entries: Vec<(Sample, String)>,
}

/// A block of the figure, top to bottom.
#[derive(Clone, Debug)]
pub enum Block {
    /// A heading over the blocks that follow it, with a line of notes
    /// under it (may be empty).
    Heading(String, String),
    /// A legend, its entries flowing in rows.
    Legend(Legend),
    /// Panels on a grid of `columns`, each row `height` pixels tall.
    Grid {
        /// Columns.
        columns: usize,
        /// Height of a row.
        height: f64,
        /// The panels, row by row.
        panels: Vec<Panel>,
    },
    /// Panels side by side, each with its share of the width (shares
    /// that sum to less than 1 leave the rest of the line blank, so that
    /// the panels of a short last line keep the width of those above).
    Row(Vec<(f64, Panel)>),
}

/// A whole figure.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Width in pixels.
    pub width: f64,
    /// The title (what the picture answers).
    pub title: String,
    /// What was held fixed, and other context, under the title.
    pub subtitle: String,
    /// The blocks.
    pub blocks: Vec<Block>,
}

/// The space around a figure's content, on every side.
pub const MARGIN: f64 = 16.0;
const ENTRY_GAP: f64 = 22.0;
const SAMPLE_W: f64 = 28.0;

/// Legend rows: each entry's width, flowing into lines of `width`.
fn legend_rows(legend: &Legend, width: f64) -> Vec<Vec<usize>> {
    let title_w = measure(&legend.title, LEGEND_SIZE, true).0 + 12.0;
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = title_w;
    for (i, (_, text)) in legend.entries.iter().enumerate() {
        let w = SAMPLE_W + 6.0 + measure(text, LEGEND_SIZE, false).0 + ENTRY_GAP;
        if used + w > width && !rows.last().is_some_and(Vec::is_empty) {
            rows.push(Vec::new());
            used = title_w;
        }
        rows.last_mut().expect("a row").push(i);
        used += w;
    }
    rows
}

const LEGEND_ROW: f64 = 22.0;
/// A heading's line.
const HEADING_ROW: f64 = 26.0;

impl Figure {
    /// The figure laid out as a scene.
    pub fn render(&self) -> Scene {
        let inner = self.width - 2.0 * MARGIN;
        let title_lines = wrap(&self.title, TITLE_SIZE, inner);
        let sub_lines = if self.subtitle.is_empty() {
            Vec::new()
        } else {
            wrap(&self.subtitle, SUBTITLE_SIZE, inner)
        };
        let mut y = MARGIN;
        let mut items_height = 0.0;
        let block_heights: Vec<f64> = self
            .blocks
            .iter()
            .map(|b| match b {
                Block::Legend(l) => legend_rows(l, inner).len() as f64 * LEGEND_ROW + 6.0,
                Block::Heading(_, note) => {
                    HEADING_ROW
                        + wrap(note, SUBTITLE_SIZE, inner).len() as f64 * SUBTITLE_SIZE * 1.4
                }
                Block::Grid {
                    columns,
                    height,
                    panels,
                } => {
                    let rows = panels.len().div_ceil((*columns).max(1));
                    let tallest = panels
                        .iter()
                        .filter_map(Panel::height)
                        .fold(*height, f64::max);
                    rows as f64 * tallest
                }
                Block::Row(panels) => panels
                    .iter()
                    .map(|(_, p)| p.height().unwrap_or(400.0))
                    .fold(0.0, f64::max),
            })
            .collect();
        for h in &block_heights {
            items_height += h + 8.0;
        }
        let head = title_lines.len() as f64 * TITLE_SIZE * 1.35
            + sub_lines.len() as f64 * SUBTITLE_SIZE * 1.4
            + 10.0;
        let height = (MARGIN + head + items_height + MARGIN).ceil();
        let mut scene = Scene::new(self.width, height);
        scene.open("figure", self.title.clone());
        for line in &title_lines {
            scene.items.push(Item::Text {
                x: self.width / 2.0,
                y: y + TITLE_SIZE * 0.65,
                text: line.clone(),
                size: TITLE_SIZE,
                anchor: Anchor::Middle,
                vertical: false,
                bold: true,
                colour: INK,
                class: "title",
            });
            y += TITLE_SIZE * 1.35;
        }
        for line in &sub_lines {
            scene.text(
                self.width / 2.0,
                y + SUBTITLE_SIZE * 0.65,
                line.clone(),
                SUBTITLE_SIZE,
                Anchor::Middle,
                MUTED,
                "subtitle",
            );
            y += SUBTITLE_SIZE * 1.4;
        }
        y += 10.0;
        for (block, h) in self.blocks.iter().zip(&block_heights) {
            match block {
                Block::Legend(l) => draw_legend(&mut scene, l, MARGIN, y, inner),
                Block::Heading(text, note) => {
                    scene.open("heading", text.clone());
                    scene.items.push(Item::Text {
                        x: MARGIN,
                        y: y + HEADING_ROW / 2.0,
                        text: text.clone(),
                        size: HEADING_SIZE,
                        anchor: Anchor::Start,
                        vertical: false,
                        bold: true,
                        colour: INK,
                        class: "heading",
                    });
                    for (i, line) in wrap(note, SUBTITLE_SIZE, inner).into_iter().enumerate() {
                        scene.text(
                            MARGIN,
                            y + HEADING_ROW + SUBTITLE_SIZE * (0.7 + 1.4 * i as f64),
                            line,
                            SUBTITLE_SIZE,
                            Anchor::Start,
                            MUTED,
                            "heading-note",
                        );
                    }
                    scene.close();
                }
                Block::Grid {
                    columns, panels, ..
                } => {
                    let columns = (*columns).max(1);
                    let rows = panels.len().div_ceil(columns).max(1);
                    let (pw, ph) = (inner / columns as f64, h / rows as f64);
                    for (i, p) in panels.iter().enumerate() {
                        let (r, c) = (i / columns, i % columns);
                        p.draw(
                            &mut scene,
                            (MARGIN + c as f64 * pw, y + r as f64 * ph, pw, ph),
                        );
                    }
                }
                Block::Row(panels) => {
                    let total: f64 = panels.iter().map(|(w, _)| w).sum::<f64>().max(1.0);
                    let mut x = MARGIN;
                    for (share, p) in panels {
                        let pw = inner * share / total.max(1e-9);
                        p.draw(&mut scene, (x, y, pw, *h));
                        x += pw;
                    }
                }
            }
            y += h + 8.0;
        }
        scene.close();
        scene
    }
}

fn draw_legend(scene: &mut Scene, legend: &Legend, x0: f64, y0: f64, width: f64) {
    scene.open("legend", legend.title.clone());
    let title_w = measure(&legend.title, LEGEND_SIZE, true).0 + 12.0;
    for (r, row) in legend_rows(legend, width).iter().enumerate() {
        let yc = y0 + r as f64 * LEGEND_ROW + LEGEND_ROW / 2.0;
        if r == 0 {
            scene.items.push(Item::Text {
                x: x0,
                y: yc,
                text: legend.title.clone(),
                size: LEGEND_SIZE,
                anchor: Anchor::Start,
                vertical: false,
                bold: true,
                colour: INK,
                class: "legend-title",
            });
        }
        let mut x = x0 + title_w;
        for &i in row {
            let (sample, text) = &legend.entries[i];
            match sample {
                Sample::Series(c, m, line) => {
                    if *line {
                        scene.line(vec![(x, yc), (x + SAMPLE_W, yc)], *c, 2.0, "legend-sample");
                    }
                    scene.items.push(Item::Mark {
                        x: x + SAMPLE_W / 2.0,
                        y: yc,
                        shape: *m,
                        colour: *c,
                        r: 4.5,
                        tip: None,
                    });
                }
                Sample::Dashed(c) => scene.items.push(Item::Line {
                    points: vec![(x, yc), (x + SAMPLE_W, yc)],
                    colour: *c,
                    width: 1.5,
                    dashed: true,
                    class: "legend-sample",
                }),
                Sample::Swatch(c, opacity) => scene.items.push(Item::Polygon {
                    points: vec![
                        (x, yc - 6.0),
                        (x + SAMPLE_W, yc - 6.0),
                        (x + SAMPLE_W, yc + 6.0),
                        (x, yc + 6.0),
                    ],
                    fill: *c,
                    opacity: *opacity,
                    class: "legend-sample",
                }),
            }
            scene.text(
                x + SAMPLE_W + 6.0,
                yc,
                text.clone(),
                LEGEND_SIZE,
                Anchor::Start,
                INK,
                "legend-entry",
            );
            x += SAMPLE_W + 6.0 + measure(text, LEGEND_SIZE, false).0 + ENTRY_GAP;
        }
    }
    scene.close();
}
