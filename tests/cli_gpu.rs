//! Machine files and `simsort gpu`: a preset written out with `gpu show`
//! and loaded back with `--gpu FILE` simulates and reports byte for byte
//! as the preset; a bad machine file gets every problem at once, each
//! naming its field, exit 2; `gpu list` and `gpu diff` say what the
//! machines are and where they differ.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::util::{simsort_bin, tests_dir};

fn simsort(args: &[&str]) -> Output {
    Command::new(simsort_bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-gpu-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn a_preset_written_out_and_loaded_back_reports_byte_for_byte_as_the_preset() {
    let dir = scratch("roundtrip");
    for (preset, format) in [("h200", "toml"), ("h100", "json")] {
        let file = dir.join(format!("mygpu.{format}"));
        let mut args = vec!["gpu", "show", preset];
        if format == "json" {
            args.push("--json");
        }
        std::fs::write(&file, ok(&simsort(&args))).unwrap();
        let sort = ["--keys", "5000", "--json"];
        let from_preset = ok(&simsort(&[&["--gpu", preset][..], &sort[..]].concat()));
        let from_file = ok(&simsort(
            &[&["--gpu", file.to_str().unwrap()][..], &sort[..]].concat(),
        ));
        assert_eq!(from_file, from_preset, "{preset} as {format}");
        assert!(from_preset.contains(&format!("\"gpu\": \"{preset}\"")));
        // A changed field is simulated: the machine is the file's.
        let text = std::fs::read_to_string(&file).unwrap();
        let slower = text
            .replace(
                "\"launch_overhead_cycles\": 4379",
                "\"launch_overhead_cycles\": 9999",
            )
            .replace(
                "launch_overhead_cycles = 3060",
                "launch_overhead_cycles = 9999",
            );
        assert_ne!(slower, text);
        std::fs::write(&file, slower).unwrap();
        let changed = ok(&simsort(
            &[&["--gpu", file.to_str().unwrap()][..], &sort[..]].concat(),
        ));
        assert_ne!(changed, from_preset);
        assert!(changed.contains("\"launch_overhead_cycles\": 9999"));
    }
}

#[test]
fn a_bad_machine_file_gets_every_problem_at_once_naming_each_field() {
    let dir = scratch("bad");
    let file = dir.join("bad.toml");
    let text = ok(&simsort(&["gpu", "show", "h200"]))
        .replace("num_sms = 132", "num_sms = 0")
        .replace("clock_mhz = 1980", "clock_mhz = \"fast\"")
        .replace("l2_ways = 16\n", "")
        + "l2_size = 3\n";
    std::fs::write(&file, text).unwrap();
    let path = file.to_str().unwrap();
    let kernel = tests_dir().join("kernels/diverge.kir");
    let kernel = kernel.to_str().unwrap();
    for args in [
        vec!["--gpu", path, "--keys", "1000"],
        vec![
            "run", kernel, "--grid", "1", "--block", "32", "--buffer", "out=4k", "--gpu", path,
        ],
        vec!["gpu", "show", path],
    ] {
        let out = simsort(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        let prefix = format!("error: invalid machine file (--gpu {path}): field ");
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with(&prefix)).collect();
        assert_eq!(lines.len(), 4, "{args:?}: {err}");
        for field in [
            "`num_sms`: 0 is outside",
            "`clock_mhz`: expected a number",
            "`l2_ways`: missing",
            "`l2_size`: no such field",
        ] {
            assert!(err.contains(field), "{args:?}: {field} not in\n{err}");
        }
    }
    std::fs::write(&file, "num_sms = = 1\n").unwrap();
    let out = simsort(&["gpu", "show", path]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(": not TOML: ") && err.contains("line 1"),
        "{err}"
    );
    let out = simsort(&["--gpu", "h300"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("unknown preset (--gpu h300)"), "{err}");
}

#[test]
fn gpu_list_and_diff_name_the_machines_and_the_fields_that_differ() {
    let list = ok(&simsort(&["gpu", "list"]));
    let names: Vec<&str> = list
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, ["h200", "h100", "tiny"], "{list}");
    let diff = ok(&simsort(&["gpu", "diff", "h200", "h100"]));
    let fields: Vec<&str> = diff
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|f| f.contains('_'))
        .collect();
    assert_eq!(
        fields,
        [
            "launch_overhead_cycles",
            "memory_launch_cycles",
            "block_dispatch_cycles",
            "l2_latency_cycles",
            "dram_latency_cycles",
            "l2_bytes_per_cycle",
            "dram_bytes_per_cycle"
        ],
        "{diff}"
    );
    assert!(diff.ends_with("7 of 86 fields differ\n"), "{diff}");
}

/// docs/report.md names every field of the machine config a report
/// carries; a field added to `GpuConfig` without its line there fails here.
#[test]
fn the_report_docs_name_every_machine_field() {
    let show = ok(&simsort(&["gpu", "show", "h200"]));
    let docs = std::fs::read_to_string(crate::util::repo_root().join("docs/report.md")).unwrap();
    let section = docs
        .split("Every field of the machine config")
        .nth(1)
        .and_then(|s| s.split("Their ranges are documented").next())
        .expect("docs/report.md lists the machine's fields");
    let fields: Vec<&str> = (show.lines())
        .filter_map(|l| l.split_once(" = ").map(|(k, _)| k))
        .filter(|k| !k.starts_with('#') && *k != "name" && *k != "description")
        .collect();
    assert!(fields.len() > 50, "{fields:?}");
    let missing: Vec<&&str> = (fields.iter())
        .filter(|f| !section.contains(&format!("`{f}`")))
        .collect();
    assert!(missing.is_empty(), "docs/report.md lacks {missing:?}");
}
