//! What a sweep plot puts on its y axis, by the names the reports use:
//! `cycles`, `cycles/key`, `warp instructions`, `conflicts`,
//! `conflicts/key`, `sectors/request`, `DRAM bytes`, `IPC`, any stall
//! reason's share (`long_scoreboard`, or the table's `longsb`), or any
//! counter of the report by its Nsight Compute name.

use super::report::{Report, stall_short};

/// A y quantity of a sweep plot.
#[derive(Clone, Debug, PartialEq)]
pub enum Metric {
    /// Total simulated cycles.
    Cycles,
    /// Cycles per key.
    CyclesPerKey,
    /// Warp instructions executed.
    WarpInstructions,
    /// Shared-memory bank conflicts.
    Conflicts,
    /// Shared-memory bank conflicts per key.
    ConflictsPerKey,
    /// Global sectors per request, loads and stores.
    SectorsPerRequest,
    /// DRAM bytes read and written.
    DramBytes,
    /// Warp instructions per active SM cycle.
    Ipc,
    /// One stall reason's share of resident warp-cycles.
    Stall(String),
    /// A counter of the report by its metric name.
    Counter(String),
}

/// The names `--plot-metric` takes besides stall reasons and counters.
pub const NAMES: &[&str] = &[
    "cycles",
    "cycles/key",
    "warp instructions",
    "conflicts",
    "conflicts/key",
    "sectors/request",
    "DRAM bytes",
    "IPC",
];

fn get(report: &Report, name: &str) -> f64 {
    report.total.metrics.get(name).copied().unwrap_or(0.0)
}

impl Metric {
    /// The metric `name` names (case and spaces, dashes or underscores
    /// alike), or why not.
    pub fn parse(name: &str) -> Result<Metric, String> {
        let norm = name.trim().to_ascii_lowercase().replace(['-', '_'], " ");
        let m = match norm.as_str() {
            "cycles" => Metric::Cycles,
            "cycles/key" | "cycles per key" => Metric::CyclesPerKey,
            "warp instructions" | "warp inst" | "instructions" => Metric::WarpInstructions,
            "conflicts" | "bank conflicts" => Metric::Conflicts,
            "conflicts/key" | "conflicts per key" => Metric::ConflictsPerKey,
            "sectors/request" | "sectors per request" => Metric::SectorsPerRequest,
            "dram bytes" | "dram" => Metric::DramBytes,
            "ipc" => Metric::Ipc,
            _ => {
                let snake = norm.replace(' ', "_");
                if let Some(r) = traces::StallReason::ALL
                    .iter()
                    .find(|r| r.name() == snake || stall_short(r.name()) == snake)
                {
                    Metric::Stall(r.name().to_string())
                } else if name.contains("__") {
                    Metric::Counter(name.trim().to_string())
                } else {
                    let stalls: Vec<&str> =
                        traces::StallReason::ALL.iter().map(|r| r.name()).collect();
                    return Err(format!(
                        "--plot-metric {name}: not a metric; use one of {}, a stall reason ({}) or \
                         a counter by its Nsight Compute name",
                        NAMES.join(", "),
                        stalls.join(", ")
                    ));
                }
            }
        };
        Ok(m)
    }

    /// The axis name, with its unit.
    pub fn label(&self) -> String {
        match self {
            Metric::Cycles => "simulated cycles".into(),
            Metric::CyclesPerKey => "cycles per key".into(),
            Metric::WarpInstructions => "warp instructions".into(),
            Metric::Conflicts => "shared-memory bank conflicts".into(),
            Metric::ConflictsPerKey => "bank conflicts per key".into(),
            Metric::SectorsPerRequest => "global sectors per request".into(),
            Metric::DramBytes => "DRAM traffic (bytes)".into(),
            Metric::Ipc => "IPC (warp instructions per active SM cycle)".into(),
            Metric::Stall(r) => format!("{} (% of resident warp-cycles)", r.replace('_', " ")),
            Metric::Counter(c) => c.clone(),
        }
    }

    /// Whether the axis starts at zero: for counts that can be zero and
    /// for shares, where a bar's ratio to zero means something; not for
    /// times, where the differences between configurations are the point.
    pub fn from_zero(&self) -> bool {
        matches!(
            self,
            Metric::Conflicts | Metric::ConflictsPerKey | Metric::Stall(_)
        )
    }

    /// The metric's value in `report` (`None` where it has no meaning,
    /// such as per key with no keys).
    pub fn value(&self, report: &Report) -> Option<f64> {
        let keys = report.keys as f64;
        let per_key = |v: f64| (report.keys > 0).then(|| v / keys);
        let conflicts = get(
            report,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        ) + get(
            report,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        ) + get(
            report,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
        );
        match self {
            Metric::Cycles => Some(report.total.cycles as f64),
            Metric::CyclesPerKey => per_key(report.total.cycles as f64),
            Metric::WarpInstructions => Some(get(report, "smsp__inst_executed.sum")),
            Metric::Conflicts => Some(conflicts),
            Metric::ConflictsPerKey => per_key(conflicts),
            Metric::SectorsPerRequest => {
                let sectors = get(report, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
                    + get(report, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
                let requests = get(report, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
                    + get(report, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
                (requests > 0.0).then(|| sectors / requests)
            }
            Metric::DramBytes => Some(
                32.0 * (get(report, "dram__sectors_read.sum")
                    + get(report, "dram__sectors_write.sum")),
            ),
            Metric::Ipc => Some(get(report, "sm__inst_executed.avg.per_cycle_active")),
            Metric::Stall(r) => {
                let total: u64 = report.total.stalls.values().sum();
                let v = report.total.stalls.get(r.as_str()).copied().unwrap_or(0);
                (total > 0).then(|| 100.0 * v as f64 / total as f64)
            }
            Metric::Counter(c) => report.total.metrics.get(c.as_str()).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_named_as_the_reports_name_them() {
        assert_eq!(Metric::parse("cycles/key"), Ok(Metric::CyclesPerKey));
        assert_eq!(
            Metric::parse("Warp Instructions"),
            Ok(Metric::WarpInstructions)
        );
        assert_eq!(Metric::parse("DRAM bytes"), Ok(Metric::DramBytes));
        assert_eq!(
            Metric::parse("long-scoreboard"),
            Ok(Metric::Stall("long_scoreboard".into()))
        );
        assert_eq!(
            Metric::parse("longsb"),
            Ok(Metric::Stall("long_scoreboard".into()))
        );
        let err = Metric::parse("speed").unwrap_err();
        assert!(
            err.starts_with("--plot-metric speed: not a metric; use one of cycles,"),
            "{err}"
        );
    }
}
