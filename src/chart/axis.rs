//! An axis: its name (with units), its scale (linear, log or categories),
//! the range it spans and its ticks, worked out from the data it shows.

use super::ticks;

/// How values map onto an axis.
#[derive(Clone, Debug, PartialEq)]
pub enum Scale {
    /// Linear.
    Linear,
    /// Logarithmic (every value must be positive).
    Log,
    /// Named categories, evenly spaced, in this order; a value is an index.
    Category(Vec<String>),
}

/// What an axis shows, before it is laid out.
#[derive(Clone, Debug)]
pub struct AxisSpec {
    /// The axis's name, with its unit.
    pub label: String,
    /// The scale.
    pub scale: Scale,
    /// Whether the axis starts at zero (only where a ratio to zero means
    /// something: counts that can be zero, shares).
    pub from_zero: bool,
    /// Ticks at these values (the data points), instead of 1-2-5 steps.
    pub at: Option<Vec<f64>>,
    /// The range, if fixed (shared between panels); else from the data.
    pub range: Option<(f64, f64)>,
}

impl AxisSpec {
    /// A linear axis named `label`, ranged by its data.
    pub fn linear(label: impl Into<String>) -> AxisSpec {
        AxisSpec {
            label: label.into(),
            scale: Scale::Linear,
            from_zero: false,
            at: None,
            range: None,
        }
    }

    /// A log axis named `label`.
    pub fn log(label: impl Into<String>) -> AxisSpec {
        AxisSpec {
            scale: Scale::Log,
            ..AxisSpec::linear(label)
        }
    }

    /// A categorical axis.
    pub fn category(label: impl Into<String>, names: Vec<String>) -> AxisSpec {
        AxisSpec {
            scale: Scale::Category(names),
            ..AxisSpec::linear(label)
        }
    }

    /// The range this axis spans for data `values`: a little wider than
    /// the data (so no point sits on the frame), from zero if asked.
    pub fn span(&self, values: &[f64]) -> (f64, f64) {
        if let Some(r) = self.range {
            return r;
        }
        range_of(&self.scale, self.from_zero, values)
    }
}

/// The range a scale gives `values` (see [`AxisSpec::span`]).
pub fn range_of(scale: &Scale, from_zero: bool, values: &[f64]) -> (f64, f64) {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    match scale {
        Scale::Category(names) => (-0.5, names.len().max(1) as f64 - 0.5),
        Scale::Log => {
            let pos: Vec<f64> = finite.into_iter().filter(|v| *v > 0.0).collect();
            let lo = pos.iter().copied().fold(f64::MAX, f64::min);
            let hi = pos.iter().copied().fold(0.0, f64::max);
            if pos.is_empty() {
                (1.0, 10.0)
            } else if hi <= lo {
                (lo / 1.5, hi * 1.5)
            } else {
                let pad = (hi / lo).powf(0.06).max(1.05);
                (lo / pad, hi * pad)
            }
        }
        Scale::Linear => {
            let mut lo = finite.iter().copied().fold(f64::MAX, f64::min);
            let mut hi = finite.iter().copied().fold(f64::MIN, f64::max);
            if finite.is_empty() {
                return (0.0, 1.0);
            }
            if from_zero {
                lo = lo.min(0.0);
                hi = hi.max(0.0);
            }
            if hi <= lo {
                let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
                if from_zero && lo == 0.0 {
                    return (0.0, 1.0);
                }
                return (lo - pad, hi + pad);
            }
            let pad = (hi - lo) * 0.08;
            let lo2 = if from_zero && lo >= 0.0 { lo } else { lo - pad };
            let hi2 = if from_zero && hi <= 0.0 { hi } else { hi + pad };
            (lo2, hi2)
        }
    }
}

/// The ticks of an axis over `range`: values and labels.
pub fn ticks_of(spec: &AxisSpec, range: (f64, f64)) -> Vec<(f64, String)> {
    if let Scale::Category(names) = &spec.scale {
        return names
            .iter()
            .enumerate()
            .map(|(i, n)| (i as f64, n.clone()))
            .collect();
    }
    if let Some(at) = &spec.at {
        let mut v = at.clone();
        v.sort_by(f64::total_cmp);
        v.dedup();
        return v.into_iter().map(|x| (x, ticks::exact(x))).collect();
    }
    let values = match spec.scale {
        Scale::Log => ticks::log(range.0, range.1),
        _ => ticks::linear(range.0, range.1, 6),
    };
    values.into_iter().map(|v| (v, ticks::label(v))).collect()
}

/// Maps values of a range onto pixels `p0..p1`.
#[derive(Copy, Clone, Debug)]
pub struct Mapping {
    /// The range's low end.
    pub lo: f64,
    /// The range's high end.
    pub hi: f64,
    /// Pixel of `lo`.
    pub p0: f64,
    /// Pixel of `hi`.
    pub p1: f64,
    /// Logarithmic.
    pub log: bool,
}

impl Mapping {
    /// The pixel of `v`.
    pub fn at(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.max(1e-300).ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.p0 + (self.p1 - self.p0) * t
    }

    /// Whether `v` lies in the range.
    pub fn contains(&self, v: f64) -> bool {
        let eps = (self.hi - self.lo).abs() * 1e-9;
        v >= self.lo - eps && v <= self.hi + eps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linear_axis_fits_the_data_unless_told_to_start_at_zero() {
        let (lo, hi) = range_of(&Scale::Linear, false, &[72_404.0, 75_532.0]);
        assert!(lo > 70_000.0 && hi < 78_000.0, "{lo}..{hi}");
        let (lo, _) = range_of(&Scale::Linear, true, &[72_404.0, 75_532.0]);
        assert_eq!(lo, 0.0);
        assert_eq!(range_of(&Scale::Linear, true, &[0.0, 0.0]), (0.0, 1.0));
    }

    #[test]
    fn data_point_ticks_are_exact_and_log_ticks_go_below_one() {
        let mut spec = AxisSpec::log("keys");
        spec.at = Some(vec![262144.0, 65536.0]);
        let t = ticks_of(&spec, (60000.0, 300000.0));
        assert_eq!(t[0], (65536.0, "65,536".to_string()));
        let spec = AxisSpec::log("cycles per key");
        let t = ticks_of(&spec, (0.3, 30.0));
        assert!(t.iter().any(|(v, l)| *v < 1.0 && l == "0.5"), "{t:?}");
    }
}
