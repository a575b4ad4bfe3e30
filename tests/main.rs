//! simsort's integration tests: one binary, modules declared here.

mod cli;
mod cli_sweep;
mod fuzz;
mod hardware;
mod roundtrip;
mod traces;
mod tui;
mod util;
mod verifier;
