//! simsort's integration tests live in `main.rs` (one test binary, `cargo test -p tests`).
