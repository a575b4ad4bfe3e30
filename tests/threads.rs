//! The host thread count changes only the speed: HotSort's reports and
//! traces are byte-identical on 1, 2 and 3 threads (the example kernels'
//! counters are checked against lockstep on each in `sim`'s own tests),
//! and bad counts are refused with exit status 2.

use std::process::Command;

use simsort::experiment::sort::prepare;
use simsort::experiment::trace::{TraceSpec, run_recorded};
use simsort::experiment::{Algo, SortOptions};
use traces::{Focus, TraceLevel};

use crate::util::simsort_bin;

/// Small HotSort runs: 32-bit keys, narrow warps with key-value pairs, and
/// 64-bit keys, each large enough for every SM to take several blocks.
fn configs() -> Vec<SortOptions> {
    let base = SortOptions {
        algo: Algo::Hotsort,
        keys: 1 << 15,
        ..SortOptions::default()
    };
    vec![
        base.clone(),
        SortOptions {
            warp: 16,
            slab_height: Some(8),
            values: true,
            seed: 7,
            ..base.clone()
        },
        SortOptions {
            key_bits: 64,
            keys: 20_000,
            ..base
        },
    ]
}

#[test]
fn hotsort_reports_are_identical_on_one_two_and_three_threads() {
    for opts in configs() {
        let mut prepared = prepare(&opts).expect("a valid configuration");
        let mut reports = Vec::new();
        for threads in 1..=3 {
            prepared.threads = threads;
            let outcome = prepared.run(&mut |_| {}).expect("the sort runs");
            reports.push(outcome.report.to_json());
        }
        assert!(reports[0].contains("\"cycles\""), "{}", reports[0]);
        assert_eq!(reports[0], reports[1], "{opts:?}: 1 vs 2 threads");
        assert_eq!(reports[0], reports[2], "{opts:?}: 1 vs 3 threads");
    }
}

#[test]
fn traces_are_identical_on_one_and_three_threads() {
    let opts = SortOptions {
        keys: 1 << 13,
        ..SortOptions::default()
    };
    let mut prepared = prepare(&opts).expect("a valid configuration");
    let dir = crate::util::scratch_dir("threads-trace");
    let mut traces = Vec::new();
    for threads in [1, 3] {
        prepared.threads = threads;
        let spec = TraceSpec {
            path: dir.join(format!("t{threads}.simtrace")),
            focus: Focus {
                block: 0,
                warp: None,
            },
            level: TraceLevel::Full,
            counter_interval_cycles: 500,
        };
        run_recorded(&prepared, &spec, &mut |_| {}).expect("the traced sort runs");
        traces.push(std::fs::read(&spec.path).unwrap());
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(traces[0].len() > 1000);
    assert!(traces[0] == traces[1], "the traces differ");
}

#[test]
fn thread_counts_from_the_flag_or_environment_are_checked() {
    let run = |args: &[&str], env: Option<&str>| {
        let mut cmd = Command::new(simsort_bin());
        cmd.args(args)
            .env("NO_COLOR", "1")
            .env_remove("SIMSORT_THREADS");
        if let Some(v) = env {
            cmd.env("SIMSORT_THREADS", v);
        }
        cmd.output().expect("run simsort")
    };
    let json = |out: &std::process::Output| {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout.clone()
    };
    let small = ["--keys", "4096", "--json", "--quiet"];
    let one = json(&run(&[&small[..], &["--threads", "1"]].concat(), None));
    let two = json(&run(&small, Some("2")));
    assert_eq!(one, two, "--threads 1 and SIMSORT_THREADS=2 report alike");
    let zero = run(&[&small[..], &["--threads", "0"]].concat(), None);
    assert_eq!(zero.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("--threads 0"));
    let bad = run(&small, Some("many"));
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("SIMSORT_THREADS"));
}
