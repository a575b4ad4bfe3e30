//! Drawing: a pure function of `&App`, one `render_*` per panel.
//!
//! ```text
//! ┌ slab ──────────────┐┌ IR ────────────────┐
//! │ lanes x registers  ││ listing, current   │
//! └────────────────────┘└────────────────────┘
//! ┌ shared banks ──────┐┌ stalls ────────────┐
//! │ accesses x banks   ││ reasons x time     │
//! └────────────────────┘└────────────────────┘
//!  status line
//! ```
//! Below [`SIDE_BY_SIDE_WIDTH`] columns the panels of each row take turns
//! (`Tab`). The bank inspector, the prompt and the help draw over them.

mod banks;
mod help;
mod inspector;
mod ir;
mod machine;
mod slab;
mod stalls;
mod status;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::app::{App, Panel, Prompt, PromptKind};

/// The smallest area the panels are drawn in.
pub const MIN_SIZE: (u16, u16) = (40, 12);

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
            let msg = format!(
                "terminal too small ({}x{}); simsort replay needs {}x{}. q quits.",
                area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
            );
            Paragraph::new(msg)
                .wrap(Wrap { trim: true })
                .render(area, buf);
            return;
        }
        let [main, status] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(area);
        let panels = layout(self, main);
        for (panel, rect) in panels {
            match panel {
                Panel::Slab => slab::render_slab(self, rect, buf),
                Panel::Ir => ir::render_ir(self, rect, buf),
                Panel::Banks => banks::render_banks(self, rect, buf),
                Panel::Stalls => stalls::render_stalls(self, rect, buf),
            }
            if panel == self.focus && rect.width > 2 {
                buf.set_string(rect.x + 1, rect.y, "▸", Style::new().fg(Color::Yellow));
            }
        }
        status::render_status(self, status, buf);
        if self.bank_inspector {
            inspector::render_bank_inspector(self, main, buf);
        }
        if self.machine_view > 0 {
            machine::render_machine(self, main, buf);
        }
        if let Some(p) = &self.prompt {
            render_prompt(p, status, buf);
        }
        if self.help {
            help::render_help(self, area, buf);
        }
    }
}

/// The help's text at `width` columns, plain.
#[cfg(test)]
pub(crate) fn help_text(width: usize) -> String {
    help::lines(width)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                + "\n"
        })
        .collect()
}

/// Terminals narrower than this show one panel of each row at a time
/// (`Tab` takes turns); wider ones show all four.
pub const SIDE_BY_SIDE_WIDTH: u16 = 120;

/// Where each panel goes. Side by side, the IR panel takes the width its
/// longest line needs (up to 45%) and the slab the rest; at 80 columns the
/// slab (or the IR, when focused) fills the top row and the banks (or the
/// stalls) the bottom one, so that 64 lanes and 32 banks fit.
fn layout(app: &App, main: Rect) -> Vec<(Panel, Rect)> {
    if main.width < SIDE_BY_SIDE_WIDTH {
        // A little more height for the slab: at 80x24, 16 registers in
        // half rows with the inspector line.
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(main);
        let upper = if app.focus == Panel::Ir {
            Panel::Ir
        } else {
            Panel::Slab
        };
        let lower = if app.focus == Panel::Stalls {
            Panel::Stalls
        } else {
            Panel::Banks
        };
        return vec![(upper, top), (lower, bottom)];
    }
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(main);
    let longest = app
        .replay
        .kernel()
        .source
        .lines
        .iter()
        .map(|l| l.text.chars().count())
        .max()
        .unwrap_or(0) as u16;
    // The source view's numbers take what its text leaves of at least 45%
    // (see `ir.rs`): the width that keeps the longest line whole, with
    // the borders and the separator.
    let ir_w = (longest * 20 / 9 + 3).clamp(30, main.width * 45 / 100);
    let [slab_area, ir_area] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(ir_w)]).areas(top);
    let halves = [Constraint::Percentage(50), Constraint::Percentage(50)];
    let [banks_area, stalls_area] = Layout::horizontal(halves).areas(bottom);
    vec![
        (Panel::Slab, slab_area),
        (Panel::Ir, ir_area),
        (Panel::Banks, banks_area),
        (Panel::Stalls, stalls_area),
    ]
}

/// The prompt over the status line.
fn render_prompt(p: &Prompt, area: Rect, buf: &mut Buffer) {
    let (lead, hint) = match p.kind {
        PromptKind::Jump => (
            ":",
            "cycle, pc N, w N, b N, sm N, l N or a launch label · Enter jumps · Esc",
        ),
        PromptKind::Search => (
            "/",
            "IR text · Enter finds the warp's next issue of it · Esc",
        ),
    };
    Clear.render(area, buf);
    let text = format!("{lead}{}▏", p.text);
    let n = text.chars().count();
    buf.set_string(
        area.x,
        area.y,
        fit(&text, area.width as usize),
        Style::new().fg(Color::Yellow),
    );
    if n + 2 < area.width as usize {
        let room = area.width as usize - n - 2;
        buf.set_string(
            area.x + n as u16 + 2,
            area.y,
            fit(hint, room),
            Style::new().fg(Color::DarkGray),
        );
    }
}

/// A blue-to-red colour ramp of the 256-colour palette, for `t` in 0..=1.
pub(crate) fn ramp(t: f64) -> Color {
    const RAMP: [u8; 12] = [19, 25, 31, 37, 43, 78, 114, 150, 186, 221, 215, 203];
    let i = (t.clamp(0.0, 1.0) * (RAMP.len() - 1) as f64).round() as usize;
    Color::Indexed(RAMP[i])
}

/// Eight bar heights, for `t` in 0..=1.
pub(crate) fn bar(t: f64) -> char {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    BARS[(t.clamp(0.0, 1.0) * 7.0).round() as usize]
}

/// Writes a message in a panel's inner area.
pub(crate) fn note(area: Rect, buf: &mut Buffer, text: &str) {
    Paragraph::new(Line::styled(
        text.to_string(),
        Style::new().fg(Color::DarkGray),
    ))
    .wrap(Wrap { trim: true })
    .render(area, buf);
}

/// `s` cut to `width` columns (by chars; the text here is ASCII or
/// single-width box characters).
pub(crate) fn fit(s: &str, width: usize) -> String {
    s.chars().take(width).collect()
}
