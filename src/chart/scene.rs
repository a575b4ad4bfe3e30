//! A drawn figure as a list of primitives in pixels: text, lines, boxes,
//! markers. One scene writes itself as SVG (with `class` names and hover
//! titles, so tests and the HTML report can read its structure) or draws
//! itself through plotters' bitmap backend as PNG, and knows where every
//! text lies (tests check that none leaves the canvas or overlaps another).

use std::fmt::Write as _;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{FONT, Marker, Rgb, SVG_FONT};

/// Where a text's anchor point is, horizontally.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The text starts at the point.
    Start,
    /// The text is centred on the point.
    Middle,
    /// The text ends at the point.
    End,
}

/// One primitive.
#[derive(Clone, Debug)]
pub enum Item {
    /// A group's start: `class` and `label` name what it holds.
    Open {
        /// What the group is (`panel`, `series`, `legend`, ...).
        class: &'static str,
        /// Which one (the panel's title, the series' name).
        label: String,
    },
    /// The end of the last group opened.
    Close,
    /// A line of text, vertically centred on `y`.
    Text {
        /// Anchor point.
        x: f64,
        /// Anchor point (the text's vertical middle).
        y: f64,
        /// The text.
        text: String,
        /// Font size in pixels.
        size: f64,
        /// Horizontal anchor.
        anchor: Anchor,
        /// Turned a quarter left (a y axis's name).
        vertical: bool,
        /// Bold.
        bold: bool,
        /// Colour.
        colour: Rgb,
        /// What it is (`title`, `tick-x`, `axis-y`, ...).
        class: &'static str,
    },
    /// A polyline.
    Line {
        /// Its points.
        points: Vec<(f64, f64)>,
        /// Colour.
        colour: Rgb,
        /// Stroke width.
        width: f64,
        /// Dashed.
        dashed: bool,
        /// What it is.
        class: &'static str,
    },
    /// A filled polygon (error bands).
    Polygon {
        /// Its corners.
        points: Vec<(f64, f64)>,
        /// Fill colour.
        fill: Rgb,
        /// Fill opacity, 0 to 1.
        opacity: f64,
        /// What it is.
        class: &'static str,
    },
    /// A rectangle (bars, frames).
    Rect {
        /// Left.
        x: f64,
        /// Top.
        y: f64,
        /// Width.
        w: f64,
        /// Height.
        h: f64,
        /// Fill, if any.
        fill: Option<Rgb>,
        /// Outline, if any.
        stroke: Option<Rgb>,
        /// Hover text.
        tip: Option<String>,
        /// What it is.
        class: &'static str,
    },
    /// A data point's marker.
    Mark {
        /// Centre.
        x: f64,
        /// Centre.
        y: f64,
        /// Shape.
        shape: Marker,
        /// Colour.
        colour: Rgb,
        /// Radius.
        r: f64,
        /// Hover text (the point's configuration and value).
        tip: Option<String>,
    },
}

/// A figure: its size and its primitives, in drawing order.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Width in pixels.
    pub width: f64,
    /// Height in pixels.
    pub height: f64,
    /// The primitives.
    pub items: Vec<Item>,
}

/// A text's box on the canvas.
#[derive(Clone, Debug, PartialEq)]
pub struct TextBox {
    /// The text.
    pub text: String,
    /// Its class.
    pub class: &'static str,
    /// Left, top, right, bottom.
    pub rect: (f64, f64, f64, f64),
}

/// Plotters sizes a font by its line height (ascent plus descent), an SVG
/// viewer by its em: DejaVu Sans's line is 1.164 em, so text drawn or
/// measured through plotters at `size` pixels is this much larger, and
/// matches the SVG's `font-size`.
pub const EM_TO_PLOTTERS: f64 = 1.164;

/// Bold text is wider than the regular face that measures it (DejaVu Sans
/// Bold runs about 10% wider).
const BOLD_WIDER: f64 = 1.12;

/// The width and height of `text` at `size` pixels (an SVG font size) in
/// the plot font (registered by [`super::register_font`]; an estimate
/// without it).
pub fn measure(text: &str, size: f64, bold: bool) -> (f64, f64) {
    let font = FontDesc::new(
        FontFamily::Name(FONT),
        size * EM_TO_PLOTTERS,
        FontStyle::Normal,
    );
    let wider = if bold { BOLD_WIDER } else { 1.0 };
    match font.box_size(text) {
        // The box is the glyphs' ink; a line of text needs its full height.
        Ok((w, _)) => (f64::from(w) * wider, size * 1.2),
        Err(_) => (text.chars().count() as f64 * size * 0.6 * wider, size * 1.2),
    }
}

impl Scene {
    /// An empty scene of `width` x `height` pixels.
    pub fn new(width: f64, height: f64) -> Scene {
        Scene {
            width,
            height,
            items: Vec::new(),
        }
    }

    /// Opens a group.
    pub fn open(&mut self, class: &'static str, label: impl Into<String>) {
        self.items.push(Item::Open {
            class,
            label: label.into(),
        });
    }

    /// Closes the last group opened.
    pub fn close(&mut self) {
        self.items.push(Item::Close);
    }

    /// Adds a horizontal line of text.
    #[allow(clippy::too_many_arguments)]
    pub fn text(
        &mut self,
        x: f64,
        y: f64,
        text: impl Into<String>,
        size: f64,
        anchor: Anchor,
        colour: Rgb,
        class: &'static str,
    ) {
        self.items.push(Item::Text {
            x,
            y,
            text: text.into(),
            size,
            anchor,
            vertical: false,
            bold: false,
            colour,
            class,
        });
    }

    /// Adds a straight or broken line.
    pub fn line(&mut self, points: Vec<(f64, f64)>, colour: Rgb, width: f64, class: &'static str) {
        self.items.push(Item::Line {
            points,
            colour,
            width,
            dashed: false,
            class,
        });
    }

    /// Every text's box, from the font's measure.
    pub fn text_boxes(&self) -> Vec<TextBox> {
        self.items
            .iter()
            .filter_map(|item| match item {
                Item::Text {
                    x,
                    y,
                    text,
                    size,
                    anchor,
                    vertical,
                    bold,
                    class,
                    ..
                } => {
                    let (w, h) = measure(text, *size, *bold);
                    let (along, across) = (w, h);
                    let start = match anchor {
                        Anchor::Start => 0.0,
                        Anchor::Middle => -along / 2.0,
                        Anchor::End => -along,
                    };
                    let rect = if *vertical {
                        // Turned left: the text runs upwards from the anchor.
                        (
                            x - across / 2.0,
                            y - start - along,
                            x + across / 2.0,
                            y - start,
                        )
                    } else {
                        (
                            x + start,
                            y - across / 2.0,
                            x + start + along,
                            y + across / 2.0,
                        )
                    };
                    Some(TextBox {
                        text: text.clone(),
                        class,
                        rect,
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// The scene as an SVG document.
    pub fn to_svg(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"{SVG_FONT}\">",
            w = self.width,
            h = self.height
        );
        let _ = writeln!(
            s,
            "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
            self.width, self.height
        );
        for item in &self.items {
            svg_item(&mut s, item);
        }
        s.push_str("</svg>\n");
        s
    }

    /// Draws the scene on a plotters drawing area (the PNG path).
    pub fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let p = |x: f64, y: f64| (x.round() as i32, y.round() as i32);
        let rgb = |c: Rgb| RGBColor(c.0, c.1, c.2);
        for item in &self.items {
            match item {
                Item::Open { .. } | Item::Close => {}
                Item::Text {
                    x,
                    y,
                    text,
                    size,
                    anchor,
                    vertical,
                    bold,
                    colour,
                    ..
                } => {
                    let h = match anchor {
                        Anchor::Start => HPos::Left,
                        Anchor::Middle => HPos::Center,
                        Anchor::End => HPos::Right,
                    };
                    let style = if *bold {
                        FontStyle::Bold
                    } else {
                        FontStyle::Normal
                    };
                    let mut font =
                        FontDesc::new(FontFamily::Name(FONT), size * EM_TO_PLOTTERS, style)
                            .color(&rgb(*colour))
                            .pos(Pos::new(h, VPos::Center));
                    if *vertical {
                        font = font.transform(FontTransform::Rotate270);
                    }
                    root.draw(&Text::new(text.clone(), p(*x, *y), font))
                        .map_err(e)?;
                }
                Item::Line {
                    points,
                    colour,
                    width,
                    dashed,
                    ..
                } => {
                    let style = rgb(*colour).stroke_width(width.round().max(1.0) as u32);
                    let segments = if *dashed {
                        dashes(points, 6.0, 4.0)
                    } else {
                        vec![points.clone()]
                    };
                    for seg in segments {
                        let pts: Vec<(i32, i32)> = seg.iter().map(|&(x, y)| p(x, y)).collect();
                        root.draw(&PathElement::new(pts, style)).map_err(e)?;
                    }
                }
                Item::Polygon {
                    points,
                    fill,
                    opacity,
                    ..
                } => {
                    let pts: Vec<(i32, i32)> = points.iter().map(|&(x, y)| p(x, y)).collect();
                    let colour = RGBAColor(fill.0, fill.1, fill.2, *opacity);
                    root.draw(&Polygon::new(pts, colour.filled())).map_err(e)?;
                }
                Item::Rect {
                    x,
                    y,
                    w,
                    h,
                    fill,
                    stroke,
                    ..
                } => {
                    let corners = [p(*x, *y), p(x + w, y + h)];
                    if let Some(f) = fill {
                        root.draw(&Rectangle::new(corners, rgb(*f).filled()))
                            .map_err(e)?;
                    }
                    if let Some(s) = stroke {
                        root.draw(&Rectangle::new(corners, rgb(*s).stroke_width(1)))
                            .map_err(e)?;
                    }
                }
                Item::Mark {
                    x,
                    y,
                    shape,
                    colour,
                    r,
                    ..
                } => {
                    let c = rgb(*colour);
                    match glyph(*shape, *x, *y, *r) {
                        Glyph::Disc => {
                            root.draw(&Circle::new(p(*x, *y), r.round() as i32, c.filled()))
                                .map_err(e)?;
                        }
                        Glyph::Ring => {
                            root.draw(&Circle::new(p(*x, *y), r.round() as i32, c.stroke_width(2)))
                                .map_err(e)?;
                        }
                        Glyph::Strokes(strokes) => {
                            for (a, b) in strokes {
                                root.draw(&PathElement::new(
                                    vec![p(a.0, a.1), p(b.0, b.1)],
                                    c.stroke_width(2),
                                ))
                                .map_err(e)?;
                            }
                        }
                        Glyph::Polygon(points) => {
                            let pts: Vec<(i32, i32)> =
                                points.iter().map(|&(x, y)| p(x, y)).collect();
                            root.draw(&Polygon::new(pts, c.filled())).map_err(e)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The scene's pixels, 3 bytes (RGB) a pixel, rows top down.
    pub fn to_rgb(&self) -> Result<Vec<u8>, String> {
        let (w, h) = self.pixels();
        let mut buffer = vec![0u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut buffer, (w, h)).into_drawing_area();
            self.draw(&root)?;
            root.present().map_err(super::present_error)?;
        }
        Ok(buffer)
    }

    /// Draws the scene into a PNG file at `path`.
    pub fn write_png(&self, path: &std::path::Path) -> Result<(), String> {
        let root = BitMapBackend::new(path, self.pixels()).into_drawing_area();
        self.draw(&root)?;
        root.present().map_err(super::present_error)
    }

    fn pixels(&self) -> (u32, u32) {
        (self.width.ceil() as u32, self.height.ceil() as u32)
    }
}

/// A polyline cut into dashes of `on` pixels with gaps of `off`.
fn dashes(points: &[(f64, f64)], on: f64, off: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    for w in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        let len = ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt();
        let mut t = 0.0;
        while t < len {
            let t1 = (t + on).min(len);
            let at = |t: f64| (x0 + (x1 - x0) * t / len, y0 + (y1 - y0) * t / len);
            out.push(vec![at(t), at(t1)]);
            t += on + off;
        }
    }
    out
}

/// What a marker is made of, in pixels: the one description both the
/// SVG writer and the PNG painter draw, so the two never disagree.
#[derive(Clone, Debug, PartialEq)]
enum Glyph {
    /// A filled circle of the marker's radius.
    Disc,
    /// An open circle of the marker's radius, 2 pixels wide.
    Ring,
    /// Strokes 2 pixels wide, each from one point to another.
    Strokes(Vec<((f64, f64), (f64, f64))>),
    /// A filled polygon.
    Polygon(Vec<(f64, f64)>),
}

/// The glyph of a `shape` marker of radius `r` centred on `(x, y)`.
fn glyph(shape: Marker, x: f64, y: f64, r: f64) -> Glyph {
    match shape {
        Marker::Circle => Glyph::Disc,
        Marker::Ring => Glyph::Ring,
        Marker::Cross => {
            let d = r * 0.85;
            Glyph::Strokes(vec![
                ((x - d, y - d), (x + d, y + d)),
                ((x - d, y + d), (x + d, y - d)),
            ])
        }
        Marker::Square => {
            let d = r * 0.85;
            Glyph::Polygon(vec![
                (x - d, y - d),
                (x + d, y - d),
                (x + d, y + d),
                (x - d, y + d),
            ])
        }
        Marker::Triangle => Glyph::Polygon(vec![
            (x, y - r * 1.1),
            (x + r, y + r * 0.7),
            (x - r, y + r * 0.7),
        ]),
        Marker::TriangleDown => Glyph::Polygon(vec![
            (x, y + r * 1.1),
            (x + r, y - r * 0.7),
            (x - r, y - r * 0.7),
        ]),
        Marker::Diamond => Glyph::Polygon(vec![
            (x, y - r * 1.2),
            (x + r, y),
            (x, y + r * 1.2),
            (x - r, y),
        ]),
    }
}

/// Escapes text for XML.
pub fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

fn points_attr(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|&(x, y)| format!("{},{}", num(x), num(y)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn tip_element(tip: &Option<String>) -> String {
    tip.as_ref()
        .map(|t| format!("<title>{}</title>", xml(t)))
        .unwrap_or_default()
}

fn svg_item(s: &mut String, item: &Item) {
    match item {
        Item::Open { class, label } => {
            let _ = writeln!(s, "<g class=\"{class}\" data-label=\"{}\">", xml(label));
        }
        Item::Close => s.push_str("</g>\n"),
        Item::Text {
            x,
            y,
            text,
            size,
            anchor,
            vertical,
            bold,
            colour,
            class,
        } => {
            let anchor = match anchor {
                Anchor::Start => "start",
                Anchor::Middle => "middle",
                Anchor::End => "end",
            };
            let turn = if *vertical {
                format!(" transform=\"rotate(-90 {} {})\"", num(*x), num(*y))
            } else {
                String::new()
            };
            let weight = if *bold { " font-weight=\"bold\"" } else { "" };
            let _ = writeln!(
                s,
                "<text class=\"{class}\" x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{anchor}\" \
                 dominant-baseline=\"central\" fill=\"{}\"{weight}{turn}>{}</text>",
                num(*x),
                num(*y),
                num(*size),
                colour.hex(),
                xml(text)
            );
        }
        Item::Line {
            points,
            colour,
            width,
            dashed,
            class,
        } => {
            let dash = if *dashed {
                " stroke-dasharray=\"6 4\""
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "<polyline class=\"{class}\" points=\"{}\" fill=\"none\" stroke=\"{}\" \
                 stroke-width=\"{}\"{dash}/>",
                points_attr(points),
                colour.hex(),
                num(*width)
            );
        }
        Item::Polygon {
            points,
            fill,
            opacity,
            class,
        } => {
            let _ = writeln!(
                s,
                "<polygon class=\"{class}\" points=\"{}\" fill=\"{}\" fill-opacity=\"{opacity:.2}\"/>",
                points_attr(points),
                fill.hex()
            );
        }
        Item::Rect {
            x,
            y,
            w,
            h,
            fill,
            stroke,
            tip,
            class,
        } => {
            let fill = fill.map_or("none".to_string(), Rgb::hex);
            let stroke = stroke.map_or(String::new(), |c| format!(" stroke=\"{}\"", c.hex()));
            let _ = writeln!(
                s,
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"{stroke}>{}</rect>",
                num(*x),
                num(*y),
                num(w.max(0.0)),
                num(h.max(0.0)),
                tip_element(tip)
            );
        }
        Item::Mark {
            x,
            y,
            shape,
            colour,
            r,
            tip,
        } => {
            let c = colour.hex();
            // Data points have a hover title; legend samples do not.
            let class = if tip.is_some() { "point" } else { "sample" };
            let tip = tip_element(tip);
            let _ = match glyph(*shape, *x, *y, *r) {
                Glyph::Disc => writeln!(
                    s,
                    "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{c}\">{tip}</circle>",
                    num(*x),
                    num(*y),
                    num(*r)
                ),
                Glyph::Ring => writeln!(
                    s,
                    "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#ffffff\" stroke=\"{c}\" stroke-width=\"2\">{tip}</circle>",
                    num(*x),
                    num(*y),
                    num(*r)
                ),
                Glyph::Strokes(strokes) => {
                    let d: String = strokes
                        .iter()
                        .map(|(a, b)| {
                            format!("M{} {}L{} {}", num(a.0), num(a.1), num(b.0), num(b.1))
                        })
                        .collect();
                    writeln!(
                        s,
                        "<path class=\"{class}\" d=\"{d}\" stroke=\"{c}\" stroke-width=\"2\">{tip}</path>"
                    )
                }
                Glyph::Polygon(points) => writeln!(
                    s,
                    "<polygon class=\"{class}\" points=\"{}\" fill=\"{c}\">{tip}</polygon>",
                    points_attr(&points)
                ),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scene_writes_classes_titles_and_escaped_text() {
        let mut scene = Scene::new(100.0, 50.0);
        scene.open("panel", "a < b");
        scene.text(
            10.0,
            10.0,
            "x & y",
            12.0,
            Anchor::Start,
            Rgb(0, 0, 0),
            "title",
        );
        scene.items.push(Item::Mark {
            x: 5.0,
            y: 5.0,
            shape: Marker::Square,
            colour: Rgb(1, 2, 3),
            r: 4.0,
            tip: Some("warp 32".into()),
        });
        scene.close();
        let svg = scene.to_svg();
        assert!(
            svg.contains("<g class=\"panel\" data-label=\"a &lt; b\">"),
            "{svg}"
        );
        assert!(svg.contains(">x &amp; y</text>"), "{svg}");
        assert!(svg.contains("<title>warp 32</title>"), "{svg}");
    }

    #[test]
    fn every_marker_is_one_element_in_the_svg_and_ink_in_the_png() {
        use super::super::style::MARKERS;
        for &shape in MARKERS {
            let mut scene = Scene::new(20.0, 20.0);
            scene.items.push(Item::Mark {
                x: 10.0,
                y: 10.0,
                shape,
                colour: Rgb(0, 0, 0),
                r: 4.5,
                tip: Some("p".into()),
            });
            let svg = scene.to_svg();
            assert_eq!(
                svg.matches("class=\"point\"").count(),
                1,
                "{shape:?}: {svg}"
            );
            let rgb = scene.to_rgb().unwrap();
            let inked = rgb.chunks(3).filter(|p| p[0] < 128).count();
            // A ring or a cross inks less than a filled shape, but each
            // inks at least a ring's worth of its 9-pixel box.
            assert!(inked >= 12, "{shape:?}: {inked} dark pixels");
            let filled = matches!(
                glyph(shape, 10.0, 10.0, 4.5),
                Glyph::Disc | Glyph::Polygon(_)
            );
            let centre = &rgb[(10 * 20 + 10) * 3..(10 * 20 + 10) * 3 + 3];
            assert_eq!(
                centre[0] < 128,
                filled || shape == Marker::Cross,
                "{shape:?}"
            );
        }
    }

    #[test]
    fn the_pixels_show_what_the_scene_draws() {
        let mut scene = Scene::new(40.0, 30.0);
        scene.line(vec![(0.0, 10.0), (40.0, 10.0)], Rgb(0, 0, 0), 1.0, "axis");
        let rgb = scene.to_rgb().unwrap();
        assert_eq!(rgb.len(), 40 * 30 * 3);
        let at = |x: usize, y: usize| &rgb[(y * 40 + x) * 3..(y * 40 + x) * 3 + 3];
        assert_eq!(at(20, 10), [0, 0, 0]);
        assert_eq!(at(20, 20), [255, 255, 255]);
    }
}
