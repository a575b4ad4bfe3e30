//! simsort's integration tests: one binary, modules declared here.

mod calibration;
mod cli;
mod cli_bitonic;
mod cli_compare;
mod cli_mergesort;
mod cli_run;
mod cli_shard;
mod cli_sweep;
mod cli_terasort;
mod cli_trace_sort;
mod emit_ptx;
mod fuzz;
mod hardware;
mod properties;
mod roundtrip;
mod snapshots_bitonic;
mod snapshots_hotsort;
mod snapshots_ir;
mod snapshots_mergesort;
mod snapshots_per_pc;
mod snapshots_terasort;
mod threads;
mod traces;
mod tui;
mod util;
mod verifier;
