//! The shared-memory banks: one row per warp-wide access of the focused
//! block up to the cursor (newest at the bottom), one column per bank,
//! coloured by how many distinct words that bank had to deliver; accesses
//! with bank conflicts are marked `✗n`. Where the panel is narrower than
//! the banks, a column stands for a group of neighbouring banks.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Widget};

use super::{fit, note};
use crate::app::App;

/// Draws the banks panel.
pub fn render_banks(app: &App, area: Rect, buf: &mut Buffer) {
    let d = app.data();
    let n = d.smem.partition_point(|a| a.cycle <= app.cycle);
    let seen = &d.smem[..n];
    let conflicts: u64 = seen.iter().map(|a| u64::from(a.conflicts)).sum();
    let wavefronts: u64 = seen.iter().map(|a| u64::from(a.wavefronts)).sum();
    let title = format!(" smem banks · {wavefronts} wavefronts · {conflicts} conflicts ");
    let title = if title.chars().count() + 2 > area.width as usize {
        format!(" banks · {wavefronts} wf · {conflicts} conflicts ")
    } else {
        title
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    if d.smem.is_empty() {
        return note(
            inner,
            buf,
            "no shared-memory accesses in this block and launch",
        );
    }
    if seen.is_empty() {
        return note(
            inner,
            buf,
            "no shared-memory access yet (c jumps to the next conflict)",
        );
    }
    let banks = seen
        .iter()
        .map(|a| a.words_per_bank.len())
        .max()
        .unwrap_or(0)
        .max(1);
    // The long label (cycle, warp, kind) and two columns per bank when they
    // fit; else the short label, and two columns per bank if those fit. The
    // short label gives up columns (down to 5) so that every bank shows:
    // at 80x24 the panel has 38 columns, for 32 banks and a 6-column label.
    // When even one column per bank does not fit (64 banks at 80x24), each
    // column shows `group` neighbouring banks (a power of two) and their
    // busiest bank's word count, so every bank is still on screen.
    let width = inner.width as usize;
    let wide = width >= 17 + banks * 2;
    let mut group = 1;
    while !wide && group < banks && banks.div_ceil(group) + 5 > width {
        group *= 2;
    }
    let shown = banks.div_ceil(group);
    let label_w: u16 = if wide {
        17
    } else {
        width.saturating_sub(shown).clamp(5, 7) as u16
    };
    if inner.width <= label_w || inner.height < 2 {
        return;
    }
    let cw = if width >= label_w as usize + shown * 2 {
        2
    } else {
        1
    };
    let shown = shown.min(((inner.width - label_w) / cw) as usize);
    // Bank numbers every 8 columns.
    for c in (0..shown).step_by(8) {
        let x = inner.x + label_w + c as u16 * cw;
        let bank = (c * group).to_string();
        buf.set_string(x, inner.y, bank, Style::new().fg(Color::DarkGray));
    }
    let head = if group == 1 {
        "bank".to_string()
    } else {
        format!("{group}/col")
    };
    buf.set_string(inner.x, inner.y, head, Style::new().fg(Color::DarkGray));
    let rows = (inner.height - 1) as usize;
    for (i, a) in seen[seen.len().saturating_sub(rows)..].iter().enumerate() {
        let y = inner.y + 1 + i as u16;
        let kind = a.kind.short();
        let mark = if a.conflicts > 0 {
            format!("✗{}", a.conflicts)
        } else {
            String::new()
        };
        let label = if wide {
            format!("{:>6} w{:<2}{kind}{mark}", a.cycle, a.warp)
        } else {
            format!("w{}{}{mark}", a.warp, &kind[..1])
        };
        let mut style = if a.conflicts > 0 {
            Style::new().fg(Color::Red)
        } else {
            Style::new()
        };
        if a.cycle == app.cycle {
            style = style.add_modifier(Modifier::REVERSED);
        }
        buf.set_string(inner.x, y, fit(&label, label_w as usize - 1), style);
        for (c, words) in a.words_per_bank.chunks(group).take(shown).enumerate() {
            let x = inner.x + label_w + c as u16 * cw;
            let (text, style) = cell(words.iter().copied().max().unwrap_or(0));
            let text = if cw == 2 { format!("{text:>2}") } else { text };
            buf.set_string(x, y, text, style);
        }
    }
}

/// A bank's cell: `·` when idle, else the word count on a colour that
/// turns from green (one word: no conflict) to red.
fn cell(words: u8) -> (String, Style) {
    let bg = match words {
        0 => return ("·".to_string(), Style::new().fg(Color::DarkGray)),
        1 => Color::Green,
        2 => Color::Yellow,
        3 | 4 => Color::LightRed,
        _ => Color::Red,
    };
    let text = if words > 9 {
        "+".to_string()
    } else {
        words.to_string()
    };
    (text, Style::new().fg(Color::Black).bg(bg))
}
