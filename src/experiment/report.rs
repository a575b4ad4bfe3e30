//! The report of an experiment: per-kernel rows (launches aggregated by
//! kernel name) and a total, as a table for people and as the stable JSON
//! object of `cli.md` for scripts.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use sim::{KernelStats, StallReason};

/// One kernel's row: every launch of that kernel, summed.
#[derive(Debug, Clone, Serialize)]
pub struct KernelRow {
    /// Kernel name (`bs`, `fm`, ...).
    pub name: String,
    /// Launches summed into this row.
    pub launches: u64,
    /// Grid of the first launch.
    pub grid: [u32; 3],
    /// Block of the first launch.
    pub block: [u32; 3],
    /// Simulated cycles, summed over launches.
    pub cycles: u64,
    /// Counters under Nsight Compute's metric names.
    #[serde(serialize_with = "metrics_json")]
    pub metrics: BTreeMap<&'static str, f64>,
    /// Warp-cycles per stall reason.
    pub stalls: BTreeMap<&'static str, u64>,
    /// The raw counters, kept for the table (not serialised).
    #[serde(skip)]
    pub stats: KernelStats,
}

impl KernelRow {
    /// A row from (aggregated) stats.
    pub fn new(name: &str, stats: KernelStats) -> KernelRow {
        KernelRow {
            name: name.to_string(),
            launches: stats.launches,
            grid: stats.grid,
            block: stats.block,
            cycles: stats.cycles.0,
            metrics: stats.metrics(),
            stalls: stats.stall_map(),
            stats,
        }
    }
}

/// The total over every kernel.
#[derive(Debug, Clone, Serialize)]
pub struct TotalRow {
    /// Simulated cycles of all launches, back to back.
    pub cycles: u64,
    /// Counters under Nsight Compute's metric names.
    #[serde(serialize_with = "metrics_json")]
    pub metrics: BTreeMap<&'static str, f64>,
    /// Warp-cycles per stall reason.
    pub stalls: BTreeMap<&'static str, u64>,
}

/// Writes metrics as JSON with counts as integers and ratios and averages
/// as floats ([`sim::metric_is_count`]), as Nsight Compute exports them.
fn metrics_json<S: serde::Serializer>(
    metrics: &BTreeMap<&'static str, f64>,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(metrics.len()))?;
    for (name, &value) in metrics {
        if sim::metric_is_count(name) && value >= 0.0 && value.fract() == 0.0 {
            map.serialize_entry(name, &(value as u64))?;
        } else {
            map.serialize_entry(name, &value)?;
        }
    }
    map.end()
}

/// An experiment's report (`cli.md`: the keys are stable).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Every field of the machine config and the sort options.
    pub config: serde_json::Map<String, serde_json::Value>,
    /// Number of keys sorted.
    pub keys: u64,
    /// Whether the output matched the reference sort (a report is only
    /// printed for correct runs, so this is always true in output).
    pub sorted: bool,
    /// Totals over all kernels.
    pub total: TotalRow,
    /// One row per kernel name, in order of first launch.
    pub kernels: Vec<KernelRow>,
}

/// Sums launches by kernel name, keeping the order of first launch.
pub fn aggregate<'a>(
    launches: impl IntoIterator<Item = (&'a str, &'a KernelStats)>,
) -> Vec<KernelRow> {
    let mut order: Vec<(String, KernelStats)> = Vec::new();
    for (name, stats) in launches {
        match order.iter_mut().find(|(n, _)| n == name) {
            Some((_, acc)) => *acc += stats,
            None => order.push((name.to_string(), stats.clone())),
        }
    }
    order
        .into_iter()
        .map(|(name, stats)| KernelRow::new(&name, stats))
        .collect()
}

impl Report {
    /// A report from its rows; the total sums them.
    pub fn new(
        config: serde_json::Map<String, serde_json::Value>,
        keys: u64,
        kernels: Vec<KernelRow>,
    ) -> Report {
        let mut total = KernelStats::default();
        for row in &kernels {
            total += &row.stats;
        }
        Report {
            config,
            keys,
            sorted: true,
            total: TotalRow {
                cycles: total.cycles.0,
                metrics: total.metrics(),
                stalls: total.stall_map(),
            },
            kernels,
        }
    }

    /// The report as pretty JSON (stable key order: maps are sorted).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serialises")
    }

    /// The report as three titled tables that fit 80 columns: time and
    /// issue, memory, stall reasons.
    pub fn to_table(&self) -> String {
        let mut total = KernelStats::default();
        for row in &self.kernels {
            total += &row.stats;
        }
        let rows: Vec<(&str, &KernelStats)> = self
            .kernels
            .iter()
            .map(|r| (r.name.as_str(), &r.stats))
            .chain(std::iter::once(("total", &total)))
            .collect();
        // The kernel column is as wide as the longest name (10 at least),
        // so a long name such as `small_sort_512` never shifts the columns.
        let w = rows
            .iter()
            .map(|(n, _)| n.chars().count())
            .max()
            .unwrap_or(0)
            .max(10);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "time and issue (IPC: warp instructions per active SM cycle)"
        );
        let _ = writeln!(
            out,
            "{:<w$} {:>8} {:>15} {:>15} {:>6}",
            "kernel", "launches", "cycles", "warp inst", "IPC"
        );
        for (name, s) in &rows {
            let ipc = if s.sm_cycles_active == 0 {
                0.0
            } else {
                s.inst_executed as f64 / s.sm_cycles_active as f64
            };
            let _ = writeln!(
                out,
                "{:<w$} {:>8} {:>15} {:>15} {:>6.2}",
                name,
                group(s.launches),
                group(s.cycles.0),
                group(s.inst_executed),
                ipc,
            );
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "memory (shared: wavefronts, bank conflicts; global: sectors per request)"
        );
        let _ = writeln!(
            out,
            "{:<w$} {:>13} {:>10} {:>13} {:>10} {:>8} {:>8}",
            "kernel",
            "smem ld wavef",
            "ld confl",
            "smem st wavef",
            "st confl",
            "gld s/r",
            "gst s/r"
        );
        for (name, s) in &rows {
            let per = |a: u64, b: u64| {
                if b == 0 {
                    "-".to_string()
                } else {
                    format!("{:.2}", a as f64 / b as f64)
                }
            };
            let _ = writeln!(
                out,
                "{:<w$} {:>13} {:>10} {:>13} {:>10} {:>8} {:>8}",
                name,
                group(s.smem_ld_wavefronts),
                group(s.smem_ld_bank_conflicts),
                group(s.smem_st_wavefronts),
                group(s.smem_st_bank_conflicts),
                per(s.gmem_ld_sectors, s.gmem_ld_requests),
                per(s.gmem_st_sectors, s.gmem_st_requests),
            );
        }
        // Only when a kernel ran shared atomics, so other reports keep
        // their layout.
        if rows.iter().any(|(_, s)| s.smem_atom_inst > 0) {
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "shared atomics (no broadcast: every active lane is a request)"
            );
            let _ = writeln!(
                out,
                "{:<w$} {:>13} {:>13} {:>10}",
                "kernel", "atom inst", "atom wavef", "atom confl"
            );
            for (name, s) in &rows {
                let _ = writeln!(
                    out,
                    "{:<w$} {:>13} {:>13} {:>10}",
                    name,
                    group(s.smem_atom_inst),
                    group(s.smem_atom_wavefronts),
                    group(s.smem_atom_bank_conflicts)
                );
            }
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "stall reasons (% of resident warp-cycles)");
        let _ = write!(out, "{:<w$}", "kernel");
        // A share is at most 5 characters (`100.0`), so a column is as wide
        // as its header or 5: the ten columns and a 12-character kernel
        // name (sample sort's `find_buckets`) fit 80 columns.
        for (_, short) in STALL_COLUMNS {
            let _ = write!(out, " {short:>0$}", stall_width(short));
        }
        let _ = writeln!(out, " {OTHER_COLUMN:>0$}", stall_width(OTHER_COLUMN));
        for (name, s) in &rows {
            let _ = write!(out, "{name:<w$}");
            let share = |cycles: u64| {
                if s.warp_cycles == 0 {
                    0.0
                } else {
                    100.0 * cycles as f64 / s.warp_cycles as f64
                }
            };
            for (reason, short) in STALL_COLUMNS {
                let _ = write!(
                    out,
                    " {:>1$.1}",
                    share(s.stall(*reason)),
                    stall_width(short)
                );
            }
            let other = share(other_stalls(s));
            let _ = writeln!(out, " {other:>0$.1}", stall_width(OTHER_COLUMN));
        }
        out
    }
}

/// `n` with thousands grouped by commas.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The stall table's last column: every reason without a column of its
/// own (`no_instruction` above all: every warp of a launch's first wave
/// waits for its first instructions), so that a row adds up to 100%.
pub const OTHER_COLUMN: &str = "other";

/// The width of the stall column headed `short`.
fn stall_width(short: &str) -> usize {
    short.len().max(5)
}

/// Warp-cycles of `s` in the reasons without a column of their own.
fn other_stalls(s: &KernelStats) -> u64 {
    StallReason::ALL
        .iter()
        .filter(|r| !STALL_COLUMNS.iter().any(|(c, _)| c == *r))
        .map(|r| s.stall(*r))
        .sum()
}

/// The short name the tables give the stall reason named `name` (the
/// report's `stalls` key), or `name` itself for a reason without a column.
pub fn stall_short(name: &str) -> &str {
    STALL_COLUMNS
        .iter()
        .find(|(r, _)| r.name() == name)
        .map_or(name, |(_, short)| short)
}

/// The stall reasons with a column of their own, with their headings of
/// at most 6 characters (the rest share [`OTHER_COLUMN`]); the JSON report
/// has each.
const STALL_COLUMNS: &[(StallReason, &str)] = &[
    (StallReason::Selected, "select"),
    (StallReason::NotSelected, "notsel"),
    (StallReason::LongScoreboard, "longsb"),
    (StallReason::ShortScoreboard, "shrtsb"),
    (StallReason::Wait, "wait"),
    (StallReason::MioThrottle, "mio"),
    (StallReason::LgThrottle, "lg"),
    (StallReason::Barrier, "bar"),
    (StallReason::MathPipeThrottle, "math"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_fits_80_columns_with_huge_counts() {
        let stats = KernelStats {
            launches: 123_456,
            cycles: sim::Cycle(987_654_321_012),
            sm_cycles_active: 1,
            inst_executed: 999_999_999_999,
            smem_ld_wavefronts: 99_999_999_999,
            smem_ld_bank_conflicts: 9_999_999,
            smem_st_wavefronts: 99_999_999_999,
            smem_st_bank_conflicts: 9_999_999,
            gmem_ld_sectors: 4,
            gmem_ld_requests: 1,
            warp_cycles: 10,
            ..KernelStats::default()
        };
        let report = Report::new(
            serde_json::Map::new(),
            1,
            vec![KernelRow::new("transpose", stats)],
        );
        let table = report.to_table();
        for line in table.lines() {
            assert!(line.chars().count() <= 80, "{} columns: {line}", line.len());
        }
        assert!(table.contains("987,654,321,012"), "{table}");
    }

    #[test]
    fn a_long_kernel_name_widens_the_column_instead_of_shifting_the_row() {
        let stats = KernelStats {
            launches: 1,
            cycles: sim::Cycle(1234),
            ..KernelStats::default()
        };
        let report = Report::new(
            serde_json::Map::new(),
            1,
            vec![
                KernelRow::new("small_sort_512", stats.clone()),
                KernelRow::new("bs", stats),
            ],
        );
        let table = report.to_table();
        // Every row of a table ends in the same column as its header.
        for block in table.split("\n\n") {
            let lines: Vec<&str> = block.lines().skip(1).collect();
            let width = lines[0].chars().count();
            for line in &lines {
                assert_eq!(line.chars().count(), width, "{block}");
            }
        }
    }

    #[test]
    fn the_stall_table_fits_80_columns_beside_a_12_character_kernel_name() {
        let stats = KernelStats {
            launches: 1,
            cycles: sim::Cycle(100),
            warp_cycles: 100,
            ..KernelStats::default()
        };
        let mut full = stats.clone();
        full.stalls[StallReason::NoInstruction.index()] = 100;
        let report = Report::new(
            serde_json::Map::new(),
            1,
            vec![
                KernelRow::new("find_buckets", stats),
                KernelRow::new("copy_buckets", full),
            ],
        );
        let table = report.to_table();
        let stalls = table.split("stall reasons").nth(1).unwrap();
        for line in stalls.lines() {
            assert!(line.chars().count() <= 80, "{} columns: {line}", line.len());
        }
        assert!(stalls.contains("100.0"), "{table}");
    }

    #[test]
    fn a_stall_row_adds_up_to_100_percent_with_other() {
        let mut stats = KernelStats {
            launches: 1,
            cycles: sim::Cycle(100),
            warp_cycles: 200,
            ..KernelStats::default()
        };
        stats.stalls[StallReason::Selected.index()] = 50;
        stats.stalls[StallReason::NoInstruction.index()] = 120;
        stats.stalls[StallReason::BranchResolving.index()] = 30;
        let report = Report::new(serde_json::Map::new(), 1, vec![KernelRow::new("bs", stats)]);
        let table = report.to_table();
        let stalls = table.split("stall reasons").nth(1).unwrap();
        let header: Vec<&str> = stalls.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(header.last(), Some(&OTHER_COLUMN), "{table}");
        let row: Vec<f64> = stalls
            .lines()
            .nth(2)
            .unwrap()
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(row[0], 25.0, "{table}");
        assert_eq!(*row.last().unwrap(), 75.0, "{table}");
        assert_eq!(row.iter().sum::<f64>(), 100.0, "{table}");
    }

    #[test]
    fn large_counts_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1234567), "1,234,567");
    }
}
