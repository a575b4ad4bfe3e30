//! simsort's integration tests: one binary, modules declared here.

mod cli;
mod fuzz;
mod hardware;
mod roundtrip;
mod util;
mod verifier;
