//! The charts a page draws: their data as the page's script reads it (a
//! JSON array in the page). Drawing happens in the browser (`report.js`),
//! so every point can tell, on hover, the configuration and counters
//! behind it (`tip`).

use serde::Serialize;

/// One chart.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Chart {
    /// Points (and lines) against x.
    Xy(XyChart),
    /// Horizontal stacked bars, one per configuration or kernel.
    Bars(BarChart),
}

impl Chart {
    /// The chart's title (the page prints it above the chart).
    pub fn title(&self) -> &str {
        match self {
            Chart::Xy(c) => &c.title,
            Chart::Bars(c) => &c.title,
        }
    }

    /// The marks the script must draw: one per point that the axes can
    /// show (finite, and positive on a log axis) or one per bar with a
    /// positive total.
    pub fn marks(&self) -> usize {
        match self {
            Chart::Xy(c) => c
                .series
                .iter()
                .flat_map(|s| &s.points)
                .filter(|p| c.shows(p))
                .count(),
            Chart::Bars(c) => c
                .bars
                .iter()
                .filter(|b| b.values.iter().any(|v| v.is_finite() && *v > 0.0))
                .count(),
        }
    }
}

/// Points against x, one colour per series.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct XyChart {
    /// What the chart shows (with units).
    pub title: String,
    /// The x axis's label (with units).
    pub x_label: String,
    /// The y axis's label (with units).
    pub y_label: String,
    /// Named x positions: a point's `x` is an index into them (ticks at
    /// every one). Empty: x is a number.
    pub x_categories: Vec<String>,
    /// Logarithmic x (numeric x only).
    pub x_log: bool,
    /// Logarithmic y.
    pub y_log: bool,
    /// The y range includes zero (where a ratio to zero means something).
    pub y_zero: bool,
    /// Join each series' points with a line.
    pub lines: bool,
    /// The series.
    pub series: Vec<Series>,
    /// Lines y = factor * x (numeric x only), for reference.
    pub refs: Vec<RefLine>,
}

impl XyChart {
    /// Whether the axes can show `p`.
    pub fn shows(&self, p: &Point) -> bool {
        p.x.is_finite()
            && p.y.is_finite()
            && (!self.x_log || !self.x_categories.is_empty() || p.x > 0.0)
            && (!self.y_log || p.y > 0.0)
    }
}

/// One series of an [`XyChart`].
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// The points, in x order when the series is drawn as a line.
    pub points: Vec<Point>,
}

/// One point: where it is and what hovering it tells.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Point {
    /// x (an index into the categories when the chart has them).
    pub x: f64,
    /// y.
    pub y: f64,
    /// The configuration and counters behind the point, one per line.
    pub tip: String,
}

/// A reference line y = `factor` * x.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RefLine {
    /// The slope (1 for y = x).
    pub factor: f64,
    /// The legend's text.
    pub label: String,
    /// Drawn dashed (the bands) rather than solid.
    pub dashed: bool,
}

/// Horizontal stacked bars: one bar per configuration, one segment per
/// part (a stall reason, say), coloured the same in every bar.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct BarChart {
    /// What the chart shows.
    pub title: String,
    /// The value axis's label (with units).
    pub x_label: String,
    /// The parts, in stacking order (the legend).
    pub segments: Vec<String>,
    /// The bars, top to bottom.
    pub bars: Vec<Bar>,
}

/// One bar of a [`BarChart`].
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Bar {
    /// The label at its left.
    pub label: String,
    /// One value per segment.
    pub values: Vec<f64>,
    /// The configuration and counters behind the bar, one per line.
    pub tip: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_count_only_what_the_axes_can_show() {
        let p = |x: f64, y: f64| Point {
            x,
            y,
            tip: String::new(),
        };
        let chart = Chart::Xy(XyChart {
            y_log: true,
            series: vec![Series {
                name: "a".into(),
                points: vec![p(1.0, 2.0), p(2.0, 0.0), p(3.0, f64::NAN)],
            }],
            ..XyChart::default()
        });
        assert_eq!(chart.marks(), 1);
        let bars = Chart::Bars(BarChart {
            segments: vec!["x".into()],
            bars: vec![
                Bar {
                    label: "a".into(),
                    values: vec![1.0],
                    tip: String::new(),
                },
                Bar {
                    label: "b".into(),
                    values: vec![0.0],
                    tip: String::new(),
                },
            ],
            ..BarChart::default()
        });
        assert_eq!(bars.marks(), 1);
        let json = serde_json::to_string(&bars).unwrap();
        assert!(json.starts_with("{\"kind\":\"bars\""), "{json}");
    }
}
