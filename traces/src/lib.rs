//! The simsort trace format (to be built by the traces issue).
#![deny(missing_docs)]
