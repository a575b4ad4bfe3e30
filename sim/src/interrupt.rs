//! Stopping a run from outside (Ctrl-C): a process-wide flag that the
//! engine reads between cycle windows (every few cycles of simulated time,
//! so a stop takes effect at once). A launch that sees it set ends with
//! [`crate::SimError::Interrupted`].
//!
//! At the same points the engine publishes how far the latest launch got
//! ([`launch_progress`]), so a command line running one long launch can
//! show a progress bar from another thread.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

fn flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// The flag itself, for a signal handler to set (e.g.
/// `signal_hook::flag::register(SIGINT, sim::stop_flag())`).
pub fn stop_flag() -> Arc<AtomicBool> {
    Arc::clone(flag())
}

/// Asks every running launch to stop.
pub fn request_stop() {
    flag().store(true, Ordering::Relaxed);
}

/// Whether a stop was asked for.
pub fn stop_requested() -> bool {
    flag().load(Ordering::Relaxed)
}

/// Simulated cycle and blocks started of the launch running (or last run)
/// in this process; with several launches at once (a sweep), whichever
/// published last.
static CYCLE: AtomicU64 = AtomicU64::new(0);
static BLOCKS_STARTED: AtomicU64 = AtomicU64::new(0);

/// `(cycle, blocks started)` of the latest launch, as of its last cycle
/// window.
pub fn launch_progress() -> (u64, u64) {
    (
        CYCLE.load(Ordering::Relaxed),
        BLOCKS_STARTED.load(Ordering::Relaxed),
    )
}

/// Records where the running launch is (the engine, once a cycle window).
pub(crate) fn publish(cycle: u64, blocks_started: u64) {
    CYCLE.store(cycle, Ordering::Relaxed);
    BLOCKS_STARTED.store(blocks_started, Ordering::Relaxed);
}
