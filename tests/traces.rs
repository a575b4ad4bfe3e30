//! `simsort trace info` and `simsort trace export` on traces written with
//! the real writer (synthetic runs, so these do not depend on the simulator).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tui::synthetic::Synthetic;

use crate::util::simsort_bin;

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    crate::util::scratch_dir(&format!("traces-{name}"))
}

/// Writes the default synthetic trace to `dir/name`.
pub fn synthetic_trace(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let file = std::fs::File::create(&path).expect("create trace");
    Synthetic::default()
        .write(std::io::BufWriter::new(file))
        .expect("write trace");
    path
}

fn simsort(args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .output()
        .expect("run simsort")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn trace_info_lists_the_launches() {
    let dir = scratch("info");
    let trace = synthetic_trace(&dir, "run.trace");
    let out = simsort(&["trace", "info", trace.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("level full, focus block=0"), "{stdout}");
    assert!(
        stdout.contains("launch 0: bs grid [2, 1, 1] block [16, 1, 1]"),
        "{stdout}"
    );
    assert!(stdout.contains("launch 1: copy"), "{stdout}");
}

#[test]
fn perfetto_export_writes_chrome_trace_json() {
    let dir = scratch("export");
    let trace = synthetic_trace(&dir, "run.trace");
    let json = dir.join("out.json");
    let out = simsort(&[
        "trace",
        "export",
        trace.to_str().unwrap(),
        "--format",
        "perfetto",
        "-o",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).expect("valid JSON");
    let events = v["traceEvents"].as_array().expect("traceEvents");
    // pid = SM: the synthetic run puts block 1 on SM 1.
    assert!(
        events
            .iter()
            .any(|e| e["ph"] == "X" && e["cat"] == "issue" && e["pid"] == 1)
    );
    assert!(
        events
            .iter()
            .any(|e| e["ph"] == "C" && e["name"] == "smem bank conflicts")
    );
    assert!(events.iter().any(|e| e["ph"] == "X" && e["cat"] == "stall"));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(&format!("wrote {}", json.display())),
        "{stdout}"
    );
}

#[test]
fn bad_traces_are_one_clear_error_with_status_2() {
    let dir = scratch("bad");
    let good = std::fs::read(synthetic_trace(&dir, "run.trace")).unwrap();
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "text.trace",
            b"not a trace at all".to_vec(),
            "not a simsort trace",
        ),
        ("cut.trace", good[..good.len() / 2].to_vec(), "truncated"),
        (
            "flipped.trace",
            {
                let mut b = good.clone();
                let mid = b.len() / 2;
                b[mid] ^= 0xff;
                b
            },
            "corrupt",
        ),
    ];
    for (name, bytes, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let p = path.to_str().unwrap();
        for args in [
            vec!["trace", "info", p],
            vec!["trace", "export", p, "--format", "perfetto", "-o", "-"],
            vec!["replay", p, "--screen", "80x24"],
        ] {
            let out = simsort(&args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains(want), "{args:?}: {stderr}");
            assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
    let out = simsort(&[
        "trace",
        "export",
        "/no/such.trace",
        "--format",
        "perfetto",
        "-o",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/no/such.trace"));
}

/// The export's `--time`, `--launch`, `--sm` and `--block`: the unit is
/// stated in `otherData` and each event keeps its cycle in `args`; the
/// filters keep only what they name; a bad range is one clear error.
#[test]
fn perfetto_export_time_units_and_filters() {
    let dir = scratch("export-options");
    let trace = synthetic_trace(&dir, "run.trace");
    let t = trace.to_str().unwrap();
    let export = |extra: &[&str]| {
        let mut args = vec!["trace", "export", t, "--format", "perfetto", "-o", "-"];
        args.extend(extra);
        let out = simsort(&args);
        assert!(out.status.success(), "{extra:?}: {}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("valid JSON")
    };
    let first_issue = |v: &serde_json::Value| {
        v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["cat"] == "issue")
            .cloned()
            .unwrap()
    };
    // The synthetic machine runs at 1000 MHz: a cycle is 1 ns, 0.001 us.
    let ns = export(&[]);
    assert_eq!(ns["otherData"]["unit"], "ns");
    let issue = first_issue(&ns);
    let cycle = issue["args"]["cycle"].as_u64().unwrap();
    assert_eq!(issue["ts"].as_f64(), Some(cycle as f64 / 1000.0));
    let cycles = export(&["--time", "cycles"]);
    assert_eq!(cycles["otherData"]["unit"], "cycles");
    assert_eq!(first_issue(&cycles)["ts"].as_u64(), Some(cycle));
    // Block 1 runs on SM 1: `--sm 1` keeps none of block 0's events.
    let sm1 = export(&["--sm", "1", "--launch", "0"]);
    let events = sm1["traceEvents"].as_array().unwrap();
    assert!(events.iter().any(|e| e["cat"] == "issue"));
    assert!(
        events
            .iter()
            .filter(|e| e["cat"] == "issue" || e["cat"] == "stall")
            .all(|e| e["pid"] == 1)
    );
    let block0 = export(&["--block", "0-0"]);
    assert!(
        block0["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["cat"] == "issue")
            .all(|e| e["pid"] == 0)
    );
    for (bad, want) in [
        (vec!["--block", "5-2"], "empty"),
        (vec!["--sm", "x"], "not a whole number"),
        (vec!["--launch", "9"], "the trace has 2 launches"),
    ] {
        let mut args = vec!["trace", "export", t, "--format", "perfetto", "-o", "-"];
        args.extend(&bad);
        let out = simsort(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(stderr.contains(want), "{bad:?}: {stderr}");
    }
}
