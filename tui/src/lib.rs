//! The simsort replay UI (to be built by the traces issue).
#![deny(missing_docs)]
