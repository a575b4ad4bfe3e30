//! `--algo samplesort` as a user runs it: the main job for every word
//! type and distribution, its flags refused all at once with exit 2,
//! `kernels --algo samplesort`, and a sweep over its bucket count.

use crate::util::{simsort, text};

fn names(report: &serde_json::Value) -> Vec<String> {
    report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|k| k["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn samplesort_sorts_every_word_type_on_a_small_machine() {
    for extra in [&[][..], &["--key-bits", "64"], &["--values"]] {
        let mut args = vec!["--algo", "samplesort", "--gpu", "tiny", "--warp", "8"];
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
        let names = names(&report);
        for want in [
            "create_bst",
            "find_buckets",
            "scan",
            "scatter",
            "small_sort",
        ] {
            assert!(names.iter().any(|n| n == want), "{extra:?}: {names:?}");
        }
        // The options the machine resolved are in the report.
        assert_eq!(report["config"]["counter_copies"], 4, "{extra:?}");
    }
}

#[test]
fn every_distribution_ends_and_the_note_counts_levels() {
    for dist in [
        "uniform",
        "sorted",
        "reverse",
        "few-unique",
        "all-equal",
        "zipf",
    ] {
        let out = simsort(&[
            "--algo",
            "samplesort",
            "--gpu",
            "tiny",
            "--warp",
            "8",
            "--keys",
            "6000",
            "--dist",
            dist,
        ]);
        assert_eq!(out.status.code(), Some(0), "{dist}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(
            err.contains("samplesort: ") && err.contains("level(s)"),
            "{dist}: {err}"
        );
        if dist == "all-equal" {
            assert!(err.contains("1 degenerate sample(s) (1 constant"), "{err}");
        }
    }
}

#[test]
fn bad_samplesort_options_are_all_refused_with_exit_2() {
    let out = simsort(&[
        "--algo",
        "samplesort",
        "--buckets",
        "100",
        "--counter-copies",
        "3",
        "--small-size",
        "0",
        "--slab-height",
        "8",
        "--keys",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for want in [
        "--buckets 100: must be a power of two",
        "--counter-copies 3: must be a power of two",
        "--small-size 0: buckets of at least one key are sorted",
        "--slab-height 8: an option of hotsort, not of samplesort",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    let out = simsort(&[
        "--algo",
        "samplesort",
        "--small-size",
        "100000",
        "--key-bits",
        "64",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("at most 16384 keys fit"),
        "{}",
        text(&out.stderr)
    );
    let out = simsort(&["--buckets", "64", "--keys", "100"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--buckets 64: an option of samplesort, not of hotsort"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn kernels_lists_and_prints_the_samplesort_kernels() {
    let out = simsort(&["kernels", "--algo", "samplesort", "--buckets", "32"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let list = text(&out.stdout);
    assert!(
        list.contains("sample sort kernels for W=32 k=32 a=16 M=8192 C=4 t=256"),
        "{list}"
    );
    for name in [
        "create_bst",
        "find_buckets",
        "scan",
        "scatter",
        "minmax",
        "find_3way",
        "scatter_3way",
        "copy_buckets",
        "small_sort_64",
        "small_sort_8192",
    ] {
        assert!(list.contains(&format!("\n{name} ")), "{name}: {list}");
    }
    let out = simsort(&["kernels", "--algo", "samplesort", "--print", "find_buckets"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ir = text(&out.stdout);
    assert!(ir.starts_with("kernel find_buckets {"), "{ir}");
    assert!(ir.contains("atom.shared.add.u32"), "{ir}");
}

#[test]
fn a_sweep_takes_the_samplesort_options_as_lists() {
    let dir = crate::util::scratch_dir("cli_samplesort-sweep");
    let csv = dir.join("res.csv");
    let out = simsort(&[
        "sweep",
        "--algo",
        "samplesort",
        "--buckets",
        "32,128",
        "--keys",
        "20000",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = std::fs::read_to_string(&csv).unwrap();
    let header = table.lines().next().unwrap();
    assert!(header.contains("buckets"), "{header}");
    let rows = table
        .lines()
        .filter(|l| l.contains(",find_buckets,"))
        .count();
    assert_eq!(rows, 2, "{table}");
    std::fs::remove_dir_all(&dir).unwrap();
}
