//! Diagnostics safe to print whatever the input: control characters are
//! escaped (`\0`, `\x1b`) and long lines are cut around the error column,
//! so a 10 MB line gives a few hundred bytes on stderr, not 45 MB.

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan,
};

/// Longest source line shown whole, in bytes; longer lines show a window.
const MAX_LINE: usize = 160;
/// Bytes shown before the error column in a cut line.
const BEFORE: usize = 60;
/// Longest message shown whole, in characters.
const MAX_MESSAGE: usize = 200;

/// A character as it is shown: control characters escaped.
fn shown(c: char, out: &mut String) {
    match c {
        '\t' => out.push_str("    "),
        '\0' => out.push_str("\\0"),
        c if c.is_control() || c == '\u{feff}' => out.push_str(&c.escape_unicode().to_string()),
        c => out.push(c),
    }
}

/// A message with control characters escaped and the middle of an overlong
/// one cut out.
pub fn clean_message(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c == '\n' {
            out.push(c);
        } else {
            shown(c, &mut out);
        }
    }
    let count = out.chars().count();
    if count <= MAX_MESSAGE {
        return out;
    }
    let head: String = out.chars().take(MAX_MESSAGE - 40).collect();
    let tail: String = out.chars().skip(count - 30).collect();
    format!(
        "{head}[... {} characters cut ...]{tail}",
        count - MAX_MESSAGE + 10
    )
}

/// One source line as shown, with a map from each byte offset of the line
/// (0..=len) to its offset in the shown text (`None`: cut away).
fn show_line(line: &str, focus: Option<usize>) -> (String, Vec<Option<usize>>) {
    let (start, end) = if line.len() <= MAX_LINE {
        (0, line.len())
    } else {
        let mut start = focus.unwrap_or(0).saturating_sub(BEFORE);
        while !line.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (start + MAX_LINE).min(line.len());
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        (start, end)
    };
    let mut out = String::new();
    let mut map = vec![None; line.len() + 1];
    if start > 0 {
        out.push_str("...");
    }
    for (i, c) in line[start..end].char_indices() {
        map[start + i] = Some(out.len());
        shown(c, &mut out);
    }
    map[end] = Some(out.len());
    if end < line.len() {
        out.push_str("...");
    }
    (out, map)
}

/// A diagnostic re-made with a cleaned message and source.
#[derive(Debug)]
struct Shown {
    message: String,
    help: Option<String>,
    source: NamedSource<String>,
    labels: Vec<LabeledSpan>,
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Shown {}

impl Diagnostic for Shown {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// `d` with its message cleaned and its source (`name`, `text`) reduced to
/// the lines it points at and their neighbours, each cleaned and cut.
fn clean<D: Diagnostic>(d: &D, name: &str, text: &str) -> Shown {
    let labels: Vec<LabeledSpan> = d.labels().map(Iterator::collect).unwrap_or_default();
    // Line starts, to find each label's line.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| starts.partition_point(|&s| s <= offset).saturating_sub(1);
    let mut shown_lines = std::collections::BTreeMap::new();
    for l in &labels {
        let line = line_of(l.offset());
        for n in line.saturating_sub(1)..=(line + 1).min(starts.len() - 1) {
            shown_lines.entry(n).or_insert(None);
        }
        shown_lines.insert(line, Some(l.offset() - starts[line]));
    }
    // The shown source keeps every line (so line numbers stay right) but
    // empties those not shown.
    let mut source = String::new();
    let mut maps = std::collections::BTreeMap::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).map_or(text.len(), |&s| s - 1);
        let line = text[start..end]
            .strip_suffix('\r')
            .unwrap_or(&text[start..end]);
        if let Some(focus) = shown_lines.get(&n) {
            let (shown, map) = show_line(line, *focus);
            maps.insert(n, (source.len(), start, map));
            source.push_str(&shown);
        }
        if n + 1 < starts.len() {
            source.push('\n');
        }
    }
    let labels = labels
        .iter()
        .filter_map(|l| {
            let line = line_of(l.offset());
            let (at, line_start, map) = maps.get(&line)?;
            let col = l.offset() - line_start;
            let from = map.get(col).copied().flatten().unwrap_or(0);
            let last = (col + l.len()).min(map.len() - 1);
            let to = map[col..=last]
                .iter()
                .rev()
                .flatten()
                .next()
                .copied()
                .unwrap_or(from);
            let span = SourceSpan::from((at + from, to.max(from) - from));
            Some(LabeledSpan::new_with_span(
                l.label().map(clean_message),
                span,
            ))
        })
        .collect();
    Shown {
        message: clean_message(&d.to_string()),
        help: d.help().map(|h| clean_message(&h.to_string())),
        source: NamedSource::new(name, source),
        labels,
    }
}

/// `diagnostics` of the source `text` (named `name`), each made safe to
/// print (see the module doc).
pub fn cleaned<D: Diagnostic>(diagnostics: &[D], name: &str, text: &str) -> Vec<impl Diagnostic> {
    diagnostics.iter().map(|d| clean(d, name, text)).collect()
}

/// Renders diagnostics as source snippets, one after another, in colour
/// when `colour` (the caller knows whether stderr is a terminal).
pub fn render<D: Diagnostic>(diagnostics: &[D], name: &str, source: &str, colour: bool) -> String {
    let diagnostics = cleaned(diagnostics, name, source);
    let theme = if colour {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme);
    let mut text = String::new();
    for d in &diagnostics {
        if !text.is_empty() {
            text.push('\n');
        }
        // Rendering into a String cannot fail.
        let _ = handler.render_report(&mut text, d);
    }
    text.truncate(text.trim_end().len());
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_around_the_column_and_controls_escaped() {
        let line = format!("{}\0{}", "x".repeat(1000), "y".repeat(1000));
        let (shown, map) = show_line(&line, Some(1000));
        assert!(shown.len() < MAX_LINE + 20, "{shown}");
        assert!(shown.starts_with("...") && shown.ends_with("...") && shown.contains("\\0"));
        assert!(map[1000].is_some() && map[0].is_none());
        assert_eq!(clean_message("a\u{1b}b"), "a\\u{1b}b");
        assert!(clean_message(&"z".repeat(10_000)).len() < 300);
    }
}
