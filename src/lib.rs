//! The `simsort` library behind the command line: experiments (input
//! generation, the HotSort run on the simulated GPU, the reference check and
//! the report). `main.rs` only parses arguments and wires these together.
#![deny(missing_docs)]

pub mod atomic;
pub mod buffer_spec;
pub mod calib;
pub mod chart;
pub mod diagnostics;
pub mod experiment;
pub mod fuzz_entry;
pub mod host_memory;
pub mod report_html;
pub mod signals;
