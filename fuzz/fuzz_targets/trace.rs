//! Fuzz target: `simsort::fuzz_entry::trace` (see there what it exercises).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| simsort::fuzz_entry::trace(data));
