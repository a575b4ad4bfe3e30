//! The sweep's picture, with its axes taken from the sweep itself: the
//! swept axis with most values runs across, the next gives one line per
//! value, the rest give small multiples (panels) sharing one y scale; any
//! option of any algorithm and any machine field can play any part
//! (`--plot-x`, `--plot-series`, `--plot-facet` choose). Axes with one
//! value are named in the subtitle, under a title that names the
//! algorithm, the machine and the question. `--plot-relative AXIS=VALUE`
//! plots each configuration against its baseline in percent, so a 4%
//! difference shows. Under the lines, stacked bars say where each
//! configuration's warp-cycles go. SVG or PNG, by file extension.

use std::path::Path;

use super::options::label;
use super::plot_axes::{
    PlotChoice, Roles, algo_title, axis_title, category_name, find_axis, numeric, relevant, roles,
    value_name,
};
use super::plot_metric::Metric;
use super::report::Report;
use super::sort::Algo;
use super::sweep::{Axis, RunResult, SweepRun, axis_value};
use super::{kernel_stalls, stall_bars};
use crate::atomic::AtomicFile;
use crate::chart::axis::{AxisSpec, range_of};
use crate::chart::panel::{Panel, Point, Series, XyPanel};
use crate::chart::{Block, Figure, Legend, Sample, style, ticks};

pub use crate::chart::{Format, PlotError, register_font};

/// Most configurations that get a stall bar each.
const MAX_BARS: usize = 48;

/// One finished configuration, as the plot sees it.
struct Pt<'a> {
    run: &'a SweepRun,
    report: &'a Report,
    y: f64,
}

/// The value of axis `name` for a run: the option's text, or where it was
/// left to its default, the value the run resolved (the report's config).
fn value_of(run: &SweepRun, report: &Report, name: &str) -> String {
    let v = axis_value(&run.opts, name);
    if v == "default"
        && let Some(resolved) = report.config.get(name).filter(|v| !v.is_null())
    {
        return match resolved {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    v
}

/// The checks of the plot options that need no run: every problem, for
/// the command line to refuse before anything runs.
pub fn check_choice(axes: &[Axis], choice: &PlotChoice) -> Vec<String> {
    let mut problems = Vec::new();
    if let Err(e) = roles(axes, choice) {
        problems.push(e);
    }
    if let Some(m) = &choice.metric
        && let Err(e) = Metric::parse(m)
    {
        problems.push(e);
    }
    if let Some(r) = &choice.relative
        && let Err(e) = baseline(axes, r)
    {
        problems.push(e);
    }
    problems
}

/// `AXIS=VALUE` of `--plot-relative`, checked against the sweep.
fn baseline(axes: &[Axis], given: &str) -> Result<(String, String), String> {
    let Some((name, value)) = given.split_once('=') else {
        return Err(format!(
            "--plot-relative {given}: give AXIS=VALUE (for example smem-layout=plain)"
        ));
    };
    let Some(axis) = find_axis(axes, name).filter(|a| a.values.len() > 1) else {
        return Err(format!(
            "--plot-relative {given}: `{name}` is not an axis the sweep varies"
        ));
    };
    let value = value.trim();
    if !axis.values.iter().any(|v| v == value) {
        return Err(format!(
            "--plot-relative {given}: `{value}` is not a value of --{} (swept: {})",
            axis.name.replace('_', "-"),
            axis.values.join(", ")
        ));
    }
    Ok((axis.name.clone(), value.to_string()))
}

/// Whether numbers spread geometrically (powers of two, decades): such an
/// axis reads best on a log scale.
fn geometric(values: &[f64]) -> bool {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v.len() >= 3
        && v[0] > 0.0
        && v[v.len() - 1] / v[0] >= 4.0
        && v.windows(2).all(|w| w[1] / w[0] >= 1.5)
}

/// The sweep's figure.
pub fn figure(axes: &[Axis], runs: &[SweepRun], choice: &PlotChoice) -> Result<Figure, PlotError> {
    let problems = check_choice(axes, choice);
    if !problems.is_empty() {
        return Err(PlotError::Choice(problems.join("; ")));
    }
    let metric = match &choice.metric {
        Some(m) => Metric::parse(m).map_err(PlotError::Choice)?,
        None => Metric::CyclesPerKey,
    };
    let Roles { x, series, facets } = roles(axes, choice).map_err(PlotError::Choice)?;
    let relative = choice
        .relative
        .as_deref()
        .map(|r| baseline(axes, r))
        .transpose()
        .map_err(PlotError::Choice)?;
    let swept: Vec<&Axis> = axes.iter().filter(|a| a.values.len() > 1).collect();
    let mut pts: Vec<Pt> = runs
        .iter()
        .filter_map(|run| match &run.result {
            RunResult::Done(report) => metric.value(report).map(|y| Pt { run, report, y }),
            _ => None,
        })
        .collect();
    if pts.is_empty() {
        return Err(PlotError::Empty);
    }
    // Relative: each point against the run that differs only in the
    // baseline axis's value.
    if let Some((axis, value)) = &relative {
        let key = |p: &Pt| -> Vec<String> {
            swept
                .iter()
                .filter(|a| &a.name != axis)
                .map(|a| value_of(p.run, p.report, &a.name))
                .collect()
        };
        let bases: Vec<(Vec<String>, f64)> = pts
            .iter()
            .filter(|p| &axis_value(&p.run.opts, axis) == value)
            .map(|p| (key(p), p.y))
            .collect();
        let mut rel = Vec::new();
        for p in pts {
            let k = key(&p);
            if let Some((_, b)) = bases.iter().find(|(bk, _)| *bk == k)
                && *b != 0.0
            {
                rel.push(Pt {
                    y: 100.0 * (p.y / b - 1.0),
                    ..p
                });
            }
        }
        pts = rel;
        if pts.is_empty() {
            return Err(PlotError::Choice(format!(
                "--plot-relative {}={value}: no configuration with that value finished",
                axis.replace('_', "-")
            )));
        }
    }
    // The x axis.
    let x_axis = axes.iter().find(|a| a.name == x);
    let x_texts: Vec<String> = pts.iter().map(|p| value_of(p.run, p.report, &x)).collect();
    let x_numeric = x_axis.is_none_or(numeric) && x_texts.iter().all(|t| t.parse::<f64>().is_ok());
    let (x_spec, xs): (AxisSpec, Vec<f64>) = if x_numeric {
        let xs: Vec<f64> = x_texts.iter().map(|t| t.parse().unwrap_or(0.0)).collect();
        let mut spec = if geometric(&xs) {
            AxisSpec::log(axis_title(&x))
        } else {
            AxisSpec::linear(axis_title(&x))
        };
        let mut distinct = xs.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        if distinct.len() <= 12 {
            spec.at = Some(distinct);
        }
        (spec, xs)
    } else {
        let mut order: Vec<String> = x_axis.map(|a| a.values.clone()).unwrap_or_default();
        for t in &x_texts {
            if !order.contains(t) {
                order.push(t.clone());
            }
        }
        order.retain(|v| x_texts.contains(v));
        let xs = x_texts
            .iter()
            .map(|t| order.iter().position(|o| o == t).unwrap_or(0) as f64)
            .collect();
        let names = order.iter().map(|v| category_name(&x, v)).collect();
        (AxisSpec::category(axis_title(&x), names), xs)
    };
    // The y axis, shared by every panel.
    let ys: Vec<f64> = pts.iter().map(|p| p.y).collect();
    let y_label = match &relative {
        Some((axis, value)) => format!(
            "{} vs {} (%)",
            strip_unit(&metric.label()),
            value_name(axis, value)
        ),
        None => metric.label(),
    };
    let positive = ys.iter().all(|y| *y > 0.0);
    let (lo, hi) = ys
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), y| (l.min(*y), h.max(*y)));
    let mut y_spec = if relative.is_none() && positive && hi / lo > 50.0 {
        AxisSpec::log(y_label)
    } else {
        AxisSpec::linear(y_label)
    };
    y_spec.from_zero = relative.is_none() && metric.from_zero();
    y_spec.range = Some(range_of(&y_spec.scale, y_spec.from_zero, &ys));
    // Series and panels.
    let series_values: Vec<String> = match &series {
        Some(s) => {
            let mut order = axes
                .iter()
                .find(|a| &a.name == s)
                .map(|a| a.values.clone())
                .unwrap_or_default();
            for p in &pts {
                let v = value_of(p.run, p.report, s);
                if !order.contains(&v) {
                    order.push(v);
                }
            }
            order
        }
        None => vec![String::new()],
    };
    let facet_of = |p: &Pt| -> Vec<String> {
        facets
            .iter()
            .map(|f| value_of(p.run, p.report, f))
            .collect()
    };
    let mut facet_keys: Vec<Vec<String>> = Vec::new();
    for p in &pts {
        let k = facet_of(p);
        if !facet_keys.contains(&k) {
            facet_keys.push(k);
        }
    }
    let describe = |p: &Pt| -> String {
        swept
            .iter()
            .map(|a| value_name(&a.name, &value_of(p.run, p.report, &a.name)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut panels = Vec::new();
    let mut used_series: Vec<usize> = Vec::new();
    for key in &facet_keys {
        let title = facets
            .iter()
            .zip(key)
            .map(|(f, v)| value_name(f, v))
            .collect::<Vec<_>>()
            .join(", ");
        let mut panel = XyPanel::new(title, x_spec.clone(), y_spec.clone());
        if relative.is_some() {
            panel.reference = Some(0.0);
        }
        for (si, sv) in series_values.iter().enumerate() {
            let mut points: Vec<Point> = pts
                .iter()
                .zip(&xs)
                .filter(|(p, _)| {
                    &facet_of(p) == key
                        && series
                            .as_ref()
                            .is_none_or(|s| &value_of(p.run, p.report, s) == sv)
                })
                .map(|(p, &x)| Point {
                    x,
                    y: p.y,
                    tip: format!(
                        "{}: {} {} ({} cycles)",
                        describe(p),
                        ticks::significant(p.y, 4),
                        if relative.is_some() { "%" } else { "" },
                        ticks::exact(p.report.total.cycles as f64)
                    )
                    .replace(" ()", "")
                    .replace("  ", " "),
                })
                .collect();
            if points.is_empty() {
                continue;
            }
            if !used_series.contains(&si) {
                used_series.push(si);
            }
            // On categories, series sit a little apart so that equal values
            // stay visible.
            if !x_numeric && series_values.len() > 1 {
                let offset = (si as f64 - (series_values.len() - 1) as f64 / 2.0) * 0.06;
                for p in &mut points {
                    p.x += offset;
                }
            }
            points.sort_by(|a, b| a.x.total_cmp(&b.x));
            let (colour, marker) = style::series(si);
            panel.series.push(Series {
                name: series
                    .as_ref()
                    .map_or_else(|| metric.label(), |s| category_name(s, sv)),
                colour,
                marker,
                line: true,
                points,
            });
        }
        panels.push(Panel::Xy(panel));
    }
    let columns = panels.len().clamp(1, 3);
    let width = match columns {
        1 => 980.0,
        2 => 1300.0,
        _ => 1560.0,
    };
    let mut blocks = Vec::new();
    if let Some(s) = &series {
        blocks.push(Block::Legend(Legend {
            title: format!("{}:", label(s)),
            entries: used_series
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .map(|si| {
                    let (c, m) = style::series(si);
                    (
                        Sample::Series(c, m, true),
                        category_name(s, &series_values[si]),
                    )
                })
                .collect(),
        }));
    }
    blocks.push(Block::Grid {
        columns,
        height: 400.0,
        panels,
    });
    // Where the time goes, per configuration.
    let finished: Vec<(&SweepRun, &Report)> = runs
        .iter()
        .filter_map(|r| match &r.result {
            RunResult::Done(report) => Some((r, report.as_ref())),
            _ => None,
        })
        .collect();
    let mut note = String::new();
    if finished.len() <= MAX_BARS {
        let named: Vec<(String, &Report)> = finished
            .iter()
            .map(|(r, rep)| {
                let name = if swept.is_empty() {
                    "the run".to_string()
                } else {
                    swept
                        .iter()
                        .map(|a| value_name(&a.name, &value_of(r, rep, &a.name)))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                (name, *rep)
            })
            .collect();
        let rows: Vec<(String, &std::collections::BTreeMap<&'static str, u64>)> = named
            .iter()
            .map(|(name, rep)| (name.clone(), &rep.total.stalls))
            .collect();
        blocks.push(Block::Legend(stall_bars::legend(&rows)));
        blocks.push(Block::Row(vec![(
            1.0,
            Panel::Bars(stall_bars::panel(
                "where the warps' time goes, per configuration (all kernels)",
                &rows,
            )),
        )]));
        blocks.extend(kernel_stalls::blocks(
            &named,
            width - 2.0 * crate::chart::figure::MARGIN,
        ));
    } else {
        note = format!(
            "; stall bars left out ({} configurations, at most {MAX_BARS})",
            finished.len()
        );
    }
    let skipped = runs.len() - finished.len();
    if skipped > 0 {
        note.push_str(&format!(
            "; {skipped} configuration(s) skipped or failed, not drawn"
        ));
    }
    Ok(Figure {
        width,
        title: title(
            axes,
            &metric,
            &x,
            series.as_deref(),
            &facets,
            relative.as_ref(),
        ),
        subtitle: format!("{}{note}", held_fixed(axes, finished[0].1)),
        blocks,
    })
}

/// The algorithms a sweep runs.
fn algos(axes: &[Axis]) -> Vec<Algo> {
    use clap::ValueEnum;
    let names = axes
        .iter()
        .find(|a| a.name == "algo")
        .map_or_else(|| vec!["hotsort".to_string()], |a| a.values.clone());
    Algo::value_variants()
        .iter()
        .filter(|a| names.iter().any(|n| n == a.name()))
        .copied()
        .collect()
}

/// The title: the algorithm, the machine, the metric, what runs across
/// and what the lines and panels compare.
fn title(
    axes: &[Axis],
    metric: &Metric,
    x: &str,
    series: Option<&str>,
    facets: &[String],
    relative: Option<&(String, String)>,
) -> String {
    let list = |name: &str, f: &dyn Fn(&str) -> String| {
        axes.iter()
            .find(|a| a.name == name)
            .map(|a| a.values.iter().map(|v| f(v)).collect::<Vec<_>>().join(", "))
            .unwrap_or_default()
    };
    let algo = {
        let a = list("algo", &algo_title);
        if a.is_empty() {
            "HotSort".to_string()
        } else {
            a
        }
    };
    let gpu = list("gpu", &|v: &str| v.to_string());
    let what = match relative {
        Some((axis, value)) => format!(
            "{} relative to {}",
            strip_unit(&metric.label()),
            value_name(axis, value)
        ),
        None => strip_unit(&metric.label()),
    };
    let mut t = format!("{algo} on {gpu}: {what} by {}", strip_unit(&axis_title(x)));
    if let Some(s) = series {
        let values = axes
            .iter()
            .find(|a| a.name == s)
            .map(|a| a.values.clone())
            .unwrap_or_default();
        if values.len() <= 4 {
            let names: Vec<String> = values.iter().map(|v| category_name(s, v)).collect();
            t.push_str(&format!(", {}", names.join(" vs ")));
        } else {
            t.push_str(&format!(", a line per {}", strip_unit(&axis_title(s))));
        }
    }
    if !facets.is_empty() {
        let names: Vec<String> = facets.iter().map(|f| strip_unit(&axis_title(f))).collect();
        t.push_str(&format!(", a panel per {}", names.join(" and ")));
    }
    t
}

/// `name (unit)` without the unit.
fn strip_unit(text: &str) -> String {
    match text.find(" (") {
        Some(i) => text[..i].to_string(),
        None => text.to_string(),
    }
}

/// What the sweep held fixed, with defaults resolved as the first run
/// resolved them; options of algorithms the sweep does not run are left
/// out.
fn held_fixed(axes: &[Axis], first: &Report) -> String {
    let algos = algos(axes);
    let fixed: Vec<String> = axes
        .iter()
        .filter(|a| a.values.len() == 1 && a.name != "algo" && a.name != "gpu")
        .filter(|a| relevant(&a.name, &algos))
        .map(|a| {
            let mut v = a.values[0].clone();
            if v == "default"
                && let Some(r) = first.config.get(&a.name).filter(|r| !r.is_null())
            {
                v = format!("{} (default)", r.to_string().trim_matches('"'));
            }
            format!("{} {v}", label(&a.name))
        })
        .collect();
    if fixed.is_empty() {
        String::new()
    } else {
        format!("held fixed: {}", fixed.join(", "))
    }
}

/// The sweep's plot as an SVG document (what `--report` embeds).
pub fn svg(axes: &[Axis], runs: &[SweepRun], choice: &PlotChoice) -> Result<String, PlotError> {
    register_font()?;
    Ok(figure(axes, runs, choice)?.render().to_svg())
}

/// Draws the plot of a sweep into `path` (SVG or PNG by extension),
/// replacing the file only when the picture is complete.
pub fn plot(path: &Path, axes: &[Axis], runs: &[SweepRun]) -> Result<(), PlotError> {
    register_font()?;
    let scene = figure(axes, runs, &PlotChoice::default())?.render();
    crate::chart::write(path, &scene)
}

/// Draws the plot of a sweep into `file`'s temporary file (the format by
/// the target's extension); the caller commits it.
pub fn plot_to(file: &AtomicFile, axes: &[Axis], runs: &[SweepRun]) -> Result<(), PlotError> {
    plot_with(file, axes, runs, &PlotChoice::default())
}

/// [`plot_to`] with the user's plot options.
pub fn plot_with(
    file: &AtomicFile,
    axes: &[Axis],
    runs: &[SweepRun],
    choice: &PlotChoice,
) -> Result<(), PlotError> {
    Format::of(file.target())
        .ok_or_else(|| PlotError::Format(file.target().display().to_string()))?;
    register_font()?;
    let scene = figure(axes, runs, choice)?.render();
    crate::chart::write_to(file, &scene)
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
    fn powers_of_two_spread_geometrically() {
        assert!(geometric(&[1.0, 2.0, 4.0, 8.0]));
        assert!(!geometric(&[100.0, 200.0, 300.0]));
        assert!(!geometric(&[8.0, 16.0]));
    }
}
