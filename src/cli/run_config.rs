//! The lines that say what the main job ran (above its tables) and what
//! the stall columns mean (below them).

use serde_json::Value;
use simsort::experiment::SortOptions;
use simsort::experiment::glossary;
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
    let keys = if text("algo") == "terasort" {
        // GPUTeraSort sorts records by their key bytes; `key_bits` is the
        // width of its key-pointer words, not of the user's keys.
        let or = |k: &str, d: &str| Some(text(k)).filter(|v| v != "-").unwrap_or(d.into());
        format!(
            "{} ({}-byte keys in {}-byte records, {}, seed {})\n",
            count(report.keys, "record"),
            or("key_bytes", "10"),
            or("record_bytes", "100"),
            text("dist"),
            text("seed"),
        )
    } else {
        format!(
            "{} ({}-bit{}, {}, seed {})\n",
            count(report.keys, "key"),
            text("key_bits"),
            if c.get("values") == Some(&Value::Bool(true)) {
                " with 32-bit values"
            } else {
                ""
            },
            text("dist"),
            text("seed"),
        )
    };
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
    // `block_slabs` is `null` in the JSON when the sort chose the block
    // (the largest that fits the machine): say so beside the number.
    let slabs = match (c.get("block_slabs"), slabs.as_str()) {
        (Some(Value::Null) | None, "-") => "auto (none launched)".to_string(),
        (Some(Value::Null) | None, n) => format!("{n} (auto)"),
        _ => slabs,
    };
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
                "samplesort on {}: W={warp}, {} buckets per level (k), oversampling {} (a),\n\
                 buckets of at most {} keys sorted in one block (M), {} counter copies (C),\n\
                 {} threads per block (t), keys per thread (l) {}{}",
                text("gpu"),
                text("buckets"),
                text("oversample"),
                text("small_size"),
                text("counter_copies"),
                text("block_threads"),
                match (text("items_per_thread").as_str(), per_bucket) {
                    ("-", true) => "chosen per bucket".to_string(),
                    ("-", false) => "chosen per launch".to_string(),
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
                "terasort on {}: W={warp}, run records {}, {network}, phase 2 {}",
                text("gpu"),
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
    format!("{algo}\n{keys}")
}

/// `n` and its noun, plural unless `n` is 1: "1 key", "65536 keys".
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What the tables' short headers and kernel names stand for, printed
/// below them: the memory columns, every stall header with its Nsight
/// Compute reason name, and each kernel of `report` (`docs/report.md` says
/// the same at length), within 80 columns.
pub fn legend(report: &Report) -> String {
    let kernels = glossary::kernel_legend(report.kernels.iter().map(|k| k.name.as_str()));
    format!("{}{kernels}", glossary::COLUMN_LEGEND)
}
