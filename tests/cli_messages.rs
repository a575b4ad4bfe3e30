//! One message style for bad input everywhere (`error: <what> (<flag>):
//! <why>`), and Ctrl-C stopping the long commands that have no test
//! elsewhere (`trace export`, `calibrate`) with exit status 130.

use std::io::Read;
use std::process::{Command, Stdio};

use crate::util::{
    interrupt, repo_root, scratch_dir, simsort, simsort_bin, text, wait_for_sigint_handler,
};

/// Exit status 2 and a first line `error: ...` holding every needle.
fn assert_first_line(args: &[&str], needles: &[&str]) {
    let out = simsort(args);
    let err = text(&out.stderr);
    let first = err.lines().next().unwrap_or_default();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(first.starts_with("error: "), "{args:?}: {err}");
    for needle in needles {
        assert!(
            first.contains(needle),
            "{args:?}: `{needle}` not in:\n{err}"
        );
    }
}

#[test]
fn counts_given_badly_say_what_is_wrong_in_words() {
    assert_first_line(&["--warp", "-1"], &["'--warp", "negative"]);
    assert_first_line(
        &["sweep", "--keys", "8,1e6"],
        &["'--keys", "not a whole number"],
    );
    assert_first_line(&["--keys", "99999999999999999999"], &["too large"]);
    let out = simsort(&["--warp", "-1"]);
    assert!(
        !text(&out.stderr).contains("4294967295"),
        "clap's u32 range"
    );
}

#[test]
fn bundle_and_calibrate_messages_name_their_flag() {
    let dir = scratch_dir("cli_messages_bundle");
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    let file = file.to_str().unwrap();
    let full = dir.to_str().unwrap();
    assert_first_line(
        &["emit", "bundle", "-o", file, "--keys", "64"],
        &["(--output ", "new or empty directory"],
    );
    assert_first_line(
        &["emit", "bundle", "-o", full, "--keys", "64"],
        &["(--output ", "exists and is not empty"],
    );
    assert_first_line(&["calibrate"], &["nothing to compare", "--suite"]);
    let missing = dir.join("missing");
    let missing = missing.to_str().unwrap();
    assert_first_line(&["calibrate", missing], &["cannot read", "(DIR "]);
    assert_first_line(&["calibrate", "--suite", missing], &["(--suite "]);
    let bad_suite = dir.join("suite.txt");
    std::fs::write(&bad_suite, "name frobnicate --keys 4\n").unwrap();
    assert_first_line(
        &["calibrate", "--suite", bad_suite.to_str().unwrap()],
        &[
            "bad suite line 1 (--suite ",
            "neither bundle nor bundle-run",
        ],
    );
    let suite = repo_root().join("hw/calib/suite.txt");
    let suite = suite.to_str().unwrap();
    assert_first_line(
        &[
            "calibrate",
            "--suite",
            suite,
            "--data",
            full,
            "--only",
            "hs64k_h4",
        ],
        &["(--data ", "hs64k_h4.csv"],
    );
    assert_first_line(
        &["calibrate", "--suite", suite, "--only", "no-such-entry"],
        &["(--only no-such-entry)"],
    );
    assert_first_line(&["replay", missing], &["cannot replay"]);
}

#[test]
fn ctrl_c_stops_a_trace_export_with_status_130() {
    let dir = scratch_dir("cli_messages_export");
    let trace = dir.join("sort.sstrace");
    let out = simsort(&["--keys", "32768", "-q", "--trace", trace.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Export to a pipe this test stops reading: the export blocks on the
    // full pipe, so the signal surely lands before it ends.
    let mut child = Command::new(simsort_bin())
        .args(["trace", "export", "--format", "perfetto", "-o", "-"])
        .arg(&trace)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run simsort");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 4096];
    stdout.read_exact(&mut first).expect("the export started");
    interrupt(child.id());
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.starts_with("error: interrupted (Ctrl-C): the export stopped"),
        "{err}"
    );
}

#[test]
fn ctrl_c_stops_calibrate_with_status_130() {
    let root = repo_root();
    let child = Command::new(simsort_bin())
        .current_dir(&root)
        .args([
            "calibrate",
            "--suite",
            "hw/calib/suite.txt",
            "--only",
            "hs1m_h32",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run simsort");
    // Calibrate prints nothing before it is done, so the readiness is the
    // handler itself. Once it is set, the message is the same wherever the
    // signal lands: reading the suite and data is not interruptible, and
    // the first simulated launch stops at its first cycle window.
    wait_for_sigint_handler(child.id());
    interrupt(child.id());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.starts_with(
            "error: interrupted (Ctrl-C): calibrate stopped while simulating suite entry hs1m_h32"
        ),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no table of a stopped calibration");
}
