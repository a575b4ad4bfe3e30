//! `simsort compare` as a user runs it: every algorithm on the same input,
//! one row each, the JSON form, the plot, and bad input.

use std::path::PathBuf;

use serde_json::Value;

use crate::util::simsort;

const SMALL: &[&str] = &["compare", "-q", "--keys", "4096,20000", "--warp", "16"];

#[test]
fn every_algorithm_gets_a_row_per_key_count_and_the_json_agrees() {
    let out = simsort(SMALL);
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut args = SMALL.to_vec();
    args.push("--json");
    let out = simsort(&args);
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let groups = json["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "one group per key count");
    let algos = json["axes"]["algo"].as_array().unwrap();
    // Without --algo every algorithm runs (the flag's default is no choice).
    for algo in ["hotsort", "terasort"] {
        assert!(algos.iter().any(|a| a == algo), "{algos:?}");
    }
    for (g, keys) in groups.iter().zip(["4096", "20000"]) {
        assert_eq!(g["config"]["keys"], keys);
        let rows = g["rows"].as_array().unwrap();
        assert_eq!(rows.len(), algos.len(), "every algorithm ran");
        for row in rows {
            let algo = row["algo"].as_str().unwrap();
            let cycles = row["cycles"].as_u64().unwrap();
            assert!(cycles > 0);
            // The table shows the same run: its cycles, grouped by commas.
            let grouped = cycles
                .to_string()
                .as_bytes()
                .rchunks(3)
                .rev()
                .map(|c| std::str::from_utf8(c).unwrap())
                .collect::<Vec<_>>()
                .join(",");
            assert!(
                table
                    .lines()
                    .any(|l| l.starts_with(algo) && l.contains(&grouped)),
                "{algo} {grouped} not in\n{table}"
            );
        }
    }
}

#[test]
fn the_plot_is_drawn_for_a_list_of_key_counts_and_refused_for_one() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_compare");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("c.svg");
    let mut args = SMALL.to_vec();
    args.extend(["--plot", svg.to_str().unwrap()]);
    let out = simsort(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("cycles per key"));

    let out = simsort(&["compare", "--keys", "4096", "--plot", svg.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("give --keys a list"), "{err}");
    assert!(out.stdout.is_empty());

    let out = simsort(&["compare", "--keys", "4096", "--warp", "3"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error:") && err.contains("warp"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn algorithms_that_cannot_carry_values_with_64_bit_keys_are_skipped_by_name() {
    let out = simsort(&[
        "compare",
        "-q",
        "--keys",
        "1000",
        "--key-bits",
        "64",
        "--values",
    ]);
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // HotSort carries values beside 64-bit keys and runs; the others are
    // listed as skipped, with the reason rather than a machine misfit.
    let row = |algo: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(algo))
            .unwrap_or_else(|| panic!("no {algo} row in:\n{table}"))
            .to_string()
    };
    assert!(!row("hotsort").contains("skipped"), "{table}");
    for algo in ["mergesort", "bitonic", "samplesort", "terasort"] {
        assert!(
            row(algo).ends_with("skipped: cannot carry values with 64-bit keys"),
            "{table}"
        );
    }
    assert!(!table.contains("does not fit the machine"), "{table}");
}
