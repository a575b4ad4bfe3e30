//! Helpers shared by the integration tests: test-file discovery, the
//! `simsort` binary, and a proptest strategy for random kernels.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kernels_ir::{
    Address, Guard, Inst, InstData, Kernel, Label, LabelData, Opcode, Operand, Param, ParamData,
    ParamType, Reg, RegClass, RegCounts, RegList, Special,
};
use proptest::prelude::*;

/// The text of a gzipped file committed under `hw/data/`.
pub fn gunzip(gz: &[u8]) -> String {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .expect("the recording decompresses");
    text
}

/// The median of `xs` (the upper of the two middle values when their
/// number is even), as the recordings' tests quote their medians.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The rows of a gzipped CSV recording of `hw/data/` (its first line not
/// starting with `#` the header), each as its fields of the columns
/// `names`, in that order. Panics naming a column the header lacks.
pub fn gz_csv(gz: &[u8], names: &[&str]) -> Vec<Vec<String>> {
    let text = gunzip(gz);
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let cols: Vec<usize> = names
        .iter()
        .map(|n| header.iter().position(|h| h == n).expect(n))
        .collect();
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            cols.iter().map(|&c| f[c].to_string()).collect()
        })
        .collect()
}

/// The launches of a gzipped Nsight Compute recording (`--csv --page
/// raw`, any metrics), in launch order, each as its numeric metrics by
/// name ([`simsort::calib::ncu::parse_launches`]).
pub fn gz_ncu_rows(gz: &[u8]) -> Vec<std::collections::BTreeMap<String, f64>> {
    simsort::calib::ncu::parse_launches(&gunzip(gz))
        .expect("the ncu recording parses")
        .into_iter()
        .map(|l| l.metrics)
        .collect()
}

/// The launches of a probe's gzipped ncu recording, each with its line of
/// the probe's own list of launches (`names`, a CSV whose first line is
/// `header`), split at commas: the probe prints a line a launch, in launch
/// order. Panics unless the two agree in count.
pub fn named_ncu_rows(
    gz: &[u8],
    names: &str,
    header: &str,
) -> Vec<(Vec<String>, std::collections::BTreeMap<String, f64>)> {
    let rows = gz_ncu_rows(gz);
    let mut lines = names.lines();
    assert_eq!(lines.next(), Some(header));
    let names: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(
        names.len(),
        rows.len(),
        "a profiled launch a line of {header}"
    );
    names.into_iter().zip(rows).collect()
}

/// The instructions of a SASS listing (`cuobjdump -sass`), in order:
/// each one's opcode (guard dropped) and the `R` registers it names, the
/// written one first where it writes one.
pub fn sass_instructions(text: &str) -> Vec<(String, Vec<u32>)> {
    let mut out = Vec::new();
    for line in text.lines() {
        // `        /*0470*/   @!P0 SHFL.BFLY PT, R11, R10, 0x8, 0x1f ;   /* 0x... */`
        let Some(rest) = line.trim_start().strip_prefix("/*") else {
            continue;
        };
        let Some((addr, inst)) = rest.split_once("*/") else {
            continue;
        };
        if !addr.chars().all(|c| c.is_ascii_hexdigit()) {
            continue;
        }
        let inst = inst.split(';').next().unwrap_or("").trim();
        let mut words = inst.split_whitespace().peekable();
        if words.peek().is_some_and(|w| w.starts_with('@')) {
            words.next();
        }
        let Some(op) = words.next() else { continue };
        let regs = words
            .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()))
            .filter_map(|w| w.strip_prefix('R')?.parse().ok())
            .collect();
        out.push((op.to_string(), regs));
    }
    out
}

/// The registers a SASS listing uses: its highest `R` index plus one (0
/// for a listing without any), from [`sass_instructions`].
pub fn sass_registers(insts: &[(String, Vec<u32>)]) -> u32 {
    insts
        .iter()
        .flat_map(|(_, regs)| regs.iter().map(|r| r + 1))
        .max()
        .unwrap_or(0)
}

/// The `tests/` directory.
pub fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's root (the workspace above `tests/`).
pub fn repo_root() -> PathBuf {
    tests_dir().parent().expect("workspace root").to_path_buf()
}

/// Sends SIGINT (what Ctrl-C sends) to process `pid`.
pub fn interrupt(pid: u32) {
    let kill = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
}

/// Waits until process `pid` handles SIGINT (Linux: bit 2 of the
/// `SigCgt` mask in `/proc/PID/status`): a SIGINT sent from then on reaches
/// the handler instead of ending the process. The readiness of a child that
/// prints nothing before its work is done. Panics if the process ends first.
pub fn wait_for_sigint_handler(pid: u32) {
    const SIGINT_BIT: u64 = 1 << (2 - 1);
    let path = format!("/proc/{pid}/status");
    loop {
        let status = std::fs::read_to_string(&path).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::trim)
        };
        assert!(
            field("State:").is_some_and(|s| !s.starts_with('Z')),
            "process {pid} ended before it handled SIGINT"
        );
        let caught = field("SigCgt:").and_then(|m| u64::from_str_radix(m, 16).ok());
        if caught.is_some_and(|m| m & SIGINT_BIT != 0) {
            return;
        }
        // Polled, not a guess at how long start-up takes.
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Whether the test runs in CI (`CI` set to anything but empty, `0` or
/// `false`, as CI services set it).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// Whether the system tool `name` runs (`probe`: arguments that make it
/// print its version and exit). A test that needs it calls this first: in
/// CI a missing tool fails the test (`.ci/install-deps.sh` installs every
/// tool the tests need, so a skip there would hide a broken install);
/// elsewhere the test says why it skips and passes.
pub fn tool_available(name: &str, probe: &[&str], package: &str) -> bool {
    let runs = Command::new(name)
        .args(probe)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    if !runs {
        assert!(
            !in_ci(),
            "`{name}` is not installed, and CI must run this test: add {package} to \
             .ci/install-deps.sh"
        );
        eprintln!("skipped: `{name}` is not installed (package {package})");
    }
    runs
}

/// The `.kir` files directly in `tests/<sub>`, sorted; panics if there are none
/// (a test over an empty list would pass without testing anything).
pub fn kir_files(sub: &str) -> Vec<PathBuf> {
    let dir = tests_dir().join(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "kir"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .kir files in {}", dir.display());
    files
}

/// The file's contents.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The launches of the committed ncu recording at `path` (from the
/// repository's root), in ID order.
pub fn ncu_launches(path: &str) -> Vec<simsort::calib::ncu::NcuLaunch> {
    simsort::calib::ncu::parse(&read(&repo_root().join(path)))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The entry names of calibration suite `hw/calib/SUITE.txt` (each line's
/// first word; `#` lines are comments), in order.
pub fn suite_names(suite: &str) -> Vec<String> {
    suite_file_names(&format!("hw/calib/{suite}.txt"))
}

/// [`suite_names`] of the suite file at `path` (from the repository's
/// root), wherever it lives.
pub fn suite_file_names(path: &str) -> Vec<String> {
    read(&repo_root().join(path))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().expect("a name").to_string())
        .collect()
}

/// The H200's cycles (`sm__cycles_elapsed.max`) of calibration entry
/// `name`'s one launch, from its committed recording
/// `hw/data/calib/NAME.csv`.
pub fn calib_cycles(name: &str) -> f64 {
    let launches = ncu_launches(&format!("hw/data/calib/{name}.csv"));
    assert_eq!(launches.len(), 1, "{name}: one launch");
    launches[0].metrics["sm__cycles_elapsed.max"]
}

/// Runs the `simsort` binary with `args` (no colour) and waits for it.
pub fn simsort(args: &[&str]) -> std::process::Output {
    Command::new(simsort_bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

/// Output bytes as text (lossy).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Exit status 2, every `needles` in stderr, no panic, nothing on stdout.
pub fn assert_input_error(args: &[&str], needles: &[&str]) {
    let out = simsort(args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: `{needle}` not in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
}

/// A fresh, empty directory for one test's files, named `name`.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The `simsort` binary, built once per test run with the same cargo and
/// target directory as this test binary (so it is never stale).
pub fn simsort_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        // This binary is <target>/<profile>/deps/integration-<hash>.
        let exe = std::env::current_exe().expect("current exe");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>");
        let target_dir = profile_dir.parent().expect("target dir");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        // Naming this test target too makes cargo resolve features as it
        // did for this build (with the dev-dependencies' features: insta's
        // `tempfile` turns on a feature of `rustix`, under `miette`), so the
        // binary links the libraries already built for the tests. Alone,
        // `-p simsort --bin simsort` rebuilt the workspace a second time
        // inside the test run: about 2 minutes of CI on 2 cores.
        build
            .args(["build", "--quiet", "-p", "simsort", "--bin", "simsort"])
            .args(["-p", "tests", "--test", "integration"])
            .env("CARGO_TARGET_DIR", target_dir)
            .current_dir(tests_dir());
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("run cargo build");
        assert!(status.success(), "cargo build -p simsort failed");
        let bin = profile_dir.join(format!("simsort{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.exists(), "{} was not built", bin.display());
        bin
    })
}

fn reg() -> impl Strategy<Value = Reg> {
    (0u32..3, 0u32..12)
        .prop_map(|(class, index)| Reg::with_number(RegClass::ALL[class as usize], index))
}

fn operand(params: usize) -> BoxedStrategy<Operand> {
    let mut arms = vec![
        reg().prop_map(Operand::Reg).boxed(),
        any::<i64>().prop_map(Operand::Imm).boxed(),
        (-70i64..70).prop_map(Operand::Imm).boxed(),
        proptest::sample::select(Special::ALL.to_vec())
            .prop_map(Operand::Special)
            .boxed(),
    ];
    if params > 0 {
        arms.push(
            (0..params)
                .prop_map(|i| Operand::Param(Param::with_number(i as u16)))
                .boxed(),
        );
    }
    proptest::strategy::Union::new(arms).boxed()
}

fn address() -> impl Strategy<Value = Address> {
    (
        proptest::option::of(reg()),
        prop_oneof![any::<i32>(), -64i32..64],
    )
        .prop_map(|(base, offset)| Address { base, offset })
}

fn reg_list() -> impl Strategy<Value = RegList> {
    proptest::collection::vec(reg(), 1..=4).prop_map(|regs| RegList::new(&regs))
}

fn inst(params: usize, labels: usize) -> impl Strategy<Value = Inst> {
    let guard = proptest::option::of((reg(), any::<bool>()))
        .prop_map(|g| g.map(|(pred, negated)| Guard { pred, negated }));
    let ops = (operand(params), operand(params));
    let parts = (
        reg(),
        reg(),
        ops,
        reg_list(),
        address(),
        prop_oneof![any::<u32>(), 0u32..70],
    );
    (0..Opcode::ALL.len(), guard, parts, 0..labels.max(1)).prop_map(
        move |(op, guard, (r1, r2, (a, b), list, addr, width), label)| {
            let opcode = Opcode::ALL[op];
            let data = match opcode.format() {
                kernels_ir::Format::Unary => InstData::Unary {
                    opcode,
                    dst: r1,
                    src: a,
                },
                kernels_ir::Format::Binary => InstData::Binary {
                    opcode,
                    dst: r1,
                    args: [a, b],
                },
                kernels_ir::Format::Select => InstData::Select {
                    opcode,
                    dst: r1,
                    args: [a, b],
                    pred: r2,
                },
                kernels_ir::Format::Cmpx => InstData::Cmpx {
                    opcode,
                    regs: [r1, r2],
                },
                kernels_ir::Format::Load => InstData::Load {
                    opcode,
                    dsts: list,
                    addr,
                },
                kernels_ir::Format::Store => InstData::Store {
                    opcode,
                    addr,
                    srcs: list,
                },
                kernels_ir::Format::Atomic => InstData::Atomic {
                    opcode,
                    dst: r1,
                    addr,
                    src: a,
                },
                kernels_ir::Format::Shfl => InstData::Shfl {
                    opcode,
                    dst: r1,
                    src: r2,
                    lane: a,
                    width,
                },
                kernels_ir::Format::Branch if labels > 0 => InstData::Branch {
                    opcode,
                    target: Label::with_number(label as u32),
                },
                kernels_ir::Format::Branch => InstData::Nullary {
                    opcode: Opcode::Exit,
                },
                kernels_ir::Format::Nullary => InstData::Nullary { opcode },
            };
            Inst { guard, data }
        },
    )
}

fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_]{0,8}"
}

/// Random kernels in canonical label order: every opcode and operand kind,
/// guards, labels (several at one position, at the end, unreferenced). Most
/// do not verify; they are for the printer and parser.
pub fn kernel() -> impl Strategy<Value = Kernel> {
    let header = (
        name(),
        proptest::collection::vec((name(), any::<bool>()), 0..4),
        (0u32..300, 0u32..300, 0u32..10),
        prop_oneof![any::<u32>(), 0u32..1024],
        proptest::collection::vec(name(), 0..5),
    );
    header
        .prop_flat_map(|(name, params, (b32, b64, pred), shared, labels)| {
            // Parameter and label names must be unique to survive a round trip.
            let params: Vec<ParamData> = params
                .into_iter()
                .enumerate()
                .map(|(i, (n, wide))| ParamData {
                    name: format!("{n}_{i}"),
                    ty: if wide { ParamType::U64 } else { ParamType::U32 },
                })
                .collect();
            let labels: Vec<String> = labels
                .into_iter()
                .enumerate()
                .map(|(i, n)| format!("{n}_{i}"))
                .collect();
            let insts = proptest::collection::vec(inst(params.len(), labels.len()), 0..40);
            let positions = proptest::collection::vec(any::<u32>(), labels.len());
            (
                Just((name, params, RegCounts { b32, b64, pred }, shared, labels)),
                insts,
                positions,
            )
        })
        .prop_map(
            |((name, params, regs, shared_bytes, labels), insts, positions)| {
                let n = insts.len() as u32 + 1;
                let labels = labels
                    .into_iter()
                    .zip(positions)
                    .map(|(name, pos)| LabelData { name, pos: pos % n })
                    .collect();
                let mut kernel = Kernel {
                    name,
                    params,
                    regs,
                    shared_bytes,
                    insts,
                    labels,
                };
                kernel.sort_labels();
                kernel
            },
        )
}

/// Starts `simsort args` in `dir` with progress lines
/// (`SIMSORT_PROGRESS=lines`), stdout and stderr piped, and waits for the
/// first stderr line `ready` accepts: the command is where a signal test
/// needs it, with no clock involved. Returns the child and a reader of the
/// rest of its stderr; the caller waits for it ([`finish`]).
#[allow(clippy::zombie_processes)]
pub fn started_until(
    dir: &Path,
    args: &[&str],
    ready: impl Fn(&str) -> bool,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    use std::io::BufRead;
    let mut child = Command::new(simsort_bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("SIMSORT_PROGRESS", "lines")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run simsort");
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        if err.read_line(&mut line).unwrap() == 0 {
            let status = child.wait().unwrap();
            panic!("simsort ended ({status}) before it was ready");
        }
        if ready(&line) {
            return (child, err);
        }
    }
}

/// Waits for `child` ([`started_until`]): its status code and the rest of
/// its stderr.
pub fn finish(
    mut child: std::process::Child,
    mut err: std::io::BufReader<std::process::ChildStderr>,
) -> (Option<i32>, String) {
    use std::io::Read;
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    let mut out = Vec::new();
    if let Some(mut o) = child.stdout.take() {
        o.read_to_end(&mut out).unwrap();
    }
    let status = child.wait().unwrap();
    (status.code(), rest)
}
