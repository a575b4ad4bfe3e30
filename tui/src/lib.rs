//! The simsort replay UI: watch a recorded GPU sort cycle by cycle.
//!
//! [`run`] opens a trace written by the `traces` crate and shows it in the
//! terminal: the focused warp's slab (lanes x key registers, coloured by
//! value, with the current compare-exchange pairs), the shared-memory banks
//! of each access, the warp's stall reasons over time, and the IR listing
//! with per-line cycles and bank conflicts.
//!
//! The structure follows ratatui's demo2 app: [`App`] holds the replay
//! cursor and selection, [`keys::action`] maps a key to an [`Action`],
//! [`App::apply`] is the only code that changes state, and `impl Widget for
//! &App` draws it with one `render_*` function per panel in `ui/`. Tests
//! build traces with [`synthetic`] and drive `apply` without a terminal.
#![deny(missing_docs)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod app;
pub mod cache;
pub mod inst;
pub mod jump;
pub mod keys;
pub mod machine;
pub mod pending;
pub mod rank;
pub mod regs;
pub mod replay;
pub mod smem;
pub mod source;
pub mod synthetic;
mod ui;

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event as TermEvent};
use ratatui::DefaultTerminal;

pub use app::{Action, App};
pub use replay::Replay;
pub use traces::TraceError;
pub use ui::MIN_SIZE;

/// Why the replay could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TuiError {
    /// The trace could not be opened or read.
    #[error("cannot replay {path}: {source}")]
    Trace {
        /// The trace file.
        path: String,
        /// What is wrong with it.
        source: traces::TraceError,
    },
    /// The terminal failed.
    #[error("terminal error: {0}")]
    Terminal(#[from] std::io::Error),
}

/// Opens the trace at `path` as an [`App`] (no terminal involved).
pub fn open(path: &Path) -> Result<App, TuiError> {
    let err = |source| TuiError::Trace {
        path: path.display().to_string(),
        source,
    };
    let file = File::open(path).map_err(|e| err(e.into()))?;
    let replay = Replay::new(Box::new(BufReader::new(file))).map_err(err)?;
    Ok(App::new(replay))
}

/// Applies the actions `keys` asks for, one character per key press (as
/// typed in the UI: `m` next stage, `.` next instruction, `5` seek to 50%,
/// ...; a newline is `Enter`, a tab `Tab`, `\x1b` `Esc`, so `:4388\n`
/// jumps to cycle 4388). Returns the first character that is not a key of
/// the UI.
pub fn press_keys(app: &mut App, keys: &str) -> Result<(), char> {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    for c in keys.chars() {
        let code = match c {
            '\n' | '\r' => KeyCode::Enter,
            '\t' => KeyCode::Tab,
            '\x1b' => KeyCode::Esc,
            '\x08' | '\x7f' => KeyCode::Backspace,
            c => KeyCode::Char(c),
        };
        let key = KeyEvent::new(code, KeyModifiers::NONE);
        let action = if app.prompt.is_some() {
            keys::prompt_action(key)
        } else {
            keys::action(key)
        };
        match action {
            Some(Action::Quit) => {}
            Some(a) => app.apply(a),
            None => return Err(c),
        }
    }
    Ok(())
}

/// The screen the UI would show in a `width` x `height` terminal, as plain
/// text lines (no colours), e.g. for `simsort replay --screen 80x24` and
/// for captures in documentation.
pub fn screen(app: &App, width: u16, height: u16) -> String {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    app.render(area, &mut buf);
    let mut text = String::new();
    for y in 0..height {
        let line: String = (0..width).map(|x| buf[(x, y)].symbol()).collect();
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// Runs the replay UI on the trace at `path` until the user quits.
///
/// The trace is opened before the terminal is touched, so a bad file is a
/// plain error. The terminal is restored on every exit path, and on a panic
/// by ratatui's panic hook.
pub fn run(path: &Path) -> Result<(), TuiError> {
    let app = open(path)?;
    let mut terminal = ratatui::try_init()?;
    let result = event_loop(&mut terminal, app);
    ratatui::try_restore()?;
    result
}

/// Frames per second while playing (when paused, the loop waits for keys).
const PLAY_FPS: u64 = 30;

fn event_loop(terminal: &mut DefaultTerminal, mut app: App) -> Result<(), TuiError> {
    let mut last = Instant::now();
    while !app.quit {
        terminal.draw(|f| f.render_widget(&app, f.area()))?;
        let timeout = if app.playing {
            Duration::from_millis(1000 / PLAY_FPS)
        } else {
            Duration::from_secs(1)
        };
        if event::poll(timeout)? {
            match event::read()? {
                TermEvent::Key(k) => {
                    let action = if app.prompt.is_some() {
                        keys::prompt_action(k)
                    } else {
                        keys::action(k)
                    };
                    if let Some(a) = action {
                        app.apply(a);
                    }
                }
                // The next draw uses the new size.
                TermEvent::Resize(..) => {}
                _ => {}
            }
        }
        let now = Instant::now();
        app.apply(Action::Tick(now - last));
        last = now;
    }
    Ok(())
}

#[cfg(test)]
mod source_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_views;
