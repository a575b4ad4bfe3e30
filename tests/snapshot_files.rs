//! Leftover snapshot files. insta reads a committed snapshot only when a
//! test asserts it, so a file that no test produces any more (a
//! configuration that left a matrix or became invalid, a renamed kernel)
//! would go stale silently. Every snapshot test checks its share of its
//! module's files against the names it produced ([`leftovers`]), and one
//! test checks that every file belongs to a module whose tests do.

use crate::util::tests_dir;

/// The modules whose tests write the snapshots in `tests/snapshots`; each
/// of their snapshot tests rejects its leftovers with [`leftovers`].
const FAMILIES: [&str; 9] = [
    "plots",
    "snapshots_bitonic",
    "snapshots_hotsort",
    "snapshots_ir",
    "snapshots_mergesort",
    "snapshots_per_pc",
    "snapshots_ptx",
    "snapshots_samplesort",
    "snapshots_terasort",
];

/// The names of the committed snapshots of module `family` (without the
/// `integration__<family>__` prefix and the `.snap` suffix).
fn committed(family: &str) -> Vec<String> {
    let dir = tests_dir().join("snapshots");
    let prefix = format!("integration__{family}__");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut names: Vec<String> = entries
        .map(|entry| entry.expect("directory entry").file_name())
        .filter_map(|file| {
            let file = file.to_string_lossy();
            let name = file.strip_prefix(&prefix)?.strip_suffix(".snap")?;
            Some(name.to_string())
        })
        .collect();
    names.sort();
    names
}

/// The committed snapshots of module `family` that the calling test owns
/// (`owns`: its share of the module's names, `|_| true` for a module with
/// one snapshot test) but did not produce (`produced`): one line each, to
/// report with the test's other failures.
pub fn leftovers(family: &str, owns: impl Fn(&str) -> bool, produced: &[String]) -> Vec<String> {
    assert!(FAMILIES.contains(&family), "{family} is not in FAMILIES");
    committed(family)
        .into_iter()
        .filter(|name| owns(name) && !produced.contains(name))
        .map(|name| {
            format!("integration__{family}__{name}.snap: no test produces this snapshot; delete it")
        })
        .collect()
}

#[test]
fn every_snapshot_file_belongs_to_a_family_that_checks_it() {
    let dir = tests_dir().join("snapshots");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut strays = Vec::new();
    let mut files = 0;
    for entry in entries {
        let file = entry.expect("directory entry").file_name();
        let file = file.to_string_lossy();
        // insta's pending changes of a failed run, never committed.
        if file.ends_with(".snap.new") || file.ends_with(".pending-snap") {
            continue;
        }
        files += 1;
        let family = file
            .strip_prefix("integration__")
            .and_then(|rest| rest.split_once("__"))
            .map(|(family, _)| family);
        if !file.ends_with(".snap") || !family.is_some_and(|f| FAMILIES.contains(&f)) {
            strays.push(file.into_owned());
        }
    }
    assert!(
        files > 400,
        "only {files} snapshot files in {}",
        dir.display()
    );
    assert!(
        strays.is_empty(),
        "files in tests/snapshots of no snapshot family (delete them, or add their module to \
         FAMILIES and make its tests call `leftovers`):\n{}",
        strays.join("\n")
    );
}
