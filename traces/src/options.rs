//! What a trace records: its level and its focus.
//!
//! A 1M-key sort issues hundreds of millions of warp instructions; recording
//! each one for every warp would make traces "too big to keep" (the top
//! complaint about other simulators). So a trace records the whole machine
//! only as periodic counter samples, and the full detail only for a *focus*:
//! one block of every launch, and the register writes of one warp of it (or
//! of every warp of it).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::TraceError;

/// How much a trace records.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TraceLevel {
    /// Launches, block starts and ends and counter samples for the whole
    /// machine; issue, stall, memory and barrier events only for the focused
    /// block; register writes only for the focused warps. The default.
    #[default]
    CountersOnly,
    /// Issue, stall, memory and barrier events for every block as well;
    /// register writes still only for the focused warps.
    Full,
}

impl TraceLevel {
    /// The command-line spelling: `counters-only` or `full`.
    pub const fn name(self) -> &'static str {
        match self {
            TraceLevel::CountersOnly => "counters-only",
            TraceLevel::Full => "full",
        }
    }
}

impl fmt::Display for TraceLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceLevel {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "counters-only" => Ok(TraceLevel::CountersOnly),
            "full" => Ok(TraceLevel::Full),
            _ => Err(TraceError::BadOption {
                value: s.to_string(),
                expected: "expected `counters-only` or `full`",
            }),
        }
    }
}

/// The block (and warps) of every launch that a trace records in detail.
///
/// `block` is the linear block index in the grid
/// (`x + y*nx + z*nx*ny`), `warp` the warp index within the block; `None`
/// means every warp of the block. Parsed from `block=B[,warp=W]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Focus {
    /// Linear index of the focused block in each launch's grid.
    pub block: u32,
    /// Index of the focused warp within the block; `None` = all its warps.
    pub warp: Option<u32>,
}

impl Focus {
    /// Whether events of `block` are recorded in detail under this focus.
    pub fn has_block(&self, block: u32) -> bool {
        block == self.block
    }

    /// Whether register writes of `warp` of `block` are recorded.
    pub fn has_warp(&self, block: u32, warp: u32) -> bool {
        block == self.block && self.warp.is_none_or(|w| w == warp)
    }
}

impl fmt::Display for Focus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block={}", self.block)?;
        if let Some(w) = self.warp {
            write!(f, ",warp={w}")?;
        }
        Ok(())
    }
}

impl FromStr for Focus {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || TraceError::BadOption {
            value: s.to_string(),
            expected: "expected `block=B` or `block=B,warp=W` with B and W whole numbers",
        };
        let mut focus = Focus::default();
        let mut seen_block = false;
        let mut seen_warp = false;
        for part in s.split(',') {
            let (key, value) = part.split_once('=').ok_or_else(bad)?;
            let n: u32 = value.trim().parse().map_err(|_| bad())?;
            match key.trim() {
                "block" if !seen_block => {
                    focus.block = n;
                    seen_block = true;
                }
                "warp" if !seen_warp => {
                    focus.warp = Some(n);
                    seen_warp = true;
                }
                _ => return Err(bad()),
            }
        }
        Ok(focus)
    }
}

/// The recording choices of one trace: what the simulator asks before it
/// builds an event, and what the writer enforces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceOptions {
    /// How much is recorded.
    pub level: TraceLevel,
    /// Which block and warps are recorded in detail.
    pub focus: Focus,
    /// Cycles between two [`crate::Event::Counters`] samples of one SM;
    /// at least 1. The default, 1024, keeps a 10-million-cycle run at about
    /// 10 thousand samples per SM.
    pub counter_interval_cycles: u64,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            level: TraceLevel::CountersOnly,
            focus: Focus::default(),
            counter_interval_cycles: 1024,
        }
    }
}

impl TraceOptions {
    /// Whether issue, stall, memory and barrier events of `block` are recorded.
    pub fn wants_detail(&self, block: u32) -> bool {
        self.level == TraceLevel::Full || self.focus.has_block(block)
    }

    /// Whether register writes of `warp` of `block` are recorded.
    pub fn wants_registers(&self, block: u32, warp: u32) -> bool {
        self.focus.has_warp(block, warp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_parses_block_and_optional_warp() {
        assert_eq!(
            "block=3".parse::<Focus>().unwrap(),
            Focus {
                block: 3,
                warp: None
            }
        );
        let f: Focus = "block=2,warp=5".parse().unwrap();
        assert_eq!(
            f,
            Focus {
                block: 2,
                warp: Some(5)
            }
        );
        assert_eq!(f.to_string(), "block=2,warp=5");
        assert_eq!(
            "warp=1".parse::<Focus>().unwrap(),
            Focus {
                block: 0,
                warp: Some(1)
            }
        );
    }

    #[test]
    fn bad_focus_names_the_value() {
        for bad in [
            "",
            "block",
            "block=x",
            "blk=1",
            "block=1,block=2",
            "block=-1",
        ] {
            let e = bad.parse::<Focus>().unwrap_err().to_string();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
        }
    }

    #[test]
    fn level_round_trips_through_text() {
        for l in [TraceLevel::CountersOnly, TraceLevel::Full] {
            assert_eq!(l.to_string().parse::<TraceLevel>().unwrap(), l);
        }
        assert!("verbose".parse::<TraceLevel>().is_err());
    }

    #[test]
    fn counters_only_keeps_detail_for_the_focused_block_only() {
        let o = TraceOptions {
            focus: Focus {
                block: 1,
                warp: Some(2),
            },
            ..TraceOptions::default()
        };
        assert!(o.wants_detail(1) && !o.wants_detail(0));
        assert!(o.wants_registers(1, 2) && !o.wants_registers(1, 3));
        let full = TraceOptions {
            level: TraceLevel::Full,
            ..o
        };
        assert!(full.wants_detail(0));
        assert!(!full.wants_registers(0, 2));
    }
}
