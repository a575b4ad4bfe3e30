//! The verifier: every semantic check, all errors collected at once, and the
//! [`VerifiedKernel`] type that only it can build.
//!
//! The checks (the crate's `README.md` states them as rules): declarations
//! and limits ([`MAX_WORDS_PER_THREAD`], [`MAX_PREDICATES`],
//! [`MAX_PARAM_BYTES`]), names, labels, registers declared and of the right
//! class for every operand (`operands.rs`), static shared-memory accesses,
//! and the barrier rule (`barrier.rs`). No kernel makes it panic: every
//! index is checked before it is used, and the control-flow analysis runs
//! only once labels and branch targets are known to be valid.

use std::collections::HashSet;
use std::fmt;

use crate::builder::UNBOUND;
use crate::cfg::Cfg;
use crate::inst::InstData;
use crate::kernel::Kernel;

mod barrier;
mod operands;

/// The most 32-bit register words one thread may use (`r` count plus twice
/// the `d` count): 255, as on NVIDIA GPUs since Kepler.
pub const MAX_WORDS_PER_THREAD: u32 = 255;

/// The most predicate registers a kernel may declare: 7, as NVIDIA's
/// `P0..P6` (the eighth, `PT`, is the constant true).
pub const MAX_PREDICATES: u32 = 7;

/// The most bytes of parameters a kernel may take (CUDA's 4 KiB limit);
/// each parameter is aligned to its size.
pub const MAX_PARAM_BYTES: u64 = 4096;

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
        self.0.push(VerifierError {
            location,
            message: message.into(),
        });
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
    /// The most register words live at once ([`crate::live`]).
    live_words: u32,
    /// Whether a load or store moves 16 bytes a lane
    /// ([`crate::live::moves_16_bytes`]).
    moves_16_bytes: bool,
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

    /// The most 32-bit register words a thread keeps live at once, at most
    /// the declared words: what a register allocator needs
    /// ([`crate::live::max_live_words`]), worked out once here.
    pub fn live_words(&self) -> u32 {
        self.live_words
    }

    /// Whether a load or store moves 16 bytes a lane, which holds more
    /// registers ([`crate::live::RegAllocation`]), worked out once here.
    pub fn moves_16_bytes(&self) -> bool {
        self.moves_16_bytes
    }
}

/// Checks `kernel` and, if it is sound, returns it verified; otherwise every
/// error found, sorted by location.
pub fn verify_kernel(kernel: Kernel) -> Result<VerifiedKernel, VerifierErrors> {
    let mut errors = VerifierErrors::default();
    let limits_ok = check_declarations(&kernel, &mut errors);
    let labels_ok = check_labels(&kernel, &mut errors);
    let (targets_ok, regs_ok) = check_insts(&kernel, &mut errors);
    let cfg = (labels_ok && targets_ok).then(|| {
        let cfg = Cfg::new(&kernel);
        let ipdom = cfg.immediate_post_dominators();
        if limits_ok && regs_ok {
            barrier::check_barriers(&kernel, &cfg, &ipdom, &mut errors);
        }
        (cfg, ipdom)
    });
    if !errors.is_empty() {
        errors.0.sort_by_key(|e| e.location);
        return Err(errors);
    }
    let Some((cfg, ipdom)) = cfg else {
        unreachable!("label or branch errors are always reported");
    };
    let end = kernel.insts.len() as u32;
    let mut reconverge = vec![end; kernel.insts.len()];
    let mut target = vec![end; kernel.insts.len()];
    for (pc, inst) in kernel.insts.iter().enumerate() {
        if let InstData::Branch { target: label, .. } = inst.data {
            target[pc] = kernel.label(label).pos;
            reconverge[pc] = ipdom[cfg.block_of[pc]].map_or(end, |b| cfg.blocks[b].start);
        }
    }
    let live_words = crate::live::max_live_words(&kernel);
    let moves_16_bytes = crate::live::moves_16_bytes(&kernel);
    Ok(VerifiedKernel {
        kernel,
        reconverge,
        target,
        live_words,
        moves_16_bytes,
    })
}

/// Whether `name` is a plain identifier (`[A-Za-z_][A-Za-z0-9_]*`), the only
/// names the text format can carry.
pub fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Reports errors in the declarations; returns whether the register counts
/// are within the limits.
fn check_declarations(kernel: &Kernel, errors: &mut VerifierErrors) -> bool {
    let mut limits_ok = true;
    if !is_identifier(&kernel.name) {
        let msg = format!("kernel name `{}` is not an identifier", kernel.name);
        errors.report(Location::Kernel, msg);
    }
    let words = u64::from(kernel.regs.b32) + 2 * u64::from(kernel.regs.b64);
    if words > u64::from(MAX_WORDS_PER_THREAD) {
        limits_ok = false;
        errors.report(
            Location::Kernel,
            format!(
                "the kernel declares {words} register words per thread (r + 2*d), more than \
                 the limit of {MAX_WORDS_PER_THREAD}"
            ),
        );
    }
    if kernel.regs.pred > MAX_PREDICATES {
        limits_ok = false;
        errors.report(
            Location::Kernel,
            format!(
                "the kernel declares {} predicate registers, more than the limit of \
                 {MAX_PREDICATES}",
                kernel.regs.pred
            ),
        );
    }
    let bytes = operands::param_bytes(kernel);
    if bytes > MAX_PARAM_BYTES {
        errors.report(
            Location::Kernel,
            format!("the parameters take {bytes} bytes, more than the limit of {MAX_PARAM_BYTES}"),
        );
    }
    let mut names = HashSet::new();
    for (i, param) in kernel.params.iter().enumerate() {
        if !is_identifier(&param.name) {
            let msg = format!("parameter name `{}` is not an identifier", param.name);
            errors.report(Location::Param(i), msg);
        }
        if !names.insert(param.name.as_str()) {
            let msg = format!("parameter `{}` is declared twice", param.name);
            errors.report(Location::Param(i), msg);
        }
    }
    limits_ok
}

/// Reports label errors; returns whether every label is placed in range.
fn check_labels(kernel: &Kernel, errors: &mut VerifierErrors) -> bool {
    let n = kernel.insts.len() as u32;
    let mut ok = true;
    let mut names = HashSet::new();
    for (i, label) in kernel.labels.iter().enumerate() {
        if label.pos == UNBOUND {
            errors.report(
                Location::Label(i),
                format!("label `{}` is never placed", label.name),
            );
            ok = false;
        } else if label.pos > n {
            errors.report(
                Location::Label(i),
                format!("label `{}` is past the end", label.name),
            );
            ok = false;
        }
        if !is_identifier(&label.name) {
            let msg = format!("label name `{}` is not an identifier", label.name);
            errors.report(Location::Label(i), msg);
        }
        if !names.insert(label.name.as_str()) {
            errors.report(
                Location::Label(i),
                format!("label `{}` is defined twice", label.name),
            );
        }
    }
    ok
}

/// Reports every instruction's errors; returns whether every branch
/// target exists and whether every register is declared.
fn check_insts(kernel: &Kernel, errors: &mut VerifierErrors) -> (bool, bool) {
    let (mut targets_ok, mut regs_ok) = (true, true);
    let mut messages = Vec::new();
    for (pc, inst) in kernel.insts.iter().enumerate() {
        let location = Location::Inst(pc as u32);
        let mut undeclared = Vec::new();
        crate::uses::for_each_reg(inst, |reg| {
            if !kernel.regs.contains(reg) && !undeclared.contains(&reg) {
                undeclared.push(reg);
            }
        });
        regs_ok &= undeclared.is_empty();
        for reg in undeclared {
            errors.report(
                location,
                format!(
                    "register {reg} is not declared (the kernel declares {} {} registers)",
                    kernel.regs.of(reg.class()),
                    reg.class().prefix()
                ),
            );
        }
        messages.clear();
        operands::check_inst(kernel, inst, &mut messages);
        for m in messages.drain(..) {
            errors.report(location, m);
        }
        if let InstData::Branch { target, .. } = inst.data {
            targets_ok &= target.index() < kernel.labels.len();
        }
    }
    (targets_ok, regs_ok)
}

#[cfg(test)]
mod tests;
