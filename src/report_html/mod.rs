//! Self-contained HTML reports (`--report FILE.html`): one page per
//! command with its tables, its charts drawn in the page from the data the
//! page carries, the command line and the version that produced it.
//!
//! The page needs nothing outside itself: the style, the script and the
//! data are inline, and its Content-Security-Policy forbids loading
//! anything else, so it opens offline and a stray external reference shows
//! up as a console error (which the browser test fails on). The bytes
//! depend only on the command's inputs: no timestamp, no host name.
//!
//! [`Page`] is the document; [`sort`], [`sweep`], [`compare`] and
//! [`calib`] build one for each command from the data its text report
//! prints; [`kernels`] holds the per-kernel table and stall bars they share.

pub mod calib;
pub mod chart;
pub mod compare;
pub mod kernels;
pub mod page;
pub mod sort;
pub mod sweep;

use std::path::Path;

pub use chart::{Bar, BarChart, Chart, Point, RefLine, Series, XyChart};
pub use page::{Block, Cell, Page, Provenance, Table};

/// Checks, before any work starts, that `path` names an HTML file that can
/// be written (`flag` names the option, for the message).
pub fn check_path(flag: &str, path: &Path) -> Result<(), String> {
    let html = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
    if !html {
        return Err(format!(
            "{flag} {}: the report is an HTML page; the file name must end in .html",
            path.display()
        ));
    }
    crate::atomic::check_output(path).map_err(|why| format!("{flag} {}: {why}", path.display()))
}

/// Writes the page to `path` completely or not at all (temporary file,
/// then rename: [`crate::atomic`]).
pub fn write(path: &Path, page: &Page) -> std::io::Result<()> {
    crate::atomic::write_file(path, page.to_html().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_html_names_are_taken() {
        let dir = std::env::temp_dir();
        let err = check_path("--report", &dir.join("r.svg")).unwrap_err();
        assert!(err.contains("--report") && err.contains(".html"), "{err}");
        assert!(check_path("--report", &dir.join("r")).is_err());
        check_path("--report", &dir.join("simsort-html-check.html")).unwrap();
        check_path("--report", &dir.join("simsort-html-check.HTM")).unwrap();
        let missing = dir.join("simsort-no-such-dir/r.html");
        assert!(
            check_path("--report", &missing)
                .unwrap_err()
                .contains("does not exist")
        );
    }
}
