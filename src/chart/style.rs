//! The one look of every plot simsort draws: fonts, sizes, the palette and
//! the marker shapes. Everything that draws takes its style from here, so
//! the sweep, compare, calibrate and single-run plots read alike.

/// A colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// The font family plotters registers the measuring (and PNG) font under.
pub const FONT: &str = "sans-serif";
/// The SVG's font list: the measuring font first, so a viewer draws the
/// text no wider than it was measured.
pub const SVG_FONT: &str = "DejaVu Sans, Verdana, Arial, sans-serif";

/// The figure's title.
pub const TITLE_SIZE: f64 = 18.0;
/// The lines under the title (what the sweep held fixed).
pub const SUBTITLE_SIZE: f64 = 13.0;
/// A heading between blocks of a figure.
pub const HEADING_SIZE: f64 = 15.0;
/// A panel's title.
pub const PANEL_TITLE_SIZE: f64 = 14.0;
/// An axis's name.
pub const AXIS_LABEL_SIZE: f64 = 13.0;
/// Tick labels.
pub const TICK_SIZE: f64 = 12.0;
/// Legend entries.
pub const LEGEND_SIZE: f64 = 12.0;
/// Notes on the plot (labelled points).
pub const NOTE_SIZE: f64 = 11.0;

/// Text and axes.
pub const INK: Rgb = Rgb(34, 34, 34);
/// Grid lines.
pub const GRID: Rgb = Rgb(225, 225, 225);
/// Secondary text (subtitles, notes).
pub const MUTED: Rgb = Rgb(90, 90, 90);

/// Series colours: Okabe and Ito's palette, legible on white and for the
/// colour-blind (its yellow is left out: too light for lines), then three
/// darker tones. Past the end, colours repeat and the marker tells apart.
pub const PALETTE: &[Rgb] = &[
    Rgb(0, 114, 178),
    Rgb(230, 159, 0),
    Rgb(0, 158, 115),
    Rgb(213, 94, 0),
    Rgb(204, 121, 167),
    Rgb(86, 180, 233),
    Rgb(0, 0, 0),
    Rgb(140, 86, 75),
    Rgb(117, 112, 179),
    Rgb(102, 102, 102),
];

/// A point's marker.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled square.
    Square,
    /// A filled triangle, point up.
    Triangle,
    /// A filled diamond.
    Diamond,
    /// A filled triangle, point down.
    TriangleDown,
    /// An open circle.
    Ring,
    /// An x.
    Cross,
}

/// Markers in the order series take them.
pub const MARKERS: &[Marker] = &[
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Ring,
    Marker::Cross,
];

/// The colour and marker of series `i`: both change with every series,
/// so series stay apart in grey print too.
pub fn series(i: usize) -> (Rgb, Marker) {
    (PALETTE[i % PALETTE.len()], MARKERS[i % MARKERS.len()])
}

/// The colour of a stall reason (and `selected`, the issue slot) in
/// stacked bars: fixed per reason, so every plot colours it alike.
pub fn stall_colour(reason: &str) -> Rgb {
    match reason {
        "selected" => Rgb(0, 158, 115),
        "not_selected" => Rgb(153, 216, 201),
        "long_scoreboard" => Rgb(213, 94, 0),
        "short_scoreboard" => Rgb(230, 159, 0),
        "mio_throttle" => Rgb(204, 121, 167),
        "lg_throttle" => Rgb(140, 86, 75),
        "barrier" => Rgb(0, 114, 178),
        "wait" => Rgb(86, 180, 233),
        "math_pipe_throttle" => Rgb(117, 112, 179),
        "dispatch_stall" => Rgb(240, 228, 66),
        "no_instruction" => Rgb(160, 160, 160),
        "branch_resolving" => Rgb(90, 90, 90),
        "membar" => Rgb(0, 0, 0),
        _ => Rgb(200, 200, 200),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WCAG's contrast ratio of a colour against white.
    fn contrast_on_white(c: Rgb) -> f64 {
        let channel = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.039_28 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        let l = 0.2126 * channel(c.0) + 0.7152 * channel(c.1) + 0.0722 * channel(c.2);
        1.05 / (l + 0.05)
    }

    #[test]
    fn every_series_colour_stands_out_on_white_and_series_differ_in_colour_and_marker() {
        // Issue 30: calibrate's 14 colours included yellows at about 1.3:1,
        // nearly invisible as points on white. Okabe and Ito's lightest
        // kept colours (orange, sky blue) are about 2.2:1.
        for c in PALETTE {
            let ratio = contrast_on_white(*c);
            assert!(ratio >= 2.0, "{} is {ratio:.2}:1 on white", c.hex());
        }
        assert!(
            contrast_on_white(Rgb(240, 228, 66)) < 2.0,
            "the check tells"
        );
        for i in 0..PALETTE.len().min(MARKERS.len()) {
            for j in 0..i {
                assert_ne!(series(i), series(j));
                assert_ne!(series(i).1, series(j).1, "markers {i} and {j}");
            }
        }
    }
}
