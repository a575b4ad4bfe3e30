//! The verifier: every semantic check, all errors collected at once, and the
//! [`VerifiedKernel`] type that only it can build.

use std::fmt;

use crate::builder::UNBOUND;
use crate::cfg::Cfg;
use crate::inst::InstData;
use crate::kernel::Kernel;

/// Where in a kernel a verifier error points.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// The kernel header (declarations).
    Kernel,
    /// A parameter declaration, by index.
    Param(usize),
    /// A label, by index.
    Label(usize),
    /// An instruction, by `pc`.
    Inst(u32),
}

/// One semantic error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifierError {
    /// Where it is.
    pub location: Location,
    /// What is wrong, lower case, naming the bad value.
    pub message: String,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Location::Kernel => write!(f, "kernel: {}", self.message),
            Location::Param(i) => write!(f, "param {i}: {}", self.message),
            Location::Label(i) => write!(f, "label {i}: {}", self.message),
            Location::Inst(pc) => write!(f, "inst {pc}: {}", self.message),
        }
    }
}

/// Every error the verifier found, in location order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl VerifierErrors {
    /// Records an error and keeps going.
    pub fn report(&mut self, location: Location, message: impl Into<String>) {
        self.0.push(VerifierError { location, message: message.into() });
    }

    /// Whether nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for VerifierErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifierErrors {}

/// A kernel that passed [`verify_kernel`], with the facts the simulator
/// needs precomputed. Only the verifier can make one.
#[derive(Clone, Debug)]
pub struct VerifiedKernel {
    kernel: Kernel,
    /// Per instruction: the reconvergence pc of a branch (see [`crate::cfg`]),
    /// `insts.len()` meaning "at exit". Unused for other instructions.
    reconverge: Vec<u32>,
    /// Per instruction: the target pc of a branch.
    target: Vec<u32>,
}

impl VerifiedKernel {
    /// The kernel.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The reconvergence pc of the branch at `pc` (`insts.len()`: at exit).
    pub fn reconvergence_pc(&self, pc: u32) -> u32 {
        self.reconverge[pc as usize]
    }

    /// The target pc of the branch at `pc`.
    pub fn branch_target(&self, pc: u32) -> u32 {
        self.target[pc as usize]
    }
}

/// Checks `kernel` and, if it is sound, returns it verified; otherwise every
/// error found.
pub fn verify_kernel(kernel: Kernel) -> Result<VerifiedKernel, VerifierErrors> {
    let mut errors = VerifierErrors::default();
    check_labels(&kernel, &mut errors);
    check_registers(&kernel, &mut errors);
    if !errors.is_empty() {
        errors.0.sort_by_key(|e| e.location);
        return Err(errors);
    }
    let cfg = Cfg::new(&kernel);
    let ipdom = cfg.immediate_post_dominators();
    let end = kernel.insts.len() as u32;
    let mut reconverge = vec![end; kernel.insts.len()];
    let mut target = vec![end; kernel.insts.len()];
    for (pc, inst) in kernel.insts.iter().enumerate() {
        if let InstData::Branch { target: label, .. } = inst.data {
            target[pc] = kernel.label(label).pos;
            reconverge[pc] = ipdom[cfg.block_of[pc]].map_or(end, |b| cfg.blocks[b].start);
        }
    }
    Ok(VerifiedKernel { kernel, reconverge, target })
}

fn check_labels(kernel: &Kernel, errors: &mut VerifierErrors) {
    let n = kernel.insts.len() as u32;
    for (i, label) in kernel.labels.iter().enumerate() {
        if label.pos == UNBOUND {
            errors.report(Location::Label(i), format!("label `{}` is never placed", label.name));
        } else if label.pos > n {
            errors.report(Location::Label(i), format!("label `{}` is past the end", label.name));
        }
        if kernel.labels[..i].iter().any(|l| l.name == label.name) {
            errors.report(Location::Label(i), format!("label `{}` is defined twice", label.name));
        }
    }
}

fn check_registers(kernel: &Kernel, errors: &mut VerifierErrors) {
    for (pc, inst) in kernel.insts.iter().enumerate() {
        let mut regs = Vec::new();
        crate::uses::for_each_reg(inst, |reg| regs.push(reg));
        for reg in regs {
            if !kernel.regs.contains(reg) {
                errors.report(
                    Location::Inst(pc as u32),
                    format!(
                        "register {reg} is not declared (the kernel declares {} {} registers)",
                        kernel.regs.of(reg.class()),
                        reg.class().prefix()
                    ),
                );
            }
        }
    }
}
