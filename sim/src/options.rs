//! Settings that describe a run rather than the machine.

use crate::time::Cycle;

/// How to run launches (not part of the hardware).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// A launch still running after this many cycles stops with
    /// [`crate::SimError::CycleLimit`]: an infinite loop or a barrier that
    /// can never complete must not hang the caller.
    pub max_cycles: Cycle,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        // A billion cycles: half a second of a 1.98 GHz GPU, hundreds of
        // times what a sort of millions of keys takes, and reached by a stuck
        // warp in seconds of host time.
        RunOptions {
            max_cycles: Cycle(1_000_000_000),
        }
    }
}
