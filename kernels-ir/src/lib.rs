//! The simsort kernel IR: a small SIMT instruction set with per-thread
//! semantics, executed by whole warps in lock step.
//!
//! This crate holds the IR data ([`Kernel`], [`Inst`], [`InstData`]), the
//! [`KernelBuilder`] that generators use, the verifier that makes a
//! [`VerifiedKernel`] (the only form the simulator runs), and the control-flow
//! analysis behind the reconvergence rule ([`cfg`]). The text format, its
//! grammar and the exact semantics of every operation are specified in the
//! crate's `README.md`.
#![deny(missing_docs)]

pub mod builder;
pub mod cfg;
pub mod entities;
pub mod inst;
pub mod interp;
pub mod kernel;
pub mod kernels;
pub mod launch;
pub mod live;
pub mod opcode;
pub mod parser;
pub mod printer;
pub mod uses;
pub mod verify;

pub use builder::KernelBuilder;
pub use entities::{Label, Param, Reg, RegClass};
pub use inst::{Address, Guard, Inst, InstData, Operand, RegList, Special};
pub use kernel::{Kernel, LabelData, ParamData, ParamType, RegCounts};
pub use launch::{Device, Dim3, Hooked, LaunchHook, ParamValue};
pub use opcode::{Cmp, Format, Opcode, ShflMode, Space};
pub use parser::{ParseErrors, SourceMap, parse_kernel};
pub use printer::print_kernel;
pub use verify::{Location, VerifiedKernel, VerifierError, VerifierErrors, verify_kernel};
