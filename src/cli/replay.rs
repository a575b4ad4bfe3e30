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
    /// stages on, then one instruction; a newline is Enter and a tab Tab,
    /// so `$':4388\n'` jumps to cycle 4388); with `--screen`.
    #[arg(long, value_name = "KEYS", requires = "screen", default_value = "")]
    pub keys: String,
}

/// The largest `--screen` side: a text screen beyond this is no use, and
/// its cells would cost memory.
const MAX_SIDE: u16 = 1000;

fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let allowed = format!("give WIDTHxHEIGHT like 80x24, each 1..={MAX_SIDE}");
    let bad = |why: &str| format!("{s:?} {why}; {allowed}");
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| bad("is not a size"))?;
    let side = |v: &str| match v.trim().parse::<u64>() {
        Ok(n) if (1..=u64::from(MAX_SIDE)).contains(&n) => Ok(n as u16),
        Ok(n) => Err(bad(&format!("has a side of {n}, outside 1..={MAX_SIDE}"))),
        Err(_) => Err(bad(&format!("has a side `{v}` that is not a number"))),
    };
    Ok((side(w)?, side(h)?))
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

    #[test]
    fn screen_sizes_name_the_allowed_range() {
        assert_eq!(parse_size("80x24"), Ok((80, 24)));
        let e = parse_size("100000x100000").unwrap_err();
        assert!(e.contains("side of 100000, outside 1..=1000"), "{e}");
        assert!(parse_size("0x24").unwrap_err().contains("side of 0"));
        assert!(parse_size("80").unwrap_err().contains("is not a size"));
    }
}
