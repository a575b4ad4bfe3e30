//! The simsort cycle-level SIMT GPU simulator (to be built by the simulator issue).
#![deny(missing_docs)]
