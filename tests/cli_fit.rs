//! `simsort calibrate --fit`: a fit on a few committed H100 suite entries
//! with a small budget (seconds, no GPU) is deterministic whatever the
//! thread count, prints the fitted and held-out MAPE with the held-out
//! entries named, and writes a machine file `--gpu` and `gpu diff` load;
//! bad input is one message and exit 2; Ctrl-C writes nothing, exit 130;
//! the committed fitted H100 file loads and holds what the docs quote.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::{finish, interrupt, repo_root, scratch_dir, simsort_bin, started_until, text};

/// `simsort args` run from the repository's root (suites name their
/// kernels relative to it).
fn simsort(args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A fit of the launch overhead to the three one-block barrier loops of
/// the H100's suite, the 3rd held out.
fn small_fit(out: &Path, threads: &str) -> Output {
    simsort(&[
        "calibrate",
        "--suite",
        "hw/calib/suite.txt",
        "--data",
        "hw/data/h100/calib",
        "--only",
        "bar_1x",
        "--fit",
        s(out),
        "--fit-fields",
        "launch_overhead_cycles,bar_latency_cycles",
        "--max-evals",
        "6",
        "--hold-out",
        "3",
        "--reference",
        "h100",
        "--threads",
        threads,
    ])
}

/// A machine file without its first comment lines (they quote the command
/// line, which names the output).
fn body(path: &Path) -> String {
    let t = std::fs::read_to_string(path).unwrap();
    t.lines()
        .skip_while(|l| l.starts_with("# Written by") || l.starts_with("# ("))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_small_fit_is_deterministic_reports_held_out_error_and_writes_a_loadable_machine() {
    let dir = scratch_dir("fit_small");
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let (fa, fb) = (a.join("fitted.toml"), b.join("fitted.toml"));
    let one = small_fit(&fa, "1");
    let two = small_fit(&fb, "2");
    let out = text(&one.stdout);
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert_eq!(two.status.code(), Some(0), "{}", text(&two.stderr));
    assert_eq!(
        out.replace(s(&fa), "F"),
        text(&two.stdout).replace(s(&fb), "F"),
        "one thread or two: the same fit"
    );
    assert_eq!(body(&fa), body(&fb));
    assert!(
        out.contains("held out (every 3rd entry, never fitted): bar_1x1024\n"),
        "{out}"
    );
    assert!(
        out.contains("on 2 of hw/calib/suite.txt's 3 entries"),
        "{out}"
    );
    let mape = |label: &str| -> Vec<f64> {
        let line = out
            .lines()
            .find(|l| l.starts_with(label) && l.ends_with('%'))
            .unwrap();
        line.split_whitespace()
            .filter_map(|w| w.strip_suffix('%')?.parse().ok())
            .collect()
    };
    let fitted = mape("fitted set (");
    let held = mape("held out (");
    assert_eq!(fitted.len(), 2, "start and fitted: {out}");
    assert_eq!(held.len(), 3, "start, fitted and h100: {out}");
    assert!(
        fitted[1] <= fitted[0],
        "the fit is no worse than its start: {out}"
    );
    // The file is a machine: `gpu diff` names the fitted fields only.
    let diff = simsort(&["gpu", "diff", "h200", s(&fa)]);
    let diff = text(&diff.stdout);
    for line in diff
        .lines()
        .skip(1)
        .filter(|l| !l.contains("fields differ"))
    {
        let field = line.split_whitespace().next().unwrap();
        assert!(
            ["launch_overhead_cycles", "bar_latency_cycles"].contains(&field),
            "{diff}"
        );
    }
    assert!(
        diff.ends_with(" of 86 fields differ\n"),
        "the fit moved a field: {diff}"
    );
    // And `calibrate --gpu FILE` on the held-out entry gives the MAPE the
    // fit printed for it.
    let check = simsort(&[
        "calibrate",
        "--suite",
        "hw/calib/suite.txt",
        "--data",
        "hw/data/h100/calib",
        "--only",
        "bar_1x1024",
        "--gpu",
        s(&fa),
    ]);
    let check = text(&check.stdout);
    let mape: f64 = check
        .split("cycle MAPE ")
        .nth(1)
        .and_then(|r| r.split('%').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{check}"));
    assert!((mape - held[1]).abs() <= 0.051, "{check}\n{out}");
}

#[test]
fn bad_fit_input_is_one_message_and_exit_2_before_any_simulation() {
    let dir = scratch_dir("fit_bad");
    let out = dir.join("m.toml");
    let o = s(&out);
    let base = ["calibrate", "--suite", "hw/calib/suite.txt"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--data", s(&dir), "--fit", o],
            "3 of the suite's entries have no hardware data",
        ),
        (
            vec![
                "--data",
                "hw/data/h100/calib",
                "--fit",
                o,
                "--max-evals",
                "3",
            ],
            "--max-evals 3 cannot fit 6 field(s)",
        ),
        (
            vec![
                "--data",
                "hw/data/h100/calib",
                "--fit",
                o,
                "--fit-fields",
                "num_sms",
            ],
            "`num_sms` is not a timing field",
        ),
        (
            vec![
                "--data",
                "hw/data/h100/calib",
                "--fit",
                "hw/calib/suite.txt",
            ],
            "must end in .toml",
        ),
        (
            vec![
                "--data",
                "hw/data/h100/calib",
                "--fit",
                o,
                "--hold-out",
                "5",
            ],
            "--hold-out 5 of 3 suite entries leaves 3 to fit and 0 held out",
        ),
        (
            vec![
                "--data",
                "hw/data/h100/calib",
                "--fit",
                o,
                "--only",
                "nothing_named_so",
            ],
            "nothing to fit (--only nothing_named_so)",
        ),
    ];
    for (extra, needle) in cases {
        let mut args: Vec<&str> = base.to_vec();
        if !extra.contains(&"--only") {
            args.extend(["--only", "bar_1x"]);
        }
        args.extend(extra);
        let r = simsort(&args);
        let err = text(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: `{needle}` not in {err}");
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{err}"
        );
        assert!(!out.exists());
    }
    // An output that is an input (a CSV of the suite) is refused and kept.
    let csv = repo_root().join("hw/data/h100/calib/bar_1x32.csv");
    let before = std::fs::read(&csv).unwrap();
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&csv, &link).unwrap();
    let r = simsort(&[
        "calibrate",
        "--suite",
        "hw/calib/suite.txt",
        "--data",
        "hw/data/h100/calib",
        "--only",
        "bar_1x",
        "--fit",
        s(&link),
    ]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    assert_eq!(std::fs::read(&csv).unwrap(), before);
}

#[test]
fn ctrl_c_stops_a_fit_with_status_130_and_writes_nothing() {
    let dir = scratch_dir("fit_sigint");
    let out = dir.join("m.toml");
    // Ready once the first evaluation is done: the fit is under way.
    let (child, err) = started_until(
        &repo_root(),
        &[
            "calibrate",
            "--suite",
            "hw/calib/suite.txt",
            "--data",
            "hw/data/h100/calib",
            "--only",
            "bar_",
            "--fit",
            s(&out),
            "--max-evals",
            "500",
            "--threads",
            "1",
        ],
        |l| l.starts_with("fit: evaluation 1 of 500"),
    );
    interrupt(child.id());
    let (status, rest) = finish(child, err);
    assert_eq!(status, Some(130), "{rest}");
    assert!(rest.contains("no machine file was written"), "{rest}");
    assert!(!out.exists());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "no temp file left"
    );
}

/// The committed H100 fit loads as a machine, differs from `h200` only in
/// timing fields, and holds the values and MAPEs docs/calibration.md
/// quotes ("The proof: the H100 fitted from the H200").
#[test]
fn the_committed_h100_fit_loads_and_holds_what_the_docs_quote() {
    let file = "hw/data/h100/fitted-from-h200.toml";
    let show = simsort(&["gpu", "show", file]);
    assert_eq!(show.status.code(), Some(0), "{}", text(&show.stderr));
    let show = text(&show.stdout);
    let docs = std::fs::read_to_string(repo_root().join("docs/calibration.md")).unwrap();
    let proof = docs
        .split("### The proof: the H100 fitted from the H200")
        .nth(1)
        .and_then(|s| s.split("\n### ").next())
        .expect("the docs' proof section");
    let mut rows = 0;
    for line in proof.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let field = cells[1].trim_matches('`');
        if !field.ends_with("_cycles") && !field.ends_with("_per_cycle") {
            continue;
        }
        let fitted = cells[3].replace(',', "");
        assert!(
            show.lines().any(|l| l == format!("{field} = {fitted}")),
            "{field} = {fitted} is not in {file}"
        );
        rows += 1;
    }
    assert_eq!(rows, 6, "the docs quote the six fitted fields");
    let quoted = |label: &str| -> Vec<String> {
        let row = proof.lines().find(|l| l.starts_with(label)).unwrap();
        row.split('|')
            .map(str::trim)
            .filter(|c| c.ends_with('%'))
            .map(str::to_string)
            .collect()
    };
    let (fitted, held) = (quoted("| fitted set"), quoted("| held out"));
    let pct = |p: &str| p.trim_end_matches('%').parse::<f64>().unwrap();
    // The file's description rounds to 0.1: "cycle MAPE 3.5% fitted, 4.4% held out".
    let described = show
        .split("cycle MAPE ")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no MAPEs in the description of {file}"));
    let words: Vec<&str> = described.split_whitespace().collect();
    let (f, h) = (pct(words[0]), pct(words[2]));
    assert!(
        (f - pct(&fitted[1])).abs() <= 0.051,
        "{described} against {fitted:?}"
    );
    assert!(
        (h - pct(&held[1])).abs() <= 0.051,
        "{described} against {held:?}"
    );
    let diff = text(&simsort(&["gpu", "diff", "h200", file]).stdout);
    for line in diff
        .lines()
        .skip(1)
        .filter(|l| !l.contains("fields differ"))
    {
        let field = line.split_whitespace().next().unwrap();
        assert!(
            simsort::calib::fit::TIMING_FIELDS.contains(&field),
            "the fit moved a structural field: {diff}"
        );
    }
}
