//! Every algorithm names each launch in its trace (`sorts::Launch::label`,
//! handed to the device before the launch): small sorts of each algorithm
//! recorded with `--trace`, their launches' labels read back in order.

use std::process::Command;

use traces::TraceReader;

use crate::traces::scratch;
use crate::util::simsort_bin;

/// Records `simsort ARGS -q --trace FILE --trace-level counters-only` and
/// returns every launch as (kernel name, label), in launch order.
fn labels(name: &str, args: &[&str]) -> Vec<(String, String)> {
    let dir = scratch(&format!("labels-{name}"));
    let path = dir.join("t.trace");
    let out = Command::new(simsort_bin())
        .args(args)
        .args(["-q", "--trace-level", "counters-only", "--trace"])
        .arg(&path)
        .output()
        .expect("run simsort");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = TraceReader::open(&path).expect("a readable trace");
    let launches = r
        .launches()
        .iter()
        .map(|l| {
            let kernel = r.kernels()[l.kernel as usize].name.clone();
            (kernel, l.label.clone())
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    launches
}

/// The number after `word ` in `label` (`round 3: ...` -> 3).
fn number_after(label: &str, word: &str) -> Option<u64> {
    let at = label.find(&format!("{word} "))? + word.len() + 1;
    let digits: String = label[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Every label is there and names its launch's kernel; the numbers after
/// `word` never go down.
fn check_common(launches: &[(String, String)], word: &str) {
    assert!(!launches.is_empty());
    let mut last = 0;
    for (kernel, label) in launches {
        // The label names the kernel, or the family of sized variants it
        // belongs to (`small_sort` for `small_sort_512`).
        let family = label.rsplit(": ").next().unwrap();
        assert!(
            label.contains(kernel.as_str()) || kernel.starts_with(family),
            "`{label}` does not name kernel `{kernel}`"
        );
        if let Some(n) = number_after(label, word) {
            assert!(n >= last, "`{label}` after {word} {last}: {launches:#?}");
            last = n;
        }
    }
    assert!(last >= 2, "more than one {word}: {launches:#?}");
}

#[test]
fn hotsort_names_its_merge_rounds() {
    // 32 keys a slab, 2 slabs a block: 1000 keys are 16 blocks, 4 rounds.
    let l = labels(
        "hotsort",
        &[
            "--keys",
            "1000",
            "--warp",
            "8",
            "--slab-height",
            "4",
            "--block-slabs",
            "2",
        ],
    );
    check_common(&l, "round");
    let text: Vec<&str> = l.iter().map(|(_, s)| s.as_str()).collect();
    assert!(text[0].starts_with("fill_in: pad keys 1000.."), "{text:#?}");
    assert!(text.contains(&"bs: 16 blocks of 2 slabs"), "{text:#?}");
    assert!(
        text.contains(&"round 1: fm runs of 2 -> 4 slabs (8 pairs)"),
        "{text:#?}"
    );
    assert!(
        text.iter().any(|t| t.starts_with("round 4: hm span")),
        "{text:#?}"
    );
    assert_eq!(*text.last().unwrap(), "transpose: 32 slabs to key order");
}

#[test]
fn mergesort_names_its_passes() {
    // 32 threads x 3 keys: 96-key tiles, 53 tiles, 6 passes.
    let l = labels(
        "mergesort",
        &[
            "--algo",
            "mergesort",
            "--keys",
            "5000",
            "--block-threads",
            "32",
            "--items-per-thread",
            "3",
        ],
    );
    check_common(&l, "pass");
    let text: Vec<&str> = l.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(text[0], "blocksort: 53 tiles of 96 keys");
    assert_eq!(text[1], "pass 1: partition 96 -> 192");
    assert_eq!(text[2], "pass 1: merge 96 -> 192");
    assert_eq!(*text.last().unwrap(), "pass 6: merge 3072 -> 6144");
    assert_eq!(text.len(), 13);
}

#[test]
fn bitonic_names_its_stages_and_steps() {
    let l = labels("bitonic", &["--algo", "bitonic", "--keys", "5000"]);
    check_common(&l, "stage");
    let text: Vec<&str> = l.iter().map(|(_, s)| s.as_str()).collect();
    assert!(
        text.iter().any(|t| t.starts_with("head: sort")),
        "{text:#?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains(": flip step, stride 2^") || t.contains(": half step, stride 2^")),
        "{text:#?}"
    );
    assert!(text.last().unwrap().contains(": tail over"), "{text:#?}");
}

#[test]
fn samplesort_names_its_levels_and_buckets() {
    let l = labels(
        "samplesort",
        &[
            "--algo",
            "samplesort",
            "--keys",
            "20000",
            "--buckets",
            "8",
            "--small-size",
            "512",
        ],
    );
    check_common(&l, "level");
    let text: Vec<&str> = l.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(text[0], "level 1 (1 buckets): create_bst");
    assert_eq!(text[1], "level 1 (1 buckets), 1 k-way splits: find_buckets");
    assert!(
        text.iter()
            .any(|t| t.starts_with("level 2 (8 buckets): create_bst")),
        "{text:#?}"
    );
    assert!(
        text.iter()
            .any(|t| t.starts_with("small sorts (") && t.ends_with(": small_sort")),
        "{text:#?}"
    );
}

/// Two runs of records whose few unique keys tie on their first 4 bytes,
/// so the refinement runs.
const TERASORT_TIES: [&str; 10] = [
    "--algo",
    "terasort",
    "--keys",
    "2000",
    "--dist",
    "few-unique",
    "--run-records",
    "1000",
    "--record-bytes",
    "16",
];

#[test]
fn terasort_names_its_runs_stages_steps_and_refinement_rounds() {
    let args = [TERASORT_TIES.as_slice(), &["--terasort-network", "steps"]].concat();
    let l = labels("terasort", &args);
    check_common(&l, "run");
    let text: Vec<&str> = l.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(text[0], "run 1: keygen");
    assert_eq!(text[1], "run 1, stage 1 step 1: step_pair");
    // 1000 records pad to 1024: 10 stages, the last of 10 steps.
    assert!(
        text.contains(&"run 2, stage 10 step 10: step_pair"),
        "{text:#?}"
    );
    assert!(
        text.contains(&"run 1 refine round 1: refine_keys"),
        "{text:#?}"
    );
    assert!(
        text.contains(&"run 1 refine round 1, stage 1 step 1: step_pair"),
        "{text:#?}"
    );
    assert_eq!(*text.last().unwrap(), "run 2: reorder");
}

/// The fused network's launches are the bitonic sort's, named after the
/// run or refinement round they serve.
#[test]
fn terasort_fused_launches_carry_their_run() {
    let l = labels("terasort-fused", &TERASORT_TIES);
    check_common(&l, "run");
    let text: Vec<&str> = l.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(text[0], "run 1: keygen");
    assert!(text[1].starts_with("run 1, fill: "), "{text:#?}");
    assert!(
        text.iter()
            .any(|t| t.starts_with("run 1 refine round 1, head: sort ")),
        "{text:#?}"
    );
    assert_eq!(*text.last().unwrap(), "run 2: reorder");
}

#[test]
fn labelled_traces_are_byte_identical_run_to_run() {
    let dir = scratch("labels-twice");
    let mut bytes = Vec::new();
    for name in ["a.trace", "b.trace"] {
        let path = dir.join(name);
        let out = Command::new(simsort_bin())
            .args(["--algo", "mergesort", "--keys", "3000", "-q", "--trace"])
            .arg(&path)
            .output()
            .expect("run simsort");
        assert!(out.status.success());
        bytes.push(std::fs::read(&path).unwrap());
    }
    assert_eq!(bytes[0], bytes[1], "same run, same bytes");
    let _ = std::fs::remove_dir_all(&dir);
}
