//! How long opening a large trace and drawing a frame take.
//!
//! Budget (issue 6): opening a 100 MB trace under 2 s, a frame under 16 ms.
//! Run with `cargo bench -p tui --bench replay` (optionally with a trace
//! size in MB as argument: `-- 50`). It writes synthetic `full`-level
//! traces of one big block-sort launch to the temporary directory, then
//! times `tui::open` (header, index, and the decoding of the focused
//! block's part of the first launch), frames at 80x24 and 160x48 at several
//! cursor positions, and a few navigation actions. Two layouts: blocks run
//! in waves of one per SM (the index lets the reader skip most chunks),
//! and every block resident at once (the focused block's events are spread
//! over every chunk, so the whole launch is decoded: the worst case).

use std::fs::File;
use std::io::BufWriter;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use traces::{Focus, TraceLevel};
use tui::Action;
use tui::synthetic::Synthetic;

fn main() {
    let target_mb: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    // About 140 KB of trace per block of 16 warps of 32x16 keys.
    let blocks = (target_mb * 1_000_000 / 140_000).max(1) as u32;
    let base = Synthetic {
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
    scenario("waves of one block per SM (132 SMs)", &base);
    scenario(
        "every block resident at once",
        &Synthetic {
            sms: blocks,
            ..base
        },
    );
}

fn scenario(name: &str, s: &Synthetic) {
    println!("== {name}");
    let path = std::env::temp_dir().join(format!("simsort-bench-{}.trace", std::process::id()));
    let t = Instant::now();
    let out = BufWriter::new(File::create(&path).expect("create the bench trace"));
    s.write(out).expect("write the bench trace");
    let size = std::fs::metadata(&path).expect("stat").len();
    println!(
        "wrote {:.1} MB ({} blocks) in {:.2?}",
        size as f64 / 1e6,
        s.blocks,
        t.elapsed()
    );

    let t = Instant::now();
    let mut app = tui::open(&path).expect("open the bench trace");
    let open = t.elapsed();
    println!("open: {open:.2?} {}", verdict(open, Duration::from_secs(2)));

    let mut worst = Duration::ZERO;
    for (w, h) in [(80, 24), (160, 48)] {
        for tenth in [1, 5, 9] {
            app.apply(Action::SeekTenths(tenth));
            let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
            // Warm once, then time several frames.
            term.draw(|f| f.render_widget(&app, f.area()))
                .expect("draw");
            let mut times: Vec<Duration> = (0..15)
                .map(|_| {
                    let t = Instant::now();
                    term.draw(|f| f.render_widget(&app, f.area()))
                        .expect("draw");
                    t.elapsed()
                })
                .collect();
            times.sort();
            println!("frame {w}x{h} at {tenth}0%: median {:.2?}", times[7]);
            worst = worst.max(times[14]);
        }
    }
    println!(
        "slowest frame: {worst:.2?} {}",
        verdict(worst, Duration::from_millis(16))
    );
    for (name, action) in [
        ("step instruction", Action::StepInst),
        ("next stage", Action::NextStage),
        ("next conflict", Action::NextConflict),
        ("next block (decodes again)", Action::NextBlock),
    ] {
        let t = Instant::now();
        app.apply(action);
        println!("{name}: {:.2?}", t.elapsed());
    }
    let _ = std::fs::remove_file(&path);
}

fn verdict(took: Duration, budget: Duration) -> String {
    if took <= budget {
        format!("(within the {budget:?} budget)")
    } else {
        format!("(OVER the {budget:?} budget)")
    }
}
