//! The slab: the focused warp's key registers, lanes across, registers
//! down, each key coloured by its value, with the current step's
//! compare-exchange pairs drawn: a bracket joining the two registers of a
//! `cmpx`, and an arrow per lane towards its `shfl.xor` partner.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Widget};
use traces::{RegClass, RegRef};

use super::{bar, fit, note, ramp};
use crate::app::App;
use crate::inst::InstKind;
use crate::replay::{IssueRec, KernelView};

/// Columns left of the lanes: register name and pair bracket.
const GUTTER: u16 = 5;

/// What the current step compares.
#[derive(Default)]
struct Pairs {
    rows: Option<(RegRef, RegRef)>,
    xor: Option<u32>,
    text: String,
}

fn pairs(app: &App) -> Pairs {
    let d = app.data();
    let k = app.replay.kernel();
    let issues = d.warp_issues(app.warp);
    let n = issues.partition_point(|i| i.cycle <= app.cycle);
    let Some(cur) = n.checked_sub(1).map(|i| issues[i]) else {
        return Pairs::default();
    };
    let text = k
        .line_of_pc
        .get(cur.pc as usize)
        .copied()
        .flatten()
        .map_or(String::new(), |l| k.source.lines[l].text.trim().to_string());
    let mut p = Pairs {
        text: format!("pc {} {text}", cur.pc),
        ..Pairs::default()
    };
    if let InstKind::Cmpx { lo, hi } = k.kind(cur.pc) {
        p.rows = Some((lo, hi));
    }
    p.xor = exchange_mask(k, &issues[..n]);
    p
}

/// The lane mask of the cross-lane step the warp is in: walking back from
/// its latest issue, the first `shfl.xor` found, unless an in-lane compare
/// of two key registers comes first (then the step is in-lane). The
/// compares and selects after a shuffle still belong to its step.
fn exchange_mask(k: &KernelView, issues: &[IssueRec]) -> Option<u32> {
    for i in issues.iter().rev().take(256) {
        match k.kind(i.pc) {
            InstKind::ShflXor { mask, .. } => return Some(mask),
            InstKind::Cmpx { lo, hi } if k.key_regs.contains(&lo) && k.key_regs.contains(&hi) => {
                return None;
            }
            _ => {}
        }
    }
    None
}

/// Draws the slab panel.
pub fn render_slab(app: &App, area: Rect, buf: &mut Buffer) {
    let d = app.data();
    let title = match d.block {
        Some(b) => format!(" slab · block {b} warp {} ", app.warp),
        None => " slab ".to_string(),
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let regs = match d.regs.get(app.warp as usize) {
        Some(r) if !r.is_empty() => r,
        _ => {
            let f = d.block.unwrap_or(0);
            let msg = format!(
                "no register writes recorded for this warp; record it with \
                 --trace-focus block={f},warp={}",
                app.warp
            );
            return note(inner, buf, &msg);
        }
    };
    let key_regs = &app.replay.kernel().key_regs;
    let rows: Vec<RegRef> = if key_regs.is_empty() {
        regs.registers()
            .into_iter()
            .filter(|r| r.class != RegClass::Pred)
            .collect()
    } else {
        key_regs.clone()
    };
    let file = regs.at(app.cycle);
    let lanes = regs.lanes();
    // `None`: not written yet at this cycle.
    let values: Vec<Option<&Vec<u64>>> = rows.iter().map(|r| file.get(r)).collect();
    let (lo, hi) = values
        .iter()
        .flatten()
        .flat_map(|row| row.iter())
        .fold((u64::MAX, 0), |(a, b), &v| (a.min(v), b.max(v)));
    let scale = |v: u64| {
        if hi > lo {
            (v - lo) as f64 / (hi - lo) as f64
        } else {
            0.5
        }
    };
    let shift = (64 - hi.leading_zeros()).saturating_sub(8);
    let p = pairs(app);
    if inner.height < 3 || inner.width <= GUTTER {
        return;
    }
    let cw = ((inner.width - GUTTER) as usize / lanes.max(1)).clamp(1, 3) as u16;
    let shown_lanes = (((inner.width - GUTTER) / cw) as usize).min(lanes);
    lane_header(buf, inner, cw, shown_lanes, p.xor);
    let avail = (inner.height - 2) as usize;
    let half = rows.len() > avail && rows.len().div_ceil(2) <= avail;
    let grid = Grid {
        inner,
        cw,
        lanes: shown_lanes,
        shift,
    };
    if half {
        // Two registers per line: the upper half-block is the even one.
        let colour = |row: Option<&Vec<u64>>, lane: usize| {
            row.and_then(|r| r.get(lane))
                .map_or(Color::Reset, |&v| ramp(scale(v)))
        };
        for (line, pair) in values.chunks(2).enumerate() {
            let y = inner.y + 1 + line as u16;
            let label = format!("{}", rows[line * 2]);
            buf.set_string(inner.x, y, fit(&label, 3), Style::new().fg(Color::DarkGray));
            let bracket = half_bracket(&rows, line, p.rows);
            buf.set_string(
                inner.x + 3,
                y,
                bracket.to_string(),
                Style::new().fg(Color::Yellow),
            );
            for lane in 0..shown_lanes {
                let top = colour(pair[0], lane);
                let bottom = colour(pair.get(1).copied().flatten(), lane);
                let x = inner.x + GUTTER + lane as u16 * cw;
                for dx in 0..cw {
                    buf.set_string(x + dx, y, "▀", Style::new().fg(top).bg(bottom));
                }
            }
        }
    } else {
        let first = window_start(&rows, avail, p.rows);
        for (line, (reg, row)) in rows.iter().zip(&values).skip(first).take(avail).enumerate() {
            let y = inner.y + 1 + line as u16;
            let bracket = bracket_char(&rows, *reg, p.rows);
            let hot = bracket != ' ' && bracket != '│';
            let style = if hot {
                Style::new().fg(Color::Yellow)
            } else {
                Style::new().fg(Color::DarkGray)
            };
            buf.set_string(
                inner.x,
                y,
                format!("{:>3}", fit(&reg.to_string(), 3)),
                style,
            );
            buf.set_string(
                inner.x + 3,
                y,
                bracket.to_string(),
                Style::new().fg(Color::Yellow),
            );
            match row {
                Some(row) => grid.row(buf, y, row, &scale, hot),
                None => grid.unwritten(buf, y),
            }
        }
    }
    let foot = format!(
        "{} {}",
        p.text,
        app.current_stage()
            .map_or(String::new(), |s| format!("· {s}"))
    );
    let y = inner.y + inner.height - 1;
    buf.set_string(
        inner.x,
        y,
        fit(&foot, inner.width as usize),
        Style::new().fg(Color::Cyan),
    );
}

/// The arrow row: each lane points to its xor partner; else lane ticks.
fn lane_header(buf: &mut Buffer, inner: Rect, cw: u16, lanes: usize, xor: Option<u32>) {
    for lane in 0..lanes {
        let x = inner.x + GUTTER + lane as u16 * cw;
        let (s, style) = match xor {
            Some(m) => {
                let partner = lane ^ m as usize;
                let c = if partner > lane {
                    "→"
                } else if partner < lane {
                    "←"
                } else {
                    "·"
                };
                (c.to_string(), Style::new().fg(Color::Yellow))
            }
            None if lane % 8 == 0 => (format!("{lane}"), Style::new().fg(Color::DarkGray)),
            None => continue,
        };
        buf.set_string(x, inner.y, s, style);
    }
    if let Some(m) = xor {
        buf.set_string(
            inner.x,
            inner.y,
            format!("^{m:<3}"),
            Style::new().fg(Color::Yellow),
        );
    }
}

/// The first register row shown, so that the compared pair is in view.
fn window_start(rows: &[RegRef], avail: usize, pair: Option<(RegRef, RegRef)>) -> usize {
    if rows.len() <= avail {
        return 0;
    }
    let at = pair
        .and_then(|(lo, _)| rows.iter().position(|r| *r == lo))
        .unwrap_or(0);
    at.saturating_sub(avail / 3).min(rows.len() - avail)
}

/// The bracket of half-block line `line` (registers `2*line`, `2*line+1`).
fn half_bracket(rows: &[RegRef], line: usize, pair: Option<(RegRef, RegRef)>) -> char {
    let Some((a, b)) = pair else { return ' ' };
    let pos = |r: RegRef| rows.iter().position(|x| *x == r).map(|i| i / 2);
    let (Some(i), Some(j)) = (pos(a), pos(b)) else {
        return ' ';
    };
    let (top, bottom) = (i.min(j), i.max(j));
    match line {
        l if l == top && l == bottom => '[',
        l if l == top => '┌',
        l if l == bottom => '└',
        l if l > top && l < bottom => '│',
        _ => ' ',
    }
}

/// `┌` on the pair's first row, `└` on its last, `│` between; `•` on the
/// one slab row of a compare whose partner is not a slab row (a shuffled
/// copy of another lane's key).
fn bracket_char(rows: &[RegRef], reg: RegRef, pair: Option<(RegRef, RegRef)>) -> char {
    let Some((a, b)) = pair else { return ' ' };
    if (a == reg || b == reg) && !(rows.contains(&a) && rows.contains(&b)) {
        return '•';
    }
    let (Some(i), Some(j), Some(k)) = (
        rows.iter().position(|r| *r == a),
        rows.iter().position(|r| *r == b),
        rows.iter().position(|r| *r == reg),
    ) else {
        return ' ';
    };
    let (top, bottom) = (i.min(j), i.max(j));
    match k {
        k if k == top => '┌',
        k if k == bottom => '└',
        k if k > top && k < bottom => '│',
        _ => ' ',
    }
}

/// Geometry of the cells.
struct Grid {
    inner: Rect,
    cw: u16,
    lanes: usize,
    shift: u32,
}

impl Grid {
    fn unwritten(&self, buf: &mut Buffer, y: u16) {
        for lane in 0..self.lanes {
            let x = self.inner.x + GUTTER + lane as u16 * self.cw;
            buf.set_string(x, y, "·", Style::new().fg(Color::DarkGray));
        }
    }

    fn row(&self, buf: &mut Buffer, y: u16, row: &[u64], scale: &dyn Fn(u64) -> f64, hot: bool) {
        for (lane, &v) in row.iter().take(self.lanes).enumerate() {
            let x = self.inner.x + GUTTER + lane as u16 * self.cw;
            let t = scale(v);
            let mut style = Style::new().fg(ramp(t));
            if hot {
                style = style.add_modifier(Modifier::BOLD);
            }
            if self.cw == 1 {
                buf.set_string(x, y, bar(t).to_string(), style);
            } else {
                // The key's top significant hex digits, on its colour, with
                // a gap so that neighbouring lanes stay apart as text.
                let byte = (v >> self.shift) & 0xff;
                let text = if self.cw == 2 {
                    format!("{:x} ", byte >> 4)
                } else {
                    format!("{byte:02x} ")
                };
                let cell = Style::new().fg(Color::Black).bg(ramp(t));
                let cell = if hot {
                    cell.add_modifier(Modifier::BOLD)
                } else {
                    cell
                };
                buf.set_string(x, y, fit(&text, self.cw as usize), cell);
            }
        }
    }
}
