//! Stopping a run from outside (Ctrl-C): a process-wide flag that the
//! engine reads between cycle windows (every few cycles of simulated time,
//! so a stop takes effect at once). A launch that sees it set ends with
//! [`crate::SimError::Interrupted`].

use std::sync::atomic::{AtomicBool, Ordering};
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
