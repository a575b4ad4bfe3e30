//! The bank inspector (`Enter` on the banks panel): the selected shared
//! access lane by lane. It answers "why does this access conflict": the
//! instruction, when it issued and was served, its wavefronts against the
//! minimum for its width, the banks that deliver several words with the
//! lanes that meet there, and every active lane's address and bank, the
//! colliding ones marked `✗`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use super::fit;
use crate::app::App;
use crate::smem::{self, Lanes};

/// Draws the bank inspector over `area`.
pub fn render_bank_inspector(app: &App, area: Rect, buf: &mut Buffer) {
    Clear.render(area, buf);
    let d = app.data();
    let Some(i) = app.selected_access() else {
        let block = Block::bordered().title(" bank inspector · Esc closes ");
        let inner = block.inner(area);
        block.render(area, buf);
        return super::note(inner, buf, "no shared access at or before the cursor");
    };
    let a = &d.smem[i];
    let title = format!(
        " bank inspector · block {} warp {} · Esc closes ",
        d.block.unwrap_or(0),
        a.warp
    );
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let w = inner.width as usize;
    let k = app.replay.kernel();
    let text = k
        .line_of_pc
        .get(a.pc as usize)
        .copied()
        .flatten()
        .map_or("", |l| k.source.lines[l].text.trim());
    let g = app.geometry();
    let issued = app
        .issue_of_access(i)
        .map_or(String::new(), |c| format!("issued at cycle {c}, "));
    let active = a.active.count_ones();
    let kind = match a.kind {
        traces::AccessKind::Load => "load",
        traces::AccessKind::Store => "store",
        traces::AccessKind::Atomic => "atomic",
    };
    let width = if a.bytes > 0 {
        format!("{kind} of {} bytes a lane by {active} lanes", a.bytes)
    } else {
        kind.to_string()
    };
    let minimum = a.wavefronts - a.conflicts;
    let lanes = smem::lanes(a, g);
    let per = match &lanes {
        Some(l) => format!(
            " ({} per phase of {} lanes)",
            (a.bytes / (g.banks * g.bank_bytes)).max(1),
            l.per_phase
        ),
        None => String::new(),
    };
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("pc {} ", a.pc), bold.fg(Color::Cyan)),
            Span::styled(text.to_string(), bold),
        ]),
        Line::raw(format!("{issued}served from cycle {} · {width}", a.cycle)),
        Line::from(vec![
            Span::raw(format!(
                "{} wavefronts, minimum {minimum}{per}: ",
                a.wavefronts
            )),
            Span::styled(
                format!("{} excess = {} conflicts", a.conflicts, a.conflicts),
                if a.conflicts > 0 {
                    bold.fg(Color::Red)
                } else {
                    bold.fg(Color::Green)
                },
            ),
        ]),
    ];
    let Some(l) = lanes else {
        lines.push(Line::styled(
            "this trace has no per-lane addresses (trace format 3 records them: \
             record it again with this simsort)",
            Style::new().fg(Color::DarkGray),
        ));
        return Paragraph::new(lines)
            .wrap(ratatui::widgets::Wrap { trim: true })
            .render(inner, buf);
    };
    let rows = inner.height as usize;
    // The lines above wrap: count the rows they take.
    let used: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(w.max(1)).max(1))
        .sum();
    let (cells, cell_w) = lane_cells(&l, w, rows.saturating_sub(used + 4));
    let per_row = (w / cell_w).max(1);
    let lane_rows = cells.len().div_ceil(per_row);
    let hot_room = rows.saturating_sub(used + 2 + lane_rows).max(1);
    // The header wraps; the rest is cut to fit, row by row.
    let head = Rect {
        height: (used as u16).min(inner.height),
        ..inner
    };
    Paragraph::new(std::mem::take(&mut lines))
        .wrap(ratatui::widgets::Wrap { trim: false })
        .render(head, buf);
    let inner = Rect {
        y: inner.y + head.height,
        height: inner.height - head.height,
        ..inner
    };
    if l.hot.is_empty() {
        lines.push(Line::styled(
            "no bank delivers two different words in one phase",
            Style::new().fg(Color::Green),
        ));
    } else {
        let shown = if l.hot.len() > hot_room {
            hot_room.saturating_sub(1).max(1)
        } else {
            l.hot.len()
        };
        for h in &l.hot[..shown] {
            let lanes: Vec<String> = h.lanes.iter().map(u32::to_string).collect();
            let head = format!(
                "bank {:>2} phase {}: {} words ← lanes ",
                h.bank, h.phase, h.words
            );
            let room = w.saturating_sub(head.chars().count());
            let list = lanes.join(" ");
            let list = if list.chars().count() > room {
                format!("{}…", fit(&list, room.saturating_sub(1)))
            } else {
                list
            };
            lines.push(Line::from(vec![
                Span::styled(head, Style::new().fg(Color::Red)),
                Span::raw(list),
            ]));
        }
        if shown < l.hot.len() {
            lines.push(Line::styled(
                format!("… {} more banks deliver several words", l.hot.len() - shown),
                Style::new().fg(Color::DarkGray),
            ));
        }
    }
    lines.push(Line::styled(
        "lane address bank (✗: meets another word in its bank)",
        Style::new().fg(Color::DarkGray),
    ));
    for chunk in cells.chunks(per_row) {
        lines.push(Line::from(chunk.to_vec()));
    }
    Paragraph::new(lines).render(inner, buf);
}

/// One span per active lane, `✗` and red when it collides, and the width
/// of one: with addresses when `rows` rows hold them all, else lane and
/// bank only.
fn lane_cells(l: &Lanes, width: usize, rows: usize) -> (Vec<Span<'static>>, usize) {
    let top = l.lanes.iter().map(|x| x.addr).max().unwrap_or(0);
    let digits = (format!("{top:x}").len()).max(2);
    let long = 1 + 2 + 1 + 2 + digits + 1 + 3 + 2;
    let short = 1 + 2 + 2 + 2 + 2;
    let fits = |cw: usize| l.lanes.len().div_ceil((width / cw).max(1)) <= rows;
    let cw = if fits(long) { long } else { short };
    let cells = l
        .lanes
        .iter()
        .map(|x| {
            let mark = if x.collides { '✗' } else { ' ' };
            let text = if cw == long {
                format!(
                    "{mark}{:>2} 0x{:0digits$x} b{:<2}  ",
                    x.lane, x.addr, x.bank
                )
            } else {
                format!("{mark}{:>2}:b{:<2}  ", x.lane, x.bank)
            };
            let style = if x.collides {
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            Span::styled(fit(&text, cw), style)
        })
        .collect();
    (cells, cw)
}
