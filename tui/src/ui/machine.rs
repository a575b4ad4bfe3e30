//! The machine view (`v`): SMs down, the whole run's time across (every
//! launch in order, each as long as it ran, numbered on the top row), each
//! cell the SM's issue rate (IPC) or its dominant stall over that slice,
//! from the counter samples; `▶` marks the selected SM and `▲` the cursor's
//! column. `Enter` opens the block and warp that SM ran at the cursor.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Clear, Widget};
use traces::StallReason;

use super::{fit, note};
use crate::app::App;
use crate::machine::Cell;

/// IPC shades, by quarter of the peak.
pub const SHADES: [char; 5] = [' ', '░', '▒', '▓', '█'];

/// A letter for each stall reason (the legend lists them).
pub fn letter(r: StallReason) -> char {
    match r {
        StallReason::LongScoreboard => 'L',
        StallReason::ShortScoreboard => 'S',
        StallReason::MioThrottle => 'M',
        StallReason::LgThrottle => 'G',
        StallReason::Barrier => 'B',
        StallReason::MathPipeThrottle => 'P',
        StallReason::NotSelected => 'N',
        StallReason::Wait => 'W',
        StallReason::DispatchStall => 'D',
        StallReason::NoInstruction => 'I',
        StallReason::BranchResolving => 'R',
        StallReason::Membar => 'F',
        StallReason::Selected => '=',
    }
}

fn colour(r: StallReason) -> Color {
    match r {
        StallReason::LongScoreboard | StallReason::LgThrottle => Color::Red,
        StallReason::ShortScoreboard | StallReason::MioThrottle => Color::Magenta,
        StallReason::Barrier | StallReason::Membar => Color::Yellow,
        StallReason::NotSelected | StallReason::Selected => Color::Green,
        _ => Color::Cyan,
    }
}

/// Draws the machine view over `area`.
pub fn render_machine(app: &App, area: Rect, buf: &mut Buffer) {
    Clear.render(area, buf);
    let by_stall = app.machine_view == 2;
    let mode = if by_stall { "dominant stall" } else { "IPC" };
    let Some(run) = app.replay.run_machine() else {
        let block = Block::bordered().title(format!(" machine · {mode} "));
        let inner = block.inner(area);
        block.render(area, buf);
        return note(
            inner,
            buf,
            "the machine view could not be read (see the status line)",
        );
    };
    let n = run.launches.len();
    let long = format!(" machine · {mode} · v colour ↑↓ SM [ ] time n p launch Enter opens ");
    let title = if long.chars().count() + 2 <= area.width as usize {
        long
    } else {
        format!(" machine · {mode} · v ↑↓ [ ] n p Enter ")
    };
    let block = Block::bordered().title(fit(&title, area.width.saturating_sub(2) as usize));
    let inner = block.inner(area);
    block.render(area, buf);
    let d = app.data();
    if run.sms == 0 {
        return note(
            inner,
            buf,
            "the trace holds no counter samples or blocks to show",
        );
    }
    let label_w = 7u16;
    if inner.width <= label_w + 4 || inner.height < 5 {
        return;
    }
    let cols = (inner.width - label_w) as usize;
    let widths = run.widths(cols);
    let grid = run.grid(&widths);
    let cursor_col = run.column(&widths, d.launch, app.cycle);
    let grey = Style::new().fg(Color::DarkGray);
    let here = Style::new().fg(Color::Yellow);
    // The launch row: each launch's columns, its number where it begins.
    buf.set_string(inner.x, inner.y, "launch", grey);
    let mut x = inner.x + label_w;
    for (i, &w) in widths.iter().enumerate() {
        if w == 0 {
            continue;
        }
        let style = if i == d.launch { here } else { grey };
        let number = (i + 1).to_string();
        let mark = if number.len() <= w {
            format!("{number}{}", "─".repeat(w - number.len()))
        } else {
            format!("│{}", "─".repeat(w - 1))
        };
        buf.set_string(x, inner.y, mark, style);
        x += w as u16;
    }
    let sms = run.sms as usize;
    let sel = (app.machine_sm as usize).min(sms - 1);
    let peak = grid
        .iter()
        .flatten()
        .map(|c| c.issued)
        .max()
        .unwrap_or(0)
        .max(1);
    let launch = &run.launches[d.launch.min(n - 1)];
    let runs = match launch.machine.block_at(sel as u32, app.cycle) {
        Some(b) => format!("sm{sel} runs block {b}"),
        None if !launch.machine.complete => format!(
            "launch {} not read (too many events in this old trace)",
            d.launch + 1
        ),
        None => format!("sm{sel} runs no block"),
    };
    let at = format!(
        "{runs} at cycle {} of launch {}/{n} {} ({}..{})",
        app.cycle,
        d.launch + 1,
        launch.title,
        launch.start,
        launch.end
    );
    // The legend and the cursor's line, each on up to two lines, whole
    // words; the SM rows take what is left.
    let width = inner.width as usize;
    let footer_of = |shown: &str| -> Vec<String> {
        let key = if by_stall {
            let mut seen: Vec<StallReason> =
                grid.iter().flatten().filter_map(Cell::dominant).collect();
            seen.sort();
            seen.dedup();
            let parts: Vec<String> = seen
                .iter()
                .map(|r| format!("{}={}", letter(*r), super::stalls::short_name(*r)))
                .collect();
            format!("{shown}{} (· no stall sampled)", parts.join(" "))
        } else {
            format!("{shown}issued, of the busiest column's {peak}: ░ ≤¼ ▒ ≤½ ▓ ≤¾ █ more")
        };
        let mut lines: Vec<String> = super::help::wrap(&key, width).into_iter().take(2).collect();
        lines.extend(super::help::wrap(&at, width).into_iter().take(2));
        lines
    };
    // Whether every SM fits decides the legend's first words.
    let room = |footer: usize| (inner.height as usize).saturating_sub(2 + footer);
    let mut footer = footer_of("");
    let mut rows = room(footer.len());
    let mut first = 0;
    if sms > rows {
        let guess = footer_of(&format!("SMs {sms}-{sms} of {sms} · "));
        rows = room(guess.len());
        first = sel.saturating_sub(rows / 2).min(sms.saturating_sub(rows));
        footer = footer_of(&format!(
            "SMs {first}-{} of {sms} · ",
            (first + rows).min(sms).saturating_sub(1)
        ));
    }
    if rows == 0 {
        return;
    }
    for (line, sm) in (first..sms).take(rows).enumerate() {
        let y = inner.y + 1 + line as u16;
        let mark = if sm == sel { "▶" } else { " " };
        buf.set_string(inner.x, y, mark, here);
        buf.set_string(inner.x + 1, y, fit(&format!("sm{sm}"), 6), grey);
        for (c, cell) in grid[sm].iter().enumerate() {
            let (ch, mut style) = glyph(cell, peak, by_stall);
            if sm == sel && c == cursor_col {
                style = style.add_modifier(Modifier::REVERSED);
            }
            buf.set_string(inner.x + label_w + c as u16, y, ch.to_string(), style);
        }
    }
    let y = inner.y + 1 + rows.min(sms) as u16;
    buf.set_string(inner.x + label_w + cursor_col as u16, y, "▲", here);
    let y = inner.y + inner.height - footer.len() as u16;
    for (i, line) in footer.iter().enumerate() {
        buf.set_string(inner.x, y + i as u16, line, grey);
    }
}

/// A cell's glyph and style.
fn glyph(cell: &Cell, peak: u64, by_stall: bool) -> (char, Style) {
    if by_stall {
        return match cell.dominant() {
            Some(r) => (letter(r), Style::new().fg(Color::Black).bg(colour(r))),
            None => ('·', Style::new().fg(Color::DarkGray)),
        };
    }
    let q = (cell.issued * 4).div_ceil(peak).min(4) as usize;
    let q = if cell.issued == 0 { 0 } else { q.max(1) };
    (SHADES[q], Style::new().fg(Color::Cyan))
}
