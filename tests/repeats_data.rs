//! Three recordings of every sample sort bundle on the same H200
//! (`hw/data/h200/repeats/run{1,2,3}/`), and what the calibration suites
//! read of them (`hw/data/calib/ss*.csv`, `ssb*.csv`): per launch, the row
//! of the recording with the median cycles (`hw/calib/median_runs.py`).
//! They also say how much one recording of a launch can be trusted
//! (docs/calibration.md, "How much a recording varies"). And
//! `hw/nounroll.sh`'s recording (`hw/data/h200/nounroll/`): the same
//! 1M-key sample sort with every loop kept rolled, whose `minmax` waits
//! less for its instructions. And a second recording of the
//! algorithm suites (`hw/data/h200/repeats/second/`), which runs the same
//! code as their committed one.

use simsort::calib::ncu::NcuLaunch;

use crate::util::{ncu_launches as launches, read, repo_root};

/// The suite entries recorded three times: both sample sort suites.
const ENTRIES: [&str; 11] = [
    "ss64k",
    "ss1m_fewuniq",
    "ssb64k",
    "ssb1m_fewuniq",
    "ssb1m_m16k",
    "ssb1m_k256",
    "ssb1m_m16k_c1",
    "ssb64k_k64",
    "ssb64k_values",
    "ssb64k_zipf",
    "ssb64k_sorted",
];

const CYCLES: &str = "sm__cycles_elapsed.max";
const INSTS: &str = "smsp__inst_executed.sum";

/// Entry `name`'s three recordings.
fn runs(name: &str) -> [Vec<NcuLaunch>; 3] {
    [1, 2, 3].map(|i| launches(&format!("hw/data/h200/repeats/run{i}/{name}.csv")))
}

#[test]
fn the_suites_read_the_median_of_three_recordings() {
    for name in ENTRIES {
        let runs = runs(name);
        let committed = launches(&format!("hw/data/calib/{name}.csv"));
        for run in &runs {
            assert_eq!(run.len(), committed.len(), "{name}: the same launches");
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
        }
    }
}

#[test]
fn a_recording_of_a_launch_varies_by_a_few_percent_and_a_short_one_by_far_more() {
    let mut pairs = Vec::new();
    let mut widest: (f64, String) = (0.0, String::new());
    for name in ENTRIES {
        let runs = runs(name);
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
    // 127 launches, three pairs each: 3.2% between two recordings on average.
    assert_eq!(pairs.len(), 3 * 127);
    assert!(
        (0.025..0.04).contains(&mean),
        "mean pairwise difference {mean}"
    );
    // A 5,000-cycle `minmax` of the 1M-key sort: 31% between its fastest
    // and slowest recording.
    assert!(widest.0 > 0.25, "widest spread {widest:?}");
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

/// Every launch of the second recording of `suite` (`algos` or `wide`)
/// beside the committed one, per launch: the kernel, the cycles of both
/// and the instructions of both.
fn second_recording(suite: &str) -> Vec<(String, [f64; 2], [f64; 2])> {
    let dir = repo_root().join("hw/data/h200/repeats/second").join(suite);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the second recording")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let again = launches(&format!("hw/data/h200/repeats/second/{suite}/{name}"));
        let first = launches(&format!("hw/data/calib/{name}"));
        assert_eq!(again.len(), first.len(), "{name}: the same launches");
        for (a, f) in again.iter().zip(&first) {
            assert_eq!(a.kernel, f.kernel, "{name}");
            let m = |l: &NcuLaunch, k: &str| l.metrics[k];
            out.push((
                a.kernel.clone(),
                [m(f, CYCLES), m(a, CYCLES)],
                [m(f, INSTS), m(a, INSTS)],
            ));
        }
    }
    out
}

#[test]
fn a_second_recording_of_the_algorithm_suites_runs_the_same_code_within_a_few_percent() {
    for (suite, launches, mean_abs) in [("algos", 382, 0.0337), ("wide", 481, 0.0199)] {
        let rows = second_recording(suite);
        assert_eq!(rows.len(), launches, "{suite}");
        // The same SASS: every launch issues the same instructions, but
        // for sample sort's, whose atomics order the keys differently run
        // to run (at most 2.9% in `wide`).
        for (kernel, _, [first, again]) in &rows {
            let exact =
                suite == "algos" || (!kernel.starts_with("small_sort") && kernel != "create_bst");
            if exact {
                assert_eq!(first, again, "{suite} {kernel}: the same instructions");
            } else {
                assert!((again / first - 1.0).abs() < 0.03, "{suite} {kernel}");
            }
        }
        // Cycles: a few percent a launch, nothing systematic.
        let d: Vec<f64> = rows.iter().map(|(_, [f, a], _)| a / f - 1.0).collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let abs = d.iter().map(|x| x.abs()).sum::<f64>() / d.len() as f64;
        assert!(mean.abs() < 0.01, "{suite}: mean {mean}");
        assert!(
            (abs - mean_abs).abs() < 0.0005,
            "{suite}: mean difference {abs}"
        );
    }
}
