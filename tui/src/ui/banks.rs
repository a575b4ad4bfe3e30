//! The shared-memory banks: one row per warp-wide access of the focused
//! block up to the cursor (newest at the bottom), one column per bank,
//! each cell the number of distinct words that bank delivered. Each row
//! names its warp, instruction (pc) and kind and, when it conflicts, its
//! conflicts in full (`✗15`); the selected access (the focused warp's
//! latest) is marked `▶`. Where the panel is narrower than the labels and
//! the banks, a column stands for a group of neighbouring banks.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Widget};

use super::{fit, note};
use crate::app::App;
use crate::replay::SmemRec;

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
    if inner.height < 2 {
        return;
    }
    let banks = seen
        .iter()
        .map(|a| a.words_per_bank.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let width = inner.width as usize;
    let rows = (inner.height - 1) as usize;
    let first = seen.len().saturating_sub(rows);
    let selected = app.selected_access();
    // The long labels (with the cycle) when they and two columns per bank
    // fit; else the short ones. Labels are never cut: the banks give way,
    // a column standing for `group` neighbouring banks (a power of two),
    // showing the busiest one's count, so every bank stays on screen.
    let label_of = |wide: bool, a: &SmemRec| label(a, wide);
    let label_w = |wide: bool| {
        seen[first..]
            .iter()
            .map(|a| label_of(wide, a).chars().count())
            .max()
            .unwrap_or(0)
            + 2
    };
    let wide = width >= label_w(true) + banks * 2;
    let label_w = label_w(wide);
    if width <= label_w {
        return note(
            inner,
            buf,
            "too narrow for the banks: Tab gives them the width",
        );
    }
    let mut group = 1;
    while group < banks && banks.div_ceil(group) + label_w > width {
        group *= 2;
    }
    let shown = banks.div_ceil(group);
    let cw = if width >= label_w + shown * 2 { 2 } else { 1 };
    let x0 = inner.x + label_w as u16;
    // Bank numbers every 8 columns, each cut to its 8 columns.
    for c in (0..shown).step_by(8) {
        let x = x0 + (c as u16) * cw;
        let room = (width - label_w)
            .saturating_sub(c * cw as usize)
            .min(8 * cw as usize);
        let text = fit(&(c * group).to_string(), room);
        buf.set_string(x, inner.y, text, Style::new().fg(Color::DarkGray));
    }
    let head = if group == 1 {
        "bank".to_string()
    } else {
        format!("{group}/col")
    };
    buf.set_string(
        inner.x,
        inner.y,
        fit(&head, label_w - 1),
        Style::new().fg(Color::DarkGray),
    );
    for (i, a) in seen[first..].iter().enumerate() {
        let y = inner.y + 1 + i as u16;
        let is_sel = selected == Some(first + i);
        let mut style = if a.conflicts > 0 {
            Style::new().fg(Color::Red)
        } else {
            Style::new()
        };
        if is_sel {
            style = style.add_modifier(Modifier::REVERSED);
        }
        let mark = if is_sel { "▶" } else { " " };
        buf.set_string(inner.x, y, mark, Style::new().fg(Color::Yellow));
        buf.set_string(inner.x + 1, y, label_of(wide, a), style);
        for (c, words) in a.words_per_bank.chunks(group).take(shown).enumerate() {
            let x = x0 + c as u16 * cw;
            let (text, style) = cell(words.iter().copied().max().unwrap_or(0), cw);
            buf.set_string(x, y, text, style);
        }
    }
}

/// A row's label: warp, pc, kind and conflicts, with the cycle when wide.
fn label(a: &SmemRec, wide: bool) -> String {
    let mark = if a.conflicts > 0 {
        format!("✗{}", a.conflicts)
    } else {
        String::new()
    };
    let kind = a.kind.short();
    if wide {
        format!("{:>6} w{:<2} pc{:<4} {kind}{mark}", a.cycle, a.warp, a.pc)
    } else {
        format!("w{} pc{} {kind}{mark}", a.warp, a.pc)
    }
}

/// A bank's cell, `cw` columns: `·` when idle, else the distinct words it
/// delivered: the number, or in one column `1`-`9` then `a` (10) to `z`
/// (35) and `+` beyond, so a 16-way conflict (`g`) never reads as a 10-way
/// one; on a colour from green (one word: no conflict) to magenta.
pub(crate) fn cell(words: u8, cw: u16) -> (String, Style) {
    let bg = match words {
        0 => {
            let dot = format!("{:>w$}", "·", w = cw as usize);
            return (dot, Style::new().fg(Color::DarkGray));
        }
        1 => Color::Green,
        2 => Color::Yellow,
        3 | 4 => Color::LightRed,
        5..=8 => Color::Red,
        _ => Color::Magenta,
    };
    let text = if (cw >= 2 && words < 100) || cw >= 3 {
        format!("{words:>w$}", w = cw as usize)
    } else {
        let c = match words {
            1..=9 => char::from(b'0' + words),
            10..=35 => char::from(b'a' + words - 10),
            _ => '+',
        };
        format!("{c:>w$}", w = cw as usize)
    };
    (text, Style::new().fg(Color::Black).bg(bg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sixteen_way_cell_does_not_read_as_a_ten_way_one() {
        let one = |w| cell(w, 1).0;
        assert_eq!(
            [one(1), one(9), one(10), one(16), one(35), one(36)],
            ["1", "9", "a", "g", "z", "+"]
        );
        assert_eq!(cell(16, 2).0, "16");
        assert_eq!(cell(0, 2).0, " ·");
    }
}
