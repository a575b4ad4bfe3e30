//! `?`: the keys and the legend: every glyph and colour the panels draw,
//! every stall reason with its Nsight Compute metric, and what the stage
//! names mean. Long lines wrap at word boundaries; `↑`/`↓` scroll.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};
use traces::StallReason;

use super::ramp;
use super::stalls::short_name as stall_short_name;
use crate::app::App;
use crate::keys::HELP;

/// Glyphs: (glyph, what it means).
pub const GLYPHS: &[(&str, &str)] = &[
    (
        "▸",
        "before a panel's title: the focused panel (Tab moves it)",
    ),
    (
        "▶",
        "IR: the focused warp's current line; banks: the selected access (the focused warp's latest)",
    ),
    (
        "»",
        "IR: the hot line t / T selected; its numbers in words on the panel's last row",
    ),
    (
        "stall exec",
        "IR columns over the scope (s): stall cycles, then the top reasons' (long_sb ...), exec issue slots (none on a line the SASS folds away: a 64-bit packing, the second of an IMAD/IADD3/LEA pair), wf shared wavefronts, xwf excess wavefronts (conflicts), sec/rq global sectors per request",
    ),
    ("┌│└", "slab: the two rows a cmpx compares this step"),
    ("[", "slab in half rows: both compared rows share this line"),
    (
        "•",
        "slab: a row compared with a register outside the slab (a shuffled copy of a partner lane's key)",
    ),
    (
        "^1",
        "slab: this step exchanges lane l with lane l xor 1 (shfl.xor mask)",
    ),
    ("→ ←", "slab: the side of each lane's xor partner"),
    ("▼", "slab: the inspector's lane (the cursor)"),
    (
        "3fa",
        "slab cell: the key's top hex digits (z zooms to whole keys)",
    ),
    (
        "*",
        "slab: written in the last step (the latest register writes)",
    ),
    ("~", "slab: a pending write, issued but not landed yet"),
    ("·", "slab: not written yet; banks: the bank is idle"),
    (
        "▀",
        "slab in half rows: upper half the even row, lower the odd",
    ),
    (
        "✗n",
        "banks: n conflicts, the wavefronts beyond the minimum for the access width; inspector: a lane meeting another word in its bank",
    ),
    (
        "1-9 a-z +",
        "bank cell in one column: distinct words the bank delivered, a=10 ... g=16 ... z=35, + more",
    ),
    (
        "2/col",
        "banks: each column is 2 neighbouring banks (the busiest shown)",
    ),
    (
        "▁▂▃▅▇█",
        "stalls: the share of the column's cycles in that reason; slab at one column a lane: the key's rank",
    ),
    ("▲", "stalls: the cursor's column"),
    (
        "░▒▓█",
        "machine view: instructions an SM issued in the column, up to a quarter, half, three quarters, all of the busiest column's",
    ),
    (
        "L S B W",
        "machine view by stall: the column's dominant stall, L long_sb, S short_sb, M mio_thr, G lg_thr, B barrier, P math_pipe, N not_selected, W wait, D dispatch, I no_inst, R branch, F membar",
    ),
    ("…", "the rest of a list did not fit"),
];

/// Colours: (sample text, its colour, what it means).
fn colours() -> Vec<(String, Style, &'static str)> {
    let black = Style::new().fg(Color::Black);
    let ramp_cells: Vec<Color> = (0..6).map(|i| ramp(f64::from(i) / 5.0)).collect();
    let mut v = vec![];
    for (i, c) in ramp_cells.iter().enumerate() {
        let what = match i {
            0 => "slab: the key's rank in the warp's final output, smallest (blue) ...",
            5 => "... to largest (red): a key keeps its colour as it moves",
            _ => "",
        };
        if !what.is_empty() {
            v.push(("    ".to_string(), black.bg(*c), what));
        }
    }
    v.push((
        " 1 ".into(),
        black.bg(Color::Green),
        "bank: one word, no conflict",
    ));
    v.push((" 2 ".into(), black.bg(Color::Yellow), "bank: 2 words"));
    v.push((" 3 ".into(), black.bg(Color::LightRed), "bank: 3-4 words"));
    v.push((" 5 ".into(), black.bg(Color::Red), "bank: 5-8 words"));
    v.push((
        " 9 ".into(),
        black.bg(Color::Magenta),
        "bank: 9 or more words",
    ));
    v.push((
        "red".into(),
        Style::new().fg(Color::Red),
        "an access with conflicts, a colliding lane",
    ));
    v.push((
        "bold".into(),
        Style::new().fg(Color::Yellow),
        "stalls: the reason now",
    ));
    v
}

/// What each stall reason means, by index in [`StallReason::ALL`].
fn stall_meaning(r: StallReason) -> &'static str {
    match r {
        StallReason::LongScoreboard => "waiting on a global or local memory result",
        StallReason::ShortScoreboard => "waiting on a shared-memory (MIO) result",
        StallReason::MioThrottle => "the memory input/output queue is full",
        StallReason::LgThrottle => "the local/global memory queue is full",
        StallReason::Barrier => "waiting at a block barrier (bar.sync)",
        StallReason::MathPipeThrottle => "the execution pipe is busy",
        StallReason::NotSelected => "eligible, but another warp was picked",
        StallReason::Wait => "a fixed-latency dependency",
        StallReason::DispatchStall => "the dispatcher could not take the instruction",
        StallReason::NoInstruction => "no instruction fetched yet",
        StallReason::BranchResolving => "waiting for a branch target or a loop's YIELD",
        StallReason::Membar => "waiting on a memory barrier",
        StallReason::Selected => "issuing this cycle (not a stall)",
    }
}

/// Stage names the kernels mark: (name, meaning).
pub const STAGES: &[(&str, &str)] = &[
    (
        "load, lane sort",
        "HotSort: load the slab, then sort each lane's registers with a sorting network (cmpx)",
    ),
    (
        "flip f=F",
        "HotSort flip merge: lane l against lane l xor (F-1), register r against H-1-r; merges sorted runs of F/2 lanes into runs of F",
    ),
    (
        "half m=M",
        "HotSort half cleaner: lane l against lane l xor M, register r against r",
    ),
    (
        "lane merge",
        "HotSort: the in-lane half cleaners that finish a merge",
    ),
    (
        "smem ...",
        "the same step through shared memory (--merge shared)",
    ),
    (
        "block flip g=G",
        "bs/bc: merge across the block's warps through shared memory, G slabs a group",
    ),
    (
        "flip merge, half merge, block clean",
        "the fm, hm and bc kernels' merges across blocks",
    ),
    (
        "merge path",
        "mergesort: each thread searches the diagonal of the two sorted inputs for its split (Merge Path), then merge serial merges its share",
    ),
    (
        "partition search, merge ranges",
        "mergesort: split the inputs among blocks",
    ),
    ("blocksort ...", "mergesort: each block sorts its tile"),
    (
        "stage k d=D",
        "bitonic: stage k compares keys D apart, in vector registers, registers or shared memory as named",
    ),
    (
        "tail d=D, global step",
        "bitonic: the stages too wide for a block, then the block's remaining distances",
    ),
    (
        "sample, tree, histogram",
        "samplesort: pick splitters, build the search tree, count keys per bucket",
    ),
];

fn heading(text: &str) -> Line<'static> {
    Line::styled(
        text.to_string(),
        Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
    )
}

/// Words of `text` in lines of at most `width` columns.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let n = line.chars().count();
        if n > 0 && n + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

/// A term (in a `key_w` column) and its meaning wrapped beside it.
fn entry(term: Span<'static>, key_w: usize, text: &str, width: usize) -> Vec<Line<'static>> {
    let pad = key_w.saturating_sub(term.width());
    let mut lines = Vec::new();
    for (i, part) in wrap(text, width.saturating_sub(key_w + 1).max(10))
        .into_iter()
        .enumerate()
    {
        let head = if i == 0 {
            vec![term.clone(), Span::raw(" ".repeat(pad + 1))]
        } else {
            vec![Span::raw(" ".repeat(key_w + 1))]
        };
        let mut spans = head;
        spans.push(Span::raw(part));
        lines.push(Line::from(spans));
    }
    lines
}

/// Every line of the help for `width` columns.
pub fn lines(width: usize) -> Vec<Line<'static>> {
    let cyan = Style::new().fg(Color::Cyan);
    let mut out = vec![heading("keys")];
    for (k, t) in HELP {
        out.extend(entry(Span::styled(*k, cyan), 10, t, width));
    }
    out.push(heading("glyphs"));
    for (g, t) in GLYPHS {
        out.extend(entry(Span::styled(*g, cyan), 10, t, width));
    }
    out.push(heading("colours"));
    for (sample, style, t) in colours() {
        out.extend(entry(Span::styled(sample, style), 10, t, width));
    }
    out.push(heading(
        "stall reasons (panel name = Nsight Compute reason)",
    ));
    out.extend(
        wrap(
            "each is smsp__pcsamp_warps_issue_stalled_<reason>; the report gives \
         smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio. \
         Totals are warp-cycles.",
            width,
        )
        .into_iter()
        .map(Line::raw),
    );
    for r in StallReason::ALL {
        let short = stall_short_name(*r);
        let text = if short == r.name() {
            stall_meaning(*r).to_string()
        } else {
            format!("= {}: {}", r.name(), stall_meaning(*r))
        };
        out.extend(entry(Span::styled(short, cyan), 10, &text, width));
    }
    out.push(heading("stages (m M walk them)"));
    for (s, t) in STAGES {
        for l in wrap(s, width) {
            out.push(Line::styled(l, cyan));
        }
        out.extend(
            wrap(t, width.saturating_sub(2))
                .into_iter()
                .map(|l| Line::raw(format!("  {l}"))),
        );
    }
    out
}

/// The help and legend over everything, scrolled by the app's help scroll.
pub fn render_help(app: &App, area: Rect, buf: &mut Buffer) {
    let width = area.width.min(100);
    let x = area.x + (area.width - width) / 2;
    let r = Rect {
        x,
        y: area.y,
        width,
        height: area.height,
    };
    Clear.render(r, buf);
    let inner_w = width.saturating_sub(2) as usize;
    let all = lines(inner_w);
    let h = r.height.saturating_sub(2) as usize;
    let top = (app.help_scroll as usize).min(all.len().saturating_sub(h));
    let end = (top + h).min(all.len());
    let title = format!(
        " help and legend · lines {}-{end} of {} · ↑↓ scroll · ? closes ",
        top + 1,
        all.len()
    );
    let title = if title.chars().count() + 2 > width as usize {
        format!(" help {}-{end}/{} ↑↓ ", top + 1, all.len())
    } else {
        title
    };
    let shown: Vec<Line> = all.into_iter().skip(top).take(h).collect();
    Paragraph::new(shown)
        .block(Block::bordered().title(title))
        .render(r, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_never_cuts_a_word() {
        let text = "the share of the column's cycles in that reason";
        for width in 8..40 {
            for l in wrap(text, width) {
                assert!(l.chars().count() <= width, "{l:?} at {width}");
            }
            let joined = wrap(text, width).join(" ");
            assert_eq!(joined, text);
        }
    }

    #[test]
    fn the_legend_names_every_stall_reason_and_every_key() {
        let text: String = lines(78)
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.to_string())
                    .collect::<String>()
                    + "\n"
            })
            .collect();
        for r in StallReason::ALL {
            assert!(text.contains(r.name()), "{}", r.name());
        }
        for (k, _) in HELP {
            assert!(text.contains(k), "{k}");
        }
        for g in ["•", "^1", "✗n", "+", "▲", "*", "~", "▶", "▸", "»", "xwf"] {
            assert!(text.contains(g), "{g}");
        }
    }
}
