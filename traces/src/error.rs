//! The one error type of the trace format.
//!
//! Every way a trace file can be wrong (not a trace, a newer format, cut
//! short, bytes flipped) maps to its own variant with a lower-case message
//! that names the bad value, so the command line can print it as is.

use std::io;

/// Why a trace could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The underlying reader or writer failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file does not start with the trace magic bytes.
    #[error("not a simsort trace (the file does not start with the trace magic bytes)")]
    NotATrace,
    /// The file was written by a newer simsort with a format this one cannot read.
    #[error(
        "trace format version {found} is newer than this simsort can read \
         (it reads versions up to {supported}); upgrade simsort"
    )]
    NewerVersion {
        /// The version found in the file.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The file ends before a part it announces.
    #[error("trace is truncated: {0}")]
    Truncated(String),
    /// A part of the file is present but its bytes are wrong.
    #[error("trace is corrupt: {0}")]
    Corrupt(String),
    /// The caller asked the writer to record something the format cannot hold.
    #[error("invalid trace event: {0}")]
    InvalidEvent(String),
    /// The writer was used after an earlier write failed.
    #[error("trace writer already failed earlier: {0}")]
    Poisoned(String),
    /// A `--trace-focus` or `--trace-level` value did not parse.
    #[error("bad trace option {value:?}: {expected}")]
    BadOption {
        /// The text given.
        value: String,
        /// What was expected instead.
        expected: &'static str,
    },
}

impl TraceError {
    /// A corrupt-file error with a message.
    pub(crate) fn corrupt(msg: impl Into<String>) -> Self {
        TraceError::Corrupt(msg.into())
    }

    /// Turns an unexpected end of file into [`TraceError::Truncated`] naming
    /// what was being read; other i/o errors pass through.
    pub(crate) fn from_read(e: io::Error, what: &str) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            TraceError::Truncated(format!("the file ends inside the {what}"))
        } else {
            TraceError::Io(e)
        }
    }
}
