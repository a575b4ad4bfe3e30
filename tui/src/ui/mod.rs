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

mod banks;
mod ir;
mod slab;
mod stalls;
mod status;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::app::App;

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
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(main);
        let halves = [Constraint::Percentage(50), Constraint::Percentage(50)];
        let [slab_area, ir_area] = Layout::horizontal(halves).areas(top);
        let [banks_area, stalls_area] = Layout::horizontal(halves).areas(bottom);
        slab::render_slab(self, slab_area, buf);
        ir::render_ir(self, ir_area, buf);
        banks::render_banks(self, banks_area, buf);
        stalls::render_stalls(self, stalls_area, buf);
        status::render_status(self, status, buf);
        if self.help {
            status::render_help(area, buf);
        }
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
