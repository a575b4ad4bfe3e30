//! The lines that say what the main job ran (above its tables) and what
//! the stall columns mean (below them).

use serde_json::Value;
use simsort::experiment::report::Report;

/// The run's configuration in at most 80 columns: algorithm and machine
/// preset, warp width W, slab height H, slabs per block (as launched),
/// layout, warp-merge exchange, then the keys, their distribution and seed.
pub fn run_config(report: &Report) -> String {
    let c = &report.config;
    let text = |k: &str| match c.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "-".to_string(),
        Some(v) => v.to_string(),
    };
    let warp = c.get("warp").and_then(Value::as_u64).unwrap_or(0);
    let slabs = report
        .kernels
        .iter()
        .find(|k| k.name == "bs")
        .map(|k| k.block.iter().map(|&d| u64::from(d)).product::<u64>())
        .filter(|_| warp > 0)
        .map_or_else(
            || text("block_slabs"),
            |threads| (threads / warp).to_string(),
        );
    if text("algo") == "terasort" {
        // GPUTeraSort's own options (quiet ones read `-` at their default).
        let or = |k: &str, d: &str| match text(k).as_str() {
            "-" => d.to_string(),
            v => v.to_string(),
        };
        let steps = if text("per_output") == "true" {
            "output"
        } else {
            "pair"
        };
        return format!(
            "terasort on {}: W={warp}, {}-byte records, {}-byte keys, run records {}, {steps} \
             steps, phase 2 {}\n{} keys ({}-bit, {}, seed {})\n",
            text("gpu"),
            or("record_bytes", "100"),
            or("key_bytes", "10"),
            or("run_records", "all"),
            text("phase2"),
            report.keys,
            text("key_bits"),
            text("dist"),
            text("seed"),
        );
    }
    format!(
        "{} on {}: W={warp} H={} block slabs {slabs}, layout {}, merge {}\n\
         {} keys ({}-bit, {}, seed {})\n",
        text("algo"),
        text("gpu"),
        text("slab_height"),
        text("smem_layout"),
        text("merge"),
        report.keys,
        text("key_bits"),
        text("dist"),
        text("seed"),
    )
}

/// What the stall table's short headers stand for: the Nsight Compute
/// reason names (`docs/report.md` says what each means), within 80 columns.
pub fn stall_legend() -> &'static str {
    "stalls: select = selected, notsel = not_selected, longsb = long_scoreboard,\n\
     shrtsb = short_scoreboard, mio = mio_throttle, lg = lg_throttle,\n\
     bar = barrier, math = math_pipe_throttle (percent of resident warp-cycles)\n"
}
