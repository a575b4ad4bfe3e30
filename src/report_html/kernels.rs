//! What every report shows of a run: per-kernel tables (the text report's
//! three: time and issue, memory, stall reasons), the counters a hover
//! tells, and stacked bars of where warp-cycles went.

use sim::{KernelStats, StallReason};

use super::chart::{Bar, BarChart, Chart};
use super::page::{Block, Cell, Table};
use crate::experiment::report::{Report, group, stall_short};

/// The stall reasons in bar order: issuing (`selected`) first, then every
/// reason a warp waits for, as Nsight Compute names them.
fn reasons() -> Vec<StallReason> {
    let mut out = vec![StallReason::Selected];
    out.extend(
        StallReason::ALL
            .iter()
            .copied()
            .filter(|r| *r != StallReason::Selected),
    );
    out
}

/// Every kernel's stats summed: the run's total.
pub fn total(report: &Report) -> KernelStats {
    let mut total = KernelStats::default();
    for row in &report.kernels {
        total += &row.stats;
    }
    total
}

/// `a / b` with two decimals, or `-` when `b` is 0.
fn ratio(a: u64, b: u64) -> String {
    if b == 0 {
        "-".to_string()
    } else {
        format!("{:.2}", a as f64 / b as f64)
    }
}

/// The share of warp-cycles `s` spent on `reason`, in percent.
fn share(s: &KernelStats, reason: StallReason) -> f64 {
    if s.warp_cycles == 0 {
        0.0
    } else {
        100.0 * s.stall(reason) as f64 / s.warp_cycles as f64
    }
}

/// The three largest shares of warp-cycles other than issuing, as
/// `long_scoreboard 41%, ...`.
pub fn top_stalls(s: &KernelStats) -> String {
    let mut shares: Vec<(StallReason, f64)> = StallReason::ALL
        .iter()
        .filter(|r| **r != StallReason::Selected)
        .map(|r| (*r, share(s, *r)))
        .filter(|(_, v)| *v > 0.0)
        .collect();
    shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.index().cmp(&b.0.index())));
    shares
        .iter()
        .take(3)
        .map(|(r, v)| format!("{} {v:.0}%", r.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The counters a hover tells about `s`, one per line (per key where
/// `keys` is not 0).
pub fn counters(s: &KernelStats, keys: u64) -> String {
    let mut lines = vec![format!("cycles: {}", group(s.cycles.0))];
    if keys > 0 {
        lines.push(format!(
            "cycles/key: {:.3}",
            s.cycles.0 as f64 / keys as f64
        ));
    }
    lines.push(format!("launches: {}", group(s.launches)));
    lines.push(format!("warp instructions: {}", group(s.inst_executed)));
    lines.push(format!(
        "IPC: {}",
        ratio(s.inst_executed, s.sm_cycles_active)
    ));
    lines.push(format!(
        "shared wavefronts: {} ld, {} st",
        group(s.smem_ld_wavefronts),
        group(s.smem_st_wavefronts)
    ));
    lines.push(format!(
        "bank conflicts: {} ld, {} st",
        group(s.smem_ld_bank_conflicts),
        group(s.smem_st_bank_conflicts)
    ));
    lines.push(format!(
        "global sectors/request: {} ld, {} st",
        ratio(s.gmem_ld_sectors, s.gmem_ld_requests),
        ratio(s.gmem_st_sectors, s.gmem_st_requests)
    ));
    lines.push(format!(
        "DRAM sectors: {} read, {} written",
        group(s.dram_sectors_read),
        group(s.dram_sectors_write)
    ));
    let top = top_stalls(s);
    if !top.is_empty() {
        lines.push(format!("top stalls: {top}"));
    }
    lines.join("\n")
}

/// The rows of the tables: every kernel, then the total.
fn rows(report: &Report) -> Vec<(String, KernelStats)> {
    report
        .kernels
        .iter()
        .map(|k| (k.name.clone(), k.stats.clone()))
        .chain(std::iter::once(("total".to_string(), total(report))))
        .collect()
}

/// The text report's tables (`Report::to_table`), as HTML tables.
pub fn tables(report: &Report) -> Vec<Block> {
    let rows = rows(report);
    let mut out = Vec::new();
    out.push(Block::Table(Table {
        caption: "time and issue (IPC: warp instructions per active SM cycle)".into(),
        header: [
            "kernel",
            "launches",
            "grid",
            "block",
            "cycles",
            "warp inst",
            "IPC",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|(name, s)| {
                let shape = |d: [u32; 3]| {
                    if name == "total" {
                        String::new()
                    } else {
                        format!("{}x{}x{}", d[0], d[1], d[2])
                    }
                };
                vec![
                    Cell::text(name),
                    Cell::num(group(s.launches)),
                    Cell::num(shape(s.grid)),
                    Cell::num(shape(s.block)),
                    Cell::num(group(s.cycles.0)),
                    Cell::num(group(s.inst_executed)),
                    Cell::num(ratio(s.inst_executed, s.sm_cycles_active)),
                ]
            })
            .collect(),
    }));
    let atomics = rows.iter().any(|(_, s)| s.smem_atom_inst > 0);
    let mut header: Vec<String> = [
        "kernel",
        "smem ld wavef",
        "ld confl",
        "smem st wavef",
        "st confl",
        "gld sectors/req",
        "gst sectors/req",
        "DRAM rd sectors",
        "DRAM wr sectors",
    ]
    .map(String::from)
    .to_vec();
    if atomics {
        header.extend(["atom inst", "atom wavef", "atom confl"].map(String::from));
    }
    out.push(Block::Table(Table {
        caption: "memory (shared: wavefronts, bank conflicts; global: sectors per request)".into(),
        header,
        rows: rows
            .iter()
            .map(|(name, s)| {
                let mut cells = vec![
                    Cell::text(name),
                    Cell::num(group(s.smem_ld_wavefronts)),
                    Cell::num(group(s.smem_ld_bank_conflicts)),
                    Cell::num(group(s.smem_st_wavefronts)),
                    Cell::num(group(s.smem_st_bank_conflicts)),
                    Cell::num(ratio(s.gmem_ld_sectors, s.gmem_ld_requests)),
                    Cell::num(ratio(s.gmem_st_sectors, s.gmem_st_requests)),
                    Cell::num(group(s.dram_sectors_read)),
                    Cell::num(group(s.dram_sectors_write)),
                ];
                if atomics {
                    cells.extend([
                        Cell::num(group(s.smem_atom_inst)),
                        Cell::num(group(s.smem_atom_wavefronts)),
                        Cell::num(group(s.smem_atom_bank_conflicts)),
                    ]);
                }
                cells
            })
            .collect(),
    }));
    // Every reason some row charged, in bar order.
    let charged: Vec<StallReason> = reasons()
        .into_iter()
        .filter(|r| rows.iter().any(|(_, s)| s.stall(*r) > 0))
        .collect();
    let mut header = vec!["kernel".to_string()];
    header.extend(charged.iter().map(|r| stall_short(r.name()).to_string()));
    out.push(Block::Table(Table {
        caption: "stall reasons (% of resident warp-cycles; select: issuing)".into(),
        header,
        rows: rows
            .iter()
            .map(|(name, s)| {
                let mut cells = vec![Cell::text(name)];
                cells.extend(
                    charged
                        .iter()
                        .map(|r| Cell::num(format!("{:.1}", share(s, *r)))),
                );
                cells
            })
            .collect(),
    }));
    out
}

/// A bar of stall shares: `label`, the shares of `s` and its tip.
pub fn stall_bar(label: String, s: &KernelStats, tip: String) -> Bar {
    Bar {
        label,
        values: reasons().iter().map(|r| share(s, *r)).collect(),
        tip,
    }
}

/// Stacked bars of where warp-cycles went, one bar per entry of `bars`.
pub fn stall_chart(title: String, bars: Vec<Bar>) -> Chart {
    Chart::Bars(BarChart {
        title,
        x_label: "share of resident warp-cycles (%)".into(),
        segments: reasons()
            .iter()
            .map(|r| {
                if *r == StallReason::Selected {
                    "selected (issuing)".to_string()
                } else {
                    r.name().to_string()
                }
            })
            .collect(),
        bars,
    })
}

/// Stall bars of every kernel of `report` (and its total).
pub fn kernel_stall_chart(report: &Report) -> Chart {
    let bars = rows(report)
        .into_iter()
        .map(|(name, s)| {
            let tip = counters(&s, report.keys);
            stall_bar(name, &s, tip)
        })
        .collect();
    stall_chart("Where warp-cycles go, per kernel".into(), bars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::report::KernelRow;

    fn report() -> Report {
        let mut stats = KernelStats {
            launches: 2,
            cycles: sim::Cycle(1000),
            sm_cycles_active: 500,
            inst_executed: 250,
            warp_cycles: 100,
            smem_ld_wavefronts: 40,
            smem_ld_bank_conflicts: 8,
            gmem_ld_sectors: 16,
            gmem_ld_requests: 4,
            ..KernelStats::default()
        };
        stats.stalls[StallReason::Selected.index()] = 25;
        stats.stalls[StallReason::LongScoreboard.index()] = 75;
        Report::new(
            serde_json::Map::new(),
            100,
            vec![KernelRow::new("bs", stats)],
        )
    }

    #[test]
    fn tables_hold_the_text_reports_figures() {
        let blocks = tables(&report());
        let [Block::Table(time), Block::Table(mem), Block::Table(stalls)] = &blocks[..] else {
            panic!("three tables: {blocks:?}");
        };
        assert_eq!(time.rows.len(), 2, "bs and total");
        assert_eq!(time.rows[0][4].text, "1,000");
        assert_eq!(time.rows[0][6].text, "0.50");
        assert_eq!(mem.rows[0][5].text, "4.00");
        assert_eq!(stalls.header, ["kernel", "select", "longsb"]);
        assert_eq!(stalls.rows[1][2].text, "75.0");
    }

    #[test]
    fn the_bars_put_issuing_first_and_tips_name_the_counters() {
        let Chart::Bars(chart) = kernel_stall_chart(&report()) else {
            panic!("bars");
        };
        assert_eq!(chart.segments[0], "selected (issuing)");
        assert_eq!(chart.bars[0].values[0], 25.0);
        assert_eq!(chart.bars[0].values.iter().sum::<f64>(), 100.0);
        let tip = &chart.bars[0].tip;
        assert!(tip.contains("cycles/key: 10.000"), "{tip}");
        assert!(tip.contains("top stalls: long_scoreboard 75%"), "{tip}");
    }
}
