//! `simsort check` and `simsort kernels` as a user runs them: the built
//! binary, its output streams and exit status.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::util::{kir_files, read, simsort_bin, tests_dir};

fn simsort(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(simsort_bin())
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run simsort");
    let mut pipe = child.stdin.take().expect("stdin");
    pipe.write_all(stdin.unwrap_or("").as_bytes())
        .expect("write stdin");
    drop(pipe);
    child.wait_with_output().expect("simsort output")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_prints_canonical_text_of_valid_files() {
    for path in kir_files("kernels") {
        let out = simsort(&["check", path.to_str().unwrap()], None);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), read(&path));
        assert!(out.stderr.is_empty());
    }
}

#[test]
fn check_reads_stdin_and_canonicalises() {
    let src = "kernel k { ; comment\nregs r1\n  mov r0, 0x10\n}";
    let out = simsort(&["check", "-"], Some(src));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "kernel k {\n    regs r1 d0 p0\n    shared 0\n    mov r0, 16\n}\n"
    );
}

#[test]
fn check_reports_every_error_with_a_snippet_and_exits_2() {
    let path = tests_dir().join("kernels/invalid/types.kir");
    let out = simsort(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains("types.kir:6:5"), "{err}");
    assert!(err.contains("add r0, d0, 1"), "{err}");
    assert!(
        err.contains("`add` operand must be 32-bit, found d0"),
        "{err}"
    );
    assert!(err.contains("19 errors"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn check_on_malformed_input_exits_2_without_panicking() {
    for input in [
        "",
        "kernel",
        "\u{0}\u{1}garbage {{{",
        "kernel k {\n    mov r0,\n",
    ] {
        let out = simsort(&["check", "-"], Some(input));
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        let err = text(&out.stderr);
        assert!(err.contains("<stdin>:"), "{input:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn check_of_a_missing_or_binary_file_is_one_line_and_exits_2() {
    let out = simsort(&["check", "/nonexistent/x.kir"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: cannot read /nonexistent/x.kir"),
        "{err}"
    );
    let out = simsort(&["check", "-"], None);
    assert_eq!(out.status.code(), Some(2), "empty stdin is not a kernel");
}

#[test]
fn kernels_lists_the_words_the_machine_allocates() {
    // GPUTeraSort's `step` (four 16-byte loads a partner) keeps 68 words
    // live and declares 74; the H200 allocates 84, as ptxas does, and the
    // tiny test machine its declared words.
    let line = |gpu: &str| {
        let out = simsort(&["kernels", "--algo", "terasort", "--gpu", gpu], None);
        assert_eq!(out.status.code(), Some(0));
        let list = text(&out.stdout);
        let step = list
            .lines()
            .find(|l| l.starts_with("step "))
            .map(str::to_string);
        step.unwrap_or_else(|| panic!("no step line:\n{list}"))
    };
    assert!(
        line("h200").contains("( 68 live,  84 allocated)"),
        "{}",
        line("h200")
    );
    // tiny's step (a narrower vector) declares 26 words and keeps 20 live.
    assert!(
        line("tiny").contains("26 register words per thread ( 20 live,  26 allocated)"),
        "{}",
        line("tiny")
    );
}

#[test]
fn kernels_lists_and_prints_the_catalogue() {
    let out = simsort(&["kernels"], None);
    assert_eq!(out.status.code(), Some(0));
    let list = text(&out.stdout);
    for name in [
        "vcopy",
        "reduce",
        "diverge",
        "smem_stride_33",
        "gmem_stride_2",
    ] {
        assert!(
            list.lines().any(|l| l.starts_with(&format!("{name} "))),
            "{name}:\n{list}"
        );
    }
    let out = simsort(&["kernels", "--print", "smem_stride_33"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        read(&tests_dir().join("kernels/smem_stride_33.kir"))
    );
    let out = simsort(&["kernels", "--print", "reduce", "--warp", "8"], None);
    assert!(
        text(&out.stdout).contains("shfl.down r1, r0, 4, 8"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn unknown_kernel_names_suggest_the_closest_and_exit_2() {
    let out = simsort(&["kernels", "--print", "redcue"], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: unknown kernel `redcue`; did you mean `reduce`?\n"
    );
    let out = simsort(&["kernels", "--warp", "3"], None);
    assert_eq!(out.status.code(), Some(2));
    let out = simsort(&["kernels", "--bogus"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let kernel = read(&tests_dir().join("kernels/vcopy.kir"));
    let out = simsort(&["check", "-"], Some(&format!("\u{feff}{kernel}")));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), kernel);
}

#[test]
fn a_negative_number_is_a_bad_value_not_an_unknown_flag() {
    for args in [
        &["--warp", "-1"][..],
        &["sweep", "--warp", "-1"],
        &["run", "x.kir", "--grid", "-1", "--block", "1"],
    ] {
        let out = simsort(args, None);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("invalid value '-1'"), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}

#[test]
fn diagnostics_cut_long_lines_and_escape_control_characters() {
    let long = format!(
        "kernel k {{\n    regs r1\n    shared 0\n    mov r0, {} bad\n    exit\n}}\n",
        "x".repeat(1_000_000)
    );
    let out = simsort(&["check", "-"], Some(&long));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", &err[..err.len().min(500)]);
    assert!(err.len() < 4000, "{} bytes on stderr", err.len());
    assert!(err.contains("<stdin>:4:13"), "{err}");
    let nul = "kernel k {\n    regs r1\n    shared 0\n    mov r0, \0\u{1b}[31m\n    exit\n}\n";
    let out = simsort(&["check", "-"], Some(nul));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains('\0') && !err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("\\0\\u{1b}[31m"), "{err}");
}

#[test]
fn wide_keys_and_key_value_pairs_sort_and_bad_widths_are_refused() {
    let kinds = [
        &["--key-bits", "64"][..],
        &["--values"][..],
        &["--key-bits", "64", "--values"][..],
    ];
    for extra in kinds {
        let mut args = vec!["--gpu", "tiny", "--warp", "8", "--slab-height", "4"];
        args.extend(["--keys", "3000", "--quiet", "--json"]);
        args.extend(extra);
        let out = simsort(&args, None);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{extra:?}: {}",
            text(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let values = report["config"]["values"].as_bool().unwrap_or(false);
        assert_eq!(values, extra.contains(&"--values"), "{report}");
    }
    let refused: [(&[&str], &str); 4] = [
        (
            &["--key-bits", "48"],
            "`48` is not a key width: use 32 or 64",
        ),
        (
            &["--key-bits", "64", "--values", "--algo", "mergesort"],
            "--values with --key-bits 64: mergesort carries a 32-bit value only with 32-bit keys",
        ),
        (
            &["--key-bits", "64", "--values", "--slab-height", "128"],
            "--slab-height 128: with 64-bit keys and 32-bit values the tallest slab that fits \
             the register limit of 255 words per thread is",
        ),
        (
            &["--key-bits", "64", "--slab-height", "128"],
            "--slab-height 128: with 64-bit keys the tallest slab that fits the register limit \
             of 255 words per thread is",
        ),
    ];
    for (args, want) in refused {
        let out = simsort(&[args, &["--keys", "100", "--quiet"]].concat(), None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(want),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}
