//! `simsort completions SHELL`: the shell completion script on stdout.

use std::io::Write;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Cli, Failure, output_error};

/// Arguments of `simsort completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for (for example `bash`, `zsh`, `fish`).
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Writes the completion script for `args.shell`.
pub fn run(args: &CompletionsArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "simsort", &mut script);
    out.write_all(&script).map_err(output_error)
}
