//! The replay UI through the real binary: `--screen` captures, and a smoke
//! test in tmux (when the machine has tmux) that drives the interactive UI,
//! resizes it, and checks that quitting restores the terminal.

use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::traces::{scratch, synthetic_trace};
use crate::util::{simsort_bin, tool_available};

#[test]
fn replay_screen_prints_the_panels_after_the_keys() {
    let dir = scratch("screen");
    let trace = synthetic_trace(&dir, "run.trace");
    let out = Command::new(simsort_bin())
        .args([
            "replay",
            trace.to_str().unwrap(),
            "--screen",
            // Side by side (below 120 columns the panels take turns).
            "160x48",
            "--keys",
            "mmm.",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().count(), 48);
    for panel in [
        "slab · block 0 warp 0",
        "bs · source · block 0",
        "banks ·",
        "stalls · warp 0",
    ] {
        assert!(stdout.contains(panel), "{panel} missing:\n{stdout}");
    }
    assert!(stdout.contains("flip f=2"), "{stdout}");
    let out = Command::new(simsort_bin())
        .args(["replay", trace.to_str().unwrap(), "--screen", "80"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A tmux server of our own (its own socket), killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.cmd(&["capture-pane", "-p", "-t", "t"])
    }

    /// Waits until the screen contains `text`, polling the pane. The UI
    /// waits for keys forever, so a UI that never draws `text` would hang
    /// the suite: the deadline is a hang guard, far above any machine's
    /// start-up, not a check of speed.
    fn wait_for(&self, text: &str) -> String {
        const HANG_GUARD: Duration = Duration::from_secs(300);
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            if start.elapsed() > HANG_GUARD {
                panic!("hung: no {text:?} on screen after {HANG_GUARD:?}:\n{s}");
            }
            sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

#[test]
fn the_interactive_ui_runs_in_tmux_resizes_and_restores_the_terminal() {
    if !tool_available("tmux", &["-V"], "tmux") {
        return;
    }
    let dir = scratch("tmux");
    let trace = synthetic_trace(&dir, "run.trace");
    let tmux = Tmux {
        socket: format!("simsort-test-{}", std::process::id()),
    };
    let script = format!(
        "{} replay {}; echo exit status $?; sleep 30",
        simsort_bin().display(),
        trace.display()
    );
    tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "80",
        "-y",
        "24",
        &script,
    ]);
    tmux.wait_for("slab · block 0 warp 0");
    tmux.cmd(&["send-keys", "-t", "t", "m", "m", "m"]);
    tmux.wait_for("flip f=2");
    tmux.cmd(&["send-keys", "-t", "t", "?"]);
    tmux.wait_for("help and legend");
    tmux.cmd(&["send-keys", "-t", "t", "?"]);
    tmux.cmd(&["resize-window", "-t", "t", "-x", "30", "-y", "8"]);
    tmux.wait_for("terminal too small");
    tmux.cmd(&["resize-window", "-t", "t", "-x", "120", "-y", "40"]);
    let wide = tmux.wait_for("slab · block 0 warp 0");
    assert!(wide.lines().any(|l| l.chars().count() > 100), "{wide}");
    tmux.cmd(&["send-keys", "-t", "t", "q"]);
    let after = tmux.wait_for("exit status 0");
    // Back on the normal screen: the UI's frames are gone.
    assert!(!after.contains("slab ·"), "{after}");
}

/// Records a HotSort run of `keys` on machine `cfg` into `out`, focused on
/// block 0 at `level`; checks the sort and returns `out`.
fn record_hotsort_on<W: std::io::Write>(
    cfg: sim::GpuConfig,
    hs: &sorts::hotsort::HotSortConfig,
    level: traces::TraceLevel,
    keys: &[u32],
    out: W,
) -> W {
    use traces::{Focus, TraceHeader, TraceOptions, TraceWriter};

    let focus = Focus {
        block: 0,
        warp: None,
    };
    let options = TraceOptions {
        level,
        focus,
        ..TraceOptions::default()
    };
    let hotsort = sorts::hotsort::HotSort::new::<std::convert::Infallible>(hs).unwrap();
    let mut header = TraceHeader::new(options).with_config(&cfg).unwrap();
    header.kernels = hotsort
        .marked_kernels()
        .into_iter()
        .map(|(k, marks)| simsort::experiment::trace::kernel_source(k, marks))
        .collect();
    let names = header.kernels.iter().map(|k| k.name.clone()).collect();
    let writer = TraceWriter::new(out, &header).unwrap();
    let mut gpu = sim::Gpu::new(cfg, sim::RunOptions::default()).unwrap();
    let mut recorder = sim::Recorder::new(writer, names);
    let mut dev = sim::traced(&mut gpu, Some(&mut recorder));
    let run = hotsort.sort(&mut dev, keys).unwrap();
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert_eq!(run.sorted, want);
    recorder.finish().unwrap()
}

/// Records a HotSort run on the `tiny` machine (warps of 8, slabs of 8x4,
/// blocks of 2 slabs) focused on block 0, and returns the trace's bytes.
fn record_hotsort(keys: &[u32]) -> Vec<u8> {
    use sorts::hotsort::HotSortConfig;
    let hs = HotSortConfig {
        block_slabs: 2,
        ..HotSortConfig::new(8, 4)
    };
    let level = traces::TraceLevel::CountersOnly;
    record_hotsort_on(sim::GpuConfig::tiny(), &hs, level, keys, Vec::new())
}

/// A reader that counts the bytes read through it.
struct Counted<R> {
    inner: R,
    bytes: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.set(self.bytes.get() + n as u64);
        Ok(n)
    }
}

impl<R: std::io::Seek> std::io::Seek for Counted<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// The size goal of issue 6: a 1M-key sort on the H200 machine, traced with
/// a focus and the counters-only level, stays under 200 MB; and opening it
/// reads it at most once (the goal was "opens in under 2 s": a clock on a
/// loaded machine fails for no fault of the code, bytes read do not; the
/// reader reads about 70% of this trace to open it). Slow:
/// `.ci/release-checks` runs it with the other large cases.
#[test]
#[ignore = "slow: simulates and traces a 1M-key sort (.ci/release-checks runs it)"]
fn a_million_key_trace_with_focus_and_counters_only_is_under_200_mb() {
    use sorts::hotsort::HotSortConfig;
    let dir = scratch("million");
    let path = dir.join("run.trace");
    let keys: Vec<u32> = (0..1u32 << 20)
        .map(|i| i.wrapping_mul(2_654_435_761).rotate_left(7))
        .collect();
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let level = traces::TraceLevel::CountersOnly;
    let hs = HotSortConfig::new(32, 16);
    record_hotsort_on(sim::GpuConfig::h200(), &hs, level, &keys, file);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 200_000_000, "{size} bytes");
    let bytes = std::rc::Rc::new(std::cell::Cell::new(0));
    let reader = Counted {
        inner: std::io::BufReader::new(std::fs::File::open(&path).unwrap()),
        bytes: bytes.clone(),
    };
    let app = tui::App::new(tui::Replay::new(Box::new(reader)).unwrap());
    eprintln!(
        "1M keys, counters-only: {size} bytes; opening read {} bytes",
        bytes.get()
    );
    assert!(
        bytes.get() <= size,
        "opening read {} bytes of a {size}-byte trace: more than once through it",
        bytes.get()
    );
    assert!(app.replay.launch_count() > 10);
}

#[test]
fn a_real_simulator_trace_of_hotsort_replays_with_its_merges() {
    use tui::{Action, App, Replay};

    let keys: Vec<u32> = (0..200u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 8)
        .collect();
    let bytes = record_hotsort(&keys);
    let mut app = App::new(Replay::new(Box::new(std::io::Cursor::new(bytes))).unwrap());
    // Find the block sort.
    while app.replay.kernel().source.name != "bs" {
        let before = app.data().launch;
        app.apply(Action::NextKernel);
        assert_ne!(app.data().launch, before, "no bs launch in the trace");
    }
    let d = app.data();
    assert_eq!(d.block, Some(0));
    assert!(d.warps() >= 2, "both warps of the block are recorded");
    assert!(
        !d.regs[0].is_empty(),
        "the focused warp's registers are recorded"
    );
    // The stages are named by the generator's marks, and the slab panel
    // shows the generator's key registers.
    let stages = app.stage_starts();
    let labels: Vec<&str> = stages.iter().map(|s| s.1.as_str()).collect();
    for want in [
        "lane sort",
        "flip f=2",
        "half m=1",
        "lane merge",
        "block flip g=2",
    ] {
        assert!(labels.contains(&want), "{want}: {labels:?}");
    }
    assert_eq!(app.replay.kernel().source.slab_regs.len(), 4);
    app.apply(Action::NextStage);
    app.apply(Action::NextStage);
    assert!(app.current_stage().is_some_and(|s| s.starts_with("flip")));
    // The stage opens with the lane-pivot test, then the shuffles: the
    // slab panel shows the lane pairs of the exchange.
    app.apply(Action::StepInst);
    app.apply(Action::StepInst);
    let screen = tui::screen(&app, 80, 24);
    assert!(screen.contains("slab · block 0 warp 0"), "{screen}");
    assert!(screen.contains('→') && screen.contains('←'), "{screen}");
    app.apply(Action::SeekTenths(10));
    let screen = tui::screen(&app, 160, 48);
    assert!(screen.contains("bs · source · block 0"), "{screen}");
}

#[test]
fn merge_stages_are_found_in_every_marked_kernel_and_exchange() {
    use sorts::hotsort::{HotSortConfig, MergeExchange};
    use tui::{Action, App, Replay};

    let keys: Vec<u32> = (0..600u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 8)
        .collect();
    for merge in [MergeExchange::Shuffle, MergeExchange::Shared] {
        let hs = HotSortConfig {
            block_slabs: 2,
            merge,
            ..HotSortConfig::new(8, 4)
        };
        let level = traces::TraceLevel::CountersOnly;
        let bytes = record_hotsort_on(sim::GpuConfig::tiny(), &hs, level, &keys, Vec::new());
        let mut app = App::new(Replay::new(Box::new(std::io::Cursor::new(bytes))).unwrap());
        let mut kernels = std::collections::BTreeSet::new();
        for _ in 0..app.replay.launch_count() {
            let source = &app.replay.kernel().source;
            if !source.stages.is_empty() {
                let name = source.name.clone();
                let starts = app.stage_starts();
                assert!(
                    !starts.is_empty(),
                    "{merge:?} {name}: marks but no stage found"
                );
                let before = app.cycle;
                app.apply(Action::NextStage);
                assert!(
                    app.cycle > before || starts[0].0 == before,
                    "{merge:?} {name}: m"
                );
                if starts.len() > 1 {
                    app.apply(Action::NextStage);
                    let at = app.cycle;
                    app.apply(Action::PrevStage);
                    assert!(app.cycle < at, "{merge:?} {name}: M goes back");
                }
                kernels.insert(name);
            }
            app.apply(Action::NextKernel);
        }
        for k in ["bs", "fm", "hm"] {
            assert!(
                kernels.contains(k),
                "{merge:?}: no stages in {k}: {kernels:?}"
            );
        }
    }
}
