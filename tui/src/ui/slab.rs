//! The slab: the focused warp's key registers, lanes across, registers
//! down, each key coloured by its rank in the warp's output (so a key keeps
//! its colour as it moves; [`crate::rank`]) and showing its top hex digits
//! (the whole key when zoomed in), with the current step's compare-exchange
//! pairs drawn: a bracket joining the two registers of a `cmpx`, and an
//! arrow per lane towards its `shfl.xor` partner. Cells written in the last
//! step are marked `*`, writes issued but not landed `~`; the line above
//! the footer inspects the cursor's cell (`[ ]` lanes, `↑ ↓` rows).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Widget};
use traces::{RegClass, RegRef};

use super::{bar, fit, note, ramp};
use crate::app::App;
use crate::inst::InstKind;
use crate::pending::{self, Landing};
use crate::rank::KeyRanks;
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
    let regs = match d.regs.get(app.warp as usize) {
        Some(r) if !r.is_empty() => r,
        _ => {
            let block = Block::bordered().title(" slab ");
            let inner = block.inner(area);
            block.render(area, buf);
            let f = d.block.unwrap_or(0);
            let msg = format!(
                "no register writes recorded for this warp; record it with \
                 --trace-focus block={f},warp={}",
                app.warp
            );
            return note(inner, buf, &msg);
        }
    };
    let rows = app.slab_rows();
    let lanes = regs.lanes().max(1);
    let inner_w = area.width.saturating_sub(2);
    let g = geometry(app, inner_w, lanes, &rows);
    let mut title = match d.block {
        Some(b) => format!(" slab · block {b} warp {} ", app.warp),
        None => " slab ".to_string(),
    };
    if g.lanes < lanes {
        let last = g.first + g.lanes - 1;
        let long = format!("{title}· lanes {}-{last} of {lanes}, z Z [ ] ", g.first);
        let short = format!("{title}· lanes {}-{last}/{lanes} ", g.first);
        title = if long.chars().count() + 2 <= area.width as usize {
            long
        } else {
            short
        };
    }
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let file = regs.at(app.cycle);
    let ranks = d.ranks.get(app.warp as usize).cloned().unwrap_or_default();
    let fraction = |v: u64| ranks.fraction(v);
    // `None`: not written yet at this cycle.
    let values: Vec<Option<&Vec<u64>>> = rows.iter().map(|r| file.get(r)).collect();
    let p = pairs(app);
    if inner.height < 4 || inner.width <= GUTTER {
        return;
    }
    let cell = app.cell;
    lane_header(buf, inner, &g, p.xor, cell.lane as usize);
    let avail = (inner.height - 3) as usize;
    let half = rows.len() > avail && rows.len().div_ceil(2) <= avail;
    let landings = d
        .landings
        .get(app.warp as usize)
        .map_or(&[][..], Vec::as_slice);
    let marks = Marks {
        last: pending::last_step(landings, app.cycle),
        flight: pending::in_flight(landings, app.cycle).copied().collect(),
    };
    if half {
        // Two registers per line: the upper half-block is the even one.
        let colour = |row: Option<&Vec<u64>>, lane: usize| {
            row.and_then(|r| r.get(lane))
                .map_or(Color::Reset, |&v| ramp(fraction(v)))
        };
        for (line, pair) in values.chunks(2).enumerate().take(avail) {
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
            for (i, lane) in (g.first..g.first + g.lanes).enumerate() {
                let top = colour(pair[0], lane);
                let bottom = colour(pair.get(1).copied().flatten(), lane);
                let x = inner.x + GUTTER + i as u16 * g.cw;
                for dx in 0..g.cw {
                    buf.set_string(x + dx, y, "▀", Style::new().fg(top).bg(bottom));
                }
            }
        }
    } else {
        let focus_row = p
            .rows
            .and_then(|(lo, _)| rows.iter().position(|r| *r == lo))
            .unwrap_or(cell.row);
        let first = window_start(rows.len(), avail, focus_row);
        for (line, (i, (reg, row))) in rows
            .iter()
            .zip(&values)
            .enumerate()
            .skip(first)
            .take(avail)
            .enumerate()
        {
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
            let cursor = (i == cell.row).then_some(cell.lane as usize);
            match row {
                Some(row) => g.row(buf, inner, y, *reg, row, &fraction, hot, cursor, &marks),
                None => g.unwritten(buf, inner, y, *reg, &marks),
            }
        }
    }
    let y = inner.y + inner.height - 2;
    let text = inspect(app, &rows, &values, &ranks, &marks, inner.width as usize);
    buf.set_string(
        inner.x,
        y,
        fit(&text, inner.width as usize),
        Style::new().fg(Color::White),
    );
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

/// The inspector line: the cursor cell's register, lane, whole key, its
/// rank in the warp's output and where it ends up.
fn inspect(
    app: &App,
    rows: &[RegRef],
    values: &[Option<&Vec<u64>>],
    ranks: &KeyRanks,
    marks: &Marks,
    width: usize,
) -> String {
    let c = app.cell;
    let Some(reg) = rows.get(c.row) else {
        return String::new();
    };
    let lane = c.lane as usize;
    let Some(v) = values[c.row].and_then(|r| r.get(lane)).copied() else {
        return format!("▼ {reg} lane {lane}: not written yet");
    };
    let digits = digits_of(*reg);
    let state = if marks.pending(*reg, lane) {
        " · ~ pending"
    } else if marks.written(*reg, lane) {
        " · * written"
    } else {
        ""
    };
    let end = match ranks.place(v) {
        Some(p) => format!(" · ends lane {} {} (#{})", p.lane, p.reg, p.position),
        None => " · not in this warp's output at the end".to_string(),
    };
    // Whole parts only: the later ones give way when the line is short.
    let parts = [
        format!("▼ {reg} lane {lane} = {v:0digits$x}"),
        format!(" · rank {} of {}", ranks.rank(v), ranks.len()),
        end,
        state.to_string(),
    ];
    let mut text = String::new();
    for p in parts {
        if text.chars().count() + p.chars().count() > width {
            break;
        }
        text.push_str(&p);
    }
    text
}

/// The marks of the last step's writes and of the writes in flight.
struct Marks<'a> {
    last: &'a [Landing],
    flight: Vec<Landing>,
}

impl Marks<'_> {
    fn written(&self, reg: RegRef, lane: usize) -> bool {
        self.last
            .iter()
            .any(|l| l.reg == reg && l.mask >> lane & 1 == 1)
    }

    fn pending(&self, reg: RegRef, lane: usize) -> bool {
        self.flight
            .iter()
            .any(|l| l.reg == reg && l.mask >> lane & 1 == 1)
    }

    /// `~` pending, `*` just written, else none.
    fn glyph(&self, reg: RegRef, lane: usize) -> Option<char> {
        if self.pending(reg, lane) {
            Some('~')
        } else if self.written(reg, lane) {
            Some('*')
        } else {
            None
        }
    }
}

/// Hex digits of a register's keys.
fn digits_of(reg: RegRef) -> usize {
    if reg.class == RegClass::B64 { 16 } else { 8 }
}

/// Which lanes show and how wide: `lanes >> zoom` lanes (fewer when even
/// one column each does not fit), the window holding the cursor's lane,
/// each cell up to a whole key and a gap wide.
fn geometry(app: &App, inner_w: u16, lanes: usize, rows: &[RegRef]) -> Grid {
    let avail = inner_w.saturating_sub(GUTTER) as usize;
    let digits = rows.iter().map(|r| digits_of(*r)).max().unwrap_or(8);
    let mut shown = (lanes >> app.zoom).max(1);
    if avail < shown {
        shown = avail.max(1);
    }
    let cw = (avail / shown).clamp(1, digits + 1) as u16;
    let cursor = (app.cell.lane as usize).min(lanes - 1);
    let first = (cursor / shown * shown).min(lanes - shown);
    Grid {
        cw,
        first,
        lanes: shown,
    }
}

/// The arrow row: each lane points to its xor partner; else lane numbers
/// every 8 lanes (each cut to its room, never over the border); `▼` over
/// the cursor's lane.
fn lane_header(buf: &mut Buffer, inner: Rect, g: &Grid, xor: Option<u32>, cursor: usize) {
    let right = inner.x + inner.width;
    for (i, lane) in (g.first..g.first + g.lanes).enumerate() {
        let x = inner.x + GUTTER + i as u16 * g.cw;
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
        let room = (right - x).min(8 * g.cw) as usize;
        buf.set_string(x, inner.y, fit(&s, room), style);
    }
    if (g.first..g.first + g.lanes).contains(&cursor) {
        let x = inner.x + GUTTER + (cursor - g.first) as u16 * g.cw;
        buf.set_string(x, inner.y, "▼", Style::new().fg(Color::White));
    }
    if let Some(m) = xor {
        buf.set_string(
            inner.x,
            inner.y,
            fit(&format!("^{m:<4}"), GUTTER as usize),
            Style::new().fg(Color::Yellow),
        );
    }
}

/// The first register row shown, so that row `focus` (the compared pair
/// or the cursor) is in view.
fn window_start(rows: usize, avail: usize, focus: usize) -> usize {
    if rows <= avail {
        return 0;
    }
    focus.saturating_sub(avail / 3).min(rows - avail)
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

/// Geometry of the cells: lanes `first..first + lanes`, `cw` columns each.
struct Grid {
    cw: u16,
    first: usize,
    lanes: usize,
}

impl Grid {
    fn unwritten(&self, buf: &mut Buffer, inner: Rect, y: u16, reg: RegRef, marks: &Marks) {
        for (i, lane) in (self.first..self.first + self.lanes).enumerate() {
            let x = inner.x + GUTTER + i as u16 * self.cw;
            buf.set_string(x, y, "·", Style::new().fg(Color::DarkGray));
            if let Some(m) = marks.glyph(reg, lane) {
                let x = x + self.cw - 1;
                buf.set_string(x, y, m.to_string(), Style::new().fg(Color::White));
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        buf: &mut Buffer,
        inner: Rect,
        y: u16,
        reg: RegRef,
        row: &[u64],
        fraction: &dyn Fn(u64) -> f64,
        hot: bool,
        cursor: Option<usize>,
        marks: &Marks,
    ) {
        let digits = digits_of(reg);
        for (i, lane) in (self.first..self.first + self.lanes).enumerate() {
            let Some(&v) = row.get(lane) else { break };
            let x = inner.x + GUTTER + i as u16 * self.cw;
            let t = fraction(v);
            let mark = marks.glyph(reg, lane);
            let mut cell = if self.cw == 1 {
                Style::new().fg(ramp(t))
            } else {
                Style::new().fg(Color::Black).bg(ramp(t))
            };
            if hot {
                cell = cell.add_modifier(Modifier::BOLD);
            }
            if cursor == Some(lane) {
                cell = cell.add_modifier(Modifier::REVERSED | Modifier::UNDERLINED);
            }
            let text = if self.cw == 1 {
                mark.unwrap_or_else(|| bar(t)).to_string()
            } else {
                // The key's top hex digits (all of them when they fit), on
                // its colour, then the mark or a gap that keeps lanes apart.
                let hex = format!("{v:0digits$x}");
                let n = (self.cw as usize - 1).min(digits);
                format!("{}{}", &hex[..n], mark.unwrap_or(' '))
            };
            buf.set_string(x, y, fit(&text, self.cw as usize), cell);
        }
    }
}
