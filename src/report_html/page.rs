//! The HTML document: header (title, version, exact command), blocks
//! (headings, text, tables, charts, folded sections), and the inline style
//! and script. Everything is escaped here, once.

use std::ffi::OsString;
use std::fmt::Write as _;

use super::chart::Chart;

/// What produced a report: the command line, word for word, and the
/// version of simsort.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    /// The command line as a shell would take it back (words quoted where
    /// needed).
    pub command: String,
    /// `simsort` and its version.
    pub version: String,
}

impl Provenance {
    /// The provenance of this process: its arguments and the version it
    /// was built as.
    pub fn of_process() -> Provenance {
        Provenance::of_args(std::env::args_os())
    }

    /// The provenance of a command line given as its words.
    pub fn of_args(args: impl IntoIterator<Item = OsString>) -> Provenance {
        let words: Vec<String> = args
            .into_iter()
            .map(|a| shell_word(&a.to_string_lossy()))
            .collect();
        Provenance {
            command: words.join(" "),
            version: format!("simsort {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// `word` as a POSIX shell reads it back: unchanged when it holds only
/// safe characters, else in single quotes.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=,:@%+".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// One table cell: text, right-aligned when it is a number.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// A number (right-aligned, tabular figures).
    pub num: bool,
}

impl Cell {
    /// A text cell.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            num: false,
        }
    }

    /// A number cell.
    pub fn num(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            num: true,
        }
    }
}

/// A table with a caption and a header row.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Table {
    /// The caption above it.
    pub caption: String,
    /// The column headings.
    pub header: Vec<String>,
    /// The rows (as many cells as headings).
    pub rows: Vec<Vec<Cell>>,
}

/// A part of the page, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A section heading.
    Heading(String),
    /// A paragraph.
    Text(String),
    /// Preformatted text (a configuration, a legend).
    Pre(String),
    /// A table.
    Table(Table),
    /// A chart, drawn by the page's script.
    Chart(Chart),
    /// A folded section: its summary line and what it holds.
    Details(String, Vec<Block>),
}

/// A whole report page.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    /// The page's title (also its heading).
    pub title: String,
    /// What produced it.
    pub provenance: Provenance,
    /// The contents.
    pub blocks: Vec<Block>,
}

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");
/// Records every script error before the drawing script runs, so the
/// page's self-check can name them (a syntax error included).
const ERROR_HOOK: &str = "window.simsortErrors=[];window.addEventListener(\"error\",\
function(e){window.simsortErrors.push(String(e.message||e));});";
/// Nothing but the page itself may load: an external script, style, font
/// or image is refused (and the refusal is a console error).
const POLICY: &str =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

impl Page {
    /// Every chart of the page, in page order (folded sections included).
    pub fn charts(&self) -> Vec<&Chart> {
        fn walk<'a>(blocks: &'a [Block], out: &mut Vec<&'a Chart>) {
            for b in blocks {
                match b {
                    Block::Chart(c) => out.push(c),
                    Block::Details(_, inner) => walk(inner, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.blocks, &mut out);
        out
    }

    /// The page as one self-contained HTML document.
    pub fn to_html(&self) -> String {
        let mut out = String::new();
        let title = escape(&self.title);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">\n\
             <meta name=\"generator\" content=\"{}\">\n<title>{title}</title>\n\
             <style>\n{STYLE}</style>\n<script>{ERROR_HOOK}</script>\n</head>\n<body>\n",
            escape(&self.provenance.version)
        );
        let _ = write!(
            out,
            "<header>\n<h1>{title}</h1>\n<p class=\"prov\">Produced by <b>{}</b> with:</p>\n\
             <pre class=\"cmd\">{}</pre>\n</header>\n<main>\n",
            escape(&self.provenance.version),
            escape(&self.provenance.command)
        );
        let mut charts = Vec::new();
        blocks(&mut out, &self.blocks, &mut charts);
        let _ = write!(
            out,
            "</main>\n<footer><p id=\"simsort-check\" data-status=\"pending\" data-plots=\"{}\">\
             The charts need JavaScript.</p></footer>\n\
             <div id=\"simsort-tip\" hidden></div>\n",
            charts.len()
        );
        // JSON holds `<` only inside strings, where `\u003c` reads the
        // same: no `</script>` can end the block early.
        let data = serde_json::to_string(&charts)
            .expect("charts always serialise")
            .replace('<', "\\u003c");
        let _ = write!(
            out,
            "<script type=\"application/json\" id=\"simsort-charts\">{data}</script>\n\
             <script>\n{SCRIPT}</script>\n</body>\n</html>\n"
        );
        out
    }
}

/// Writes `list` into `out`, collecting its charts (numbered in page order).
fn blocks<'a>(out: &mut String, list: &'a [Block], charts: &mut Vec<&'a Chart>) {
    for block in list {
        match block {
            Block::Heading(h) => {
                let _ = writeln!(out, "<h2>{}</h2>", escape(h));
            }
            Block::Text(t) => {
                let _ = writeln!(out, "<p>{}</p>", escape(t));
            }
            Block::Pre(t) => {
                let _ = writeln!(out, "<pre>{}</pre>", escape(t.trim_end()));
            }
            Block::Table(t) => table(out, t),
            Block::Chart(c) => {
                let _ = writeln!(
                    out,
                    "<figure class=\"chart\"><figcaption>{}</figcaption>\
                     <div class=\"plot\" data-chart=\"{}\" data-marks=\"{}\"></div></figure>",
                    escape(c.title()),
                    charts.len(),
                    c.marks()
                );
                charts.push(c);
            }
            Block::Details(summary, inner) => {
                let _ = writeln!(out, "<details><summary>{}</summary>", escape(summary));
                blocks(out, inner, charts);
                let _ = writeln!(out, "</details>");
            }
        }
    }
}

fn table(out: &mut String, t: &Table) {
    let _ = write!(out, "<div class=\"scroll\"><table>");
    if !t.caption.is_empty() {
        let _ = write!(out, "<caption>{}</caption>", escape(&t.caption));
    }
    let _ = write!(out, "\n<thead><tr>");
    for h in &t.header {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    let _ = writeln!(out, "</tr></thead>\n<tbody>");
    for row in &t.rows {
        let _ = write!(out, "<tr>");
        for c in row {
            let class = if c.num { " class=\"num\"" } else { "" };
            let _ = write!(out, "<td{class}>{}</td>", escape(&c.text));
        }
        let _ = writeln!(out, "</tr>");
    }
    let _ = writeln!(out, "</tbody></table></div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report_html::chart::{Point, Series, XyChart};

    #[test]
    fn words_are_quoted_only_when_a_shell_needs_it() {
        let p = Provenance::of_args(
            ["simsort", "sweep", "--keys", "1,2", "a b", "it's", ""].map(OsString::from),
        );
        assert_eq!(p.command, "simsort sweep --keys 1,2 'a b' 'it'\\''s' ''");
        assert!(p.version.starts_with("simsort "));
    }

    fn page() -> Page {
        let chart = Chart::Xy(XyChart {
            title: "cycles </script> & more".into(),
            series: vec![Series {
                name: "<b>".into(),
                points: vec![Point {
                    x: 0.0,
                    y: 1.0,
                    tip: "a</script><script>alert(1)".into(),
                }],
            }],
            x_categories: vec!["x".into()],
            ..XyChart::default()
        });
        Page {
            title: "t<i>".into(),
            provenance: Provenance::of_args(["simsort", "--keys", "<1>"].map(OsString::from)),
            blocks: vec![
                Block::Text("a & b".into()),
                Block::Details("more".into(), vec![Block::Chart(chart.clone())]),
                Block::Chart(chart),
            ],
        }
    }

    #[test]
    fn text_is_escaped_and_no_data_can_end_the_script() {
        let html = page().to_html();
        assert!(html.contains("<h1>t&lt;i&gt;</h1>"), "{html}");
        assert!(
            html.contains("simsort --keys &#39;&lt;1&gt;&#39;"),
            "{html}"
        );
        assert!(html.contains("<p>a &amp; b</p>"));
        assert_eq!(html.matches("</script>").count(), 3, "{html}");
        assert!(!html.contains("<script>alert"));
        assert!(html.contains("data-chart=\"1\" data-marks=\"1\""));
        assert!(html.contains("data-plots=\"2\""));
    }

    #[test]
    fn the_page_loads_nothing_from_outside() {
        // The SVG namespace is a name and `url(#id)` a part of the page
        // itself, not places the page loads from.
        let html = page()
            .to_html()
            .replace("http://www.w3.org/2000/svg", "")
            .replace("url(#", "");
        for outside in ["http:", "https:", "src=", "href=", "@import", "url("] {
            assert!(!html.contains(outside), "`{outside}` in the page");
        }
        assert!(html.contains("default-src 'none'"));
        assert_eq!(
            page().to_html(),
            page().to_html(),
            "the same page, the same bytes"
        );
    }
}
