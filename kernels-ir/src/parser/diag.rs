//! Errors as `miette` diagnostics: a message, a labelled source snippet, and
//! an optional hint. Syntax errors and verifier errors (located through the
//! parser's [`SourceMap`]) render the same way.

use std::sync::Arc;

use miette::{Diagnostic, NamedSource, SourceSpan};

use super::span::{LineIndex, SourceMap, Span};
use super::{ParseErrors, parse_kernel};
use crate::verify::{Location, VerifiedKernel, VerifierErrors, verify_kernel};

/// One error in a `.kir` source, ready to render with its snippet.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
pub struct KirDiagnostic {
    /// What is wrong.
    pub message: String,
    /// 1-based line of the error.
    pub line: usize,
    /// 1-based column of the error, in characters.
    pub col: usize,
    #[source_code]
    src: NamedSource<Arc<str>>,
    #[label("{label}")]
    span: SourceSpan,
    label: &'static str,
    #[help]
    help: Option<String>,
}

impl KirDiagnostic {
    fn new(
        src: &NamedSource<Arc<str>>,
        text: &str,
        lines: &LineIndex,
        span: Span,
        message: String,
        label: &'static str,
        help: Option<String>,
    ) -> KirDiagnostic {
        let (line, col) = lines.line_col(text, span.start);
        KirDiagnostic {
            message,
            line,
            col,
            src: src.clone(),
            span: SourceSpan::new(span.start.into(), span.len()),
            label,
            help,
        }
    }

    /// The byte span the diagnostic points at.
    pub fn span(&self) -> Span {
        Span::new(self.span.offset(), self.span.offset() + self.span.len())
    }
}

fn named(name: &str, text: &str) -> NamedSource<Arc<str>> {
    NamedSource::new(name, Arc::from(text))
}

/// The syntax errors of `text` (named `name` in the snippet header) as diagnostics.
pub fn parse_diagnostics(errors: &ParseErrors, name: &str, text: &str) -> Vec<KirDiagnostic> {
    let src = named(name, text);
    let lines = LineIndex::new(text);
    errors
        .0
        .iter()
        .map(|e| {
            let m = e.message.clone();
            KirDiagnostic::new(&src, text, &lines, e.span, m, "here", e.help.clone())
        })
        .collect()
}

/// The verifier's errors as diagnostics pointing into `text`, in source order.
pub fn verifier_diagnostics(
    errors: &VerifierErrors,
    map: &SourceMap,
    name: &str,
    text: &str,
) -> Vec<KirDiagnostic> {
    let src = named(name, text);
    let lines = LineIndex::new(text);
    let mut located: Vec<(Span, usize)> = errors
        .0
        .iter()
        .enumerate()
        .map(|(i, e)| (map.span(e.location), i))
        .collect();
    located.sort_by_key(|&(span, i)| (span.start, i));
    located
        .into_iter()
        .map(|(span, i)| {
            let error = &errors.0[i];
            let label = match error.location {
                Location::Inst(_) => "in this instruction",
                _ => "here",
            };
            let m = error.message.clone();
            KirDiagnostic::new(&src, text, &lines, span, m, label, None)
        })
        .collect()
}

/// Parses and verifies `text`: the verified kernel and its source map, or
/// every syntax error (if any) else every verifier error, as diagnostics.
pub fn parse_and_verify(
    name: &str,
    text: &str,
) -> Result<(VerifiedKernel, SourceMap), Vec<KirDiagnostic>> {
    let (kernel, map) = parse_kernel(text).map_err(|e| parse_diagnostics(&e, name, text))?;
    match verify_kernel(kernel) {
        Ok(verified) => Ok((verified, map)),
        Err(errors) => Err(verifier_diagnostics(&errors, &map, name, text)),
    }
}
