//! How long each key of the replay takes to answer: its action and the
//! next frame, at 80x24 and 200x50. Budget (issue 29): 50 ms per key on a
//! 1M-key full-level trace.
//!
//! `cargo bench -p tui --bench keys -- TRACE` times a trace you recorded,
//! e.g. `simsort --keys 1048576 --trace big.trace --trace-level full`;
//! without an argument it writes a synthetic full-level trace (about
//! 100 MB) to the temporary directory. Each key is pressed five times from
//! the middle of the first launch: the first press, the median and the
//! fastest are printed.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use traces::{Focus, TraceLevel};
use tui::Action;
use tui::app::PromptKind;
use tui::synthetic::Synthetic;

/// Every key, as the action it asks for.
fn keys() -> Vec<(&'static str, Vec<Action>)> {
    use Action::*;
    let typed = |text: &str, kind| {
        let mut v = vec![OpenPrompt(kind)];
        v.extend(text.chars().map(PromptChar));
        v.push(Open);
        v
    };
    vec![
        (
            "space (play, one 30 fps tick)",
            vec![TogglePlay, Tick(Duration::from_millis(33)), TogglePlay],
        ),
        ("+", vec![Faster]),
        ("-", vec![Slower]),
        ("l", vec![StepCycle]),
        ("h", vec![BackCycle]),
        (".", vec![StepInst]),
        (",", vec![BackInst]),
        ("m", vec![NextStage]),
        ("M", vec![PrevStage]),
        ("c", vec![NextConflict]),
        ("C", vec![PrevConflict]),
        ("x", vec![WorstConflict]),
        ("5", vec![SeekTenths(5)]),
        ("end", vec![SeekTenths(10)]),
        ("w", vec![NextWarp]),
        ("W", vec![PrevWarp]),
        ("b", vec![NextBlock]),
        ("B", vec![PrevBlock]),
        ("tab", vec![FocusNext]),
        ("enter (bank inspector)", vec![FocusNext, FocusNext, Open]),
        ("esc", vec![Back]),
        ("down", vec![Down]),
        ("]", vec![LaneRight]),
        ("z", vec![ZoomIn]),
        ("Z", vec![ZoomOut]),
        ("?", vec![ToggleHelp]),
        (": pc 40", typed("pc 40", PromptKind::Jump)),
        ("/ shared", typed("shared", PromptKind::Search)),
        ("s (source view: the launch)", vec![SourceScope]),
        ("t (hot line)", vec![HotLine]),
        ("o (sort column)", vec![SourceSort]),
        ("v (machine view)", vec![MachineView]),
        (
            "v ] enter (open an SM's block)",
            vec![MachineView, LaneRight, Open],
        ),
        ("n", vec![NextKernel]),
        ("p", vec![PrevKernel]),
    ]
}

fn main() {
    let arg = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let (path, temporary) = match arg {
        Some(p) => (PathBuf::from(p), false),
        None => (synthetic(), true),
    };
    let size = std::fs::metadata(&path).expect("stat the trace").len();
    println!("trace {} ({:.1} MB)", path.display(), size as f64 / 1e6);
    let t = Instant::now();
    let mut app = tui::open(&path).expect("open the trace");
    println!("open: {:.2?}", t.elapsed());
    // Each key is pressed five times from the middle of the first launch
    // (its first press apart: a view read once, like `v`'s, shows there);
    // the median counts, the machine being shared.
    let mut worst = (Duration::ZERO, "");
    println!(
        "{:<32} {:>10} {:>10} {:>10}   (action and two frames)",
        "key", "first", "median", "fastest"
    );
    for (name, actions) in keys() {
        let mut times = Vec::new();
        for _ in 0..5 {
            app.apply(Action::SeekTenths(5));
            let t = Instant::now();
            for a in &actions {
                app.apply(*a);
            }
            for (w, h) in [(80, 24), (200, 50)] {
                let mut term = Terminal::new(TestBackend::new(w, h)).expect("backend");
                term.draw(|f| f.render_widget(&app, f.area()))
                    .expect("draw");
            }
            times.push(t.elapsed());
            // Leave overlays, scopes and other launches for the next key.
            app.help = false;
            app.bank_inspector = false;
            app.machine_view = 0;
            while app.source.scope != tui::source::Scope::Block {
                app.apply(Action::SourceScope);
            }
            while app.data().launch != 0 {
                app.apply(Action::PrevKernel);
            }
        }
        let first = times[0];
        times.sort();
        let median = times[times.len() / 2];
        println!(
            "{name:<32} {first:>10.2?} {median:>10.2?} {:>10.2?}",
            times[0]
        );
        if median > worst.0 {
            worst = (median, name);
        }
    }
    let budget = Duration::from_millis(50);
    let verdict = if worst.0 <= budget { "within" } else { "OVER" };
    println!(
        "slowest key (median): {} {:.2?} ({verdict} the {budget:?} budget, action and two frames)",
        worst.1, worst.0
    );
    if temporary {
        let _ = std::fs::remove_file(&path);
    }
}

/// A synthetic full-level trace of about 100 MB (one big block-sort launch,
/// 16 warps a block, every block resident at once: the worst case for
/// reading one block).
fn synthetic() -> PathBuf {
    let blocks = 700;
    let s = Synthetic {
        lanes: 32,
        regs: 16,
        warps: 16,
        blocks,
        banks: 32,
        sms: 132,
        level: TraceLevel::Full,
        focus: Focus {
            block: blocks / 2,
            warp: Some(3),
        },
        seed: 7,
        label: None,
    };
    let path = std::env::temp_dir().join(format!("simsort-keys-{}.trace", std::process::id()));
    let out = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    s.write(out).expect("write the trace");
    path
}
