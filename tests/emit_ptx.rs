//! The PTX emitter on every kernel simsort has: the examples, the `.kir`
//! test files and the HotSort kernels for 32-lane warps. Every one must emit;
//! where `ptxas` is on the PATH (a CUDA install), it must also assemble for
//! `sm_90`. CI has no CUDA, so there the `ptxas` test says it skipped, and
//! the committed PTX of every algorithm's and example kernel
//! (`snapshots_ptx`) is what shows a change to the emitter.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use emit::{EmitError, PtxOptions, emit_ptx};
use kernels_ir::kernels::{self, REFERENCE_WARP_SIZE};
use kernels_ir::{Kernel, parse_kernel, verify_kernel};
use rayon::prelude::*;
use sorts::hotsort::{self, HotSortConfig, Layout, MergeExchange};

use crate::util::{kir_files, read, simsort_bin, tests_dir};

/// Slab heights of the HotSort kernels checked: powers of two and odd ones.
const SLAB_HEIGHTS: [u32; 6] = [1, 3, 4, 8, 16, 32];

/// Every kernel to emit, keyed by a name that says where it came from.
fn all_kernels() -> BTreeMap<String, Kernel> {
    let mut all = BTreeMap::new();
    for k in kernels::catalog(REFERENCE_WARP_SIZE) {
        all.insert(format!("example {}", k.name()), k.kernel);
    }
    for name in ["smem_stride_7", "gmem_stride_128"] {
        let k = kernels::find(name, REFERENCE_WARP_SIZE).expect("a strided kernel");
        all.insert(format!("example {name}"), k.kernel);
    }
    for path in kir_files("kernels") {
        // every_op's last shuffle is over 64 lanes, which PTX refuses
        // (`every_op_is_refused_...`); the rest of it is checked at 32.
        let text = read(&path).replace("shfl.down r4, r5, $n, 64", "shfl.down r4, r5, $n, 32");
        let (kernel, _) = parse_kernel(&text).expect("test kernel parses");
        all.insert(format!("file {}", path.display()), kernel);
    }
    for h in SLAB_HEIGHTS {
        for layout in Layout::ALL {
            for merge in MergeExchange::ALL {
                let cfg = HotSortConfig {
                    layout,
                    merge,
                    ..HotSortConfig::new(REFERENCE_WARP_SIZE, h)
                };
                hotsort::validate(&cfg).expect("a valid HotSort configuration");
                for k in hotsort::generate(&cfg) {
                    all.insert(format!("hotsort H={h} {layout} {merge} {}", k.name), k);
                }
            }
        }
    }
    all
}

/// Every kernel's PTX, with and without shared-memory zeroing, deduplicated.
fn all_ptx() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for (name, kernel) in all_kernels() {
        let kernel = verify_kernel(kernel).unwrap_or_else(|e| panic!("{name}: {e}"));
        for zero_shared in [true, false] {
            let opts = PtxOptions {
                zero_shared,
                ..PtxOptions::default()
            };
            let ptx = emit_ptx(&kernel, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            if seen.insert(ptx.clone()) {
                out.insert(format!("{name} zero_shared={zero_shared}"), ptx);
            }
        }
    }
    out
}

#[test]
fn every_generated_and_test_kernel_emits_ptx() {
    let all = all_ptx();
    assert!(all.len() > 100, "only {} distinct kernels", all.len());
    for (name, ptx) in &all {
        assert!(ptx.contains(".target sm_90"), "{name}");
        assert!(ptx.trim_end().ends_with("ret;\n}"), "{name}");
    }
}

#[test]
fn every_op_is_refused_for_its_64_lane_shuffle_naming_the_instruction() {
    let path = tests_dir().join("kernels/every_op.kir");
    let (kernel, _) = parse_kernel(&read(&path)).expect("parses");
    let kernel = verify_kernel(kernel).expect("verifies");
    let err = emit_ptx(&kernel, &PtxOptions::default()).unwrap_err();
    assert!(
        matches!(&err, EmitError::Inst { text, .. } if text == "shfl.down r4, r5, $n, 64"),
        "{err}"
    );
}

fn ptxas_available() -> bool {
    Command::new("ptxas")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn ptxas_accepts_every_emitted_kernel() {
    if !ptxas_available() {
        println!("skipped: ptxas is not on the PATH (no CUDA here)");
        return;
    }
    let dir = crate::util::scratch_dir("emit_ptx");
    let all: Vec<(String, String)> = all_ptx().into_iter().collect();
    let failures: Vec<String> = all
        .par_iter()
        .enumerate()
        .filter_map(|(i, (name, ptx))| {
            let input = dir.join(format!("k{i}.ptx"));
            std::fs::write(&input, ptx).expect("write the PTX");
            let out = ptxas(&input, &dir.join(format!("k{i}.cubin")));
            (!out.status.success()).then(|| {
                format!(
                    "{name} ({}):\n{}",
                    input.display(),
                    String::from_utf8_lossy(&out.stderr)
                )
            })
        })
        .collect();
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failures.is_empty(),
        "ptxas rejected {} of {} kernels:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
    println!("ptxas -arch=sm_90 accepted all {} kernels", all.len());
}

fn ptxas(input: &PathBuf, output: &PathBuf) -> Output {
    Command::new("ptxas")
        .arg("-arch=sm_90")
        .arg(input)
        .arg("-o")
        .arg(output)
        .output()
        .expect("run ptxas")
}

fn simsort(args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

#[test]
fn cli_emits_a_file_and_a_generated_kernel() {
    let path = tests_dir().join("kernels/vcopy.kir");
    let out = simsort(&["emit", "ptx", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let ptx = String::from_utf8_lossy(&out.stdout);
    assert!(ptx.contains(".visible .entry vcopy("), "{ptx}");

    let args = ["emit", "ptx", "--kernel", "bs", "--slab-height", "8"];
    let out = simsort(&[&args[..], &["--zero-shared", "false"]].concat());
    assert_eq!(out.status.code(), Some(0));
    let ptx = String::from_utf8_lossy(&out.stdout);
    assert!(ptx.contains(".visible .entry bs("), "{ptx}");
    assert!(!ptx.contains("$Lzero_shared"), "{ptx}");
}

#[test]
fn cli_refuses_a_16_lane_warp_with_exit_2() {
    let out = simsort(&["emit", "ptx", "--kernel", "reduce", "--warp", "16"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("PTX warps have 32 lanes"), "{err}");
    assert!(err.contains("16-lane"), "{err}");
}

#[test]
fn cli_reads_stdin_and_reports_a_bad_file_with_exit_2() {
    use std::io::Write;
    let mut child = Command::new(simsort_bin())
        .args(["emit", "ptx", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run simsort");
    let src = "kernel k {\n    regs r1\n    mov r0, %warpid\n}\n";
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(src.as_bytes()).expect("write stdin");
    drop(stdin);
    let out = child.wait_with_output().expect("simsort output");
    assert_eq!(out.status.code(), Some(0));
    let ptx = String::from_utf8_lossy(&out.stdout);
    assert!(
        ptx.contains("shr.u32 %sr1, %t1, 5; // %warpid of the IR"),
        "{ptx}"
    );

    let bad = tests_dir().join("kernels/invalid/types.kir");
    let out = simsort(&["emit", "ptx", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing emitted"), "{err}");
}
