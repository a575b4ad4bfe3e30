//! Small identifiers used in errors and reports.

use std::fmt;

use serde::Serialize;

/// An SM of the simulated GPU, `0..num_sms`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SmId(pub u32);

/// A block of a launch, by its linear index in the grid (x fastest, then y, then z).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct BlockId(pub u64);

/// A warp within its block, `0..ceil(threads / warp_size)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct WarpId(pub u32);

/// One warp of a launch and the instruction it was at: what errors report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WarpAt {
    /// The block.
    pub block: BlockId,
    /// The warp within the block.
    pub warp: WarpId,
    /// The instruction the warp was at.
    pub pc: u32,
}

impl fmt::Display for SmId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm {}", self.0)
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block {}", self.0)
    }
}

impl fmt::Display for WarpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "warp {}", self.0)
    }
}

impl fmt::Display for WarpAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} at pc {}", self.block, self.warp, self.pc)
    }
}
