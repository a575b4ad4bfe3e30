//! Fuzz target: `simsort::fuzz_entry::sweep_lists` (see there what it exercises).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| simsort::fuzz_entry::sweep_lists(data));
