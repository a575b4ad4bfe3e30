//! The IR listing as a source view: the kernel's printed text with, per
//! line, the numbers of [`crate::source`] over the chosen scope (the
//! focused warp, its block or the whole launch): stall cycles in total and
//! for the top reasons, issue slots, shared wavefronts and excess
//! wavefronts, global sectors per request. As many columns as fit are
//! shown, most telling first; the focused warp's current instruction is
//! marked `▶`, the selected hot line `»`, and the selected line's every
//! number is spelled out on the last row.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Widget};
use traces::StallReason;

use super::fit;
use crate::app::App;
use crate::source::{self, LineStats, Scope, SortBy};

/// The narrowest the IR text may get before columns are dropped (and at
/// least this share of the panel, in percent).
const MIN_TEXT_W: usize = 20;
const MIN_TEXT_PERCENT: usize = 45;

/// One numeric column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Col {
    Stall,
    Reason(StallReason),
    Exec,
    Wavefronts,
    Excess,
    SectorsPerRequest,
}

impl Col {
    fn width(self) -> usize {
        match self {
            Col::Stall | Col::Reason(_) => 7,
            Col::Exec | Col::SectorsPerRequest => 7,
            Col::Wavefronts | Col::Excess => 6,
        }
    }

    fn sort(self) -> SortBy {
        match self {
            Col::Stall => SortBy::Stalls,
            Col::Reason(r) => SortBy::Reason(r),
            Col::Exec => SortBy::Exec,
            Col::Wavefronts => SortBy::Wavefronts,
            Col::Excess => SortBy::Excess,
            Col::SectorsPerRequest => SortBy::SectorsPerRequest,
        }
    }

    fn cell(self, l: &LineStats) -> Option<String> {
        let n = match self {
            Col::Stall => l.stall_total(),
            Col::Reason(r) => l.stalls[r.index()],
            Col::Exec => l.exec,
            Col::Wavefronts => l.wavefronts,
            Col::Excess => l.excess,
            Col::SectorsPerRequest => {
                return l.sectors_per_request().map(|s| format!("{s:.1}"));
            }
        };
        (n > 0).then(|| compact(n, self.width() - 1))
    }
}

/// `n` in at most `w` characters: whole, else with a k/M/G suffix.
fn compact(n: u64, w: usize) -> String {
    let s = n.to_string();
    if s.len() <= w {
        return s;
    }
    for (div, suffix) in [(1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T")] {
        let v = n as f64 / div;
        let t = format!("{v:.1}{suffix}");
        if t.len() <= w {
            return t;
        }
        let t = format!("{v:.0}{suffix}");
        if t.len() <= w {
            return t;
        }
    }
    "+".repeat(w)
}

/// The columns that fit `width` (leaving the text its minimum), in
/// display order: total stalls, the top reasons, issue slots, shared
/// wavefronts and excess, sectors per request. Columns that are 0 on
/// every line are left out; the sort column is always among them.
fn columns(table: &[LineStats], sort: SortBy, width: usize) -> Vec<Col> {
    let reasons = source::top_reasons(table);
    let mut by_priority = vec![Col::Stall, Col::Exec];
    let mut r = reasons.iter().map(|&r| Col::Reason(r));
    by_priority.extend(r.next());
    by_priority.push(Col::Excess);
    by_priority.extend(r.next());
    by_priority.push(Col::Wavefronts);
    by_priority.push(Col::SectorsPerRequest);
    by_priority.extend(r);
    // The sort column first of all, so it is never dropped.
    if let Some(i) = by_priority.iter().position(|c| c.sort() == sort) {
        let c = by_priority.remove(i);
        by_priority.insert(0, c);
    }
    let text = MIN_TEXT_W.max(width * MIN_TEXT_PERCENT / 100);
    let room = width.saturating_sub(text + 1);
    let mut used = 0;
    let mut chosen = Vec::new();
    for c in by_priority {
        let any = table.iter().any(|l| c.cell(l).is_some());
        if (any || c.sort() == sort) && used + c.width() <= room {
            used += c.width();
            chosen.push(c);
        }
    }
    let rank = |c: &Col| match c {
        Col::Stall => (0, 0),
        Col::Reason(r) => (1, reasons.iter().position(|x| x == r).unwrap_or(0)),
        Col::Exec => (2, 0),
        Col::Wavefronts => (3, 0),
        Col::Excess => (4, 0),
        Col::SectorsPerRequest => (5, 0),
    };
    chosen.sort_by_key(rank);
    chosen
}

fn header(c: Col) -> &'static str {
    match c {
        Col::Stall => "stall",
        Col::Reason(r) => source::short(r),
        Col::Exec => "exec",
        Col::Wavefronts => "wf",
        Col::Excess => "xwf",
        Col::SectorsPerRequest => "sec/rq",
    }
}

/// Draws the IR panel.
pub fn render_ir(app: &App, area: Rect, buf: &mut Buffer) {
    let d = app.data();
    let k = app.replay.kernel();
    let sv = &app.source;
    let table = app.source_table();
    let cur = d.current_issue(app.warp, app.cycle);
    let cur_line = cur.and_then(|i| k.line_of_pc.get(i.pc as usize).copied().flatten());
    let sel_line = sv
        .selected
        .and_then(|pc| k.line_of_pc.get(pc as usize).copied().flatten());
    let scope = match sv.scope {
        Scope::Warp => format!("warp {}", app.warp),
        Scope::Block => d
            .block
            .map_or("block -".to_string(), |b| format!("block {b}")),
        Scope::Launch => format!("launch, {} blocks", d.detail_blocks.len()),
    };
    let title = format!(
        " {} · source · {scope} · sort {} ",
        k.source.name,
        sv.sort.header()
    );
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let lines = &k.source.lines;
    let h = inner.height as usize;
    if h < 2 || (inner.width as usize) < MIN_TEXT_W {
        return;
    }
    let cols = columns(&table, sv.sort, inner.width as usize);
    let stats_w: usize = cols.iter().map(|c| c.width()).sum();
    let text_w = inner.width as usize - stats_w - 1;
    // Header row: column names (the sort column bold), then the units.
    let mut x = inner.x;
    for &c in &cols {
        let style = if c.sort() == sv.sort {
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        } else {
            Style::new().fg(Color::DarkGray)
        };
        let w = c.width();
        buf.set_string(x, inner.y, format!("{:>w$}", header(c)), style);
        x += w as u16;
    }
    buf.set_string(
        x + 1,
        inner.y,
        fit("IR (stalls in cycles)", text_w),
        Style::new().fg(Color::DarkGray),
    );
    // The rows: program order, or the pc lines by the sort column.
    let order: Vec<usize> = if sv.sort == SortBy::Line {
        (0..lines.len()).collect()
    } else {
        let mut v: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].pc.is_some())
            .collect();
        let key = |i: &usize| {
            let pc = lines[*i].pc.unwrap_or(0) as usize;
            table.get(pc).map_or(0, |l| sv.sort.key(l))
        };
        v.sort_by_key(|i| std::cmp::Reverse(key(i)));
        v
    };
    let detail = sel_line.and_then(|l| lines[l].pc).map(|pc| {
        let l = table.get(pc as usize).cloned().unwrap_or_default();
        spell_out(pc, &l)
    });
    let rows = h - 1 - usize::from(detail.is_some());
    let focus = sel_line.or(cur_line);
    let pos = focus.and_then(|f| order.iter().position(|&i| i == f));
    let first = if sv.sort == SortBy::Line || sel_line.is_some() {
        pos.map_or(0, |p| p.saturating_sub(rows / 3))
            .min(order.len().saturating_sub(rows))
    } else {
        0
    };
    for (row, &i) in order.iter().skip(first).take(rows).enumerate() {
        let line = &lines[i];
        let y = inner.y + 1 + row as u16;
        let stats = line.pc.and_then(|pc| table.get(pc as usize));
        let mut x = inner.x;
        for &c in &cols {
            let w = c.width();
            if let Some(text) = stats.and_then(|s| c.cell(s)) {
                let colour = match c {
                    Col::Excess => Color::Red,
                    Col::Stall | Col::Reason(_) => Color::Cyan,
                    _ => Color::Gray,
                };
                buf.set_string(x, y, format!("{text:>w$}"), Style::new().fg(colour));
            }
            x += w as u16;
        }
        // The current and selected lines are marked in text, not only by
        // colour.
        let (sep, sep_style) = if Some(i) == sel_line {
            ("»", Style::new().fg(Color::Magenta))
        } else if Some(i) == cur_line {
            ("▶", Style::new().fg(Color::Yellow))
        } else {
            ("│", Style::new().fg(Color::DarkGray))
        };
        buf.set_string(x, y, sep, sep_style);
        let mut style = Style::new();
        if Some(i) == cur_line {
            style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        } else if Some(i) == sel_line {
            style = style.fg(Color::Magenta).add_modifier(Modifier::BOLD);
        } else if line.pc.is_none() {
            style = style.fg(Color::DarkGray);
        }
        let text = format!("{:<text_w$}", fit(&line.text, text_w));
        buf.set_string(x + 1, y, text, style);
    }
    if let Some(text) = detail {
        let y = inner.y + inner.height - 1;
        buf.set_string(
            inner.x,
            y,
            fit(&text, inner.width as usize),
            Style::new().fg(Color::Magenta),
        );
    }
}

/// Every number of the line of `pc`, in words.
fn spell_out(pc: u32, l: &LineStats) -> String {
    let mut parts = vec![format!("» pc {pc}: stall {} cy", l.stall_total())];
    let mut reasons: Vec<(u64, StallReason)> = StallReason::ALL
        .iter()
        .map(|&r| (l.stalls[r.index()], r))
        .filter(|p| p.0 > 0)
        .collect();
    reasons.sort_by_key(|p| std::cmp::Reverse(p.0));
    if !reasons.is_empty() {
        let r: Vec<String> = reasons
            .iter()
            .map(|(n, r)| format!("{} {n}", r.name()))
            .collect();
        parts.push(format!("({})", r.join(", ")));
    }
    parts.push(format!("· exec {}", l.exec));
    if l.wavefronts > 0 {
        parts.push(format!("· wf {} excess {}", l.wavefronts, l.excess));
    }
    if let Some(s) = l.sectors_per_request() {
        parts.push(format!("· {} req {s:.2} sec/req", l.requests));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_shrink_to_their_column() {
        assert_eq!(compact(123_456, 6), "123456");
        assert_eq!(compact(1_234_567, 6), "1235k");
        assert_eq!(compact(12_345_678, 6), "12346k");
        assert_eq!(compact(12_345_678, 5), "12.3M");
        assert_eq!(compact(12_345_678_901, 4), "12G");
    }

    #[test]
    fn narrow_panels_keep_the_sort_column() {
        let mut l = LineStats {
            exec: 3,
            excess: 2,
            ..LineStats::default()
        };
        l.stalls[StallReason::Barrier.index()] = 9;
        let t = vec![l];
        let narrow = columns(&t, SortBy::Excess, MIN_TEXT_W + 1 + 13);
        assert_eq!(narrow, [Col::Stall, Col::Excess]);
        // No shared or global traffic: no such columns.
        let wide = columns(&t, SortBy::Line, 200);
        assert_eq!(
            wide,
            [
                Col::Stall,
                Col::Reason(StallReason::Barrier),
                Col::Exec,
                Col::Excess
            ]
        );
    }
}
