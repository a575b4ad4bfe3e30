//! `simsort run`: kernels that fault on the simulated GPU stop with one
//! message naming kernel, block, warp, instruction and cycle, and exit 1;
//! bad input exits 2; a good kernel prints its report.

use std::process::{Command, Output};

use crate::terminal::Terminal;
use crate::util::{simsort_bin, tests_dir, tool_available};

fn run(file: &str, args: &[&str]) -> Output {
    let path = tests_dir().join("kernels/faulty").join(file);
    Command::new(simsort_bin())
        .arg("run")
        .arg(path)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

fn assert_fault(file: &str, args: &[&str], needles: &[&str]) {
    let out = run(file, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{file}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one message: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{file}: `{needle}` not in {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn out_of_bounds_global_store_names_where_it_faulted() {
    let args = ["--grid", "1", "--block", "32", "--buffer", "out=128"];
    let needles = [
        "`oob_store`",
        "out of bounds",
        "block 0",
        "warp 0",
        "pc 4",
        "st.global.b32",
        "cycle",
    ];
    assert_fault("oob_store.kir", &args, &needles);
}

#[test]
fn out_of_bounds_shared_atomic_faults_like_a_load() {
    let needles = [
        "`oob_atomic`",
        "shared",
        "out of bounds",
        "warp 1",
        "lane 0",
        "atom.shared.add.u32",
        "cycle",
    ];
    assert_fault(
        "oob_atomic.kir",
        &["--grid", "1", "--block", "64"],
        &needles,
    );
}

#[test]
fn out_of_bounds_shared_load_faults() {
    let needles = [
        "`oob_shared`",
        "shared",
        "out of bounds",
        "warp 0",
        "ld.shared.b32",
        "cycle",
    ];
    assert_fault(
        "oob_shared.kir",
        &["--grid", "1", "--block", "32"],
        &needles,
    );
}

#[test]
fn misaligned_load_faults() {
    let args = ["--grid", "1", "--block", "32", "--buffer", "buf=128"];
    assert_fault(
        "misaligned.kir",
        &args,
        &["`misaligned`", "misaligned", "pc 1", "cycle"],
    );
}

#[test]
fn a_kernel_that_never_ends_stops_at_the_cycle_limit() {
    let args = ["--grid", "1", "--block", "32", "--max-cycles", "5000"];
    assert_fault(
        "spin.kir",
        &args,
        &["`spin`", "cycle limit of 5000", "block 0 warp 0"],
    );
}

#[test]
fn bad_input_exits_2_with_one_message() {
    for (file, args, needle) in [
        (
            "oob_store.kir",
            vec!["--grid", "1", "--block", "32"],
            "parameter `out`",
        ),
        (
            "oob_store.kir",
            vec!["--grid", "0", "--block", "32", "--buffer", "out=128"],
            "grid",
        ),
        (
            "spin.kir",
            vec!["--grid", "1", "--block", "32", "--gpu", "h300"],
            "h300",
        ),
        (
            "no_such.kir",
            vec!["--grid", "1", "--block", "32"],
            "no_such.kir",
        ),
    ] {
        let out = run(file, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file} {args:?}: {err}");
        assert!(
            err.contains(needle) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_good_kernel_prints_its_report_as_json() {
    let path = tests_dir().join("kernels/faulty/oob_store.kir");
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("[d1+128]", "[d1+0]");
    let mut child = Command::new(simsort_bin())
        .args([
            "run", "-", "--grid", "1", "--block", "32", "--buffer", "out=128", "--json",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(json["name"], "oob_store");
    assert_eq!(
        json["metrics"]["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"],
        1.0
    );
    assert_eq!(
        json["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"],
        4.0
    );
}

fn simsort(args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

fn vcopy(src: &str, extra: &[&str]) -> Output {
    let kernel = tests_dir().join("kernels/vcopy.kir");
    let src = format!("src={src}");
    let mut args = vec![
        "run",
        kernel.to_str().unwrap(),
        "--grid",
        "1",
        "--block",
        "32",
        "--buffer",
        &src,
        "--buffer",
        "dst=4k",
        "--param",
        "n=32",
    ];
    args.extend(extra);
    simsort(&args)
}

#[test]
fn runs_too_large_for_the_host_are_refused_before_allocating() {
    for (args, flag) in [
        (vec!["--keys", "2147483648"], "--keys 2147483648"),
        (vec!["sweep", "--keys", "2147483648"], "--keys 2147483648"),
    ] {
        let mut args = args.clone();
        args.extend(["--max-host-memory", "1G"]);
        let out = simsort(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("error: not enough host memory ({flag}")),
            "{err}"
        );
        assert!(
            err.contains("128.0 GiB") && err.contains("--max-host-memory"),
            "{err}"
        );
    }
    for src in ["100000M", "iota:4294967295", "rand:4294967295:1", "20G"] {
        let out = vcopy(src, &["--max-host-memory", "1G"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{src}: {err}");
        assert!(err.contains(&format!("(--buffer src={src})")), "{err}");
        assert!(
            !err.contains("panicked") && !err.contains("memory allocation"),
            "{err}"
        );
    }
}

/// Runs `cmd` to its end: its exit code, stderr, and its peak resident
/// memory in KiB (Linux `wait4`, which reports it for exactly this child).
// The child is reaped by `wait4`, which `Child::wait` cannot replace.
#[allow(clippy::zombie_processes)]
fn run_measuring_memory(cmd: &mut Command) -> (Option<i32>, String, u64) {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run simsort");
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain old data, valid when zeroed; `wait4` writes
    // `status` and `usage`, both live and exclusively borrowed for the call.
    // `child` is not waited for by anyone else (`Child` never reaps on drop).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, err, u64::try_from(usage.ru_maxrss).unwrap_or(0))
}

#[test]
fn a_large_zero_buffer_costs_only_the_pages_a_kernel_touches() {
    let kernel = tests_dir().join("kernels/vcopy.kir");
    let run = |src: &str| {
        let mut cmd = Command::new(simsort_bin());
        cmd.args([
            "run",
            kernel.to_str().unwrap(),
            "--grid",
            "1",
            "--block",
            "32",
        ])
        .args(["--buffer", &format!("src={src}"), "--buffer", "dst=4k"])
        .args(["--param", "n=32", "--max-host-memory", "1T", "--json"]);
        run_measuring_memory(&mut cmd)
    };
    let (code, err, small) = run("4k");
    assert_eq!(code, Some(0), "{err}");
    let (code, err, large) = run("4G");
    assert_eq!(code, Some(0), "{err}");
    // Counted in memory, not time: the 4 GiB buffer, of which the kernel
    // reads 128 bytes, costs pages, not gigabytes (zeroing it costs 4 GiB).
    assert!(
        large < small + 64 * 1024,
        "a 4 GiB buffer of which 128 bytes are read peaked at {large} KiB resident \
         ({small} KiB with a 4 KiB buffer)"
    );
    // More than the host can give is a clean error, never an abort.
    let out = vcopy("16777215G", &["--max-host-memory", "16777215T"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("(--buffer src)") && err.contains("out of memory"),
        "{err}"
    );
}

#[test]
fn sweep_jobs_are_clamped() {
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
        "-j",
        "100000",
        "-q",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_bad_machine_flag_is_one_error_line_naming_it() {
    for (flag, needle) in [
        (
            "--max-warps-per-sm=1",
            "(--max-warps-per-sm 1): 1 is fewer than num_subpartitions",
        ),
        ("--sector-bytes=1", "(--sector-bytes 1): 1 is outside"),
        ("--warp=1000", "(--warp 1000): 1000 is outside 1..=64"),
    ] {
        let out = vcopy("1k", &[flag]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.starts_with("error: invalid machine (--"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one problem: {err}");
        assert!(err.contains(needle), "{flag}: {err}");
    }
}

#[test]
fn the_readme_vcopy_launch_copies_every_word() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_run-vcopy");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dst = dir.join("dst.bin");
    let out_flag = format!("dst={}", dst.display());
    let kernel = tests_dir().join("kernels/vcopy.kir");
    let out = simsort(&[
        "run",
        kernel.to_str().unwrap(),
        "--grid",
        "8",
        "--block",
        "256",
        "--buffer",
        "src=iota:2048",
        "--buffer",
        "dst=8k",
        "--param",
        "n=2048",
        "--out",
        &out_flag,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&dst).unwrap();
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    assert_eq!(words, (0..2048).collect::<Vec<u32>>());
}

#[test]
fn a_probe_stride_out_of_range_names_the_range() {
    let out = simsort(&["kernels", "--print", "smem_stride_129"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("outside 1..=128") && !err.contains("did you mean"),
        "{err}"
    );
}

#[test]
fn machine_flag_help_gives_range_and_preset_values() {
    let out = simsort(&["run", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "1..=65536 [h200: 132, h100: 132, tiny: 2]",
        "(`lrr` or `gto`) [h200: gto, h100: gto, tiny: gto]",
        "Machine preset: h200",
        "or a machine file",
    ] {
        assert!(help.contains(needle), "`{needle}` not in:\n{help}");
    }
}

/// `simsort run` of vcopy over a grid that takes minutes to simulate.
fn endless_vcopy() -> Command {
    let kernel = tests_dir().join("kernels/vcopy.kir");
    let mut cmd = Command::new(simsort_bin());
    cmd.args([
        "run",
        kernel.to_str().unwrap(),
        "--grid",
        "4294967295",
        "--block",
        "256",
    ])
    .args([
        "--buffer", "src=4k", "--buffer", "dst=4k", "--param", "n=1024",
    ])
    .env("NO_COLOR", "1")
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped());
    cmd
}

/// The blocks started on the last frame of the launch bar in `screen`.
fn blocks_started(screen: &str) -> Option<u64> {
    let at = screen.rfind("/4294967295 blocks started")?;
    let digits = screen[..at]
        .bytes()
        .rev()
        .take_while(u8::is_ascii_digit)
        .count();
    screen[at - digits..at].parse().ok()
}

#[test]
fn ctrl_c_stops_a_long_run_with_how_far_it_got() {
    // On a terminal, where the launch bar counts the blocks started. The
    // cycle limit only bounds the run should the stop be ignored.
    let kernel = tests_dir().join("kernels/vcopy.kir");
    let args = [
        "run",
        kernel.to_str().unwrap(),
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
        "--json",
        "--max-cycles",
        "2000000000",
    ];
    let Some(mut term) = Terminal::spawn(simsort_bin(), &args) else {
        return;
    };
    // Ready once the bar shows a block started: the handler is set and the
    // launch is under way.
    term.wait_until("a block started", |s| {
        blocks_started(s).is_some_and(|n| n > 0)
    });
    term.ctrl_c();
    let (status, screen) = term.finish();
    assert_eq!(status, Some(130), "{screen}");
    let at = screen
        .find("error: interrupted (Ctrl-C): kernel `vcopy` stopped at cycle ")
        .unwrap_or_else(|| panic!("no interruption message in:\n{screen}"));
    let err = &screen[at..];
    assert!(err.contains("blocks started"), "{err}");
    // The simulator published how far the launch got: some blocks ran.
    let started: u64 = err
        .split(" with ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no block count in {err}"));
    assert!(started > 0, "{err}");
    assert!(err.contains(" of 4294967295 blocks started"), "{err}");
    assert!(
        !screen.contains("\"metrics\""),
        "no report of a stopped run:\n{screen}"
    );
}

#[test]
fn the_cycle_limit_stops_a_huge_grid_and_names_the_flag() {
    let out = endless_vcopy()
        .args(["--max-cycles", "5000"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("ran past its cycle limit of 5000"), "{err}");
    assert!(err.contains("(--max-cycles bounds"), "{err}");
}

#[test]
fn run_shows_a_progress_bar_on_a_terminal_only() {
    // On a pipe: no bar.
    let out = endless_vcopy()
        .args(["--max-cycles", "5000"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("blocks started"));
    // On a terminal (`script` gives the command one): the bar, with the
    // blocks started and the simulated cycle, then the cycle-limit error.
    if !tool_available("script", &["--version"], "bsdutils (util-linux)") {
        return;
    }
    let kernel = tests_dir().join("kernels/vcopy.kir");
    let line = format!(
        "{} run {} --grid 4294967295 --block 256 --buffer src=4k --buffer dst=4k \
         --param n=1024 --max-cycles 12000",
        simsort_bin().display(),
        kernel.display()
    );
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("blocks started"), "{text}");
    assert!(text.contains("(limit 12000)"), "{text}");
    assert!(text.contains("ran past its cycle limit of 12000"), "{text}");
}
