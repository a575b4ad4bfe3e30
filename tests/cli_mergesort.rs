//! `--algo mergesort` as a user runs it: the main job for every word type,
//! its flags refused all at once with exit 2, the flags of one algorithm
//! refused with another, `kernels --algo mergesort` and a sweep over its
//! options.

use crate::util::{simsort, text};

#[test]
fn mergesort_sorts_every_word_type_on_a_small_machine() {
    for extra in [
        &[][..],
        &["--key-bits", "64", "--items-per-thread", "5"],
        &["--values", "--items-per-thread", "5"],
    ] {
        let mut args = vec!["--algo", "mergesort", "--gpu", "tiny", "--warp", "8"];
        args.extend(["--keys", "3001", "--quiet", "--json"]);
        args.extend(extra);
        let out = simsort(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{extra:?}: {}",
            text(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let names: Vec<&str> = report["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|k| k["name"].as_str())
            .collect();
        assert_eq!(names, ["blocksort", "partition", "merge"], "{extra:?}");
    }
}

#[test]
fn bad_mergesort_options_are_all_refused_with_exit_2() {
    let out = simsort(&[
        "--algo",
        "mergesort",
        "--items-per-thread",
        "0",
        "--block-threads",
        "96",
        "--slab-height",
        "8",
        "--keys",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for want in [
        "--items-per-thread 0: each thread sorts at least one key",
        "--block-threads 96: must be a power of two and a multiple of the warp",
        "--slab-height 8: an option of hotsort, not of mergesort",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    let out = simsort(&["--items-per-thread", "7", "--keys", "100"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "--items-per-thread 7: an option of mergesort and samplesort, not of hotsort"
        ),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn kernels_lists_and_prints_the_mergesort_kernels() {
    let out = simsort(&["kernels", "--algo", "mergesort", "--items-per-thread", "7"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let list = text(&out.stdout);
    assert!(
        list.contains("mergesort kernels for W=32 NT=128 VT=7"),
        "{list}"
    );
    for name in ["blocksort", "partition", "merge"] {
        assert!(list.contains(&format!("\n{name} ")), "{name}: {list}");
    }
    let out = simsort(&["kernels", "--algo", "mergesort", "--print", "partition"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("kernel partition {"));
}

#[test]
fn a_sweep_takes_the_mergesort_options_as_lists() {
    let dir = crate::util::scratch_dir("cli_mergesort-sweep");
    let csv = dir.join("res.csv");
    let out = simsort(&[
        "sweep",
        "--algo",
        "mergesort",
        "--items-per-thread",
        "7,11",
        "--block-threads",
        "64,128",
        "--keys",
        "5000",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = std::fs::read_to_string(&csv).unwrap();
    let header = table.lines().next().unwrap();
    assert!(
        header.contains("block_threads,items_per_thread"),
        "{header}"
    );
    // One row per (configuration, kernel or total): 4 configurations x
    // (3 kernels + total).
    assert_eq!(table.lines().count(), 1 + 4 * 4, "{table}");
    std::fs::remove_dir_all(&dir).unwrap();
}
