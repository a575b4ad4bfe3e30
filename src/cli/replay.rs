//! `simsort replay TRACE`: the terminal UI on a recorded trace.
//!
//! `--screen WxH` prints the screen the UI would show (after `--keys`, typed
//! as in the UI) as plain text instead of opening the terminal: for scripts,
//! smoke tests and captures in documentation.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use super::{Failure, output_error};

/// Arguments of `simsort replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The trace file written by `simsort --trace FILE`.
    pub trace: PathBuf,
    /// Print the screen of a WIDTHxHEIGHT terminal as text and exit.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub screen: Option<(u16, u16)>,
    /// Keys to press first, as typed in the UI (e.g. `mm.` = two merge
    /// stages on, then one instruction); with `--screen`.
    #[arg(long, value_name = "KEYS", requires = "screen", default_value = "")]
    pub keys: String,
}

fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let bad = || format!("{s:?} is not a size like 80x24 (both at least 1)");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u16, u16) = (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?);
    if w == 0 || h == 0 {
        return Err(bad());
    }
    Ok((w, h))
}

/// Runs `simsort replay`.
pub fn run(args: &ReplayArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let open = || tui::open(&args.trace).map_err(|e| Failure::input(e.to_string()));
    if let Some((w, h)) = args.screen {
        let mut app = open()?;
        tui::press_keys(&mut app, &args.keys).map_err(|c| {
            Failure::input(format!(
                "--keys: {c:?} is not a key of the replay UI (see ? in it)"
            ))
        })?;
        return out
            .write_all(tui::screen(&app, w, h).as_bytes())
            .map_err(output_error);
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        // Check the file first, so a bad trace is named even without a terminal.
        open()?;
        return Err(Failure::input(
            "simsort replay needs a terminal (use --screen WxH to print one screen as text)",
        ));
    }
    tui::run(&args.trace).map_err(|e| match e {
        tui::TuiError::Trace { .. } => Failure::input(e.to_string()),
        other => Failure::run(other.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_width_by_height() {
        assert_eq!(parse_size("80x24"), Ok((80, 24)));
        assert_eq!(parse_size("160X48"), Ok((160, 48)));
        for bad in ["80", "x24", "0x24", "80x", "axb", "99999x1"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
