//! A child process on a terminal of its own, for the tests of what only a
//! terminal shows (progress bars) or does (Ctrl-C typed as a key). util-linux
//! `script` gives the child a pseudo-terminal; the test reads everything the
//! child writes there as it comes, waits for a line that says the child is
//! where the test needs it, and types keys into the terminal.
//!
//! Nothing here waits on a clock: every wait ends when the child writes what
//! is waited for, or when it ends (the output closes), whichever is first.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::util::tool_available;

/// What the child has written so far, and whether its terminal closed.
#[derive(Default)]
struct Screen {
    bytes: Vec<u8>,
    closed: bool,
}

/// A child process running on a pseudo-terminal (killed on drop).
pub struct Terminal {
    child: Child,
    stdin: Option<ChildStdin>,
    screen: Arc<(Mutex<Screen>, Condvar)>,
    reader: Option<JoinHandle<()>>,
}

/// `word` quoted for `sh`.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

impl Terminal {
    /// Starts `program args` (without colour) on a terminal; `None` where
    /// `script` is missing outside CI (see [`tool_available`]).
    pub fn spawn(program: &Path, args: &[&str]) -> Option<Terminal> {
        if !tool_available("script", &["--version"], "bsdutils (util-linux)") {
            return None;
        }
        let line: Vec<String> = std::iter::once(program.to_string_lossy().into_owned())
            .chain(args.iter().map(|a| a.to_string()))
            .map(|w| quote(&w))
            .collect();
        // -q: no banner; -e: the child's exit status; -f: every write at
        // once; -c: the command; /dev/null: no typescript file.
        let mut child = Command::new("script")
            .args(["-qefc", &line.join(" "), "/dev/null"])
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("run script");
        let mut out = child.stdout.take().expect("stdout");
        let screen = Arc::new((Mutex::new(Screen::default()), Condvar::new()));
        let shared = Arc::clone(&screen);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                let n = out.read(&mut buf).unwrap_or(0);
                let (lock, changed) = &*shared;
                let mut s = lock.lock().unwrap();
                if n == 0 {
                    s.closed = true;
                } else {
                    s.bytes.extend_from_slice(&buf[..n]);
                }
                changed.notify_all();
                if n == 0 {
                    return;
                }
            }
        });
        Some(Terminal {
            stdin: child.stdin.take(),
            child,
            screen,
            reader: Some(reader),
        })
    }

    /// Waits until `done` holds of the screen; returns the text on it.
    fn wait(&self, done: impl Fn(&str, bool) -> bool) -> String {
        let (lock, changed) = &*self.screen;
        let mut s = lock.lock().unwrap();
        loop {
            let text = String::from_utf8_lossy(&s.bytes).into_owned();
            if done(&text, s.closed) {
                return text;
            }
            s = changed.wait(s).unwrap();
        }
    }

    /// Waits until `ready` holds of everything the child has written;
    /// returns that text. Panics, showing it, if the child ends first.
    pub fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let text = self.wait(|text, closed| ready(text) || closed);
        assert!(ready(&text), "the child ended before {what}:\n{text}");
        text
    }

    /// Types Ctrl-C: the terminal sends SIGINT to the child.
    pub fn ctrl_c(&mut self) {
        let stdin = self.stdin.as_mut().expect("the terminal is open");
        stdin.write_all(b"\x03").expect("type Ctrl-C");
        stdin.flush().expect("type Ctrl-C");
    }

    /// Waits for the child to end: its exit status and everything it wrote.
    pub fn finish(mut self) -> (Option<i32>, String) {
        let text = self.wait(|_, closed| closed);
        let status = self.child.wait().expect("wait for script");
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the reader thread");
        }
        (status.code(), text)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
