//! The stalls: for the focused warp, one timeline per reason (its issue
//! slots as `issue`, then each stall reason) over the warp's whole resident
//! life, from its block's start to its exit (each column a slice of
//! cycles, the bar height the share of it spent in that reason), with the
//! cursor's column marked, and the warp's total cycles per reason. The
//! numbers are the trace's stall charges, the same charges the report sums
//! per kernel, so issue + every reason = the warp's resident cycles. The
//! machine-wide split from the counter samples is on the last line.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Widget};
use traces::StallReason;

use super::{bar, fit, note};
use crate::app::App;

const NAME_W: u16 = 12;
const TOTAL_W: u16 = 8;

/// Draws the stalls panel.
pub fn render_stalls(app: &App, area: Rect, buf: &mut Buffer) {
    let d = app.data();
    let now = d.stall_at(app.warp, app.cycle);
    let now_text = now.map_or(String::new(), |r| format!(" · now {}", label(r)));
    let mut title = format!(" stalls · warp {} · cycles{now_text} ", app.warp);
    if title.chars().count() + 2 > area.width as usize {
        title = format!(" stall cycles · w{}{now_text} ", app.warp);
    }
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    if !d.stall_charges {
        return note(
            inner,
            buf,
            "this trace's format records no stall charges (before format 3); record it again",
        );
    }
    let (issues, charges) = (d.warp_issues(app.warp), d.warp_stalls(app.warp));
    if issues.is_empty() && charges.is_empty() {
        return note(
            inner,
            buf,
            "no issue or stall events recorded for this warp",
        );
    }
    if inner.width <= NAME_W + TOTAL_W + 4 || inner.height < 2 {
        return;
    }
    let (t0, t1) = d.resident(app.warp);
    let t1 = t1.max(t0 + 1);
    let cols = (inner.width - NAME_W - TOTAL_W) as usize;
    let len = t1 - t0;
    let mut fill = vec![vec![0u64; cols]; StallReason::COUNT];
    let mut totals = [0u64; StallReason::COUNT];
    let mut add = |reason: StallReason, s: u64, n: u64| {
        let (s, e) = (s.clamp(t0, t1), (s + n).clamp(t0, t1));
        if e > s {
            totals[reason.index()] += e - s;
            spread(&mut fill[reason.index()], s - t0, e - t0, len);
        }
    };
    for i in issues {
        add(StallReason::Selected, i.cycle, u64::from(i.slots));
    }
    for c in charges {
        add(c.reason, c.cycle, c.cycles);
    }
    let cursor_col = col_of(app.cycle.clamp(t0, t1 - 1) - t0, cols, len);
    let mut order: Vec<usize> = (0..StallReason::COUNT).filter(|&r| totals[r] > 0).collect();
    order.sort_by_key(|&r| (std::cmp::Reverse(totals[r]), r));
    let machine_line = machine_split(app);
    let footer = 1 + usize::from(machine_line.is_some());
    let rows = (inner.height as usize).saturating_sub(footer).max(1);
    let hidden = order.len().saturating_sub(rows);
    let shown = if hidden > 0 { rows - 1 } else { rows };
    for (line, &r) in order.iter().take(shown).enumerate() {
        let y = inner.y + line as u16;
        let reason = StallReason::ALL[r];
        let style = if Some(reason) == now {
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        buf.set_string(
            inner.x,
            y,
            fit(short_name(reason), NAME_W as usize - 1),
            style,
        );
        for (c, &cycles) in fill[r].iter().enumerate() {
            let width = bound(c + 1, cols, len) - bound(c, cols, len);
            let t = cycles as f64 / width.max(1) as f64;
            let x = inner.x + NAME_W + c as u16;
            let colour = if reason == StallReason::Selected {
                Color::Green
            } else {
                Color::Cyan
            };
            let mut st = Style::new().fg(colour);
            if c == cursor_col {
                st = st.bg(Color::DarkGray);
            }
            let ch = if cycles == 0 { ' ' } else { bar(t) };
            buf.set_string(x, y, ch.to_string(), st);
        }
        let total = format!("{:>w$}", totals[r], w = TOTAL_W as usize);
        buf.set_string(inner.x + inner.width - TOTAL_W, y, total, style);
    }
    if hidden > 0 {
        let rest: u64 = order[shown..].iter().map(|&r| totals[r]).sum();
        let text = format!("+{} more reasons: {rest} cycles", order.len() - shown);
        let y = inner.y + shown as u16;
        buf.set_string(
            inner.x,
            y,
            fit(&text, inner.width as usize),
            Style::new().fg(Color::DarkGray),
        );
    }
    // The cursor's column, marked on the bottom border.
    let x = inner.x + NAME_W + cursor_col as u16;
    buf.set_string(
        x,
        area.y + area.height - 1,
        "▲",
        Style::new().fg(Color::Yellow),
    );
    let issued = totals[StallReason::Selected.index()];
    let stalled: u64 = totals.iter().sum::<u64>() - issued;
    let unaccounted = len - (issued + stalled).min(len);
    let mut life = format!("resident {t0}..{t1}: {len} cycles = issue {issued} + stalls {stalled}");
    if life.chars().count() > inner.width as usize {
        life = format!("{len} cy = {issued} issue + {stalled} stall");
    }
    if unaccounted > 0 {
        life.push_str(&format!(" ({unaccounted} not charged)"));
    }
    let y = inner.y + inner.height - footer as u16;
    buf.set_string(
        inner.x,
        y,
        fit(&life, inner.width as usize),
        Style::new().fg(Color::DarkGray),
    );
    if let Some(text) = machine_line {
        let y = inner.y + inner.height - 1;
        buf.set_string(
            inner.x,
            y,
            fit(&text, inner.width as usize),
            Style::new().fg(Color::DarkGray),
        );
    }
}

/// What the panel calls a reason: `issue` for the issue slots.
fn label(r: StallReason) -> &'static str {
    match r {
        StallReason::Selected => "issue",
        other => other.name(),
    }
}

/// A name that fits the label column.
pub(super) fn short_name(r: StallReason) -> &'static str {
    match r {
        StallReason::LongScoreboard => "long_sb",
        StallReason::ShortScoreboard => "short_sb",
        StallReason::DispatchStall => "dispatch",
        StallReason::NoInstruction => "no_inst",
        StallReason::BranchResolving => "branch",
        StallReason::MioThrottle => "mio_thr",
        StallReason::NotSelected => "not_sel",
        StallReason::MathPipeThrottle => "math_pipe",
        StallReason::Selected => "issue",
        other => other.name(),
    }
}

/// Column `c` of `cols` covers cycles `[bound(c), bound(c + 1))` of `len`.
fn bound(c: usize, cols: usize, len: u64) -> u64 {
    (c as u128 * u128::from(len) / cols as u128) as u64
}

/// The column cycle `t` (relative to the start) falls in.
fn col_of(t: u64, cols: usize, len: u64) -> usize {
    // The largest c with bound(c) <= t.
    let guess = (u128::from(t) * cols as u128 / u128::from(len.max(1))) as usize;
    let mut c = guess.min(cols - 1);
    while c + 1 < cols && bound(c + 1, cols, len) <= t {
        c += 1;
    }
    while c > 0 && bound(c, cols, len) > t {
        c -= 1;
    }
    c
}

/// Adds the cycles `[s, e)` (relative to the start) to the columns they
/// fall in, exactly.
fn spread(fill: &mut [u64], s: u64, e: u64, len: u64) {
    let cols = fill.len();
    let (first, last) = (col_of(s, cols, len), col_of(e - 1, cols, len));
    for (c, f) in fill.iter_mut().enumerate().take(last + 1).skip(first) {
        let (a, b) = (bound(c, cols, len), bound(c + 1, cols, len));
        *f += e.min(b).saturating_sub(s.max(a));
    }
}

/// "machine: long_scoreboard 40% barrier 22% ..." from the counter samples.
fn machine_split(app: &App) -> Option<String> {
    let v = &app.data().machine.stall_warp_cycles;
    let total: u64 = v.iter().sum();
    if total == 0 {
        return None;
    }
    let mut parts: Vec<(u64, &str)> = v
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .filter_map(|(i, c)| StallReason::from_index(i).map(|r| (*c, r.name())))
        .collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.0));
    let text: Vec<String> = parts
        .iter()
        .map(|(c, n)| format!("{n} {}%", c * 100 / total))
        .collect();
    Some(format!("machine: {}", text.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreading_keeps_every_cycle_in_its_column() {
        for (cols, len) in [(10, 7), (7, 100), (40, 40), (3, 1000)] {
            let mut fill = vec![0; cols];
            spread(&mut fill, 0, len, len);
            assert_eq!(fill.iter().sum::<u64>(), len);
            for (c, f) in fill.iter().enumerate() {
                assert_eq!(*f, bound(c + 1, cols, len) - bound(c, cols, len));
            }
            let mut one = vec![0; cols];
            spread(&mut one, len / 2, len / 2 + 1, len);
            assert_eq!(one[col_of(len / 2, cols, len)], 1);
        }
    }
}
