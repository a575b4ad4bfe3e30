//! The sort, `simsort sweep` and `simsort completions` as a user runs them:
//! the built binary, its outputs, its files and its exit status. Runs use
//! the tiny machine and few keys so they take milliseconds.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use crate::terminal::Terminal;
use crate::util::{assert_input_error, scratch_dir, simsort, simsort_bin, text};

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    scratch_dir(&format!("cli_sweep-{name}"))
}

const TINY: &[&str] = &["--gpu", "tiny", "--keys", "700"];

fn tiny_sort(extra: &[&str]) -> Output {
    let mut args = TINY.to_vec();
    args.extend(["--warp", "8", "--slab-height", "4"]);
    args.extend(extra);
    simsort(&args)
}

#[test]
fn the_sort_table_fits_80_columns_and_shows_no_progress_on_a_pipe() {
    let out = tiny_sort(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    for title in ["time and issue", "memory (shared", "stall reasons"] {
        assert!(table.contains(title), "{table}");
    }
    for line in table.lines() {
        assert!(line.chars().count() <= 80, "too wide: {line}");
    }
    let err = text(&out.stderr);
    assert!(err.starts_with("sorted 700 keys: verified"), "{err}");
    assert!(!err.contains("eta") && !err.contains('\r'), "{err}");
    let quiet = tiny_sort(&["-q"]);
    assert!(quiet.stderr.is_empty(), "{}", text(&quiet.stderr));
}

#[test]
fn the_sort_json_has_every_documented_key() {
    let out = tiny_sort(&["--json", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let top: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(top, ["config", "kernels", "keys", "sorted", "total"]);
    assert_eq!(report["keys"], 700);
    assert_eq!(report["sorted"], true);
    let config = &report["config"];
    for key in [
        "algo",
        "warp",
        "slab_height",
        "block_slabs",
        "keys",
        "key_bits",
        "dist",
        "seed",
        "gpu",
        "overrides",
        "smem_layout",
        "merge",
        "num_sms",
        "warp_size",
        "smem_banks",
        "smem_bytes_per_block",
    ] {
        assert!(config.get(key).is_some(), "config.{key} missing");
    }
    assert_eq!(config["smem_layout"], "pad");
    assert_eq!(config["warp_size"], 8);
    for key in [
        "sm__cycles_elapsed.max",
        "smsp__inst_executed.sum",
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    ] {
        assert!(
            report["total"]["metrics"].get(key).is_some(),
            "metric {key}"
        );
    }
    assert!(report["total"]["cycles"].as_u64().unwrap() > 0);
    assert!(report["total"]["stalls"]["barrier"].is_u64());
    let kernels = report["kernels"].as_array().unwrap();
    assert_eq!(kernels[0]["name"], "fill_in");
    for k in kernels {
        let keys: Vec<&str> = k.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "block", "cycles", "grid", "launches", "metrics", "name", "stalls"
            ]
        );
    }
    let again = tiny_sort(&["--json", "-q"]);
    assert_eq!(again.stdout, out.stdout, "the JSON is deterministic");
}

#[test]
fn one_bad_machine_value_is_one_error_line_naming_its_flag() {
    let out = simsort(&["--warp", "1000"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr).trim(),
        "error: --warp 1000: HotSort's warp width is a power of two in 4..=64"
    );
}

#[test]
fn impossible_sorts_list_every_problem_and_exit_2() {
    assert_input_error(
        &["--warp", "3", "--sms", "0", "--slab-height", "500"],
        &[
            "error: --warp 3: HotSort's warp width is a power of two in 4..=64",
            "error: invalid machine (--num-sms 0): 0 is outside",
            "error: slab height 500",
        ],
    );
    // The tiny machine allows 64 registers per thread and 2 KiB of shared
    // memory per block.
    assert_input_error(
        &["--gpu", "tiny", "--warp", "8", "--slab-height", "24"],
        &["registers per thread exceed the limit of 64"],
    );
    assert_input_error(
        &[
            "--gpu",
            "tiny",
            "--warp",
            "8",
            "--slab-height",
            "16",
            "--block-slabs",
            "8",
        ],
        &["bytes of shared memory", "more than the 2048 allowed"],
    );
    assert_input_error(
        &["--gpu", "h300"],
        &["error: unknown preset (--gpu h300)", "h200, h100, tiny"],
    );
    assert_input_error(&["--keys", "lots"], &["invalid value 'lots'"]);
    assert_input_error(&["--key-bits", "16"], &["not a key width"]);
    assert_input_error(
        &["--slab-hieght", "4"],
        &["a similar argument exists: '--slab-height'"],
    );
    assert_input_error(
        &["sweep", "--wrap", "8"],
        &["a similar argument exists: '--warp'"],
    );
}

#[test]
fn a_sweep_writes_csv_json_and_svg() {
    let dir = scratch("happy");
    let csv = dir.join("results.csv");
    let svg = dir.join("plot.svg");
    let mut args = vec!["sweep"];
    args.extend(TINY);
    args.extend([
        "--warp",
        "4,8",
        "--slab-height",
        "2,4",
        "--smem-layout",
        "plain,xor",
        "--jobs",
        "2",
        "--out",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let out = simsort(&args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("swept 8 configurations (8 ran, 0 skipped, 0 failed)"),
        "{err}"
    );
    let summary = text(&out.stdout);
    assert_eq!(summary.lines().count(), 1 + 8, "{summary}");
    assert!(summary.starts_with("layout warp slab"), "{summary}");

    let table = std::fs::read_to_string(&csv).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for col in [
        "warp",
        "slab_height",
        "smem_layout",
        "keys",
        "num_sms",
        "sorted",
        "name",
        "launches",
        "grid",
        "block",
        "cycles",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "stalls.barrier",
    ] {
        assert!(header.contains(&col), "column {col} missing: {header:?}");
    }
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let name = header.iter().position(|c| *c == "name").unwrap();
    assert_eq!(rows.iter().filter(|r| r[name] == "total").count(), 8);
    assert!(rows.iter().all(|r| r.len() == header.len()));

    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["axes"]["warp"], serde_json::json!(["4", "8"]));
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 8);
    assert_eq!(runs[0]["config"]["smem_layout"], "plain");
    assert_eq!(runs[7]["config"]["warp"], 8);
    assert!(
        runs.iter()
            .all(|r| r["sorted"] == true && r["total"]["cycles"].is_u64())
    );
    assert_eq!(json["skipped"], serde_json::json!([]));

    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg"), "not an SVG");
    assert!(picture.contains("slab height (keys per lane)"));
}

#[test]
fn sweep_json_on_stdout_equals_the_file_and_does_not_depend_on_jobs() {
    let dir = scratch("jobs");
    let run = |jobs: &str, out: &str| {
        let mut args = vec!["sweep", "--json", "-q", "--jobs", jobs, "--out", out];
        args.extend(TINY);
        args.extend([
            "--warp",
            "4,8",
            "--slab-height",
            "2,4",
            "--dist",
            "uniform,zipf",
        ]);
        let o = simsort(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
        o.stdout
    };
    let one = dir.join("one");
    let two = dir.join("two.json");
    let serial = run("1", one.to_str().unwrap());
    let parallel = run("2", two.to_str().unwrap());
    assert_eq!(serial, parallel);
    assert_eq!(std::fs::read(dir.join("one.json")).unwrap(), serial);
    assert_eq!(
        std::fs::read(dir.join("one.csv")).unwrap(),
        std::fs::read(dir.join("two.csv")).unwrap()
    );
}

#[test]
fn configurations_that_do_not_fit_are_skipped_and_named() {
    let dir = scratch("skip");
    let out_path = dir.join("r.csv");
    let mut args = vec!["sweep", "-q", "--out", out_path.to_str().unwrap()];
    args.extend(TINY);
    args.extend([
        "--warp",
        "4,8",
        "--slab-height",
        "2,8",
        "--block-slabs",
        "8",
        "--smem-layout",
        "plain,pad",
    ]);
    let out = simsort(&args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            "skipped smem_layout=pad warp=8 slab_height=8: a block of 8 slabs needs 2304 bytes \
          of shared memory with the pad layout, more than the 2048 allowed"
        ]
    );
    assert!(text(&out.stdout).contains("skipped: does not fit the machine"));
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(json["runs"].as_array().unwrap().len(), 7);
    let skipped = json["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["options"]["warp"], 8);
    assert!(
        skipped[0]["problems"][0]
            .as_str()
            .unwrap()
            .contains("2304 bytes")
    );
}

#[test]
fn bad_sweeps_list_every_problem_exit_2_and_write_nothing() {
    let dir = scratch("bad");
    let csv = dir.join("r.csv");
    assert_input_error(
        &[
            "sweep",
            "--gpu",
            "tiny",
            "--keys",
            "100",
            "--warp",
            "3,8",
            "--slab-height",
            "2,500",
            "--plot",
            "x.pdf",
            "--out",
            "/nonexistent/dir/r.csv",
        ],
        &[
            "error: --plot x.pdf: the file name must end in .svg or .png",
            "error: /nonexistent/dir/r.csv: the directory /nonexistent/dir does not exist",
            "error: no valid configuration (--warp 3)",
            "error: no valid configuration (--slab-height 500)",
        ],
    );
    assert_input_error(
        &[
            "sweep",
            "--gpu",
            "tiny",
            "--out",
            csv.to_str().unwrap(),
            "--sms",
            "2,0",
        ],
        &[
            "error: no valid configuration (--num-sms 0)",
            "(--num-sms 0): 0 is outside",
        ],
    );
    assert_input_error(&["sweep", "--warp", "8,x"], &["invalid value 'x'"]);
    assert_input_error(
        &["sweep", "--smem-layout", "plain,diag"],
        &["invalid value 'diag'"],
    );
    assert_input_error(&["sweep", "--out", "r.txt"], &["neither .csv nor .json"]);
    assert_input_error(&["sweep", "--jobs", "0"], &["--jobs 0"]);
    assert!(
        !csv.exists(),
        "nothing is written when the sweep is rejected"
    );
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, marker) in [
        ("bash", "_simsort()"),
        ("zsh", "#compdef simsort"),
        ("fish", "complete -c simsort"),
    ] {
        let out = simsort(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.contains(marker), "{shell}");
        for word in ["sweep", "slab-height", "smem-layout"] {
            assert!(script.contains(word), "{shell}: {word}");
        }
    }
    assert_input_error(&["completions", "tcsh"], &["invalid value 'tcsh'"]);
}

#[test]
fn a_failed_sweep_leaves_the_old_results_exactly_as_they_were() {
    let dir = scratch("keep-old");
    let files = ["res.csv", "res.json", "res.svg"];
    for f in files {
        std::fs::write(dir.join(f), format!("good {f}")).unwrap();
    }
    let csv = dir.join("res.csv");
    let svg = dir.join("res.svg");
    let out = simsort(&[
        "sweep",
        "--gpu",
        "tiny",
        "--keys",
        "300",
        "--warp",
        "8",
        "--slab-height",
        "4",
        "--dram-latency-cycles",
        "4294967295",
        "--out",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("old files are kept"), "{err}");
    for f in files {
        assert_eq!(
            text(&std::fs::read(dir.join(f)).unwrap()),
            format!("good {f}")
        );
    }
    let mut left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(
        left,
        files.map(std::ffi::OsString::from),
        "no temporary file is left"
    );
}

#[test]
fn outputs_that_are_not_regular_files_are_refused_before_anything_runs() {
    assert_input_error(
        &[
            "sweep",
            "--gpu",
            "tiny",
            "--keys",
            "300",
            "--warp",
            "8",
            "--slab-height",
            "4",
            "--out",
            "/dev/full",
        ],
        &["--out /dev/full: not a regular file"],
    );
    let dir = scratch("not-regular");
    let plot = dir.join("sub.svg");
    std::fs::create_dir(&plot).unwrap();
    assert_input_error(
        &[
            "sweep",
            "--gpu",
            "tiny",
            "--keys",
            "300",
            "--warp",
            "8",
            "--slab-height",
            "4",
            "--plot",
            plot.to_str().unwrap(),
        ],
        &["sub.svg: it is a directory"],
    );
}

#[test]
fn json_counts_are_integers_and_ratios_floats() {
    let out = tiny_sort(&["--json", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let metrics = report["total"]["metrics"].as_object().unwrap();
    for (name, v) in metrics {
        if name.ends_with(".sum") || name.ends_with(".max") {
            assert!(v.is_u64(), "{name} is a count: {v}");
        } else {
            assert!(v.is_f64(), "{name} is a ratio: {v}");
        }
    }
    let text = text(&out.stdout);
    assert!(text.contains("\"smsp__inst_executed.sum\": "), "{text}");
    let at = text.find("\"smsp__inst_executed.sum\": ").unwrap();
    let value: String = text[at..]
        .chars()
        .skip(27)
        .take_while(|c| *c != ',')
        .collect();
    assert!(!value.contains('.'), "printed as an integer: {value}");
}

#[test]
fn the_sort_says_what_it_ran_above_the_tables() {
    let out = tiny_sort(&["-q", "--seed", "7", "--dist", "sorted"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let mut lines = table.lines();
    assert_eq!(
        lines.next(),
        Some("hotsort on tiny: W=8 H=4 block slabs 8 (auto), layout pad, merge shuffle")
    );
    assert_eq!(lines.next(), Some("700 keys (32-bit, sorted, seed 7)"));
    for explained in [
        "notsel = not_selected",
        "bar    = barrier",
        "wait   = wait",
        "gld s/r, gst s/r = global load",
        "  bs           block sort",
        "  transpose    turns slab order into linear order",
    ] {
        assert!(
            table.contains(explained),
            "the tables explain {explained:?}:\n{table}"
        );
    }
}

#[test]
fn the_report_names_records_for_terasort_and_one_key_in_the_singular() {
    let out = simsort(&["--gpu", "tiny", "-q", "--keys", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(
        table.lines().nth(1).unwrap().starts_with("1 key ("),
        "{table}"
    );
    let out = simsort(&["--gpu", "tiny", "-q", "--algo", "terasort", "--keys", "64"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert_eq!(
        table.lines().nth(1),
        Some("64 records (10-byte keys in 100-byte records, uniform, seed 1)"),
        "{table}"
    );
    let out = simsort(&[
        "--gpu",
        "tiny",
        "-q",
        "--algo",
        "samplesort",
        "--keys",
        "700",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(
        table.contains("buckets per level (k)") && table.contains("threads per block (t)"),
        "sample sort's parameters are named:\n{table}"
    );
    for line in table.lines() {
        assert!(line.chars().count() <= 80, "{line}");
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_long_sort_cleanly_and_says_so() {
    // On a terminal, where the sort shows its bar.
    let Some(mut term) = Terminal::spawn(simsort_bin(), &["--keys", "4194304"]) else {
        return;
    };
    // Ready once the bar is drawn: the handler is set before any work
    // starts, and a stop requested before the first launch ends that
    // launch at its first cycle window, so the message is the same.
    term.wait_until("the progress bar", |s| s.contains("sorting ["));
    term.ctrl_c();
    let (status, screen) = term.finish();
    assert_eq!(status, Some(130), "{screen}");
    assert!(
        screen.contains("error: interrupted (Ctrl-C): kernel `bs` stopped at cycle"),
        "{screen}"
    );
    assert!(screen.contains("no report was written"), "{screen}");
    assert!(!screen.contains("panicked"), "{screen}");
    // Stopped, not finished: no report (its first line names the sort).
    assert!(!screen.contains("hotsort on h200"), "{screen}");
}

#[test]
fn key_widths_and_values_are_sweep_axes() {
    let dir = scratch("widths");
    let out = dir.join("w.csv");
    let mut args = vec!["sweep", "--json", "-q", "--out", out.to_str().unwrap()];
    args.extend(TINY);
    args.extend(["--warp", "8", "--slab-height", "4"]);
    args.extend(["--key-bits", "32,64", "--values", "false,true"]);
    let o = simsort(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = json.to_string();
    // All four ran: HotSort carries a value beside a 64-bit key too.
    assert!(!text.contains("--values with --key-bits 64"), "{text}");
    let csv = std::fs::read_to_string(&out).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.contains("key_bits") && header.contains("values"),
        "{header}"
    );
    let totals = csv.lines().filter(|l| l.contains(",total,")).count();
    assert_eq!(totals, 4, "{csv}");
}

#[test]
fn the_tiny_preset_runs_with_default_options_and_the_readme_grid() {
    // The slab height adapts to the preset when not given (16 does not fit
    // tiny's 2 KiB of shared memory at W=32 or W=64), and every block,
    // the streaming `fm`/`hm` ones included, keeps to its 64 threads.
    for (warp, height) in [(None, 8), (Some("8"), 16), (Some("64"), 4)] {
        let mut args = vec!["--gpu", "tiny", "--keys", "3000", "--json", "-q"];
        if let Some(w) = warp {
            args.extend(["--warp", w]);
        }
        let out = simsort(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
        assert_eq!(report["config"]["slab_height"], height, "{args:?}");
        let kernels = report["kernels"].as_array().expect("kernels");
        let names: Vec<&str> = kernels.iter().filter_map(|k| k["name"].as_str()).collect();
        assert!(
            names.contains(&"fm") && names.contains(&"hm"),
            "{args:?}: {names:?}"
        );
        for k in kernels {
            let threads: u64 = k["block"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .product();
            assert!(
                threads <= 64,
                "{args:?}: {} has {threads} threads",
                k["name"]
            );
        }
    }
    // An explicit height is kept, and refused when it does not fit.
    assert_input_error(
        &["--gpu", "tiny", "--keys", "100", "--slab-height", "16"],
        &["2304 bytes", "2048 allowed"],
    );
    // The README's grid on tiny: what fits runs, the rest is skipped, none fails.
    let dir = scratch("tiny-grid");
    let csv = dir.join("res.csv");
    let out = simsort(&[
        "sweep",
        "--gpu",
        "tiny",
        "--warp",
        "8,16,32,64",
        "--slab-height",
        "4,8,16,32",
        "--smem-layout",
        "plain,pad,xor",
        "--keys",
        "1024",
        "--out",
        csv.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("swept 48 configurations") && err.contains(" 0 failed"),
        "{err}"
    );
}
