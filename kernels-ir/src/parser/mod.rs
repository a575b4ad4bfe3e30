//! The `.kir` text parser.
//!
//! [`parse_kernel`] checks syntax only and resolves names; it returns the
//! kernel with a [`SourceMap`] so that the verifier's errors can be shown as
//! source snippets too ([`verifier_diagnostics`]). Syntax errors carry line
//! and column; several are collected per run, recovering at line
//! boundaries. No input makes the parser panic or loop: the lexer consumes
//! at least one byte per token and every parser loop consumes a token.
//!
//! ```
//! let src = "kernel k {\n    regs r1 d0 p0\n    shared 0\n    mov r0, 7\n}\n";
//! let (kernel, _map) = kernels_ir::parser::parse_kernel(src).unwrap();
//! assert_eq!(kernels_ir::printer::print_kernel(&kernel), src);
//! ```

use std::fmt;

mod diag;
mod grammar;
mod lexer;
mod span;
mod suggest;

pub use diag::{KirDiagnostic, parse_and_verify, parse_diagnostics, verifier_diagnostics};
pub use span::{LineIndex, SourceMap, Span};
pub use suggest::{closest_name, edit_distance};

use crate::kernel::Kernel;

/// One syntax error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong, lower case.
    pub message: String,
    /// Where (bytes).
    pub span: Span,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// A hint, such as the closest valid name.
    pub help: Option<String>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// Every syntax error found, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseErrors(pub Vec<ParseError>);

impl fmt::Display for ParseErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseErrors {}

/// Parses one kernel from `.kir` text: the kernel and where its parts are,
/// or every syntax error.
pub fn parse_kernel(src: &str) -> Result<(Kernel, SourceMap), ParseErrors> {
    grammar::Parser::new(src).parse()
}

#[cfg(test)]
mod tests;
