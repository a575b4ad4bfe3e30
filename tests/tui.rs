//! The replay UI through the real binary: `--screen` captures, and a smoke
//! test in tmux (when the machine has tmux) that drives the interactive UI,
//! resizes it, and checks that quitting restores the terminal.

use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::traces::{scratch, synthetic_trace};
use crate::util::simsort_bin;

#[test]
fn replay_screen_prints_the_panels_after_the_keys() {
    let dir = scratch("screen");
    let trace = synthetic_trace(&dir, "run.trace");
    let out = Command::new(simsort_bin())
        .args([
            "replay",
            trace.to_str().unwrap(),
            "--screen",
            "80x24",
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
    assert_eq!(stdout.lines().count(), 24);
    for panel in [
        "slab · block 0 warp 0",
        "cycles conflicts │ IR",
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

    /// Waits until the screen contains `text`.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no {text:?} on screen:\n{s}"
            );
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
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux is not installed: the interactive smoke test is skipped");
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
    tmux.wait_for("keys (? closes)");
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
