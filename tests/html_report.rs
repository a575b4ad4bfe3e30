//! `--report FILE.html` of the single run, `sweep`, `compare` and
//! `calibrate`, each loaded in a real headless browser (Chromium, from the
//! system's packages: `.ci/install-deps.sh` installs it): the page must log
//! nothing on the console (no script error, nothing refused by its
//! no-network policy), its self-check must find every chart drawn with a
//! mark per data point and the hover tip working, and the marks must carry
//! their configuration and counters.
//!
//! Without Chromium the test fails when `CI` is set and says it skipped
//! otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{assert_input_error, repo_root, scratch_dir, simsort_bin, text};

/// The browser: `SIMSORT_CHROMIUM`, else the first of the usual names on
/// `PATH`.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SIMSORT_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let names = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ];
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Runs simsort from the repository's root (the suite's paths are relative
/// to it) and returns its stdout; fails the test on a failed run.
fn run(args: &[&str]) -> String {
    let out = Command::new(simsort_bin())
        .args(args)
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run simsort");
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// The page after its scripts ran (Chromium's `--dump-dom`) and every
/// console message the page logged.
fn load(browser: &Path, page: &Path, profile: &Path) -> (String, Vec<String>) {
    let url = format!("file://{}", page.display());
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--timeout=60000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--dump-dom", &url])
        .output()
        .expect("run chromium");
    let err = text(&out.stderr);
    assert!(out.status.success(), "chromium failed on {url}: {err}");
    let console = err
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (text(&out.stdout), console)
}

/// The value of `attr="..."` in the first tag of `html` that holds `tag`.
fn attribute(html: &str, tag: &str, attr: &str) -> String {
    let start = html
        .find(tag)
        .unwrap_or_else(|| panic!("no `{tag}` in:\n{html}"));
    let rest = &html[start..];
    let end = rest.find('>').expect("tag ends");
    let key = format!("{attr}=\"");
    let at = rest[..end]
        .find(&key)
        .unwrap_or_else(|| panic!("no {attr} in {}", &rest[..end]));
    let value = &rest[at + key.len()..];
    value[..value.find('"').expect("quoted")].to_string()
}

/// Checks the report at `page` in `browser`: nothing on the console, every
/// chart drawn, hover tips holding every one of `tips`.
fn check(browser: &Path, page: &Path, profile: &Path, tips: &[&str]) {
    let source = std::fs::read_to_string(page).expect("the report was written");
    let charts = source.matches("data-chart=\"").count();
    assert!(charts >= 2, "{}: {charts} charts", page.display());
    // The version and the exact command that produced the page.
    let version = run(&["--version"]);
    assert!(
        source.contains(&format!("Produced by <b>{}</b>", version.trim())),
        "{}: no version",
        page.display()
    );
    let command = format!("{} ", simsort_bin().display());
    let own = format!(" --report {}", page.display());
    assert!(
        source.contains(&command) && source.contains(&own),
        "{}: not the command that wrote it",
        page.display()
    );
    let (dom, console) = load(browser, page, profile);
    assert!(
        console.is_empty(),
        "{}: console messages:\n{}",
        page.display(),
        console.join("\n")
    );
    let tag = "id=\"simsort-check\"";
    let verdict = dom
        .split(tag)
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .unwrap_or_default();
    assert_eq!(
        attribute(&dom, tag, "data-status"),
        "ok",
        "{}: the page's self-check failed: {verdict}",
        page.display()
    );
    assert_eq!(attribute(&dom, tag, "data-drawn"), charts.to_string());
    let svgs = dom.matches("<svg").count();
    assert_eq!(svgs, charts, "{}: one SVG per chart", page.display());
    let marks: Vec<&str> = dom
        .split("data-tip=\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap_or(rest.len())])
        .collect();
    assert!(!marks.is_empty(), "{}: no mark has a tip", page.display());
    for tip in tips {
        assert!(
            marks.iter().any(|m| m.contains(tip)),
            "{}: no mark tells `{tip}`",
            page.display()
        );
    }
}

#[test]
fn every_commands_html_report_draws_in_a_headless_browser() {
    let Some(browser) = chromium() else {
        let msg = "Chromium not found (install it with .ci/install-deps.sh, or set \
                   SIMSORT_CHROMIUM to the browser)";
        assert!(std::env::var_os("CI").is_none(), "{msg}; CI needs it");
        eprintln!("skipped: {msg}");
        return;
    };
    let dir = scratch_dir("html_report");
    let profile = dir.join("profile");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (sort, sweep, compare, calib) = (
        path("sort.html"),
        path("sweep.html"),
        path("compare.html"),
        path("calib.html"),
    );
    run(&["--gpu", "tiny", "--keys", "4096", "-q", "--report", &sort]);
    let sweep_args = [
        "sweep",
        "-q",
        "--gpu",
        "tiny",
        "--keys",
        "2048",
        "--warp",
        "8,16",
        "--slab-height",
        "2,4,8",
        "--report",
        &sweep,
    ];
    run(&sweep_args);
    let first = std::fs::read(&sweep).unwrap();
    run(&sweep_args);
    assert!(
        first == std::fs::read(&sweep).unwrap(),
        "the same sweep, another report"
    );
    run(&[
        "compare",
        "-q",
        "--keys",
        "4096,20000",
        "--warp",
        "16",
        "--report",
        &compare,
    ]);
    let suite = repo_root().join("hw/calib/suite.txt");
    run(&[
        "calibrate",
        "--suite",
        suite.to_str().unwrap(),
        "--only",
        "hs64k_h4",
        "--report",
        &calib,
    ]);
    check(
        &browser,
        Path::new(&sort),
        &profile,
        &["cycles/key: ", "warp instructions: "],
    );
    check(
        &browser,
        Path::new(&sweep),
        &profile,
        &["warp=16 slab-height=4", "bank conflicts: "],
    );
    check(
        &browser,
        Path::new(&compare),
        &profile,
        &["samplesort", "keys=20000", "cycles/key: "],
    );
    check(
        &browser,
        Path::new(&calib),
        &profile,
        &["hs64k_h4/0:bs", "hardware cycles: ", "simulated cycles: "],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_report_must_be_an_html_file_that_can_be_written() {
    let flag = ["--report", "out.svg"];
    assert_input_error(
        &["--keys", "64", flag[0], flag[1]],
        &["--report out.svg", ".html"],
    );
    assert_input_error(
        &["sweep", "--keys", "64", flag[0], flag[1]],
        &["--report out.svg"],
    );
    assert_input_error(
        &["compare", "--keys", "64", flag[0], flag[1]],
        &["--report out.svg"],
    );
    assert_input_error(&["calibrate", flag[0], flag[1]], &["--report out.svg"]);
    assert_input_error(
        &["--keys", "64", "--report", "/no/such/dir/r.html"],
        &["--report /no/such/dir/r.html", "does not exist"],
    );
}
