//! Where an axis gets its ticks and how they read: 1-2-5 steps on linear
//! axes, 1-2-5 marks per decade on log axes (labelled below 1 as well as
//! above), and, where a swept axis has few values, a tick at every value.

/// The smallest step of the form 1, 2 or 5 times a power of ten that cuts
/// `span` into at most `target` pieces.
pub fn step(span: f64, target: usize) -> f64 {
    if span.is_nan() || span <= 0.0 || span.is_infinite() {
        return 1.0;
    }
    let raw = span / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * mag >= raw * (1.0 - 1e-9) {
            return m * mag;
        }
    }
    10.0 * mag
}

/// `lo..hi` widened to whole steps of [`step`] (what a linear axis spans).
pub fn nice_bounds(lo: f64, hi: f64, target: usize) -> (f64, f64) {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.05 };
        (lo - pad, hi + pad)
    };
    let s = step(hi - lo, target);
    ((lo / s).floor() * s, (hi / s).ceil() * s)
}

/// Ticks at whole steps of [`step`] inside `lo..=hi`, at least four
/// (the step shrinks along 5, 2, 1 until there are).
pub fn linear(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let mut s = step(hi - lo, target);
    let count = |s: f64| ((hi / s + 1e-9).floor() - (lo / s - 1e-9).ceil() + 1.0) as i64;
    for _ in 0..6 {
        if count(s) >= 4 || hi.is_nan() || hi <= lo {
            break;
        }
        s = smaller(s);
    }
    let first = (lo / s - 1e-9).ceil() as i64;
    let last = (hi / s + 1e-9).floor() as i64;
    (first..=last).map(|k| clean(k as f64 * s, s)).collect()
}

/// The next 1-2-5 step below `s`.
fn smaller(s: f64) -> f64 {
    let mag = 10f64.powf(s.log10().floor());
    let m = (s / mag).round();
    if m >= 5.0 {
        2.0 * mag
    } else if m >= 2.0 {
        mag
    } else {
        0.5 * mag
    }
}

/// `v` rounded to the precision of `step` (no `0.30000000000000004`).
fn clean(v: f64, step: f64) -> f64 {
    let digits = (-step.log10().floor()).max(0.0) as i32 + 1;
    let p = 10f64.powi(digits);
    (v * p).round() / p
}

/// Ticks of a log axis over `lo..=hi` (both positive): 1, 2 and 5 in
/// every decade while the axis spans few decades, whole decades (every
/// other, ...) when it spans many, plain 1-2-5 steps when it spans less
/// than about half a decade. Always at least two.
pub fn log(lo: f64, hi: f64) -> Vec<f64> {
    if lo.is_nan() || lo <= 0.0 || hi <= lo {
        return linear(lo.max(0.0), hi.max(lo + 1.0), 5);
    }
    let decades = (hi / lo).log10();
    if decades < 0.7 {
        return linear(lo, hi, 5);
    }
    let mantissas: &[f64] = if decades <= 1.5 {
        &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]
    } else if decades <= 3.5 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let every = ((decades / 7.0).ceil() as i32).max(1);
    let mut out = Vec::new();
    let first = lo.log10().floor() as i32 - 1;
    let last = hi.log10().ceil() as i32 + 1;
    for e in first..=last {
        if mantissas.len() == 1 && e.rem_euclid(every) != 0 {
            continue;
        }
        let base = 10f64.powi(e);
        for m in mantissas {
            let v = m * base;
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                out.push(v);
            }
        }
    }
    if out.len() < 2 {
        return linear(lo, hi, 4);
    }
    out
}

/// A tick label: three significant digits at most, no trailing zeros,
/// thousands as `k`, millions as `M`, billions as `G` from 10,000 up.
pub fn label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    format!("{}{suffix}", significant(scaled, 3))
}

fn whole(x: f64) -> bool {
    (x - x.round()).abs() < 1e-9
}

/// `v` with `digits` significant digits (but every digit left of the
/// point), trailing zeros dropped.
pub fn significant(v: f64, digits: i32) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).clamp(0, 9) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A data value as an exact tick label: whole numbers in full with
/// thousands grouped (`65,536`), others to three significant digits.
pub fn exact(v: f64) -> String {
    if whole(v) && v.abs() < 1e15 {
        let n = v.round() as i64;
        let digits = n.unsigned_abs().to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        if n < 0 { format!("-{out}") } else { out }
    } else {
        significant(v, 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(linear(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        // Never fewer than four ticks.
        assert_eq!(linear(12.5, 25.5, 6), [14.0, 16.0, 18.0, 20.0, 22.0, 24.0]);
        assert_eq!(linear(72.0, 76.0, 5), [72.0, 73.0, 74.0, 75.0, 76.0]);
        assert_eq!(linear(0.1, 0.35, 5), [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]);
        assert_eq!(nice_bounds(0.41, 2.7, 5), (0.0, 3.0));
        assert_eq!(step(7.0, 5), 2.0);
    }

    #[test]
    fn log_axes_are_labelled_below_one() {
        let t = log(0.3, 40.0);
        assert_eq!(t, [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]);
        let labels: Vec<String> = t.iter().map(|v| label(*v)).collect();
        assert_eq!(labels, ["0.5", "1", "2", "5", "10", "20"]);
        // A narrow log axis still gets two or more ticks.
        assert!(log(0.41, 0.55).len() >= 2);
        // Many decades: whole decades only.
        assert_eq!(log(1.0, 1e6), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
    }

    #[test]
    fn labels_are_short_and_exact_labels_are_grouped() {
        assert_eq!(label(0.41), "0.41");
        assert_eq!(label(0.0005), "0.0005");
        assert_eq!(label(2000.0), "2000");
        assert_eq!(label(20000.0), "20k");
        assert_eq!(label(2_000_000.0), "2M");
        assert_eq!(label(1_500_000.0), "1.5M");
        assert_eq!(label(75_532.0), "75.5k");
        assert_eq!(exact(65536.0), "65,536");
        assert_eq!(exact(0.4123), "0.412");
    }
}
