//! The sort algorithms simsort runs: for each one, the generators of its
//! kernels (in the `kernels-ir` IR) and the host schedule that launches them
//! on any [`kernels_ir::Device`] (the interpreter or the simulator).
//!
//! The IR crate keeps the IR, its interpreter and the small example kernels;
//! everything specific to an algorithm lives here.
#![deny(missing_docs)]

pub mod hotsort;
