//! The status line and the help overlay.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::app::App;
use crate::keys::HELP;

/// Kernel, cycle, block, warp, speed; or the latest note.
pub fn render_status(app: &App, area: Rect, buf: &mut Buffer) {
    let d = app.data();
    let k = &app.replay.kernel().source.name;
    let block = d.block.map_or("-".to_string(), |b| b.to_string());
    let sm = d.sm.map_or("-".to_string(), |s| s.to_string());
    let play = if app.playing { "playing" } else { "paused" };
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut spans = vec![
        Span::styled(format!(" {k} "), bold.fg(Color::Black).bg(Color::Cyan)),
        Span::raw(format!(" {}/{} ", d.launch + 1, app.replay.launch_count())),
        Span::styled(format!("cycle {} ", app.cycle), bold),
        Span::raw(format!("({}%) ", app.percent())),
        Span::raw(format!("blk {block} warp {} sm {sm} ", app.warp)),
        Span::raw(format!("{play} {}c/s ", app.speed())),
    ];
    match &app.message {
        Some(m) => spans.push(Span::styled(m.clone(), Style::new().fg(Color::Yellow))),
        None => spans.push(Span::styled("? help", Style::new().fg(Color::DarkGray))),
    }
    Paragraph::new(Line::from(spans)).render(area, buf);
}

/// The key bindings, centred over everything.
pub fn render_help(area: Rect, buf: &mut Buffer) {
    // 9 columns of keys, a space, the text, two borders.
    let text = HELP
        .iter()
        .map(|(_, t)| t.chars().count())
        .max()
        .unwrap_or(0);
    let width = (text + 12).min(area.width as usize) as u16;
    let height = (HELP.len() as u16 + 2).min(area.height);
    let x = area.x + (area.width - width) / 2;
    let y = area.y + (area.height - height) / 2;
    let r = Rect {
        x,
        y,
        width,
        height,
    };
    Clear.render(r, buf);
    let lines: Vec<Line> = HELP
        .iter()
        .map(|(k, t)| {
            Line::from(vec![
                Span::styled(format!("{k:>9} "), Style::new().fg(Color::Cyan)),
                Span::raw(*t),
            ])
        })
        .collect();
    Paragraph::new(lines)
        .block(Block::bordered().title(" keys (? closes) "))
        .render(r, buf);
}
