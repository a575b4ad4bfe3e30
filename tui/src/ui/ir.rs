//! The IR listing: the kernel's printed text, the focused warp's current
//! instruction highlighted, and per line the cycles the block's warps
//! waited to issue it and the bank conflicts it caused.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Widget};

use super::fit;
use crate::app::App;

/// Columns of the per-line numbers: cycles (6), conflicts (5), a bar.
const STATS_W: u16 = 13;

/// Draws the IR panel.
pub fn render_ir(app: &App, area: Rect, buf: &mut Buffer) {
    let d = app.data();
    let k = app.replay.kernel();
    let cur = d.current_issue(app.warp, app.cycle);
    let cur_line = cur.and_then(|i| k.line_of_pc.get(i.pc as usize).copied().flatten());
    let title = format!(" {} · cycles conflicts │ IR ", k.source.name);
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let lines = &k.source.lines;
    let h = inner.height as usize;
    if h == 0 || inner.width <= STATS_W {
        return;
    }
    let first = cur_line
        .map_or(0, |l| l.saturating_sub(h / 3))
        .min(lines.len().saturating_sub(h));
    let text_w = (inner.width - STATS_W) as usize;
    for (row, (i, line)) in lines.iter().enumerate().skip(first).take(h).enumerate() {
        let y = inner.y + row as u16;
        let stats = line
            .pc
            .and_then(|pc| d.pc_stats.get(pc as usize))
            .copied()
            .unwrap_or_default();
        if line.pc.is_some() && stats.issues > 0 {
            buf.set_string(
                inner.x,
                y,
                format!("{:>6}", stats.cycles),
                Style::new().fg(Color::DarkGray),
            );
        }
        if stats.conflicts > 0 {
            let c = format!("{:>5}", stats.conflicts);
            buf.set_string(inner.x + 6, y, c, Style::new().fg(Color::Red));
        }
        // The current line is marked in text too, not only by colour.
        let (sep, sep_style) = if Some(i) == cur_line {
            ("▶", Style::new().fg(Color::Yellow))
        } else {
            ("│", Style::new().fg(Color::DarkGray))
        };
        buf.set_string(inner.x + 12, y, sep, sep_style);
        let mut style = Style::new();
        if Some(i) == cur_line {
            style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        } else if line.pc.is_none() {
            style = style.fg(Color::DarkGray);
        }
        let text = format!("{:<text_w$}", fit(&line.text, text_w));
        buf.set_string(inner.x + STATS_W, y, text, style);
    }
}
