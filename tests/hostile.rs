//! Hostile inputs (issue 32's audit): outputs that are inputs, signals,
//! closed pipes, limits, impossible data and the one-message rule. One test
//! (or a few) per finding, so the next audit extends this file. Signal
//! tests wait for a `progress:` line (`SIMSORT_PROGRESS=lines`) before
//! they signal: never a fixed sleep.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

use crate::util::{
    finish, repo_root, scratch_dir, simsort, simsort_bin, started_until, tests_dir, text,
};

/// `simsort args` run in `dir`.
fn simsort_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

/// Exit status 2 and every needle in stderr, which is one `error:` line
/// (or more only where `lines` allows).
fn refused(out: &Output, needles: &[&str], lines: usize) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for needle in needles {
        assert!(err.contains(needle), "`{needle}` not in:\n{err}");
    }
    let errors = err.lines().filter(|l| l.starts_with("error")).count();
    assert!(errors <= lines, "{errors} error lines:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A small trace recorded on the tiny machine.
fn tiny_trace(dir: &Path) -> PathBuf {
    let trace = dir.join("t.trace");
    let out = simsort(&["--gpu", "tiny", "--keys", "300", "-q", "--trace", s(&trace)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    trace
}

/// Starts `simsort args` in `dir` with progress lines and waits for its
/// first `progress:` line (the simulation has started).
fn started(dir: &Path, args: &[&str]) -> (Child, BufReader<std::process::ChildStderr>) {
    started_until(dir, args, |l| l.starts_with("progress:"))
}

fn signal(child: &Child, name: &str) {
    let kill = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
}

// ---- Never overwrite or lose a user's file ----

#[test]
fn a_trace_export_onto_its_own_trace_is_refused_also_through_a_link() {
    let dir = scratch_dir("hostile_export_self");
    let trace = tiny_trace(&dir);
    let before = std::fs::read(&trace).unwrap();
    let out = simsort(&[
        "trace",
        "export",
        s(&trace),
        "--format",
        "perfetto",
        "-o",
        s(&trace),
    ]);
    refused(&out, &["same file as the input TRACE"], 1);
    #[cfg(unix)]
    {
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&trace, &link).unwrap();
        let out = simsort(&[
            "trace",
            "export",
            s(&trace),
            "--format",
            "perfetto",
            "-o",
            s(&link),
        ]);
        refused(&out, &["same file as the input TRACE"], 1);
    }
    assert_eq!(
        std::fs::read(&trace).unwrap(),
        before,
        "the trace is intact"
    );
}

#[test]
fn run_out_onto_the_kernel_or_onto_another_out_is_refused() {
    let dir = scratch_dir("hostile_run_out");
    let kernel = dir.join("K.kir");
    std::fs::copy(tests_dir().join("kernels/vcopy.kir"), &kernel).unwrap();
    let before = std::fs::read(&kernel).unwrap();
    let base = [
        "run", "K.kir", "--grid", "1", "--block", "32", "--buffer", "src=4k", "--buffer", "dst=4k",
        "--param", "n=1024",
    ];
    let out = simsort_in(&dir, &[&base[..], &["--out", "dst=K.kir"]].concat());
    refused(
        &out,
        &["--out K.kir is the same file as the input KERNEL"],
        1,
    );
    assert_eq!(std::fs::read(&kernel).unwrap(), before);
    let out = simsort_in(
        &dir,
        &[&base[..], &["--out", "dst=X", "--out", "src=./X"]].concat(),
    );
    refused(&out, &["same file as the output --out X"], 1);
    assert!(!dir.join("X").exists(), "nothing was written");
}

/// Two parts of a tiny sharded sweep in `dir`: p0 and p1 (CSV and JSON).
fn two_parts(dir: &Path) {
    for shard in ["0/2", "1/2"] {
        let name = format!("p{}", &shard[..1]);
        let out = simsort_in(
            dir,
            &[
                "sweep", "-q", "--gpu", "tiny", "--keys", "300", "--warp", "4,8", "--shard", shard,
                "--out", &name,
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
}

#[test]
fn sweep_merge_onto_a_part_or_a_device_is_refused_and_an_emptied_part_too() {
    let dir = scratch_dir("hostile_merge");
    two_parts(&dir);
    let p0 = std::fs::read(dir.join("p0.json")).unwrap();
    let out = simsort_in(&dir, &["sweep", "merge", "p0", "p0", "p1"]);
    refused(&out, &["same file as the input PART"], 1);
    assert_eq!(std::fs::read(dir.join("p0.json")).unwrap(), p0, "p0 intact");
    let out = simsort_in(&dir, &["sweep", "merge", "/dev/full", "p0", "p1"]);
    refused(&out, &["OUT /dev/full: not a regular file"], 1);
    assert!(
        !Path::new("/dev/full.csv").exists(),
        "nothing written into /dev"
    );
    // A part whose runs were emptied would merge into a sweep missing rows.
    let mut part: serde_json::Value = serde_json::from_slice(&p0).unwrap();
    part["runs"] = serde_json::json!([]);
    std::fs::write(dir.join("p0.json"), part.to_string()).unwrap();
    let out = simsort_in(&dir, &["sweep", "merge", "all", "p0", "p1"]);
    refused(&out, &["p0.json", "the file was cut or edited"], 1);
    assert!(!dir.join("all.csv").exists());
}

#[test]
fn calibrate_refuses_a_plot_over_its_suite_and_a_bad_plot_before_simulating() {
    let dir = scratch_dir("hostile_calibrate_plot");
    let suite = dir.join("S.svg");
    let line = format!(
        "empty_1x32 bundle-run {} --grid 1 --block 32\n",
        s(&repo_root().join("hw/calib/kernels/empty.kir"))
    );
    std::fs::write(&suite, &line).unwrap();
    let data = s(&repo_root().join("hw/data/calib")).to_string();
    let out = simsort(&[
        "calibrate",
        "--suite",
        s(&suite),
        "--data",
        &data,
        "--plot",
        s(&suite),
    ]);
    refused(&out, &["--plot", "same file as the input --suite"], 1);
    assert_eq!(std::fs::read_to_string(&suite).unwrap(), line);
    let missing = dir.join("nope/plot.png");
    let out = simsort(&[
        "calibrate",
        "--suite",
        s(&suite),
        "--data",
        &data,
        "--plot",
        s(&missing),
    ]);
    refused(&out, &["(--plot ", "does not exist"], 1);
    assert!(out.stdout.is_empty(), "refused before any comparison");
}

#[test]
fn emit_bundle_into_a_missing_directory_is_refused_like_other_outputs() {
    let dir = scratch_dir("hostile_bundle_parent");
    let target = dir.join("missing/b");
    let out = simsort(&[
        "emit",
        "bundle",
        "--gpu",
        "tiny",
        "--keys",
        "300",
        "-o",
        s(&target),
    ]);
    refused(&out, &["(--output ", "does not exist"], 1);
    assert!(
        !dir.join("missing").exists(),
        "no parent directory was made"
    );
}

#[cfg(unix)]
#[test]
fn sigterm_while_recording_a_trace_leaves_no_temporary_file() {
    let dir = scratch_dir("hostile_sigterm_trace");
    let (child, err) = started(&dir, &["--keys", "4194304", "-q", "--trace", "t.trace"]);
    signal(&child, "TERM");
    let (code, err) = finish(child, err);
    assert_eq!(code, Some(130), "stopped, not killed: {err}");
    assert!(
        err.contains("error: interrupted (SIGTERM): kernel `"),
        "{err}"
    );
    assert!(err.contains("no report or trace was written"), "{err}");
    assert_eq!(
        names(&dir),
        Vec::<String>::new(),
        "no trace, no temporary file"
    );
}

#[cfg(unix)]
#[test]
fn sighup_stops_run_as_ctrl_c_does() {
    let dir = scratch_dir("hostile_sighup_run");
    let kernel = tests_dir().join("kernels/vcopy.kir");
    let (child, err) = started(
        &dir,
        &[
            "run",
            s(&kernel),
            "--grid",
            "4294967295",
            "--block",
            "256",
            "--buffer",
            "src=4k",
            "--buffer",
            "dst=4k",
            "--param",
            "n=1024",
            "--out",
            "dst=dst.bin",
        ],
    );
    signal(&child, "HUP");
    let (code, err) = finish(child, err);
    assert_eq!(code, Some(130), "{err}");
    assert!(
        err.contains("error: interrupted (SIGHUP): kernel `vcopy`"),
        "{err}"
    );
    assert_eq!(
        names(&dir),
        Vec::<String>::new(),
        "no --out file, no temporary file"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_emit_bundle_with_status_130_and_no_directory() {
    let dir = scratch_dir("hostile_bundle_ctrl_c");
    let (child, err) = started(&dir, &["emit", "bundle", "--keys", "4194304", "-o", "b"]);
    signal(&child, "INT");
    let (code, err) = finish(child, err);
    assert_eq!(code, Some(130), "{err}");
    assert!(
        err.contains("error: interrupted (Ctrl-C): the recording stopped"),
        "{err}"
    );
    assert_eq!(
        names(&dir),
        Vec::<String>::new(),
        "no bundle, no temporary directory"
    );
}

/// Types Ctrl-C at a command that runs many configurations (a sweep or
/// `compare`) and checks that it exits 1 with one `error: interrupted`
/// line counting what stopped part way and what never started; returns
/// its stderr and that line.
#[cfg(unix)]
fn ctrl_c_on_many_runs(
    child: Child,
    err: BufReader<std::process::ChildStderr>,
) -> (String, String) {
    signal(&child, "INT");
    let (code, err) = finish(child, err);
    assert_eq!(code, Some(1), "{err}");
    let last = err
        .lines()
        .find(|l| l.starts_with("error: interrupted"))
        .unwrap_or_default()
        .to_string();
    assert!(last.starts_with("error: interrupted (Ctrl-C): "), "{err}");
    assert!(
        last.contains("stopped part way") && last.contains("not started"),
        "{err}"
    );
    (err, last)
}

#[cfg(unix)]
#[test]
fn ctrl_c_on_a_sweep_says_what_finished_and_what_did_not() {
    let dir = scratch_dir("hostile_sweep_ctrl_c");
    let (child, err) = started(
        &dir,
        &[
            "sweep",
            "-q",
            "-j",
            "1",
            "--keys",
            "4194304",
            "--slab-height",
            "4,8,16",
        ],
    );
    let (err, _) = ctrl_c_on_many_runs(child, err);
    assert!(!err.contains("configuration(s) failed"), "{err}");
    assert!(
        !err.contains("not started: the sweep"),
        "never-started ones are counted: {err}"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_on_compare_says_what_finished_and_keeps_the_old_plot() {
    let dir = scratch_dir("hostile_compare_ctrl_c");
    std::fs::write(dir.join("old.svg"), "old plot").unwrap();
    let (child, err) = started(
        &dir,
        &[
            "compare",
            "-q",
            "-j",
            "1",
            "--keys",
            "4194304,8388608",
            "--plot",
            "old.svg",
        ],
    );
    let (err, last) = ctrl_c_on_many_runs(child, err);
    assert!(last.contains("an old file is kept"), "{err}");
    assert!(!err.contains("no configuration"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("old.svg")).unwrap(),
        "old plot"
    );
    assert_eq!(names(&dir), ["old.svg"], "no temporary file");
}

/// `simsort args` in `dir` as on a full disk: no file it writes may grow
/// past `bytes` (RLIMIT_FSIZE; the write fails with EFBIG, as a full
/// filesystem fails with ENOSPC, instead of the process being killed).
#[cfg(unix)]
fn simsort_on_a_full_disk(dir: &Path, bytes: u64, args: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(simsort_bin());
    cmd.args(args).current_dir(dir).env("NO_COLOR", "1");
    // SAFETY: between fork and exec only async-signal-safe calls
    // (`signal`, `setrlimit`) on values owned by this closure.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("run simsort")
}

#[cfg(unix)]
#[test]
fn a_full_disk_keeps_every_old_output_and_says_which_file() {
    let dir = scratch_dir("hostile_full_disk");
    let tiny = ["--gpu", "tiny", "--keys", "512", "-q"];
    // Each output kind, over an old file, on a disk with 4 KiB left: each
    // new file is larger, so its write fails part way.
    let cases: [(&str, &[&str]); 4] = [
        (
            "old.trace",
            &["--trace", "old.trace", "--trace-level", "full"],
        ),
        ("old.html", &["--report", "old.html"]),
        ("old.svg", &["--plot", "old.svg"]),
        ("old.png", &["--plot", "old.png"]),
    ];
    for (file, extra) in cases {
        std::fs::write(dir.join(file), "old").unwrap();
        let mut args = tiny.to_vec();
        args.extend(extra);
        let out = simsort_on_a_full_disk(&dir, 4096, &args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {err}");
        assert!(err.contains(file), "{file}: the message names it: {err}");
        assert!(err.contains("File too large"), "{file}: {err}");
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{file}: one error line: {err}"
        );
        assert!(
            !err.contains("panicked") && !err.contains("Error("),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join(file)).unwrap(),
            "old",
            "{file} was kept"
        );
        assert_eq!(names(&dir).len(), 1, "no temporary file: {:?}", names(&dir));
        std::fs::remove_file(dir.join(file)).unwrap();
    }
}

// ---- Every limit up front ----

#[test]
fn memory_limits_count_records_and_bundles_and_key_counts_come_first() {
    refused(
        &simsort(&[
            "--algo",
            "terasort",
            "--record-bytes",
            "1000000000",
            "--keys",
            "65536",
        ]),
        &["not enough host memory (--keys 65536 --record-bytes 1000000000)"],
        1,
    );
    let dir = scratch_dir("hostile_bundle_memory");
    let out = simsort(&[
        "emit",
        "bundle",
        "--keys",
        "2147483648",
        "--max-host-memory",
        "1G",
        "-o",
        s(&dir.join("b")),
    ]);
    refused(&out, &["not enough host memory (--keys 2147483648)"], 1);
    for keys in ["2147483649", "4294967296", "1099511627776"] {
        let out = simsort(&["--keys", keys, "--max-host-memory", "1G"]);
        refused(&out, &["at most 2147483648"], 1);
        assert!(!text(&out.stderr).contains("host memory"));
    }
    refused(
        &simsort(&["--keys", "+5"]),
        &["`+5` is not a whole number"],
        1,
    );
}

#[test]
fn more_threads_than_cores_are_warned_about() {
    let out = simsort(&["--gpu", "tiny", "--keys", "300", "-q", "--threads", "10000"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("warning: --threads 10000 is more than this machine's"),
        "{err}"
    );
    assert!(err.contains("uses 10000 host threads"), "{err}");
}

/// A suite of `entries` (NAME then `bundle-run` of the empty kernel, or
/// the given words) with `empty_1x32`'s committed CSV under each name in
/// `with_csv`.
fn suite(dir: &Path, entries: &[(&str, &str)], with_csv: &[&str]) -> (PathBuf, PathBuf) {
    let empty = repo_root().join("hw/calib/kernels/empty.kir");
    let mut text = String::new();
    for (name, args) in entries {
        let args = args.replace("EMPTY", s(&empty));
        text += &format!("{name} {args}\n");
    }
    let suite = dir.join("suite.txt");
    std::fs::write(&suite, text).unwrap();
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    for name in with_csv {
        std::fs::copy(
            repo_root().join("hw/data/calib/empty_1x32.csv"),
            data.join(format!("{name}.csv")),
        )
        .unwrap();
    }
    (suite, data)
}

#[test]
fn a_suite_entry_without_its_csv_is_named_and_the_others_compared() {
    let dir = scratch_dir("hostile_suite_missing");
    let run = "bundle-run EMPTY --grid 1 --block 32";
    let (suite, data) = suite(&dir, &[("gone", run), ("empty_1x32", run)], &["empty_1x32"]);
    let out = simsort(&["calibrate", "--suite", s(&suite), "--data", s(&data)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: suite entry gone: "), "{err}");
    assert!(
        err.contains("the entry was left out, the others compared"),
        "{err}"
    );
    assert!(
        text(&out.stdout).contains("empty_1x32/0:"),
        "{}",
        text(&out.stdout)
    );
}

#[cfg(unix)]
#[test]
fn calibrate_stops_once_its_output_pipe_is_closed() {
    let dir = scratch_dir("hostile_calibrate_pipe");
    // The big sort would simulate for minutes, then fail to pair with the
    // one-launch CSV (exit 2): only a stop on the closed pipe gives 0.
    let (suite, data) = suite(&dir, &[("big", "bundle --keys 4194304")], &["big"]);
    let (mut child, err) = started(
        &dir,
        &["calibrate", "--suite", s(&suite), "--data", s(&data)],
    );
    drop(child.stdout.take());
    let (code, err) = finish(child, err);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("error"), "{err}");
}

// ---- Never silently wrong ----

#[test]
fn the_largest_cycle_limit_is_no_limit() {
    let out = simsort(&[
        "run",
        s(&tests_dir().join("kernels/vcopy.kir")),
        "--grid",
        "4",
        "--block",
        "256",
        "--buffer",
        "src=4k",
        "--buffer",
        "dst=4k",
        "--param",
        "n=1024",
        "--max-cycles",
        "18446744073709551615",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn calibrate_bounds_must_be_numbers_in_range() {
    for (flag, value) in [
        ("--min-r", "NaN"),
        ("--min-r", "2"),
        ("--max-mape", "NaN"),
        ("--max-mape", "-1"),
        ("--max-whole-sort-error", "-1"),
        ("--max-whole-sort-error", "inf"),
    ] {
        let out = simsort(&["calibrate", "--suite", "x", flag, value]);
        refused(&out, &[flag, value], 1);
    }
}

#[test]
fn calibrate_refuses_impossible_hardware_cycles() {
    let dir = scratch_dir("hostile_calibrate_cycles");
    let (suite, data) = suite(
        &dir,
        &[("empty_1x32", "bundle-run EMPTY --grid 1 --block 32")],
        &["empty_1x32"],
    );
    let csv = data.join("empty_1x32.csv");
    let text_csv = std::fs::read_to_string(&csv).unwrap();
    // Every field is quoted, and numbers carry thousands separators.
    let fields = |l: &str| -> Vec<String> {
        l.trim_matches('"')
            .split("\",\"")
            .map(str::to_string)
            .collect()
    };
    let header = text_csv.lines().find(|l| l.starts_with("\"ID\"")).unwrap();
    let col = fields(header)
        .iter()
        .position(|f| f == "sm__cycles_elapsed.max")
        .unwrap();
    for bad in ["-5", "0", "1e308", "12345678901234567890123456"] {
        let damaged: Vec<String> = text_csv
            .lines()
            .map(|l| {
                let mut f = fields(l);
                if l.starts_with("\"0\"") {
                    f[col] = bad.to_string();
                    format!("\"{}\"", f.join("\",\""))
                } else {
                    l.to_string()
                }
            })
            .collect();
        std::fs::write(&csv, damaged.join("\n")).unwrap();
        let out = simsort(&["calibrate", "--suite", s(&suite), "--data", s(&data)]);
        refused(&out, &["the CSV is damaged"], 1);
        assert!(!text(&out.stdout).contains("NaN"));
    }
}

#[test]
fn trace_focus_without_a_trace_is_an_error() {
    refused(
        &simsort(&["--gpu", "tiny", "--keys", "300", "--trace-focus", "block=1"]),
        &["--trace <FILE>"],
        1,
    );
}

// ---- One clear message per mistake ----

#[test]
fn each_mistake_is_one_line_naming_the_flag_given() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["--warp", "1"],
            "--warp 1: HotSort's warp width is a power of two in 4..=64",
        ),
        (
            &["--warp", "0"],
            "--warp 0: HotSort's warp width is a power of two in 4..=64",
        ),
        (&["--smem-bytes-per-sm", "0"], "(--smem-bytes-per-sm 0)"),
        (&["--num-subpartitions", "100"], "(--num-subpartitions 100)"),
        (
            &["emit", "ptx", "--kernel", "smem_stride_129"],
            "(--kernel smem_stride_129)",
        ),
        (&["--slab-height", "128"], "--slab-height 128:"),
        (
            &["--algo", "terasort", "--record-bytes", "0"],
            "--record-bytes 0:",
        ),
        (&["sweep", "--jobs", "x"], "for '--jobs <N>'"),
    ];
    for (args, want) in cases {
        let out = simsort(args);
        refused(&out, &[want], 1);
        assert!(
            !text(&out.stderr).contains("Usage: simsort [OPTIONS]"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

/// `simsort compare` of 1,024 keys on a machine of `regs` registers an SM:
/// checks its exit status and how many rows it skips, and returns its
/// table and its stderr.
fn compare_with_regs(regs: &str, status: i32, skipped: usize) -> (String, String) {
    let out = simsort(&["compare", "-q", "--keys", "1024", "--regs-per-sm", regs]);
    let (table, err) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(status), "{err}");
    assert_eq!(
        table.matches("skipped: does not fit the machine").count(),
        skipped,
        "{table}"
    );
    (table, err)
}

#[test]
fn compare_on_a_machine_nothing_fits_shows_skipped_rows() {
    // 512 registers an SM: not even one warp of any sort's kernels fits.
    let (_, err) = compare_with_regs("512", 2, 5);
    assert_eq!(
        err.lines().filter(|l| l.starts_with("error")).count(),
        1,
        "{err}"
    );
}

#[test]
fn a_sort_runs_where_the_registers_it_keeps_live_fit() {
    // 1,024 registers an SM: mergesort's blocks of one warp fit on the
    // registers the simulator allocates (live words plus 3), not on the
    // ones its IR declares; the others are skipped, naming both counts.
    // Bitonic's `head` moves 16 bytes a lane, so it holds its 17 live
    // words plus 16 (`reg_words_beyond_live_b128`): 33 a thread, 1,056 a
    // warp, rounded to 1,280, more than the SM's 1,024.
    let (table, err) = compare_with_regs("1024", 0, 4);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("mergesort") && !l.contains("skipped")),
        "{table}"
    );
    assert!(err.contains("registers per thread (53 declared)"), "{err}");
    assert!(
        err.contains("`head` uses 33 registers per thread (41 declared)"),
        "{err}"
    );
}

#[test]
fn damaged_traces_say_what_is_wrong() {
    let dir = scratch_dir("hostile_trace_damage");
    let trace = tiny_trace(&dir);
    let good = std::fs::read(&trace).unwrap();
    let mut version = good.clone();
    version[8..12].copy_from_slice(&7u32.to_le_bytes());
    std::fs::write(&trace, &version).unwrap();
    refused(
        &simsort(&["trace", "info", s(&trace)]),
        &["the format version field holds 7", "damaged"],
        1,
    );
    let mut junk = good.clone();
    junk.extend_from_slice(b"some junk");
    std::fs::write(&trace, &junk).unwrap();
    refused(
        &simsort(&["trace", "info", s(&trace)]),
        &["9 bytes follow the end of the trace"],
        1,
    );
}

#[test]
fn help_names_the_papers_and_patents_not_seeds() {
    let out = simsort(&["--help"]);
    let help = text(&out.stdout);
    assert!(help.contains("CN102750131A"), "{help}");
    assert!(
        !help.contains("seed 00") && !help.contains("seed's"),
        "{help}"
    );
}
