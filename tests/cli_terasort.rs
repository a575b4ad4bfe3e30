//! `simsort --algo terasort` as a user runs it: a verified run across key
//! patterns whose host lines say what the refinement did, the report's
//! config, its kernels, and bad options (all at once, exit 2).

use serde_json::Value;

use crate::util::simsort;

#[test]
fn terasort_runs_every_distribution_in_several_runs_and_says_so() {
    for dist in [
        "uniform",
        "few-unique",
        "all-equal",
        "zipf",
        "sorted",
        "reverse",
    ] {
        let args = [
            "--algo",
            "terasort",
            "--keys",
            "3001",
            "--dist",
            dist,
            "--warp",
            "16",
            "--run-records",
            "1000",
            "--record-bytes",
            "16",
            "--json",
        ];
        let out = simsort(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{dist}: {err}");
        assert!(err.contains("terasort: 4 run(s)"), "{dist}: {err}");
        let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(json["config"]["phase2"], "host-merge");
        assert_eq!(json["config"]["record_bytes"], 16);
        let names: Vec<&str> = json["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["name"].as_str().unwrap())
            .collect();
        assert_eq!(names[..2], ["keygen", "step_pair"], "{dist}");
        let refined = names.contains(&"refine_keys");
        assert_eq!(
            refined,
            dist != "uniform" && dist != "sorted" && dist != "reverse",
            "{dist}"
        );
    }
}

#[test]
fn phase_2_on_the_gpu_merges_runs_and_says_so() {
    // 5 runs of 700 records: 3 merge passes.
    for dist in ["uniform", "all-equal", "zipf"] {
        let args = [
            "--algo",
            "terasort",
            "--keys",
            "3001",
            "--dist",
            dist,
            "--warp",
            "16",
            "--run-records",
            "700",
            "--record-bytes",
            "16",
            "--terasort-merge",
            "gpu",
            "--json",
        ];
        let out = simsort(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{dist}: {err}");
        assert!(err.contains("terasort: 5 run(s)"), "{dist}: {err}");
        assert!(
            err.contains("phase 2 on the simulated GPU"),
            "{dist}: {err}"
        );
        let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(json["config"]["phase2"], "gpu-merge");
        assert_eq!(json["config"]["terasort_merge"], "gpu");
        let launches = |name: &str| {
            let k = json["kernels"].as_array().unwrap();
            let row = k.iter().find(|k| k["name"] == name);
            row.map_or(0, |r| r["launches"].as_u64().unwrap())
        };
        assert_eq!(launches("rebase"), 5, "{dist}");
        assert_eq!(launches("partition"), 3, "{dist}");
        assert_eq!(launches("merge"), 3, "{dist}");
        assert_eq!(launches("reorder"), 1, "{dist}");
    }
    let out = simsort(&["--terasort-merge", "gpu", "--keys", "100"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--terasort-merge gpu: an option of terasort"),
        "{err}"
    );
}

#[test]
fn bad_terasort_options_are_listed_together() {
    let out = simsort(&[
        "--algo",
        "terasort",
        "--key-bits",
        "64",
        "--record-bytes",
        "10",
        "--key-bytes",
        "12",
        "--run-records",
        "0",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for flag in [
        "--record-bytes 10",
        "--key-bytes 12 is more",
        "--run-records 0",
    ] {
        assert!(err.contains(flag), "{flag}: {err}");
    }
    assert!(!err.contains("panicked"));
}

#[test]
fn terasort_kernels_are_listed() {
    let out = simsort(&["kernels", "--algo", "terasort", "--per-output"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    for k in ["keygen", "refine_keys", "step_output", "reorder"] {
        assert!(text.contains(k), "{k}: {text}");
    }
}
