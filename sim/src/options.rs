//! Settings that describe a run rather than the machine.

use crate::time::Cycle;

/// How to run launches (not part of the hardware).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// A launch still running after this many cycles stops with
    /// [`crate::SimError::CycleLimit`]: an infinite loop or a barrier that
    /// can never complete must not hang the caller.
    pub max_cycles: Cycle,
    /// Run every SM cycle by cycle instead of in quanta (see the `engine`
    /// notes in the crate docs): the same results, several times slower.
    /// For checking that claim and for traces in strict cycle order.
    pub lockstep: bool,
    /// Host threads that simulate a launch's SMs (at least 1; more than
    /// the SMs count as one per SM). Results, counters and traces are the
    /// same for every count; a traced or lockstep launch runs on one.
    pub threads: usize,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        // A billion cycles: half a second of a 1.98 GHz GPU, hundreds of
        // times what a sort of millions of keys takes, and reached by a stuck
        // warp in seconds of host time.
        RunOptions {
            max_cycles: Cycle(1_000_000_000),
            lockstep: false,
            threads: 1,
        }
    }
}
