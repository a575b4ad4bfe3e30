//! `simsort check FILE.kir`: parse and verify IR text, print it canonically.

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Args;
use kernels_ir::parser::parse_and_verify;
use kernels_ir::printer::print_kernel;

use super::{Failure, output_error, render_diagnostics};

/// Arguments of `simsort check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The `.kir` file to check, or `-` for standard input.
    pub file: PathBuf,
}

/// Reads the file (or stdin) as UTF-8 text: its display name and contents.
pub(crate) fn read_source(path: &PathBuf) -> Result<(String, String), Failure> {
    let (name, bytes) = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::input(format!("cannot read standard input: {e}")))?;
        ("<stdin>".to_string(), bytes)
    } else {
        let name = path.display().to_string();
        let bytes =
            std::fs::read(path).map_err(|e| Failure::input(format!("cannot read {name}: {e}")))?;
        (name, bytes)
    };
    match String::from_utf8(bytes) {
        // A UTF-8 byte-order mark (some Windows editors write one) is not
        // part of the kernel.
        Ok(text) => match text.strip_prefix('\u{feff}') {
            Some(rest) => Ok((name, rest.to_string())),
            None => Ok((name, text)),
        },
        Err(e) => Err(Failure::input(format!(
            "{name} is not UTF-8 text (bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ))),
    }
}

/// Runs `simsort check`.
pub fn run(args: &CheckArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let (name, text) = read_source(&args.file)?;
    match parse_and_verify(&name, &text) {
        Ok((kernel, _)) => out
            .write_all(print_kernel(kernel.kernel()).as_bytes())
            .map_err(output_error),
        Err(diagnostics) => {
            let n = diagnostics.len();
            let summary = format!(
                "error: {name}: {n} error{} (nothing printed)",
                if n == 1 { "" } else { "s" }
            );
            Err(Failure::input(format!(
                "{}\n\n{summary}",
                render_diagnostics(&diagnostics, &name, &text)
            )))
        }
    }
}
