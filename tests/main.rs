//! simsort's integration tests: one binary, modules declared here.
