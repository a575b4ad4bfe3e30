//! Keys to actions: the one place that knows the key bindings.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::{Action, PromptKind};

/// The bindings, for the help overlay: (keys, what they do).
pub const HELP: &[(&str, &str)] = &[
    ("space", "play / pause"),
    ("+ -", "faster / slower"),
    ("→ ←  l h", "one cycle forward / back"),
    (". ,", "one instruction of the warp fwd / back"),
    ("n p", "next / previous kernel launch"),
    ("m M", "next / previous merge stage"),
    ("c C", "next / previous bank conflict"),
    ("0-9", "seek to 0-90% of the launch"),
    ("home end", "seek to the launch's start / end"),
    ("w W", "next / previous warp"),
    ("b B", "next / previous block"),
    ("x", "the launch's worst bank conflict (in any block)"),
    (
        "v",
        "machine view: SMs x run time by IPC, again by stall, again closes",
    ),
    (
        "[ ] ↑ ↓",
        "in the machine view: time, SM; enter opens its block and warp",
    ),
    ("s", "source view: sum lines over warp / block / launch"),
    ("o", "source view: sort lines by the next column"),
    ("t T", "source view: next / previous hot line"),
    ("tab S-tab", "focus the next / previous panel"),
    ("enter", "banks panel: open / close the bank inspector"),
    ("↑ ↓", "slab cursor row (in this help: scroll)"),
    ("[ ]", "slab cursor lane left / right"),
    ("z Z", "slab zoom in / out (fewer, wider lanes)"),
    (": g", "jump: 4388, c 4388, pc 104, w 3, b 5, sm 1, l 2, fm"),
    ("/", "search IR text: the warp's next issue of it"),
    ("?", "this help and legend"),
    ("esc", "close the prompt / inspector / help, else quit"),
    ("q", "quit"),
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
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Esc => Action::Back,
        KeyCode::Char('x') => Action::WorstConflict,
        KeyCode::Char('v') => Action::MachineView,
        // The source view.
        KeyCode::Char('s') => Action::SourceScope,
        KeyCode::Char('o') => Action::SourceSort,
        KeyCode::Char('t') => Action::HotLine,
        KeyCode::Char('T') => Action::PrevHotLine,
        KeyCode::Tab => Action::FocusNext,
        KeyCode::BackTab => Action::FocusPrev,
        KeyCode::Enter => Action::Open,
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::Char('[') => Action::LaneLeft,
        KeyCode::Char(']') => Action::LaneRight,
        KeyCode::Char('z') => Action::ZoomIn,
        KeyCode::Char('Z') => Action::ZoomOut,
        KeyCode::Char(':' | 'g') => Action::OpenPrompt(PromptKind::Jump),
        KeyCode::Char('/') => Action::OpenPrompt(PromptKind::Search),
        _ => return None,
    })
}

/// The action a key asks for while a prompt is open: text goes into it,
/// `Enter` runs it, `Esc` closes it.
pub fn prompt_action(key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return matches!(key.code, KeyCode::Char('c' | 'd')).then_some(Action::Quit);
    }
    Some(match key.code {
        KeyCode::Char(c) => Action::PromptChar(c),
        KeyCode::Backspace => Action::PromptBack,
        KeyCode::Enter => Action::Open,
        KeyCode::Esc => Action::Back,
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
        assert_eq!(press(KeyCode::Char('y')), None);
        assert_eq!(press(KeyCode::Tab), Some(Action::FocusNext));
        assert_eq!(press(KeyCode::Esc), Some(Action::Back));
        assert_eq!(press(KeyCode::Char('v')), Some(Action::MachineView));
        assert_eq!(press(KeyCode::Char('j')), Some(Action::Down));
        assert_eq!(press(KeyCode::Char('s')), Some(Action::SourceScope));
        assert_eq!(press(KeyCode::Char('o')), Some(Action::SourceSort));
        assert_eq!(press(KeyCode::Char('t')), Some(Action::HotLine));
        assert_eq!(press(KeyCode::Char('T')), Some(Action::PrevHotLine));
        assert_eq!(
            press(KeyCode::Char('/')),
            Some(Action::OpenPrompt(PromptKind::Search))
        );
        let typed = prompt_action(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
        assert_eq!(
            typed,
            Some(Action::PromptChar('q')),
            "q is text in a prompt"
        );
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(ctrl_c), Some(Action::Quit));
        let mut release = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        assert_eq!(action(release), None);
    }
}
