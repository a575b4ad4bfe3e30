//! Stopping a command from outside. Ctrl-C (SIGINT), SIGTERM and SIGHUP
//! are treated alike: the first asks the simulation to stop
//! ([`sim::request_stop`]: each running launch ends with an "interrupted"
//! error, the command reports what it has, and every temporary file is
//! dropped so no output is half-written); a second one ends the process at
//! once with status 130.
//!
//! A command whose standard output is a pipe also stops when the pipe's
//! reader goes away (`simsort calibrate --suite ... | head -1`): nobody
//! will read what it computes, and it would otherwise learn of the closed
//! pipe only at its first write, after all the work.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The signals that stop a command, with the name messages give each.
#[cfg(unix)]
const SIGNALS: [(i32, &str); 3] = [
    (signal_hook::consts::SIGINT, "Ctrl-C"),
    (signal_hook::consts::SIGTERM, "SIGTERM"),
    (signal_hook::consts::SIGHUP, "SIGHUP"),
];

/// One flag per signal of [`SIGNALS`]: which one came.
fn caught() -> &'static [Arc<AtomicBool>; 3] {
    static CAUGHT: OnceLock<[Arc<AtomicBool>; 3]> = OnceLock::new();
    CAUGHT.get_or_init(Default::default)
}

/// Set when standard output was found to be a pipe nobody reads.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Makes SIGINT, SIGTERM and SIGHUP stop the simulation (see the module
/// doc). Registration fails only for forbidden signals, which these are not.
pub fn stop_on_signals() {
    #[cfg(unix)]
    for (i, &(signal, _)) in SIGNALS.iter().enumerate() {
        let stop = sim::stop_flag();
        let caught = Arc::clone(&caught()[i]);
        // One action per signal, installed at once: registered as three
        // (the shutdown check, then each flag), a signal landing between
        // the first registration and the last found the handler installed
        // but the stop flag not yet hooked, and the command ran on to the
        // end (seen under load in `ctrl_c_stops_calibrate_with_status_130`).
        // Only a signal that finds the flag already set (a second one) ends
        // the process.
        let action = move || {
            if stop.load(Ordering::SeqCst) {
                signal_hook::low_level::exit(130);
            }
            caught.store(true, Ordering::SeqCst);
            stop.store(true, Ordering::SeqCst);
        };
        // SAFETY: the action only loads and stores atomics and calls
        // `_exit`, all async-signal-safe, as `signal_hook::flag`'s own
        // actions do.
        let _ = unsafe { signal_hook::low_level::register(signal, action) };
    }
    #[cfg(not(unix))]
    {
        let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, sim::stop_flag());
    }
}

/// What stopped the command, for its message: `Ctrl-C`, `SIGTERM`,
/// `SIGHUP`, or `the closed output pipe`; `Ctrl-C` when no signal came
/// (a stop requested some other way).
pub fn reason() -> &'static str {
    #[cfg(unix)]
    for (i, (_, name)) in SIGNALS.iter().enumerate() {
        if caught()[i].load(Ordering::Relaxed) {
            return name;
        }
    }
    if stdout_closed() {
        return "the closed output pipe";
    }
    "Ctrl-C"
}

/// Whether standard output is a pipe whose reader went away (the command
/// then stops quietly, with status 0, as a write to it would).
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

/// When standard output is a pipe, watches it from a thread and asks the
/// simulation to stop once its reader has gone (the pipe reports an error
/// condition to `poll` then, before anything is written to it).
pub fn stop_when_stdout_closes() {
    #[cfg(unix)]
    {
        // SAFETY: `fstat` writes only into the zeroed struct it is given.
        let is_pipe = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            libc::fstat(libc::STDOUT_FILENO, &mut st) == 0
                && (st.st_mode & libc::S_IFMT) == libc::S_IFIFO
        };
        if !is_pipe {
            return;
        }
        let watch = || {
            loop {
                let mut fd = libc::pollfd {
                    fd: libc::STDOUT_FILENO,
                    events: 0,
                    revents: 0,
                };
                // SAFETY: one valid `pollfd`; POLLERR and POLLHUP are
                // reported whatever `events` asks for.
                let n = unsafe { libc::poll(&mut fd, 1, -1) };
                if n > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
                    STDOUT_CLOSED.store(true, Ordering::Relaxed);
                    sim::request_stop();
                    return;
                }
                if n < 0
                    && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
                {
                    return;
                }
            }
        };
        // Without the thread the command only learns of the pipe later.
        let _ = std::thread::Builder::new()
            .name("stdout-watch".into())
            .spawn(watch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_no_signal_the_reason_is_ctrl_c() {
        assert_eq!(reason(), "Ctrl-C");
        assert!(!stdout_closed());
    }
}
