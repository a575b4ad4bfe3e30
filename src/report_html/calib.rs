//! The report of a calibration (`simsort calibrate --report FILE.html`):
//! the summary figures, simulated against hardware cycles per launch
//! (log-log, y = x and the ±10% and ±20% bands, one colour per kernel),
//! the cycle error per kernel, and the text report's tables.

use std::collections::BTreeMap;

use super::chart::{Chart, Point, RefLine, Series, XyChart};
use super::page::{Block, Cell, Page, Provenance, Table};
use crate::calib::compare::{Pair, Summary};

/// SASS over IR warp instructions, or `-`.
fn inst_ratio(p: &Pair) -> String {
    if p.sim_insts > 0.0 {
        format!("{:.2}", p.hw_insts / p.sim_insts)
    } else {
        "-".to_string()
    }
}

/// What a hover tells about a launch.
fn tip(p: &Pair) -> String {
    let mut lines = vec![
        p.name(),
        format!("hardware cycles: {:.0}", p.hw_cycles),
        format!("simulated cycles: {:.0}", p.sim_cycles),
        format!("error: {:+.1}%", p.error() * 100.0),
        format!("SASS/IR instructions: {}", inst_ratio(p)),
        format!(
            "top stall: hardware {}, simulator {}",
            p.hw_top_stall, p.sim_top_stall
        ),
    ];
    for (counter, (hw, sim)) in &p.exact {
        let mark = if hw == sim { "=" } else { "≠" };
        lines.push(format!("{counter}: {hw:.0} {mark} {sim:.0}"));
    }
    lines.join("\n")
}

/// One series per kernel, in order of first launch.
fn by_kernel(pairs: &[Pair], point: &dyn Fn(&Pair) -> Point) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for p in pairs {
        match series.iter_mut().find(|s| s.name == p.kernel) {
            Some(s) => s.points.push(point(p)),
            None => series.push(Series {
                name: p.kernel.clone(),
                points: vec![point(p)],
            }),
        }
    }
    series
}

fn tables(pairs: &[Pair], summary: &Summary) -> Vec<Block> {
    let launches = Table {
        caption: "every launch (error: simulated against hardware cycles)".into(),
        header: [
            "launch",
            "hw cycles",
            "sim cycles",
            "error",
            "SASS/IR inst",
            "exact",
            "hw top stall",
            "sim top stall",
        ]
        .map(String::from)
        .to_vec(),
        rows: pairs
            .iter()
            .map(|p| {
                let exact = p.exact.values().filter(|(h, s)| h == s).count();
                vec![
                    Cell::text(p.name()),
                    Cell::num(format!("{:.0}", p.hw_cycles)),
                    Cell::num(format!("{:.0}", p.sim_cycles)),
                    Cell::num(format!("{:+.1}%", p.error() * 100.0)),
                    Cell::num(inst_ratio(p)),
                    Cell::num(format!("{exact}/{}", p.exact.len())),
                    Cell::text(&p.hw_top_stall),
                    Cell::text(&p.sim_top_stall),
                ]
            })
            .collect(),
    };
    let per: BTreeMap<_, _> = summary.per_kernel.iter().collect();
    let kernels = Table {
        caption: "per kernel".into(),
        header: ["kernel", "launches", "cycle MAPE"]
            .map(String::from)
            .to_vec(),
        rows: per
            .iter()
            .map(|(k, (n, mape))| {
                vec![
                    Cell::text(*k),
                    Cell::num(n.to_string()),
                    Cell::num(format!("{mape:.1}%")),
                ]
            })
            .collect(),
    };
    let exact = Table {
        caption: "exact counters (launches where hardware and simulator agree)".into(),
        header: ["counter", "equal", "compared"].map(String::from).to_vec(),
        rows: summary
            .exact
            .iter()
            .map(|(k, (eq, n))| {
                vec![
                    Cell::text(k),
                    Cell::num(eq.to_string()),
                    Cell::num(n.to_string()),
                ]
            })
            .collect(),
    };
    let sorts = Table {
        caption: "whole sorts (entries of more than one launch, cycles summed)".into(),
        header: ["sort", "launches", "hw cycles", "sim cycles", "sim/hw"]
            .map(String::from)
            .to_vec(),
        rows: (summary.whole_sorts.iter())
            .map(|w| {
                vec![
                    Cell::text(if w.entry.is_empty() {
                        "the bundle"
                    } else {
                        &w.entry
                    }),
                    Cell::num(w.launches.to_string()),
                    Cell::num(format!("{:.0}", w.hw_cycles)),
                    Cell::num(format!("{:.0}", w.sim_cycles)),
                    Cell::num(format!("{:.3}", w.ratio())),
                ]
            })
            .collect(),
    };
    let shares = &summary.stall_shares;
    let stalls = Table {
        caption: "stall reasons (share of a launch's warp-cycles, mean over launches)".into(),
        header: ["reason", "hardware", "simulated"]
            .map(String::from)
            .to_vec(),
        rows: crate::calib::stall_shares::rows(shares)
            .into_iter()
            .map(|(r, h, m)| {
                vec![
                    Cell::text(r),
                    Cell::num(format!("{h:.1}%")),
                    Cell::num(format!("{m:.1}%")),
                ]
            })
            .collect(),
    };
    // The sorts and the stall split first: a handful of rows each, which
    // a reader wants before hundreds of launches.
    let mut blocks = Vec::new();
    for small in [sorts, stalls] {
        if !small.rows.is_empty() {
            blocks.push(Block::Table(small));
        }
    }
    blocks.extend([
        Block::Table(launches),
        Block::Table(kernels),
        Block::Table(exact),
    ]);
    blocks
}

/// The page of a calibration.
/// `gpus` says what was measured on what GPU and simulated on what
/// machine (one sentence).
pub fn page(pairs: &[Pair], summary: &Summary, gpus: &str, provenance: Provenance) -> Page {
    let figures = format!(
        "{} launches: cycle MAPE {:.1}%, Pearson r {:.4}; top stall reason agrees in {} ({:.0}%); \
         SASS/IR instructions {:.2}.",
        summary.launches,
        summary.cycle_mape_percent,
        summary.cycle_pearson_r,
        summary.top_stall_agree,
        100.0 * summary.top_stall_agree as f64 / summary.launches.max(1) as f64,
        summary.inst_ratio
    );
    // One line each, as the text report gives them, as sentences.
    let mut lines = vec![Block::Text(gpus.to_string()), Block::Text(figures)];
    let shares = &summary.stall_shares;
    let extra = [
        summary.worst_line(),
        crate::calib::whole::line(&summary.whole_sorts),
        (shares.launches > 0).then(|| {
            format!(
                "stall reasons: {}",
                crate::calib::stall_shares::difference_line(shares)
            )
        }),
    ];
    for line in extra.into_iter().flatten() {
        lines.push(Block::Text(format!(
            "{}{}.",
            line[..1].to_uppercase(),
            &line[1..]
        )));
    }
    let band = |factor: f64, label: &str| RefLine {
        factor,
        label: label.to_string(),
        dashed: true,
    };
    let correlation = Chart::Xy(XyChart {
        title: format!(
            "Simulated against hardware cycles, per launch (MAPE {:.1}%, r {:.4})",
            summary.cycle_mape_percent, summary.cycle_pearson_r
        ),
        x_label: "hardware cycles (log)".into(),
        y_label: "simulated cycles (log)".into(),
        x_log: true,
        y_log: true,
        series: by_kernel(pairs, &|p| Point {
            x: p.hw_cycles,
            y: p.sim_cycles,
            tip: tip(p),
        }),
        refs: vec![
            RefLine {
                factor: 1.0,
                label: "y = x".into(),
                dashed: false,
            },
            band(1.1, "±10%, ±20%"),
            band(0.9, ""),
            band(1.2, ""),
            band(0.8, ""),
        ],
        ..XyChart::default()
    });
    let mut kernels: Vec<String> = Vec::new();
    for p in pairs {
        if !kernels.contains(&p.kernel) {
            kernels.push(p.kernel.clone());
        }
    }
    let errors = Chart::Xy(XyChart {
        title: "Cycle error of every launch, by kernel".into(),
        x_label: "kernel".into(),
        y_label: "error (%, simulated against hardware)".into(),
        y_zero: true,
        series: by_kernel(pairs, &|p| Point {
            x: kernels.iter().position(|k| *k == p.kernel).unwrap_or(0) as f64,
            y: p.error() * 100.0,
            tip: tip(p),
        }),
        x_categories: kernels.clone(),
        ..XyChart::default()
    });
    let mut blocks = vec![Block::Heading("Summary".into())];
    blocks.extend(lines);
    blocks.extend([
        Block::Heading("Charts (hover a point for its launch)".into()),
        Block::Chart(correlation),
        Block::Chart(errors),
        Block::Heading("Tables".into()),
    ]);
    blocks.extend(tables(pairs, summary));
    Page {
        title: format!(
            "simsort calibrate: simulator against hardware, {} launches",
            summary.launches
        ),
        provenance,
        blocks,
    }
}
