//! `simsort sweep --shard I/N` and `simsort sweep merge`: the parts of a
//! sharded sweep merge into exactly the files one run of the whole grid
//! writes, and parts that do not belong together are refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::simsort_bin;

fn simsort(dir: &Path, args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_shard-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A grid of 16 configurations on the tiny machine, two of which do not
/// fit (so shards hold skipped configurations too).
const GRID: &[&str] = &[
    "sweep",
    "-q",
    "--gpu",
    "tiny",
    "--keys",
    "300,1000",
    "--warp",
    "4,8",
    "--slab-height",
    "2,8",
    "--block-slabs",
    "8",
    "--smem-layout",
    "plain,pad",
];

fn sweep(dir: &Path, extra: &[&str]) {
    let mut args = GRID.to_vec();
    args.extend(extra);
    let out = simsort(dir, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn merged_shards_are_byte_identical_to_one_run_for_any_split() {
    let dir = scratch("roundtrip");
    sweep(&dir, &["--out", "full"]);
    // 16 configurations: 3 shards split unevenly, 20 leave some empty.
    for count in [3u32, 20] {
        let mut parts = Vec::new();
        for index in (0..count).rev() {
            let name = format!("p{count}-{index}");
            sweep(
                &dir,
                &["--shard", &format!("{index}/{count}"), "--out", &name],
            );
            parts.push(format!("{name}.json"));
        }
        let mut args = vec!["sweep", "merge", "merged.csv"];
        args.extend(parts.iter().map(String::as_str));
        let out = simsort(&dir, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
        assert!(
            read(&dir, "merged.csv") == read(&dir, "full.csv"),
            "{count} shards: CSV differs"
        );
        assert!(
            read(&dir, "merged.json") == read(&dir, "full.json"),
            "{count} shards: JSON differs"
        );
    }
}

#[test]
fn parts_that_do_not_belong_together_are_refused_and_nothing_is_written() {
    let dir = scratch("bad");
    sweep(&dir, &["--shard", "0/2", "--out", "a0"]);
    sweep(&dir, &["--shard", "1/2", "--out", "a1"]);
    sweep(&dir, &["--shard", "1/3", "--out", "b1"]);
    sweep(&dir, &["--seed", "2", "--shard", "1/2", "--out", "c1"]);
    sweep(&dir, &["--out", "whole"]);
    let cases: &[(&[&str], &str)] = &[
        (&["a0"], "shard 1/2 is missing"),
        (&["a0", "a1", "a1.csv"], "shard 1/2 is given 2 times"),
        (&["a0", "b1"], "parts of different splits"),
        (&["a0", "c1"], "another grid"),
        (&["a0", "whole"], "no `shard` object"),
        (&["a0", "nowhere"], "nowhere.json: cannot read"),
    ];
    for (parts, needle) in cases {
        let mut args = vec!["sweep", "merge", "m"];
        args.extend(*parts);
        let out = simsort(&dir, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{parts:?}: {err}");
        assert!(err.contains(needle), "{parts:?}: `{needle}` not in {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!dir.join("m.csv").exists() && !dir.join("m.json").exists());
    }
    for bad in ["2/2", "0/0", "x"] {
        let out = simsort(&dir, &["sweep", "--shard", bad]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains("--shard") && err.contains("0 <= I < N"),
            "{bad}: {err}"
        );
    }
}
