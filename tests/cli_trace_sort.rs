//! `simsort --trace FILE`: the sort records a trace that the trace tools
//! read back, and bad trace options are input errors.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::util::simsort_bin;

fn simsort(args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_trace_sort-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

const SMALL: &[&str] = &[
    "--gpu",
    "tiny",
    "--warp",
    "8",
    "--slab-height",
    "4",
    "--keys",
    "3000",
    "-q",
];

#[test]
fn a_traced_sort_can_be_read_back_and_is_deterministic() {
    let dir = scratch("roundtrip");
    let (a, b) = (dir.join("a.trace"), dir.join("b.trace"));
    for path in [&a, &b] {
        let mut args = SMALL.to_vec();
        args.extend([
            "--trace",
            path.to_str().unwrap(),
            "--trace-focus",
            "block=1,warp=0",
        ]);
        let out = simsort(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        "same run, same bytes"
    );
    let info = simsort(&["trace", "info", a.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        info.status.success(),
        "{}",
        String::from_utf8_lossy(&info.stderr)
    );
    for needle in ["focus block=1", "bs grid", "transpose", "keys=3000"] {
        assert!(text.contains(needle), "`{needle}` not in:\n{text}");
    }
}

#[test]
fn bad_trace_options_are_input_errors() {
    let dir = scratch("bad");
    let file = dir.join("t.trace");
    let file = file.to_str().unwrap();
    let missing_dir = dir.join("no/such/dir/t.trace");
    for (extra, needle) in [
        (
            vec!["--trace", file, "--trace-focus", "blok=1"],
            "trace-focus",
        ),
        (
            vec!["--trace", file, "--trace-level", "everything"],
            "trace-level",
        ),
        (vec!["--trace", missing_dir.to_str().unwrap()], "--trace"),
        (
            vec!["--trace", file, "--trace-focus", "block=99999"],
            "no such block (--trace-focus block=99999)",
        ),
        (
            vec!["--trace", file, "--trace-focus", "block=0,warp=99"],
            "no such warp (--trace-focus warp=99)",
        ),
    ] {
        let mut args = SMALL.to_vec();
        args.extend(extra.iter().copied());
        let out = simsort(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(needle) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn exporting_a_corrupt_trace_leaves_the_old_output_as_it_was() {
    let dir = scratch("export-keep");
    let good = dir.join("t.trace");
    let mut args = SMALL.to_vec();
    args.extend(["--trace", good.to_str().unwrap()]);
    let out = simsort(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bytes = std::fs::read(&good).unwrap();
    let mid = bytes.len() / 2;
    for b in &mut bytes[mid..mid + 64] {
        *b ^= 0x55;
    }
    let bad = dir.join("bad.trace");
    std::fs::write(&bad, bytes).unwrap();
    let keep = dir.join("keep.json");
    std::fs::write(&keep, "keep").unwrap();
    let (bad, keep_s) = (bad.to_str().unwrap(), keep.to_str().unwrap());
    let out = simsort(&["trace", "export", bad, "--format", "perfetto", "-o", keep_s]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("corrupt"), "{err}");
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), "keep");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        3,
        "no temporary file is left"
    );
    let good = good.to_str().unwrap();
    let out = simsort(&[
        "trace",
        "export",
        good,
        "--format",
        "perfetto",
        "-o",
        "/dev/full",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    let out = simsort(&[
        "trace", "export", good, "--format", "perfetto", "-o", keep_s,
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(std::fs::read_to_string(&keep).unwrap().starts_with('{'));
}

#[test]
fn exporting_into_a_closed_pipe_is_quiet() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = scratch("pipe");
    let trace = dir.join("t.trace");
    let mut args = SMALL.to_vec();
    args.extend(["--trace", trace.to_str().unwrap()]);
    assert_eq!(simsort(&args).status.code(), Some(0));
    let mut child = Command::new(simsort_bin())
        .args([
            "trace",
            "export",
            trace.to_str().unwrap(),
            "--format",
            "perfetto",
            "-o",
            "-",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run simsort");
    let mut head = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // The read end is closed here, as `| head -c 10` does.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "quiet on a closed pipe: {err}");
}
