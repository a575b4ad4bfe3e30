//! A kernel: parameters, register and shared-memory declarations, and a
//! linear list of instructions with labels.

use crate::entities::{Label, Param, Reg, RegClass};
use crate::inst::Inst;

/// The type of a kernel parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A 32-bit integer.
    U32,
    /// A 64-bit integer; buffer addresses are `u64`.
    U64,
}

impl ParamType {
    /// The text name (`u32` or `u64`).
    pub const fn name(self) -> &'static str {
        match self {
            ParamType::U32 => "u32",
            ParamType::U64 => "u64",
        }
    }

    /// The register class a value of this type fits in.
    pub const fn reg_class(self) -> RegClass {
        match self {
            ParamType::U32 => RegClass::B32,
            ParamType::U64 => RegClass::B64,
        }
    }
}

/// A declared parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamData {
    /// The name, printed `$name` where it is used.
    pub name: String,
    /// The type.
    pub ty: ParamType,
}

/// A label: its name and the index of the instruction it stands before
/// (`insts.len()` for a label at the very end).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LabelData {
    /// The name, unique in the kernel.
    pub name: String,
    /// The instruction index the label marks.
    pub pos: u32,
}

/// How many registers of each class a kernel declares. Registers are
/// numbered from 0 within their class.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegCounts {
    /// 32-bit registers `r0..`.
    pub b32: u32,
    /// 64-bit registers `d0..`.
    pub b64: u32,
    /// Predicate registers `p0..`.
    pub pred: u32,
}

impl RegCounts {
    /// The count declared for `class`.
    pub const fn of(&self, class: RegClass) -> u32 {
        match class {
            RegClass::B32 => self.b32,
            RegClass::B64 => self.b64,
            RegClass::Pred => self.pred,
        }
    }

    /// Whether `reg` is declared.
    pub const fn contains(&self, reg: Reg) -> bool {
        reg.index() < self.of(reg.class())
    }

    /// 32-bit register-file words one thread needs: what occupancy is computed from.
    /// Predicates live in their own file and do not count.
    pub const fn words_per_thread(&self) -> u32 {
        self.b32 + 2 * self.b64
    }
}

/// A kernel as written or generated; run it only after [`crate::verify_kernel`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// The kernel's name.
    pub name: String,
    /// The parameters, in launch order.
    pub params: Vec<ParamData>,
    /// Declared register counts.
    pub regs: RegCounts,
    /// Static shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// The instructions; an instruction's index is its `pc`.
    pub insts: Vec<Inst>,
    /// The labels, indexed by [`Label`].
    pub labels: Vec<LabelData>,
}

impl Kernel {
    /// The data of label `label`.
    pub fn label(&self, label: Label) -> &LabelData {
        &self.labels[label.index()]
    }

    /// The data of parameter `param`.
    pub fn param(&self, param: Param) -> &ParamData {
        &self.params[param.index()]
    }

    /// Renumbers the labels in position order (ties keep their order; unplaced
    /// labels go last) and retargets the branches. This is the numbering the
    /// parser gives, so `parse(print(k)) == k` holds for a kernel after this;
    /// [`crate::KernelBuilder::build`] calls it.
    pub fn sort_labels(&mut self) {
        let mut order: Vec<usize> = (0..self.labels.len()).collect();
        order.sort_by_key(|&i| self.labels[i].pos);
        let mut new_index = vec![0u32; self.labels.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new as u32;
        }
        let old_labels = std::mem::take(&mut self.labels);
        let mut slots: Vec<Option<LabelData>> = old_labels.into_iter().map(Some).collect();
        self.labels = order.iter().filter_map(|&old| slots[old].take()).collect();
        for inst in &mut self.insts {
            if let crate::inst::InstData::Branch { target, .. } = &mut inst.data
                && let Some(&new) = new_index.get(target.index())
            {
                *target = Label::with_number(new);
            }
        }
    }

    /// The parameter named `name`, if declared.
    pub fn param_named(&self, name: &str) -> Option<Param> {
        self.params
            .iter()
            .position(|p| p.name == name)
            .map(|i| Param::with_number(i as u16))
    }
}
