//! Snapshots of per-instruction counters: for every HotSort kernel of a
//! small sort, each pc's issue count and stall warp-cycles by reason.
//!
//! The kernel totals are pinned by `snapshots_hotsort`; these pin how the
//! simulator splits them over instructions (what the replay's IR listing
//! and per-line stall columns show), under both scheduler policies.

use sim::{Gpu, KernelStats, RunOptions, STALL_METRICS};
use simsort::experiment::SortOptions;
use simsort::experiment::sort::{hotsort_config, machine_config};
use sorts::hotsort;

use crate::snapshot_files::leftovers;
use crate::snapshots_hotsort::check_snapshot;

/// Each kernel's per-pc lines, launches of one kernel summed: `pc
/// inst_executed reason=cycles ...` for the reasons with any cycles.
fn per_pc_lines(launches: &[hotsort::Launch<KernelStats>]) -> String {
    let mut by_kernel: Vec<(&str, KernelStats)> = Vec::new();
    for l in launches {
        match by_kernel.iter_mut().find(|(n, _)| *n == l.name) {
            Some((_, s)) => *s += &l.stats,
            None => by_kernel.push((l.name, l.stats.clone())),
        }
    }
    let mut out = String::new();
    for (name, stats) in by_kernel {
        out.push_str(&format!("[{name}]\n"));
        for (pc, p) in stats.per_pc.iter().enumerate() {
            out.push_str(&format!("{pc} {}", p.inst_executed));
            for (reason, metric) in STALL_METRICS {
                let cycles = p.stalls[reason.index()];
                if cycles > 0 {
                    let short = metric
                        .trim_start_matches("smsp__average_warps_issue_stalled_")
                        .trim_end_matches("_per_issue_active.ratio");
                    out.push_str(&format!(" {short}={cycles}"));
                }
            }
            out.push('\n');
        }
    }
    out
}

#[test]
fn hotsort_per_instruction_counters() {
    let cases = [
        ("h200", "gto", 16, 8, 5000),
        ("h200", "lrr", 32, 4, 3000),
        ("tiny", "lrr", 8, 4, 700),
    ];
    let mut failed = Vec::new();
    let mut produced = Vec::new();
    for (gpu, policy, warp, height, keys) in cases {
        let opts = SortOptions {
            warp,
            slab_height: Some(height),
            keys,
            gpu: gpu.to_string(),
            overrides: vec![("scheduler".to_string(), policy.to_string())],
            ..SortOptions::default()
        };
        let machine = machine_config(&opts).expect("a valid machine");
        let cfg = hotsort_config(&opts, &machine).expect("a valid configuration");
        let input: Vec<u32> = (0..keys as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ (i >> 3))
            .collect();
        let mut dev = Gpu::new(machine, RunOptions::default()).expect("a valid machine");
        let run = hotsort::sort(&mut dev, &cfg, &input).expect("the sort runs");
        let mut expected = input.clone();
        expected.sort_unstable();
        assert_eq!(run.sorted, expected, "{gpu} {policy} W={warp} H={height}");
        let name = format!("per_pc_{gpu}_{policy}_w{warp}_h{height}");
        failed.extend(check_snapshot!(&name, &per_pc_lines(&run.launches)));
        produced.push(name);
    }
    failed.extend(leftovers("snapshots_per_pc", |_| true, &produced));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
