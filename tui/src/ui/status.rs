//! The status line and the help overlay.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::app::App;

/// Launch (its label, or its kernel's name), cycle, block, warp, speed,
/// then the latest note or the help hint. A note always shows whole: when
/// the line is too narrow for everything (80 columns), the fields make room
/// for it, least useful first.
pub fn render_status(app: &App, area: Rect, buf: &mut Buffer) {
    let d = app.data();
    let k = app.replay.launch_title();
    let block = d.block.map_or("-".to_string(), |b| b.to_string());
    let sm = d.sm.map_or("-".to_string(), |s| s.to_string());
    let play = if app.playing { "playing" } else { "paused" };
    let bold = Style::new().add_modifier(Modifier::BOLD);
    // Each field with its rank: the lowest goes first when room is short.
    let mut fields = vec![
        (
            5,
            Span::styled(format!(" {k} "), bold.fg(Color::Black).bg(Color::Cyan)),
        ),
        (
            2,
            Span::raw(format!(" {}/{} ", d.launch + 1, app.replay.launch_count())),
        ),
        (4, Span::styled(format!("cycle {} ", app.cycle), bold)),
        (1, Span::raw(format!("({}%) ", app.percent()))),
        (
            3,
            Span::raw(format!("blk {block} warp {} sm {sm} ", app.warp)),
        ),
        (0, Span::raw(format!("{play} {}c/s ", app.speed()))),
    ];
    let last = match &app.message {
        Some(m) => Span::styled(m.clone(), Style::new().fg(Color::Yellow)),
        None => Span::styled("? help", Style::new().fg(Color::DarkGray)),
    };
    // A long launch label can crowd the line without a note too; only a
    // note makes room by dropping the launch itself.
    let width = |f: &[(u8, Span)]| f.iter().map(|(_, s)| s.width()).sum::<usize>();
    let last_rank = if app.message.is_some() { 5 } else { 4 };
    for rank in 0..=last_rank {
        if width(&fields) + last.width() <= area.width as usize {
            break;
        }
        fields.retain(|(r, _)| *r != rank);
    }
    let mut spans: Vec<Span> = fields.into_iter().map(|(_, s)| s).collect();
    spans.push(last);
    Paragraph::new(Line::from(spans)).render(area, buf);
}
