//! `simsort --algo terasort` as a user runs it: a verified run across key
//! patterns whose host lines say what the refinement did, the report's
//! config, its kernels, and bad options (all at once, exit 2).

use serde_json::Value;

use crate::util::simsort;

#[test]
fn terasort_runs_every_distribution_in_several_runs_and_says_so() {
    let dists = [
        "uniform",
        "few-unique",
        "all-equal",
        "zipf",
        "sorted",
        "reverse",
    ];
    for (dist, network) in dists
        .iter()
        .flat_map(|&d| ["fused", "steps"].map(|n| (d, n)))
    {
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
            "--terasort-network",
            network,
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
        if network == "steps" {
            assert_eq!(names[..2], ["keygen", "step_pair"], "{dist}");
        } else {
            // Runs of 1000 fill to 1024 words, one tile: one `head` each.
            assert_eq!(names[..3], ["keygen", "fill", "head"], "{dist}");
            assert!(!names.contains(&"step_pair"), "{dist}: {names:?}");
            assert_eq!(json["config"]["terasort_network"], Value::Null);
        }
        let refined = names.contains(&"refine_keys");
        assert_eq!(
            refined,
            dist != "uniform" && dist != "sorted" && dist != "reverse",
            "{dist}"
        );
    }
}

#[test]
fn the_reorder_moves_every_record_layout_on_the_simulator() {
    // The reorder's shapes on the simulator, checked whole record against
    // whole record by the sort itself: one 4-byte unit per record, 3 units
    // of 4 bytes, 25 units of 8 bytes (rows in groups of 4, the last
    // partial), and 257 units of 4 bytes, more than the 256 threads of a
    // block at W=32 (each row copies the record 256 units at a time); W=8
    // and 64 give blocks of 64 and 512 threads.
    for (warp, bytes, key) in [
        ("8", "4", "4"),
        ("64", "12", "10"),
        ("32", "200", "10"),
        ("32", "1028", "12"),
        ("8", "100", "10"),
    ] {
        let args = [
            "--algo",
            "terasort",
            "--keys",
            "777",
            "--dist",
            "few-unique",
            "--warp",
            warp,
            "--record-bytes",
            bytes,
            "--key-bytes",
            key,
            "--json",
        ];
        let out = simsort(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{bytes} bytes, W={warp}: {err}");
        assert!(err.contains("verified"), "{bytes} bytes, W={warp}: {err}");
        let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let reorder = json["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == "reorder")
            .expect("a reorder launch");
        assert_eq!(reorder["launches"], 1, "{bytes} bytes, W={warp}");
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
        "--per-output",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for flag in [
        "--record-bytes 10",
        "--key-bytes 12 is more",
        "--run-records 0",
        "--per-output: one thread per output element is a form of the GPUTeraSort paper's steps",
    ] {
        assert!(err.contains(flag), "{flag}: {err}");
    }
    assert!(!err.contains("panicked"));
}

#[test]
fn terasort_kernels_are_listed() {
    let args = ["kernels", "--algo", "terasort"];
    let steps = [&args[..], &["--terasort-network", "steps", "--per-output"]].concat();
    for (args, kernels) in [
        (
            &args[..],
            &[
                "keygen",
                "refine_keys",
                "fill",
                "head",
                "step",
                "tail",
                "reorder",
            ][..],
        ),
        (
            &steps[..],
            &["keygen", "refine_keys", "step_output", "reorder"][..],
        ),
    ] {
        let out = simsort(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        for k in kernels {
            assert!(text.contains(k), "{k}: {text}");
        }
    }
    let text = String::from_utf8_lossy(&simsort(&args).stdout).into_owned();
    assert!(!text.contains("step_pair"), "{text}");
}
