//! The lines that say what the main job ran (above its tables) and what
//! the stall columns mean (below them).

use serde_json::Value;
use simsort::experiment::SortOptions;
use simsort::experiment::report::Report;

/// The run's configuration in at most 80 columns: algorithm and machine
/// preset, warp width W, then the algorithm's shape (HotSort: slab height H,
/// slabs per block (as launched), layout, warp-merge exchange; mergesort:
/// threads per block NT and keys per thread VT, as launched), then the keys,
/// their distribution and seed.
pub fn run_config(report: &Report) -> String {
    let c = &report.config;
    let text = |k: &str| match c.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "-".to_string(),
        Some(v) => v.to_string(),
    };
    let warp = c.get("warp").and_then(Value::as_u64).unwrap_or(0);
    let keys = format!(
        "{} keys ({}-bit{}, {}, seed {})\n",
        report.keys,
        text("key_bits"),
        if c.get("values") == Some(&Value::Bool(true)) {
            " with 32-bit values"
        } else {
            ""
        },
        text("dist"),
        text("seed"),
    );
    if text("algo") == "mergesort" {
        let threads = report
            .kernels
            .iter()
            .find(|k| k.name == "blocksort")
            .map_or_else(|| text("block_threads"), |k| k.block[0].to_string());
        let vt = c
            .get("items_per_thread")
            .and_then(Value::as_u64)
            .unwrap_or(u64::from(sorts::mergesort::DEFAULT_ITEMS_PER_THREAD));
        return format!(
            "mergesort on {}: W={warp} NT={threads} VT={vt}\n{keys}",
            text("gpu")
        );
    }
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
    let algo = match text("algo").as_str() {
        "bitonic" => {
            // The block as launched (`step` runs in every mode).
            let threads = report
                .kernels
                .iter()
                .find(|k| k.name == "step")
                .map(|k| k.block.iter().map(|&d| u64::from(d)).product::<u64>())
                .map_or_else(|| text("block_threads"), |t| t.to_string());
            // Quiet options are in the report only when not the default.
            let d = SortOptions::default();
            let or =
                |k: &str, default: String| Some(text(k)).filter(|v| v != "-").unwrap_or(default);
            let fused = or("bitonic_fused", d.bitonic_fused.to_string()) == "true";
            format!(
                "bitonic on {}: W={warp} L={} G={threads}, {}, swizzle {}",
                text("gpu"),
                or("vector", d.vector.to_string()),
                if fused {
                    "fused"
                } else {
                    "plain (one launch per step)"
                },
                or("bitonic_swizzle", d.bitonic_swizzle.to_string()),
            )
        }
        "samplesort" => {
            // Quiet options read `-` at their default (batched levels).
            let per_bucket = text("level_launches") == "per-bucket";
            format!(
                "samplesort on {}: W={warp} k={} a={} M={} C={} t={} l={}{}",
                text("gpu"),
                text("buckets"),
                text("oversample"),
                text("small_size"),
                text("counter_copies"),
                text("block_threads"),
                match (text("items_per_thread").as_str(), per_bucket) {
                    ("-", true) => "per bucket".to_string(),
                    ("-", false) => "per launch".to_string(),
                    (l, _) => l.to_string(),
                },
                if per_bucket {
                    ", one launch chain per bucket"
                } else {
                    ""
                },
            )
        }
        "terasort" => {
            // GPUTeraSort's own options (quiet ones read `-` at their default).
            let or = |k: &str, d: &str| match text(k).as_str() {
                "-" => d.to_string(),
                v => v.to_string(),
            };
            let network = match (
                text("terasort_network").as_str(),
                text("per_output").as_str(),
            ) {
                ("steps", "true") => "output steps",
                ("steps", _) => "pair steps",
                _ => "fused network",
            };
            format!(
                "terasort on {}: W={warp}, {}-byte records, {}-byte keys, run records {}, \
                 {network}, phase 2 {}",
                text("gpu"),
                or("record_bytes", "100"),
                or("key_bytes", "10"),
                or("run_records", "all"),
                text("phase2"),
            )
        }
        algo => format!(
            "{algo} on {}: W={warp} H={} block slabs {slabs}, layout {}, merge {}",
            text("gpu"),
            text("slab_height"),
            text("smem_layout"),
            text("merge"),
        ),
    };
    format!(
        "{algo}\n{} keys ({}-bit, {}, seed {})\n",
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
