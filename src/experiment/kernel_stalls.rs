//! Where each kernel's warps' time goes across a sweep: one small panel
//! per kernel, side by side, and in every panel one row per configuration,
//! the rows aligned and named once at the left. Reading across a row gives
//! one configuration's kernels; reading down a panel gives one kernel
//! across the configurations (the question a sweep asks of a kernel).
//! Kernels that never take 1% of a configuration's cycles are left out and
//! named; with many kernels (sample sort launches seven or more) the
//! panels wrap onto more rows, so that each stays wide enough to read.

use super::report::Report;
use super::stall_bars;
use crate::chart::Block;
use crate::chart::panel::{BarPanel, Panel};
use crate::chart::scene::measure;
use crate::chart::style::TICK_SIZE;

/// The narrowest a kernel's bars may be (pixels), so that its title and
/// its 0-100 ticks stay legible.
const MIN_PANEL: f64 = 230.0;

/// A kernel's share of cycles, in percent, that earns it a panel.
const MIN_SHARE: f64 = 1.0;

/// One kernel as the panels show it.
struct Kernel {
    name: String,
    /// Its share of each configuration's cycles (percent), where it ran.
    shares: Vec<f64>,
}

/// The kernels of `reports` in launch order (each once), with their shares
/// of each configuration's kernel cycles.
fn kernels(reports: &[&Report]) -> Vec<Kernel> {
    let mut out: Vec<Kernel> = Vec::new();
    for report in reports {
        let total: u64 = report.kernels.iter().map(|k| k.cycles).sum();
        for k in &report.kernels {
            let share = if total == 0 {
                0.0
            } else {
                100.0 * k.cycles as f64 / total as f64
            };
            match out.iter_mut().find(|o| o.name == k.name) {
                Some(o) => o.shares.push(share),
                None => out.push(Kernel {
                    name: k.name.clone(),
                    shares: vec![share],
                }),
            }
        }
    }
    out
}

/// `41-62% of cycles`, or `62% of cycles` where every configuration agrees
/// to the percent.
fn share_range(shares: &[f64]) -> String {
    let lo = shares.iter().copied().fold(f64::MAX, f64::min).round();
    let hi = shares.iter().copied().fold(0.0, f64::max).round();
    let pct = |v: f64| {
        if v < 1.0 {
            "<1".to_string()
        } else {
            format!("{v}")
        }
    };
    if pct(lo) == pct(hi) {
        format!("{}% of cycles", pct(hi))
    } else {
        format!("{}-{}% of cycles", pct(lo), pct(hi))
    }
}

/// The per-kernel blocks for `rows` (a configuration's name and report,
/// the same names as the per-configuration bars) in a figure `inner`
/// pixels wide: a heading, then rows of kernel panels. Empty when fewer
/// than two kernels earn a panel (the per-configuration bars say it all).
pub fn blocks(rows: &[(String, &Report)], inner: f64) -> Vec<Block> {
    let reports: Vec<&Report> = rows.iter().map(|(_, r)| *r).collect();
    let all = kernels(&reports);
    let (shown, left_out): (Vec<Kernel>, Vec<Kernel>) = all
        .into_iter()
        .partition(|k| k.shares.iter().any(|s| *s >= MIN_SHARE));
    if shown.len() < 2 {
        return Vec::new();
    }
    let label_w = rows
        .iter()
        .map(|(l, _)| measure(l, TICK_SIZE, false).0)
        .fold(0.0, f64::max)
        .min(inner * 0.4);
    // The first panel of a row names the configurations; every panel's
    // bars get the same width.
    let names_w = 10.0 + label_w + 8.0;
    let fit = (((inner - names_w) / MIN_PANEL).floor() as usize).max(1);
    let lines = shown.len().div_ceil(fit);
    let per_line = shown.len().div_ceil(lines);
    let bars_w = (inner - names_w) / per_line as f64;
    let mut note = "one row per configuration, as above; a panel per kernel, in launch order, \
                    with its share of the configurations' cycles"
        .to_string();
    if !left_out.is_empty() {
        let names: Vec<&str> = left_out.iter().map(|k| k.name.as_str()).collect();
        note.push_str(&format!(
            "; left out, under {MIN_SHARE}% of the cycles everywhere: {}",
            names.join(", ")
        ));
    }
    let mut out = vec![Block::Heading(
        "where each kernel's warps' time goes, per configuration".to_string(),
        note,
    )];
    for chunk in shown.chunks(per_line) {
        let panels = chunk
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let stalls: Vec<(String, &std::collections::BTreeMap<&'static str, u64>)> = rows
                    .iter()
                    .map(|(label, report)| {
                        let stalls = report
                            .kernels
                            .iter()
                            .find(|r| r.name == k.name)
                            .map_or(&EMPTY, |r| &r.stalls);
                        (label.clone(), stalls)
                    })
                    .collect();
                let title = format!("{}: {}", k.name, share_range(&k.shares));
                let panel = BarPanel {
                    x_label: "% of its warp-cycles".to_string(),
                    label_space: Some(if i == 0 { label_w } else { 0.0 }),
                    context: Some(k.name.clone()),
                    empty: "not launched".to_string(),
                    ..stall_bars::panel(&title, &stalls)
                };
                // Shares of the line: a short last line keeps the width.
                let width = if i == 0 { names_w + bars_w } else { bars_w };
                (width / inner, Panel::Bars(panel))
            })
            .collect();
        out.push(Block::Row(panels));
    }
    out
}

/// The stalls of a kernel a configuration did not launch.
static EMPTY: std::collections::BTreeMap<&'static str, u64> = std::collections::BTreeMap::new();

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::report::KernelRow;

    fn report(kernels: &[(&str, u64, u64)]) -> Report {
        let rows = kernels
            .iter()
            .map(|&(name, cycles, barrier)| {
                let mut row = KernelRow::new(
                    name,
                    sim::KernelStats {
                        launches: 1,
                        cycles: sim::Cycle(cycles),
                        ..sim::KernelStats::default()
                    },
                );
                row.stalls.insert("barrier", barrier);
                row.stalls.insert("selected", 10);
                row
            })
            .collect();
        Report::new(serde_json::Map::new(), 1000, rows)
    }

    fn panels(blocks: &[Block]) -> Vec<Vec<(f64, String, Option<f64>)>> {
        blocks
            .iter()
            .filter_map(|b| match b {
                Block::Row(p) => Some(
                    p.iter()
                        .map(|(w, p)| match p {
                            Panel::Bars(b) => (*w, b.title.clone(), b.label_space),
                            Panel::Xy(_) => panic!("bars only"),
                        })
                        .collect(),
                ),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_kernel_gets_a_panel_with_its_share_and_tiny_ones_are_named_as_left_out() {
        let a = report(&[("fill_in", 5, 1), ("bs", 600, 30), ("fm", 395, 5)]);
        let b = report(&[("fill_in", 5, 1), ("bs", 400, 30), ("fm", 595, 5)]);
        let rows = vec![("warp 8".to_string(), &a), ("warp 16".to_string(), &b)];
        let blocks = blocks(&rows, 1200.0);
        let Block::Heading(_, note) = &blocks[0] else {
            panic!("a heading first")
        };
        assert!(note.ends_with("everywhere: fill_in"), "{note}");
        let p = panels(&blocks);
        assert_eq!(p.len(), 1, "two kernels fit one row");
        let titles: Vec<&str> = p[0].iter().map(|x| x.1.as_str()).collect();
        assert_eq!(titles, ["bs: 40-60% of cycles", "fm: 40-60% of cycles"]);
        // Only the first panel names the configurations.
        assert!(p[0][0].2.unwrap() > 0.0);
        assert_eq!(p[0][1].2, Some(0.0));
    }

    #[test]
    fn many_kernels_wrap_into_even_rows_and_a_missing_kernel_is_an_empty_row() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        let full: Vec<(&str, u64, u64)> = names.iter().map(|n| (*n, 100, 3)).collect();
        let one = report(&full);
        let other = report(&full[..8]);
        let rows = vec![("x 1".to_string(), &one), ("x 2".to_string(), &other)];
        let blocks = blocks(&rows, 948.0);
        let p = panels(&blocks);
        // 948 pixels hold three 230-pixel panels beside the names: nine
        // kernels make three rows of three.
        assert_eq!(p.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3, 3]);
        for row in &p {
            let total: f64 = row.iter().map(|x| x.0).sum();
            assert!((total - 1.0).abs() < 1e-9, "{total}");
        }
        // Ten kernels: the last line has one panel, as wide as the others.
        let ten: Vec<(&str, u64, u64)> = names.iter().chain(&["j"]).map(|n| (*n, 100, 3)).collect();
        let ten = report(&ten);
        let p = panels(&super::blocks(&[("x 1".to_string(), &ten)], 948.0));
        assert_eq!(p.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3, 3, 1]);
        assert!((p[3][0].0 - p[0][0].0).abs() < 1e-9);
        let Block::Row(last) = blocks.last().unwrap() else {
            panic!("rows")
        };
        let Panel::Bars(i) = &last[2].1 else {
            panic!("bars")
        };
        assert_eq!(i.title, "i: 11% of cycles");
        assert!(i.rows[1].segments.iter().all(|s| s.1 == 0.0));
        assert_eq!(i.empty, "not launched");
    }

    #[test]
    fn one_kernel_needs_no_panel_of_its_own() {
        let a = report(&[("k", 100, 3)]);
        assert!(blocks(&[("a".to_string(), &a)], 900.0).is_empty());
    }
}
