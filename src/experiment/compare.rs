//! `simsort compare`: every algorithm on the same input and the same
//! simulated machine, side by side. The grid is a sweep's (every sort
//! option a list) with every algorithm on the `algo` axis unless the user
//! chose some; an option that belongs to one algorithm only is set back to
//! its default in the other algorithms' configurations, so `--vector 8`
//! changes the bitonic sort and leaves HotSort as it is. Each row reduces a
//! verified run's report to per-key figures that compare across algorithms.

use std::fmt::Write as _;

use clap::ValueEnum;
use serde_json::{Map, Value, json};

use super::options::{SortOptions, SweepSpec, axis_value, reset_option};
use super::report::{Report, group, stall_short};
use super::sort::{Algo, option_applies};
use super::sweep::{Axis, RunResult, SweepRun};

/// The sweep spec of a comparison: every algorithm unless `algos_given`.
pub fn spec(mut spec: SweepSpec, algos_given: bool) -> SweepSpec {
    if !algos_given {
        spec.algo = Algo::value_variants().to_vec();
    }
    spec
}

/// The configurations of a comparison in grid order: each one's foreign
/// options (those its algorithm does not take) at their defaults, and
/// configurations that become equal by that kept once.
pub fn grid(spec: &SweepSpec) -> Vec<SortOptions> {
    let mut out: Vec<SortOptions> = Vec::new();
    for mut opts in spec.expand() {
        for axis in spec.axes() {
            if !option_applies(opts.algo, &axis.name) {
                reset_option(&mut opts, &axis.name);
            }
        }
        // GPUTeraSort compares with 16-byte records holding the same keys
        // (issue 13) unless the user chose a record size.
        if opts.algo == Algo::Terasort && opts.record_bytes.is_none() {
            opts.record_bytes = Some(16);
        }
        if !out.contains(&opts) {
            out.push(opts);
        }
    }
    out
}

/// The axes that tell one comparison group from another: those with more
/// than one value, except `algo` (the rows of a group).
pub fn group_axes(axes: &[Axis]) -> Vec<String> {
    axes.iter()
        .filter(|a| a.values.len() > 1 && a.name != "algo")
        .map(|a| a.name.clone())
        .collect()
}

/// One algorithm's run reduced to figures per key.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The algorithm.
    pub algo: String,
    /// Keys sorted.
    pub keys: u64,
    /// Kernel launches (host synchronisations).
    pub launches: u64,
    /// Simulated cycles of all launches, back to back.
    pub cycles: u64,
    /// Simulated time at the machine's clock, microseconds.
    pub micros: f64,
    /// Warp instructions.
    pub warp_instructions: u64,
    /// Shared-memory wavefronts (loads and stores).
    pub shared_wavefronts: u64,
    /// Shared-memory bank conflicts (loads and stores).
    pub bank_conflicts: u64,
    /// Global-memory sectors (loads and stores) at L1.
    pub global_sectors: u64,
    /// DRAM bytes read and written.
    pub dram_bytes: u64,
    /// The three largest stall reasons with their share of warp cycles.
    pub top_stalls: Vec<(String, f64)>,
}

fn metric(report: &Report, names: &[&str]) -> u64 {
    names
        .iter()
        .map(|n| report.total.metrics.get(n).copied().unwrap_or(0.0) as u64)
        .sum()
}

impl Row {
    /// The row of a finished run.
    pub fn of(report: &Report) -> Row {
        let config = |key: &str| report.config.get(key).and_then(Value::as_u64).unwrap_or(0);
        let algo = report
            .config
            .get("algo")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let launches = report.kernels.iter().map(|k| k.launches).sum();
        let clock_mhz = config("clock_mhz").max(1);
        let stalled: u64 = report.total.stalls.values().sum();
        let mut top: Vec<(String, f64)> = report
            .total
            .stalls
            .iter()
            .filter(|&(_, &v)| v > 0)
            .map(|(k, &v)| (k.to_string(), 100.0 * v as f64 / stalled.max(1) as f64))
            .collect();
        top.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        top.truncate(3);
        Row {
            algo,
            keys: report.keys,
            launches,
            cycles: report.total.cycles,
            micros: report.total.cycles as f64 / clock_mhz as f64,
            warp_instructions: metric(report, &["smsp__inst_executed.sum"]),
            shared_wavefronts: metric(
                report,
                &[
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                ],
            ),
            bank_conflicts: metric(
                report,
                &[
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                ],
            ),
            global_sectors: metric(
                report,
                &[
                    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                ],
            ),
            dram_bytes: metric(
                report,
                &["dram__sectors_read.sum", "dram__sectors_write.sum"],
            ) * config("sector_bytes"),
            top_stalls: top,
        }
    }

    /// `count` per key (0 without keys).
    fn per_key(&self, count: u64) -> f64 {
        if self.keys == 0 {
            0.0
        } else {
            count as f64 / self.keys as f64
        }
    }

    /// The row as a JSON object.
    pub fn json(&self) -> Value {
        let stalls: Vec<Value> = self
            .top_stalls
            .iter()
            .map(|(reason, share)| json!({ "reason": reason, "percent": share }))
            .collect();
        json!({
            "algo": self.algo,
            "keys": self.keys,
            "launches": self.launches,
            "cycles": self.cycles,
            "microseconds": self.micros,
            "cycles_per_key": self.per_key(self.cycles),
            "warp_instructions": self.warp_instructions,
            "warp_instructions_per_key": self.per_key(self.warp_instructions),
            "shared_wavefronts": self.shared_wavefronts,
            "shared_wavefronts_per_key": self.per_key(self.shared_wavefronts),
            "bank_conflicts": self.bank_conflicts,
            "bank_conflicts_per_key": self.per_key(self.bank_conflicts),
            "global_sectors": self.global_sectors,
            "global_sectors_per_key": self.per_key(self.global_sectors),
            "dram_bytes": self.dram_bytes,
            "dram_bytes_per_key": self.per_key(self.dram_bytes),
            "top_stalls": stalls,
        })
    }
}

/// The groups of a comparison in grid order: the values of the group axes
/// and each algorithm's run in that group.
fn groups<'a>(runs: &'a [SweepRun], by: &[String]) -> Vec<(String, Vec<&'a SweepRun>)> {
    let mut out: Vec<(String, Vec<&SweepRun>)> = Vec::new();
    for r in runs {
        let title = by
            .iter()
            .map(|a| format!("{}={}", a.replace('_', "-"), axis_value(&r.opts, a)))
            .collect::<Vec<_>>()
            .join(" ");
        match out.iter_mut().find(|(t, _)| *t == title) {
            Some((_, members)) => members.push(r),
            None => out.push((title, vec![r])),
        }
    }
    out
}

/// The comparison as tables for the terminal: per group, one line per
/// algorithm, then the legend.
pub fn table(axes: &[Axis], runs: &[SweepRun]) -> String {
    let by = group_axes(axes);
    let mut out = String::new();
    for (title, members) in groups(runs, &by) {
        if !title.is_empty() {
            let _ = writeln!(out, "{title}");
        }
        let _ = writeln!(
            out,
            "{:<10} {:>6} {:>14} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  top stalls",
            "algo",
            "launch",
            "cycles",
            "time us",
            "cyc/key",
            "inst/key",
            "wavf/key",
            "cnfl/key",
            "sect/key",
            "DRAM/key"
        );
        for r in members {
            let name = r.opts.algo.name();
            match &r.result {
                RunResult::Done(report) => {
                    let row = Row::of(report);
                    let stalls = row
                        .top_stalls
                        .iter()
                        .map(|(reason, share)| format!("{} {share:.0}%", stall_short(reason)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let _ = writeln!(
                        out,
                        "{:<10} {:>6} {:>14} {:>10.1} {:>8.2} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.2}  {stalls}",
                        name,
                        row.launches,
                        group(row.cycles),
                        row.micros,
                        row.per_key(row.cycles),
                        row.per_key(row.warp_instructions),
                        row.per_key(row.shared_wavefronts),
                        row.per_key(row.bank_conflicts),
                        row.per_key(row.global_sectors),
                        row.per_key(row.dram_bytes),
                    );
                }
                RunResult::Skipped(_) => {
                    let _ = writeln!(out, "{name:<10} skipped: {}", skip_reason(&r.opts));
                }
                RunResult::Failed(_) => {
                    let _ = writeln!(out, "{name:<10} FAILED");
                }
            }
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "per key (/key, divided by the number of keys): cycles, warp instructions, shared\n\
         wavefronts, bank conflicts (beyond the minimum), global sectors (L1), DRAM bytes;\n\
         time us = microseconds at the machine clock; top stalls\n\
         as shares of warp cycles (named as in the sort's stall table, docs/report.md)"
    );
    out
}

/// Why a configuration was skipped, in a few words for the table (the
/// warning on stderr lists every problem): an algorithm that cannot carry
/// values beside 64-bit keys says so, anything else did not fit the machine.
fn skip_reason(opts: &SortOptions) -> String {
    if opts.values && opts.key_bits != 32 && !opts.algo.carries_values() {
        format!("cannot carry values with {}-bit keys", opts.key_bits)
    } else {
        "does not fit the machine".to_string()
    }
}

/// The comparison as one JSON object: `axes`, and `groups`, each with the
/// values of its group axes (`config`) and one row per algorithm (`rows`),
/// plus the skipped and failed configurations.
pub fn to_json(axes: &[Axis], runs: &[SweepRun]) -> String {
    let by = group_axes(axes);
    let axes_json: Map<String, Value> = axes
        .iter()
        .map(|a| (a.name.clone(), json!(a.values)))
        .collect();
    let mut groups_json = Vec::new();
    let mut skipped = Vec::new();
    let mut failed = Vec::new();
    for (_, members) in groups(runs, &by) {
        let config: Map<String, Value> = by
            .iter()
            .map(|a| (a.clone(), json!(axis_value(&members[0].opts, a))))
            .collect();
        let mut rows = Vec::new();
        for r in members {
            let options = serde_json::to_value(&r.opts).unwrap_or(Value::Null);
            match &r.result {
                RunResult::Done(report) => rows.push(Row::of(report).json()),
                RunResult::Skipped(p) => skipped.push(json!({ "options": options, "problems": p })),
                RunResult::Failed(e) => failed.push(json!({ "options": options, "error": e })),
            }
        }
        groups_json.push(json!({ "config": config, "rows": rows }));
    }
    let value = json!({
        "axes": axes_json,
        "groups": groups_json,
        "skipped": skipped,
        "failed": failed,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::sweep::{check_grid, run};

    #[test]
    fn every_algorithm_runs_unless_some_are_chosen() {
        let all = spec(SweepSpec::default(), false);
        assert_eq!(all.algo, Algo::value_variants());
        let one = spec(SweepSpec::default(), true);
        assert_eq!(one.algo, [Algo::Hotsort]);
    }

    #[test]
    fn rows_are_per_algorithm_and_grouped_by_the_other_lists() {
        let s = spec(
            SweepSpec {
                gpu: vec!["tiny".into()],
                keys: vec![300, 700],
                warp: vec![8],
                slab_height: vec![Some(4)],
                ..SweepSpec::default()
            },
            false,
        );
        let g = grid(&s);
        let runs = run(check_grid(g, &s.axes()).unwrap(), 1, &|_, _| {}).unwrap();
        let text = table(&s.axes(), &runs);
        assert!(
            text.contains("keys=300") && text.contains("keys=700"),
            "{text}"
        );
        let json: Value = serde_json::from_str(&to_json(&s.axes(), &runs)).unwrap();
        let groups = json["groups"].as_array().unwrap();
        assert_eq!(groups.len(), 2);
        for g in groups {
            let rows = g["rows"].as_array().unwrap();
            assert_eq!(rows.len(), Algo::value_variants().len());
            for row in rows {
                assert!(row["cycles"].as_u64().unwrap() > 0);
                assert!(row["global_sectors_per_key"].as_f64().unwrap() > 0.0);
                assert!(row["top_stalls"].as_array().unwrap().len() <= 3);
            }
        }
        assert_eq!(groups[0]["config"]["keys"], "300");
    }
}
