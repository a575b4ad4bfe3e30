//! `--algo bitonic` as a user runs it: bad options, options of another
//! algorithm, a sweep over the vector length, a trace whose kernels carry
//! the generator's stage names.

use std::path::PathBuf;

use crate::util::{assert_input_error, scratch_dir, simsort, text};

fn scratch(name: &str) -> PathBuf {
    scratch_dir(&format!("cli_bitonic-{name}"))
}

#[test]
fn bad_bitonic_options_are_all_listed_with_exit_2() {
    assert_input_error(
        &[
            "--algo",
            "bitonic",
            "--vector",
            "3",
            "--block-threads",
            "48",
        ],
        &[
            "--vector 3: the vector length must be 1, 2, 4, 8 or 16",
            "--block-threads 48: bitonic needs a multiple of the warp (32 lanes)",
            "--block-threads 48: bitonic needs a power of two",
        ],
    );
    assert_input_error(
        &[
            "--algo",
            "bitonic",
            "--vector",
            "16",
            "--block-threads",
            "1024",
            "--key-bits",
            "64",
        ],
        &[
            "bytes of shared memory, over the machine's",
            "registers per thread",
        ],
    );
}

#[test]
fn an_option_of_another_algorithm_names_the_flag_and_its_algorithm() {
    assert_input_error(
        &[
            "--algo",
            "hotsort",
            "--vector",
            "8",
            "--bitonic-fused",
            "false",
        ],
        &[
            "--vector 8: an option of bitonic, not of hotsort",
            "--bitonic-fused false: an option of bitonic, not of hotsort",
        ],
    );
    assert_input_error(
        &["--algo", "bitonic", "--slab-height", "8"],
        &["--slab-height 8: an option of hotsort, not of bitonic"],
    );
}

#[test]
fn a_sweep_over_the_vector_length_runs_each() {
    let dir = scratch("sweep");
    let out_stem = dir.join("v");
    let out = simsort(&[
        "sweep",
        "--algo",
        "bitonic",
        "--vector",
        "1,2,4,8,16",
        "--bitonic-fused",
        "true,false",
        "--keys",
        "3000",
        "--out",
        out_stem.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = std::fs::read_to_string(dir.join("v.csv")).expect("csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    let (vector, fused, name) = (col("vector"), col("bitonic_fused"), col("name"));
    // One row per kernel and one total per configuration.
    let rows: Vec<Vec<&str>> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[name] == "total")
        .collect();
    assert_eq!(rows.len(), 10, "{csv}");
    assert_eq!(rows[0][vector], "1");
    assert_eq!(rows[9][vector], "16");
    // The quiet option is written where it is not the default.
    assert_eq!((rows[0][fused], rows[1][fused]), ("", "false"));
}

#[test]
fn a_bitonic_trace_names_its_kernels_and_stages() {
    let dir = scratch("trace");
    let path = dir.join("b.trace");
    let out = simsort(&[
        "--algo",
        "bitonic",
        "--keys",
        "5000",
        "-q",
        "--trace",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let info = simsort(&["trace", "info", path.to_str().unwrap()]);
    let info_text = text(&info.stdout);
    for needle in ["head grid", "step grid", "tail grid", "keys=5000"] {
        assert!(
            info_text.contains(needle),
            "`{needle}` not in:\n{info_text}"
        );
    }
    let trace = std::fs::read(&path).unwrap();
    let haystack = String::from_utf8_lossy(&trace);
    for stage in [
        "stage 11 d=1024 (shared)",
        "stage 3 d=4 (shared)",
        "tail d=1024 (registers)",
    ] {
        assert!(
            haystack.contains(stage),
            "the trace lacks the stage `{stage}`"
        );
    }
}
