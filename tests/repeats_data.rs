//! Three recordings of every entry of the committed H200 sort suites, and
//! what the calibration suites read of them (`hw/data/calib/NAME.csv`): per
//! launch, the row of the recording with the median cycles
//! (`hw/calib/median_runs.py`).
//! - `suite.txt`, the 16M-key suite, GPUTeraSort's and both sample sort
//!   suites were recorded three times on 2026-11-30
//!   (`hw/data/h200/repeats/run1/` to `run3/`).
//! - `suite_algos.txt` and the kept-apart `suite_wide.txt` have their
//!   first recording (2026-11-24 to 2026-11-30, `first/`), a second
//!   and a third (2026-11-30, `second/`, `third/`).
//!
//! They say how much one recording of a launch can be trusted
//! (docs/calibration.md, "How much a recording varies"), and that every
//! recording of an entry ran the same code. And `hw/nounroll.sh`'s
//! recording (`hw/data/h200/nounroll/`): the same 1M-key sample sort with
//! every loop kept rolled, whose `minmax` waits less for its instructions.

use simsort::calib::ncu::NcuLaunch;

use crate::util::{ncu_launches as launches, read, repo_root, suite_names};

/// Suites whose three recordings are `run1/` to `run3/`.
const SAME_DAY: [&str; 5] = [
    "suite",
    "suite_large",
    "suite_terasort",
    "suite_samplesort",
    "suite_samplesort_batched",
];

/// Suites whose three recordings are `first/`, `second/` and `third/`
/// (each under the directory named here).
const ALGORITHMS: [(&str, &str); 2] = [("suite_algos", "algos"), ("suite_wide", "wide")];

const CYCLES: &str = "sm__cycles_elapsed.max";
const INSTS: &str = "smsp__inst_executed.sum";

/// A suite entry's name and its three recordings.
type Recorded = (String, [Vec<NcuLaunch>; 3]);

/// Every recorded suite with its entries, each entry's three recordings.
fn recorded() -> Vec<(&'static str, Vec<Recorded>)> {
    let dir = "hw/data/h200/repeats";
    let mut out = Vec::new();
    for suite in SAME_DAY {
        let runs = suite_names(suite)
            .into_iter()
            .map(|n| {
                let r = [1, 2, 3].map(|i| launches(&format!("{dir}/run{i}/{n}.csv")));
                (n, r)
            })
            .collect();
        out.push((suite, runs));
    }
    for (suite, sub) in ALGORITHMS {
        let runs = suite_names(suite)
            .into_iter()
            .map(|n| {
                let r = ["first", "second", "third"]
                    .map(|which| launches(&format!("{dir}/{which}/{sub}/{n}.csv")));
                (n, r)
            })
            .collect();
        out.push((suite, runs));
    }
    out
}

#[test]
fn the_suites_read_the_median_of_three_recordings() {
    let mut checked = 0;
    for (suite, runs) in recorded() {
        for (name, runs) in runs {
            let committed = launches(&format!("hw/data/calib/{name}.csv"));
            for run in &runs {
                assert_eq!(
                    run.len(),
                    committed.len(),
                    "{suite} {name}: the same launches"
                );
            }
            for (i, launch) in committed.iter().enumerate() {
                let mut rows: Vec<&NcuLaunch> = runs.iter().map(|r| &r[i]).collect();
                assert!(
                    rows.iter().all(|r| r.kernel == launch.kernel),
                    "{name}, launch {i}: the same kernel in every recording"
                );
                rows.sort_by(|a, b| a.metrics[CYCLES].total_cmp(&b.metrics[CYCLES]));
                // The whole row of the median recording, not just its cycles.
                assert_eq!(
                    launch.metrics, rows[1].metrics,
                    "{name}, launch {i} ({}): the median recording's row",
                    launch.kernel
                );
                checked += 1;
            }
        }
    }
    // 245 + 83 + 475 + 54 + 73 + 382 + 481 launches.
    assert_eq!(checked, 1793);
}

#[test]
fn a_recording_of_a_launch_varies_by_a_few_percent_and_a_short_one_by_far_more() {
    // Per suite: its launches and the mean difference between two
    // recordings of a launch (three pairs a launch).
    let expected = [
        ("suite", 245, 0.0259),
        ("suite_large", 83, 0.0123),
        ("suite_terasort", 475, 0.0305),
        ("suite_samplesort", 54, 0.0394),
        ("suite_samplesort_batched", 73, 0.0269),
        ("suite_algos", 382, 0.0350),
        ("suite_wide", 481, 0.0185),
    ];
    let mut widest: (f64, String) = (0.0, String::new());
    for (suite, runs) in recorded() {
        let mut pairs = Vec::new();
        for (name, runs) in &runs {
            for i in 0..runs[0].len() {
                let c: Vec<f64> = runs.iter().map(|r| r[i].metrics[CYCLES]).collect();
                for (a, b) in [(0, 1), (0, 2), (1, 2)] {
                    pairs.push((c[a] / c[b] - 1.0).abs());
                }
                let spread = c.iter().copied().fold(f64::MIN, f64::max)
                    / c.iter().copied().fold(f64::MAX, f64::min)
                    - 1.0;
                if spread > widest.0 {
                    widest = (spread, format!("{name} launch {i} ({})", runs[0][i].kernel));
                }
            }
        }
        let mean = pairs.iter().sum::<f64>() / pairs.len() as f64;
        let (_, launches, quoted) = expected.iter().find(|e| e.0 == suite).unwrap();
        assert_eq!(pairs.len(), 3 * launches, "{suite}");
        assert!(
            (mean - quoted).abs() < 0.0005,
            "{suite}: mean pairwise difference {mean}"
        );
    }
    // A 5,000-cycle `minmax` of the 1M-key sample sort: 31% between its
    // fastest and slowest recording.
    assert!(widest.0 > 0.30, "widest spread {widest:?}");
    assert!(widest.1.contains("minmax"), "widest spread {widest:?}");
}

/// Over every launch of `kernel` in `path`: its cycles and the warp-cycles
/// it spends in stall `reason` (the ratio per issued instruction times the
/// instructions issued).
fn total(path: &str, kernel: &str, reason: &str) -> (f64, f64) {
    let ratio = format!("smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio");
    launches(path)
        .iter()
        .filter(|l| l.kernel == kernel)
        .fold((0.0, 0.0), |(c, s), l| {
            let m = &l.metrics;
            (c + m[CYCLES], s + m[&ratio] * m[INSTS])
        })
}

/// The static SASS instruction count `hw/sass.sh` wrote for `kernel`.
fn sass_count(dir: &str, kernel: &str) -> u32 {
    let text = read(&repo_root().join(dir).join("counts.txt"));
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{kernel} ")))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{dir}: no count for {kernel}"))
}

#[test]
fn minmax_kept_rolled_is_less_code_and_waits_less_for_it() {
    let dir = "hw/data/h200/nounroll/ss1m_fewuniq";
    // ptxas unrolls the grid-stride loop four times: 232 instructions
    // against 136.
    let (unrolled, rolled) = (
        sass_count(&format!("{dir}/sass_unrolled"), "minmax"),
        sass_count(&format!("{dir}/sass_rolled"), "minmax"),
    );
    assert!(rolled * 3 < unrolled * 2, "{rolled} against {unrolled}");
    let (u_cycles, u_fetch) = total(&format!("{dir}/unrolled.csv"), "minmax", "no_instruction");
    let (r_cycles, r_fetch) = total(&format!("{dir}/rolled.csv"), "minmax", "no_instruction");
    // 40 launches: 4.3% fewer cycles, 38% less waiting for instructions.
    assert!(r_cycles < 0.97 * u_cycles, "{r_cycles} against {u_cycles}");
    assert!(r_fetch < 0.7 * u_fetch, "{r_fetch} against {u_fetch}");
}

#[test]
fn every_recording_of_an_entry_runs_the_same_code() {
    for (suite, runs) in recorded() {
        for (name, runs) in &runs {
            for i in 0..runs[0].len() {
                let kernel = &runs[0][i].kernel;
                let insts: Vec<f64> = runs.iter().map(|r| r[i].metrics[INSTS]).collect();
                // Sample sort's atomics order the keys differently run to
                // run, and its small sorts and `create_bst` then issue a
                // little more or less (at most 2.9% in `suite_wide.txt`).
                // The instructions issued are otherwise the code's.
                if name.starts_with("ss")
                    && (kernel.starts_with("small_sort") || kernel == "create_bst")
                {
                    assert!(
                        insts.iter().all(|x| (x / insts[0] - 1.0).abs() < 0.03),
                        "{suite} {name} {kernel}"
                    );
                } else {
                    assert!(
                        insts.iter().all(|x| *x == insts[0]),
                        "{suite} {name} launch {i} ({kernel}): {insts:?}"
                    );
                }
            }
        }
    }
}
