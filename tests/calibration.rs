//! `simsort emit bundle` and `simsort calibrate`: a bundle holds what a
//! GPU needs to replay the launches; calibrating a bundle against a profile
//! equal to its own report is exact; bad profiles get one clear message;
//! and the committed H200 suite (`hw/calib/`, `hw/data/calib/`) still meets
//! the figures in `hw/calib/figures.txt` with the current model.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{repo_root, simsort_bin};

fn simsort(args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("calibration-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// An ncu table (the launch columns and the metrics) from a bundle's
/// report.json, as if the hardware had measured exactly what the model says.
fn profile_from_report(report: &Path) -> String {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let launches = v["launches"].as_array().unwrap();
    let names: Vec<String> = launches[0]["metrics"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut csv = String::from("==PROF== Connected to process 1\n\"ID\",\"Kernel Name\"");
    for n in &names {
        csv += &format!(",\"{n}\"");
    }
    csv += "\n\"\",\"\"";
    for _ in &names {
        csv += ",\"unit\"";
    }
    csv += "\n";
    for (i, l) in launches.iter().enumerate() {
        csv += &format!("\"{i}\",\"{}\"", l["name"].as_str().unwrap());
        for n in &names {
            csv += &format!(",\"{}\"", l["metrics"][n]);
        }
        csv += "\n";
    }
    csv
}

#[test]
fn a_sort_bundle_replays_every_launch_and_checks_the_sorted_keys() {
    let dir = scratch("sort");
    let args = [
        "emit",
        "bundle",
        "-o",
        dir.to_str().unwrap(),
        "--keys",
        "5000",
    ];
    let out = simsort(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.txt")).unwrap();
    assert!(manifest.starts_with("simsort-bundle 1\n"));
    let launches = manifest
        .lines()
        .filter(|l| l.starts_with("launch "))
        .count();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["launches"].as_array().unwrap().len(), launches);
    for module in manifest.lines().filter(|l| l.starts_with("module ")) {
        let file = module.split_whitespace().nth(2).unwrap();
        let ptx = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(ptx.contains(".visible .entry"), "{file}");
    }
    // The one check is the reference sort of the input.
    let input = std::fs::read(dir.join("data/w0.bin")).unwrap();
    let expect = std::fs::read(dir.join("data/expect0.bin")).unwrap();
    let mut keys: Vec<u32> = input
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    keys.sort_unstable();
    let sorted: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    assert_eq!(
        &expect[..sorted.len()],
        &sorted[..],
        "expected bytes are the sorted input"
    );
    for f in ["host.cu", "profile.sh", "metrics.txt", "command.txt"] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    // The directory is written whole, and never over a non-empty one.
    let again = simsort(&args);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_kernel_with_atomics_is_bundled_without_checks_and_with_atomic_counters() {
    let dir = scratch("atomics");
    let kir = repo_root().join("tests/kernels/histogram.kir");
    let out = simsort(&[
        "emit",
        "bundle-run",
        "-o",
        dir.to_str().unwrap(),
        kir.to_str().unwrap(),
        "--grid",
        "4",
        "--block",
        "128",
        "--buffer",
        "src=rand:512:1",
        "--buffer",
        "dst=1k",
        "--param",
        "n=500",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout
            .contains("note: no buffer is checked: kernel `histogram` uses `atom.shared.add.u32`"),
        "{stdout}"
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.txt")).unwrap();
    assert!(
        manifest.contains("\nlaunch K0 4 1 1 128 1 1 "),
        "{manifest}"
    );
    assert!(!manifest.contains("\ncheck "), "{manifest}");
    let metrics = std::fs::read_to_string(dir.join("metrics.txt")).unwrap();
    for m in simsort::calib::bundle::ATOMIC_METRICS {
        assert!(metrics.lines().any(|l| l == m), "{m} not profiled");
    }
    let report = std::fs::read_to_string(dir.join("report.json")).unwrap();
    assert!(
        report.contains("\"smsp__inst_executed_op_shared_atom.sum\": 16"),
        "{report}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn calibrating_a_bundle_against_its_own_report_is_exact() {
    let dir = scratch("exact");
    let kir = repo_root().join("hw/calib/kernels/copy.kir");
    let out = simsort(&[
        "emit",
        "bundle-run",
        "-o",
        dir.to_str().unwrap(),
        kir.to_str().unwrap(),
        "--grid",
        "64",
        "--block",
        "256",
        "--buffer",
        "src=rand:16384:1",
        "--buffer",
        "dst=64k",
        "--param",
        "n=16384",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(
        dir.join("ncu.csv"),
        profile_from_report(&dir.join("report.json")),
    )
    .unwrap();
    let out = simsort(&["calibrate", dir.to_str().unwrap(), "--max-mape", "0"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("cycle MAPE 0.0%"), "{text}");
    // The same metrics on both sides: the same stall split.
    assert!(
        text.contains("a launch's split differs by 0.0% of its warp-cycles"),
        "{text}"
    );
    assert!(text.contains("  long_scoreboard "), "{text}");
    let report = dir.join("calib.html");
    let out = simsort(&[
        "calibrate",
        dir.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("stall reasons (share of a launch"),
        "the table"
    );
    assert!(
        html.contains("split differs by 0.0% of its warp-cycles"),
        "the summary"
    );
    assert!(
        !text.contains("whole sort"),
        "one launch is no sort: {text}"
    );
    // One launch has no whole sort to check: refused before the table
    // or a plot is written, which would read as a passed check.
    let plot = dir.join("refused.svg");
    let out = simsort(&[
        "calibrate",
        dir.to_str().unwrap(),
        "--max-whole-sort-error",
        "10",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the comparison has no whole sort"), "{err}");
    assert!(out.stdout.is_empty(), "no table");
    assert!(!plot.exists(), "no plot");
    // A profile of another launch sequence is refused by name.
    let csv = std::fs::read_to_string(dir.join("ncu.csv"))
        .unwrap()
        .replace("\"copy\"", "\"bs\"");
    std::fs::write(dir.join("ncu.csv"), csv).unwrap();
    let out = simsort(&["calibrate", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("launch 0 is `bs` on the hardware but `copy`"),
        "{err}"
    );
    std::fs::write(dir.join("ncu.csv"), "kernel,cycles\ncopy,5\n").unwrap();
    let out = simsort(&["calibrate", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no ncu table found"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A figure of hw/calib/figures.txt: the rest of the line after `key `.
fn figure(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix(' ')))
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|| panic!("{key} missing from the figures file"))
}

#[test]
fn the_committed_h200_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite.txt", "hw/calib/figures.txt");
}

/// The other algorithms and HotSort's default schedule, measured on the
/// same H200 but never used to fit the model.
#[test]
fn the_committed_h200_sample_sort_suite_meets_its_figures() {
    suite_meets_its_figures(
        "hw/calib/suite_samplesort.txt",
        "hw/calib/figures_samplesort.txt",
    );
}

/// Sample sort's batched levels (the default), measured on the H200 after
/// the per-bucket suite above.
#[test]
fn the_committed_h200_batched_sample_sort_suite_meets_its_figures() {
    suite_meets_its_figures(
        "hw/calib/suite_samplesort_batched.txt",
        "hw/calib/figures_samplesort_batched.txt",
    );
}

/// Microbenchmarks of global stores that write part of their sectors,
/// where the model is known to be wrong (the figures pin how wrong).
#[test]
fn the_committed_h200_store_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_stores.txt", "hw/calib/figures_stores.txt");
}

/// Partial-sector stores, part two: which parts the H200 combines in one
/// SM, and what a part that reaches L2 alone costs (the figures pin how
/// wrong the model is).
#[test]
fn the_committed_h200_partial_store_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_parts.txt", "hw/calib/figures_parts.txt");
}

/// Partial-sector stores, part three: scattered stores by bucket count and
/// stride, where the H200's time follows how many lines a block writes and
/// not whether their stride is a power of two (the figures pin how wrong
/// the model is).
#[test]
fn the_committed_h200_scatter_lines_suite_meets_its_figures() {
    suite_meets_its_figures(
        "hw/calib/suite_scatter_lines.txt",
        "hw/calib/figures_scatter_lines.txt",
    );
}

/// A warp's independent global loads issued back to back or interleaved
/// with the shared stores that use them (sample sort's `scan` tile): the
/// H200 runs both orders alike, the simulator the IR's (the figures pin
/// how far apart).
#[test]
fn the_committed_h200_load_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_loads.txt", "hw/calib/figures_loads.txt");
}

/// 16-byte reads in order and scattered, from L2 and from DRAM: what the
/// H200's DRAM moves when every read opens another row (`dram_banks`,
/// `dram_row_open_bytes`).
#[test]
fn the_committed_h200_gather_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_gather.txt", "hw/calib/figures_gather.txt");
}

/// Dependent loads that hit in the SM's L1 data cache: the hit latency
/// of a chain (`l1_latency_cycles`).
#[test]
fn the_committed_h200_l1_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_l1.txt", "hw/calib/figures_l1.txt");
}

/// Loads guarded off in every lane of a warp: a guarded-off shared load
/// is timed like a real one and not counted in
/// `smsp__sass_inst_executed_op_shared_ld`, as on the H200.
#[test]
fn the_committed_h200_guard_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_guard.txt", "hw/calib/figures_guard.txt");
}

/// Launches that are all fixed cost: an empty kernel, one that reads a
/// parameter, one that stores a word a thread, one that loads one, a
/// dependent loop. Fails without `memory_launch_cycles` (Pearson r
/// 0.9957: the stores would end as early as the parameter reads).
#[test]
fn the_committed_h200_launch_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_launch.txt", "hw/calib/figures_launch.txt");
}

/// One-warp launches over 1 to 132 SMs. Fails without
/// `launch_all_sms_cycles` (Pearson r 0.4731: every launch would cost what
/// one over a single SM does).
#[test]
fn the_committed_h200_launch_sms_suite_meets_its_figures() {
    suite_meets_its_figures(
        "hw/calib/suite_launch_sms.txt",
        "hw/calib/figures_launch_sms.txt",
    );
}

/// Sectors left written in part in the L2, from 4 to 64 MB of them, and
/// whole sectors for comparison: how many the H200's L2 holds before
/// writing them back (docs/calibration.md, "Sectors written in part").
#[test]
fn the_committed_h200_partial_line_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_l2parts.txt", "hw/calib/figures_l2parts.txt");
}

/// Loads and stores of 16 bytes a lane, a line a lane or coalesced, from
/// 1, 8 and 132 SMs: the suite that set the SM's port to L2
/// (`l2_port_*`).
#[test]
fn the_committed_h200_port_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_xbar.txt", "hw/calib/figures_xbar.txt");
}

/// One trip over straight-line kernels of 48 to 127 KB: what a launch
/// brings of a kernel's code before its warps ask for it
/// (`icache_warm_bytes`; hw/data/h200/icache_warm/README.md).
#[test]
fn the_committed_h200_warm_code_suite_meets_its_figures() {
    suite_on_meets_its_figures(
        "hw/data/h200/icache_warm/suite.txt",
        "hw/data/h200/icache_warm/figures.txt",
        "hw/data/h200/icache_warm/calib",
        None,
    );
}

/// Pairs of 16-byte stores to the two halves of a sector, alone, after
/// loads of the same lines or after a loop: which halves the H200 merges
/// before L2 (docs/calibration.md, "Store halves").
#[test]
fn the_committed_h200_halves_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_halves.txt", "hw/calib/figures_halves.txt");
}

/// The special-register reads at a warp's start: 2 or 5 `S2R` a warp over
/// full blocks, and the 1M-key reduction (about a second to simulate).
#[test]
fn the_committed_h200_s2r_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_s2r.txt", "hw/calib/figures_s2r.txt");
}

/// Shuffle throughput: eight independent chains a warp, 1 to 64 warps an
/// SM; the MIO moves one warp's shuffle a cycle an SM once 16 warps share
/// it (a few seconds to simulate).
#[test]
fn the_committed_h200_shuffle_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_shfl.txt", "hw/calib/figures_shfl.txt");
}

/// One shared pass of bitonic's `tail` in a loop, 1 to 8 blocks an SM:
/// what the SM's shared pipe gives warps that all load right after a
/// barrier (docs/calibration.md, "Bitonic's `tail`"; about a minute to
/// simulate: `.ci/release-checks` runs it).
#[test]
#[ignore]
fn the_committed_h200_shared_pass_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_smem.txt", "hw/calib/figures_smem.txt");
}

/// Shared loads only, stores only and 16-byte stores and loads in turn at
/// 4, 8 and 16 bytes a lane: one wavefront a cycle of the SM's pipe for
/// every width and direction (docs/calibration.md, "16-byte shared
/// accesses"; about a minute to simulate: `.ci/release-checks` runs it).
#[test]
#[ignore]
fn the_committed_h200_shared_width_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_smemw.txt", "hw/calib/figures_smemw.txt");
}

/// Chains of dependent loads to random words (mergesort's `partition`):
/// the suite that set `load_line_cycles`.
#[test]
fn the_committed_h200_chase_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_chase.txt", "hw/calib/figures_chase.txt");
}

/// Mergesort's `partition` pulled apart: one SM or many, a small array or
/// a large one, its search cut after 0 to 11 probes (docs/calibration.md,
/// "Mergesort's `partition`: two loads a probe").
#[test]
fn the_committed_h200_partition_suite_meets_its_figures() {
    suite_meets_its_figures(
        "hw/calib/suite_partition.txt",
        "hw/calib/figures_partition.txt",
    );
}

/// A loop of dependent adds around an inner loop with a per-lane trip
/// count: what uniform and divergent branches cost (`branch_resolving`)
/// and what `wait` a dependent chain shows at one warp a scheduler
/// (over a minute to simulate: `.ci/release-checks` runs it).
#[test]
#[ignore]
fn the_committed_h200_branch_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_branch.txt", "hw/calib/figures_branch.txt");
}

/// Binary searches, keys in registers or the probe a shared load, 1 and 4
/// warps a scheduler: the branch wait of mergesort's searches (over a
/// minute to simulate: `.ci/release-checks` runs it).
#[test]
#[ignore]
fn the_committed_h200_search_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_branch2.txt", "hw/calib/figures_branch2.txt");
}

#[test]
fn the_committed_h200_algorithm_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_algos.txt", "hw/calib/figures_algos.txt");
}

/// ALU microbenchmarks: 64-bit compares, minimums, maximums, selects and
/// compare-exchanges cost their 32-bit SASS halves.
#[test]
fn the_committed_h200_alu_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_alu.txt", "hw/calib/figures_alu.txt");
}

/// Instruction fetch: straight-line loops of 2-256 KB of SASS at 1-16
/// warps an SM, and single cold trips (the instruction cache's sizes and
/// miss costs were fitted to it; several minutes to simulate:
/// `.ci/release-checks` runs it).
#[test]
#[ignore]
fn the_committed_h200_icache_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_icache.txt", "hw/calib/figures_icache.txt");
}

/// Loops a KB at a time past the L0's 32 KB and the L1's 128 KB, and
/// GPUTeraSort's `head` over one-thread blocks in one to five waves: the
/// instruction caches' ways (`icache_l0_ways`, `icache_l1_ways`; a minute
/// to simulate: `.ci/release-checks` runs it, by this name's prefix
/// `the_committed_h200_icache`).
#[test]
#[ignore]
fn the_committed_h200_icache_knee_suite_meets_its_figures() {
    suite_meets_its_figures(
        "hw/calib/suite_icache_knee.txt",
        "hw/calib/figures_icache_knee.txt",
    );
}

/// GPUTeraSort, measured on the H200 and never used to fit the model
/// (several minutes to simulate: `.ci/release-checks` runs it).
#[test]
#[ignore]
fn the_committed_h200_terasort_suite_meets_its_figures() {
    suite_meets_its_figures(
        "hw/calib/suite_terasort.txt",
        "hw/calib/figures_terasort.txt",
    );
}

/// 4M keys, 64-bit keys and key-value pairs of every algorithm: entries
/// kept apart from every fit (several minutes to simulate:
/// `.ci/release-checks` runs it).
#[test]
#[ignore]
fn the_committed_h200_wide_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_wide.txt", "hw/calib/figures_wide.txt");
}

/// HotSort at 16M keys (H = 16 and 8): the largest grids measured, where
/// the DRAM and the L2 bound most launches (about a minute an entry to
/// simulate: `.ci/release-checks` runs it).
#[test]
#[ignore]
fn the_committed_h200_large_suite_meets_its_figures() {
    suite_meets_its_figures("hw/calib/suite_large.txt", "hw/calib/figures_large.txt");
}

/// The suite measured on an H100 (hw/data/h100/), simulated with the
/// `h100` preset (set from the H100's microbenchmarks, but for its L2
/// bandwidth, which was fitted to the fitting suite's part of it), does at
/// least as well as its committed figures.
#[test]
fn the_committed_h100_suite_meets_its_figures_with_the_h100_preset() {
    suite_on_meets_its_figures(
        "hw/calib/suite.txt",
        "hw/calib/figures_h100.txt",
        "hw/data/h100/calib",
        Some("h100"),
    );
}

/// The other algorithms measured on the H100, simulated with `h100`.
#[test]
fn the_committed_h100_algorithm_suite_meets_its_figures_with_the_h100_preset() {
    suite_on_meets_its_figures(
        "hw/calib/suite_algos.txt",
        "hw/calib/figures_algos_h100.txt",
        "hw/data/h100/calib",
        Some("h100"),
    );
}

/// `simsort calibrate --suite SUITE` against the committed data does at
/// least as well as the figures committed with it.
fn suite_meets_its_figures(suite: &str, figures_file: &str) {
    suite_on_meets_its_figures(suite, figures_file, "hw/data/calib", None);
}

/// `simsort calibrate --suite SUITE --data DATA [--gpu GPU]` does at least
/// as well as the figures committed with it.
fn suite_on_meets_its_figures(suite: &str, figures_file: &str, data: &str, gpu: Option<&str>) {
    let figures = std::fs::read_to_string(repo_root().join(figures_file)).unwrap();
    let (mape, r) = (
        figure(&figures, "max_mape_percent"),
        figure(&figures, "min_pearson_r"),
    );
    let mut args = vec![
        "calibrate",
        "--suite",
        suite,
        "--data",
        data,
        "--max-mape",
        &mape,
        "--min-r",
        &r,
    ];
    if let Some(gpu) = gpu {
        args.extend(["--gpu", gpu]);
    }
    // A sort suite holds every whole sort (an entry of more than one
    // launch) within this many percent of the hardware's cycles.
    let whole = (figures.lines())
        .find_map(|l| l.strip_prefix("max_whole_sort_error_percent "))
        .map(str::trim);
    if let Some(max) = whole {
        args.extend(["--max-whole-sort-error", max]);
    }
    let out = simsort(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let agree: usize = text
        .split("top stall reason agrees in ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the summary line");
    let min_agree: usize = figure(&figures, "min_top_stall_agree").parse().unwrap();
    assert!(
        agree >= min_agree,
        "top stall agrees in {agree}, was {min_agree}"
    );
    // Every counter the model must get exactly stays as exact as committed.
    let mut checked = 0;
    for line in figures.lines().filter_map(|l| l.strip_prefix("exact ")) {
        let (name, min) = line.split_once(' ').unwrap();
        let min: usize = min.parse().unwrap();
        let row = text
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix(name)
                    .and_then(|r| r.strip_prefix(": "))
            })
            .unwrap_or_else(|| panic!("{name} not in the calibration report"));
        let equal: usize = row.split('/').next().unwrap().parse().unwrap();
        assert!(equal >= min, "{name}: equal in {equal} launches, was {min}");
        checked += 1;
    }
    assert_eq!(checked, 10, "every exact counter has a figure");
}

#[test]
fn a_sort_whose_launches_read_keys_back_is_not_recorded_without_simulating() {
    let dir = scratch("terasort-dry");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("b");
    let o = simsort(&[
        "emit",
        "bundle",
        "--algo",
        "terasort",
        "--keys",
        "300",
        "--no-simulate",
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--no-simulate") && err.contains("terasort"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn sixty_four_bit_keys_carrying_values_bundle_simulated_and_not_dry() {
    let dir = scratch("k64v-bundle");
    std::fs::create_dir_all(&dir).unwrap();
    let args = [
        "emit",
        "bundle",
        "--key-bits",
        "64",
        "--values",
        "--keys",
        "300",
    ];
    // Dry, the values under equal keys are unknown: refused, naming why.
    let dry = dir.join("dry");
    let o = simsort(&[&args[..], &["--no-simulate", "-o", dry.to_str().unwrap()]].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--key-bits 64 --values") && err.contains("--no-simulate"),
        "{err}"
    );
    assert!(!dry.exists(), "nothing is written");
    // Simulated: the keys and the values are both checked.
    let out = dir.join("b");
    let o = simsort(&[&args[..], &["-o", out.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest = std::fs::read_to_string(out.join("manifest.txt")).unwrap();
    assert_eq!(manifest.matches("\ncheck ").count(), 2, "{manifest}");
    let keys = std::fs::read(out.join("data/expect0.bin")).unwrap();
    let values = std::fs::read(out.join("data/expect1.bin")).unwrap();
    assert_eq!((keys.len(), values.len()), (300 * 8, 300 * 4));
    let keys: Vec<u64> = keys
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(keys.is_sorted(), "the checked keys ascend");
}

/// Data measured on one GPU and simulated on another preset get a note
/// naming both (the data directory's `gpu.txt`); like with like, none.
#[test]
fn a_comparison_across_gpus_is_noted() {
    let run = |more: &[&str]| {
        let mut args = vec![
            "calibrate",
            "--suite",
            "hw/calib/suite.txt",
            "--only",
            "smem_stride_33",
            "--data",
            "hw/data/h100/calib",
        ];
        args.extend(more);
        let out = simsort(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let across = String::from_utf8_lossy(&run(&[]).stderr).into_owned();
    assert!(
        across.contains("measured on an NVIDIA H100 80GB HBM3")
            && across.contains("the simulator ran preset h200")
            && across.contains("across GPUs"),
        "{across}"
    );
    assert!(run(&["--gpu", "h100"]).stderr.is_empty(), "like with like");
    // Reports say both sides.
    let json: serde_json::Value = serde_json::from_slice(&run(&["--json"]).stdout).unwrap();
    assert_eq!(json["gpus"]["measured"], "NVIDIA H100 80GB HBM3");
    assert_eq!(json["gpus"]["simulated"], "h200");
}
