//! Progress bars on stderr: drawn only when stderr is a terminal and
//! `--quiet` is off, so pipes, files and scripts see no progress output.

use std::io::{self, IsTerminal};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use simsort::experiment::Progress;

/// Whether progress is shown: stderr is a terminal and `--quiet` is off.
pub fn shown(quiet: bool) -> bool {
    !quiet && io::stderr().is_terminal()
}

/// A bar of `len` steps with an ETA, or a hidden one.
fn bar(len: u64, quiet: bool, template: &str) -> ProgressBar {
    if !shown(quiet) {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    let bar =
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()).with_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The bar of one sort: estimated work (warps times instructions per
/// kernel) with the kernel that is running.
pub struct SortBar {
    bar: ProgressBar,
}

impl SortBar {
    /// A bar for a sort; hidden when progress is not shown.
    pub fn new(quiet: bool) -> SortBar {
        SortBar {
            bar: bar(
                1,
                quiet,
                "{spinner} sorting [{bar:30}] {percent:>3}% eta {eta:>3} {msg}",
            ),
        }
    }

    /// Shows where the sort is.
    pub fn update(&self, p: Progress) {
        self.bar.set_length(p.work.max(1));
        self.bar.set_position(p.work_done);
        match p.kernel {
            Some(kernel) => self.bar.set_message(format!(
                "kernel {kernel} (launch {} of {})",
                p.launches_done + 1,
                p.launches
            )),
            None => self.bar.set_message("checking"),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The bar of a sweep: configurations finished out of those that run.
pub fn sweep_bar(configurations: u64, quiet: bool) -> ProgressBar {
    bar(
        configurations,
        quiet,
        "{spinner} sweep [{bar:30}] {pos}/{len} configurations, eta {eta:>3} {msg}",
    )
}

/// Runs `launch` (one kernel launch of `blocks` blocks, at most
/// `max_cycles` cycles) under a bar of the blocks started and the simulated
/// cycle, read from the simulator every 200 ms: one launch of a huge grid
/// runs for minutes, and the sort's per-launch bar would sit at 0%.
pub fn with_launch_bar<T>(
    blocks: u64,
    max_cycles: u64,
    quiet: bool,
    launch: impl FnOnce() -> T,
) -> T {
    if !shown(quiet) {
        return launch();
    }
    let bar = bar(
        blocks,
        quiet,
        "{spinner} [{bar:30}] {pos}/{len} blocks started, eta {eta:>3} {msg}",
    );
    // The limit shows from the first frame, however short the launch.
    bar.set_message(format!("cycle 0 (limit {max_cycles})"));
    bar.tick();
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let result = std::thread::scope(|s| {
        let bar = &bar;
        s.spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(Duration::from_millis(200))
            {
                let (cycle, started) = sim::launch_progress();
                bar.set_position(started);
                bar.set_message(format!("cycle {cycle} (limit {max_cycles})"));
            }
        });
        let result = launch();
        drop(stop);
        result
    });
    bar.finish_and_clear();
    result
}

/// The bar of `calibrate --fit`: machines simulated out of the budget,
/// with the last and the best fitted-set MAPE.
pub fn fit_bar(evals: u64) -> ProgressBar {
    bar(
        evals,
        false,
        "{spinner} fit [{bar:30}] {pos}/{len} evaluations, eta {eta:>3} {msg}",
    )
}

/// Whether `SIMSORT_PROGRESS=lines` asks for plain progress lines.
pub fn lines_asked() -> bool {
    std::env::var_os(LINES_ENV).is_some_and(|v| v == "lines")
}

/// The environment variable that asks for progress as plain lines.
pub const LINES_ENV: &str = "SIMSORT_PROGRESS";

/// With `SIMSORT_PROGRESS=lines`, progress goes to stderr as plain lines
/// whatever stderr is (a batch job's log; a script or test that must know
/// the simulation has started): every 200 ms in which the simulation moved,
/// `progress: cycle C, B blocks started` of the latest launch.
pub fn lines_if_asked() {
    if std::env::var_os(LINES_ENV).is_none_or(|v| v != "lines") {
        return;
    }
    let report = || {
        let mut last = (0, 0);
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let now = sim::launch_progress();
            if now != last && now.0 > 0 {
                eprintln!("progress: cycle {}, {} blocks started", now.0, now.1);
                last = now;
            }
        }
    };
    // Without the thread there are only no lines.
    let _ = std::thread::Builder::new()
        .name("progress-lines".into())
        .spawn(report);
}
