//! Keys to actions: the one place that knows the key bindings.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::Action;

/// The bindings, for the help overlay: (keys, what they do).
pub const HELP: &[(&str, &str)] = &[
    ("space", "play / pause"),
    ("+ -", "faster / slower"),
    ("→ ←  l h", "one cycle forward / back"),
    (". ,", "one instruction of the warp fwd / back"),
    ("n p", "next / previous kernel launch"),
    ("m M", "next / previous merge stage"),
    ("c C", "next / previous bank conflict"),
    ("0-9  end", "seek to 0-90% / 100% of the launch"),
    ("w W", "next / previous warp"),
    ("b B", "next / previous block"),
    ("v", "source view: sum lines over warp / block / launch"),
    ("o", "source view: sort lines by the next column"),
    ("j J", "source view: next / previous hot line"),
    ("?", "this help"),
    ("q  esc", "quit"),
];

/// The action a key press asks for, if any (releases and repeats of
/// non-movement keys are ignored).
pub fn action(key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return matches!(key.code, KeyCode::Char('c' | 'd')).then_some(Action::Quit);
    }
    Some(match key.code {
        KeyCode::Char(' ') => Action::TogglePlay,
        KeyCode::Char('+' | '=') => Action::Faster,
        KeyCode::Char('-' | '_') => Action::Slower,
        KeyCode::Right | KeyCode::Char('l') => Action::StepCycle,
        KeyCode::Left | KeyCode::Char('h') => Action::BackCycle,
        KeyCode::Char('.') => Action::StepInst,
        KeyCode::Char(',') => Action::BackInst,
        KeyCode::Char('n') => Action::NextKernel,
        KeyCode::Char('p') => Action::PrevKernel,
        KeyCode::Char('m') => Action::NextStage,
        KeyCode::Char('M') => Action::PrevStage,
        KeyCode::Char('c') => Action::NextConflict,
        KeyCode::Char('C') => Action::PrevConflict,
        KeyCode::Char(d @ '0'..='9') => Action::SeekTenths(d as u8 - b'0'),
        KeyCode::Home => Action::SeekTenths(0),
        KeyCode::End => Action::SeekTenths(10),
        KeyCode::Char('w') => Action::NextWarp,
        KeyCode::Char('W') => Action::PrevWarp,
        KeyCode::Char('b') => Action::NextBlock,
        KeyCode::Char('B') => Action::PrevBlock,
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
        // The source view.
        KeyCode::Char('v') => Action::SourceScope,
        KeyCode::Char('o') => Action::SourceSort,
        KeyCode::Char('j') => Action::HotLine,
        KeyCode::Char('J') => Action::PrevHotLine,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> Option<Action> {
        action(KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn keys_map_to_their_actions() {
        assert_eq!(press(KeyCode::Char(' ')), Some(Action::TogglePlay));
        assert_eq!(press(KeyCode::Char('7')), Some(Action::SeekTenths(7)));
        assert_eq!(press(KeyCode::End), Some(Action::SeekTenths(10)));
        assert_eq!(press(KeyCode::Right), Some(Action::StepCycle));
        assert_eq!(press(KeyCode::Char('M')), Some(Action::PrevStage));
        assert_eq!(press(KeyCode::Char('x')), None);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(ctrl_c), Some(Action::Quit));
        let mut release = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        assert_eq!(action(release), None);
    }
}
