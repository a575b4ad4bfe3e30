//! `simsort`: the command-line front end. Parsing and dispatch live in
//! `cli/`; this file only turns their result into output and an exit status.

use std::io::Write;
use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors to
            // stderr with status 2.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let mut stdout = std::io::stdout().lock();
    match cli::run(cli, &mut stdout) {
        Ok(()) => ExitCode::SUCCESS,
        // Stopped because nobody reads the output (`| head`): as quiet as
        // a write to the closed pipe would have ended it.
        Err(_) if simsort::signals::stdout_closed() => ExitCode::SUCCESS,
        Err(failure) => {
            let _ = stdout.flush();
            if !failure.message.is_empty() {
                eprintln!("{}", cli::error_text(&failure.message));
            }
            ExitCode::from(failure.status)
        }
    }
}
