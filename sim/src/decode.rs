//! Pre-decoding: a verified kernel becomes a flat array of compact
//! instructions with resolved operands, once per launch.
//!
//! The simulator's inner loop never looks at `kernels_ir` data: every
//! operand is a *slot* of the warp's register file (registers, and the
//! special values that differ between warps), a *constant* (immediates,
//! parameters, and the special values that are the same for the whole
//! launch, stored as lane vectors) or a predicate. Each instruction also
//! lists the scoreboard entries it reads and writes and the pipe it needs.

use kernels_ir::{
    Dim3, InstData, Opcode, Operand, ParamValue, Reg, RegClass, ShflMode, Space, Special,
    VerifiedKernel,
};

/// Where an operand's lane values come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    /// A value slot of the warp's register file.
    Slot(u32),
    /// A constant lane vector of the program.
    Const(u32),
    /// A predicate register, read as 0 or 1 per lane.
    Pred(u32),
}

/// Where a result goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Dst {
    /// A value slot, with its width in bits (32 or 64).
    Slot(u32),
    /// A predicate register.
    Pred(u32),
}

/// The unit that executes an instruction (and whose throughput limits it).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pipe {
    /// Integer ALU of the sub-partition.
    Alu,
    /// Shuffles: MIO queue, then the SM's shared-memory crossbar.
    Shfl,
    /// Shared memory: MIO queue, then the SM's shared-memory pipe.
    Smem,
    /// Global memory: LSU queue, then L1TEX and the memory partitions.
    Lsu,
    /// Branches, barriers, exit: no throughput limit.
    Ctrl,
}

/// What an instruction does, with resolved operands.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Kind {
    /// `mov`, `not`, `cvt.*`: `dst = op(src)`.
    Unary {
        opcode: Opcode,
        src_width: u32,
        dst_width: u32,
        src: Src,
        dst: Dst,
    },
    /// Arithmetic, logic, shifts, min/max, `setp`.
    Binary {
        opcode: Opcode,
        width: u32,
        a: Src,
        b: Src,
        dst: Dst,
    },
    /// `selp dst, a, b, pred`.
    Select {
        width: u32,
        a: Src,
        b: Src,
        pred: u32,
        dst: Dst,
    },
    /// `cmpx lo, hi`.
    Cmpx {
        signed: bool,
        width: u32,
        lo: u32,
        hi: u32,
    },
    /// A load or store.
    Mem(MemOp),
    /// A shuffle.
    Shfl {
        mode: ShflMode,
        width: u32,
        src: Src,
        lane: Src,
        dst: Dst,
        /// With a constant lane operand, the constant lane vector holding
        /// each lane's source lane (worked out once at decode).
        perm: Option<u32>,
    },
    /// `bra`.
    Bra { target: u32, rpc: u32 },
    /// `exit`.
    Exit,
    /// `bar.sync`.
    Bar,
    /// `warp.sync`.
    WarpSync,
}

/// The resolved operands of a load or store.
#[derive(Copy, Clone, Debug)]
pub(crate) struct MemOp {
    /// Global or shared.
    pub space: Space,
    /// Access width in bytes (4, 8, 16).
    pub bytes: u32,
    /// A store (else a load).
    pub store: bool,
    /// The base register's slot, if any.
    pub base: Option<u32>,
    /// The byte offset.
    pub offset: i64,
    /// The data registers, lowest address first: (slot, bytes).
    pub regs: [(u32, u32); 4],
    /// How many of `regs` are used.
    pub nregs: u8,
}

/// Most scoreboard entries one instruction reads or writes.
pub(crate) const MAX_DEPS: usize = 8;

/// One pre-decoded instruction.
#[derive(Clone, Debug)]
pub(crate) struct DInst {
    /// What it does.
    pub kind: Kind,
    /// The guard predicate, if any, and whether it is negated.
    pub guard: Option<(u32, bool)>,
    /// The pipe it needs.
    pub pipe: Pipe,
    /// Issue slots it takes (a `cmpx` is two SASS min/max instructions).
    pub issue_slots: u8,
    /// Scoreboard entries it must wait for: sources, guard, and
    /// destinations (write after write).
    pub deps: [u32; MAX_DEPS],
    /// How many of `deps` are used.
    pub ndeps: u8,
    /// Scoreboard entries it writes.
    pub writes: [u32; 4],
    /// How many of `writes` are used.
    pub nwrites: u8,
}

impl DInst {
    /// The scoreboard entries to wait for.
    pub fn deps(&self) -> &[u32] {
        &self.deps[..self.ndeps as usize]
    }

    /// The scoreboard entries written.
    pub fn writes(&self) -> &[u32] {
        &self.writes[..self.nwrites as usize]
    }
}

/// A per-warp special value and the slot that holds it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SpecialSlot {
    pub special: Special,
    pub slot: u32,
}

/// A kernel decoded for one launch shape.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    /// The instructions, by pc.
    pub insts: Vec<DInst>,
    /// Constant lane vectors, `warp_size` lanes each.
    pub consts: Vec<u64>,
    /// Value slots per warp (registers then per-warp specials).
    pub nslots: usize,
    /// Predicate registers per warp.
    pub npreds: usize,
    /// Scoreboard entries per warp (value registers, then predicates).
    pub nsb: usize,
    /// The special values each warp must fill in.
    pub specials: Vec<SpecialSlot>,
    /// The register slots a new warp must zero ([`crate::init`]).
    pub zero_slots: Vec<u32>,
    /// The kernel's end: the number of instructions (an implicit `exit`).
    pub end: u32,
    /// 32-bit registers, then 64-bit ones: how slots map back to registers.
    pub b32: u32,
    pub b64: u32,
}

impl Program {
    /// The register behind scoreboard entry `sb` (for traces).
    pub fn reg_of(&self, sb: u32) -> traces::RegRef {
        use traces::RegClass as C;
        let (class, index) = if sb < self.b32 {
            (C::B32, sb)
        } else if sb < self.b32 + self.b64 {
            (C::B64, sb - self.b32)
        } else {
            (C::Pred, sb - self.b32 - self.b64)
        };
        traces::RegRef { class, index }
    }
}

/// The launch facts decoding depends on.
pub(crate) struct Shape<'a> {
    pub warp_size: u32,
    pub grid: Dim3,
    pub block: Dim3,
    pub params: &'a [ParamValue],
}

struct Decoder<'a> {
    shape: &'a Shape<'a>,
    b32: u32,
    nregs: u32,
    consts: Vec<u64>,
    /// The value of each constant lane vector (`None`: a shuffle's source
    /// lanes, never shared with a plain constant).
    const_values: Vec<Option<u64>>,
    specials: Vec<SpecialSlot>,
}

impl Decoder<'_> {
    fn slot(&self, reg: Reg) -> u32 {
        match reg.class() {
            RegClass::B32 => reg.index(),
            RegClass::B64 => self.b32 + reg.index(),
            RegClass::Pred => unreachable!("predicate {reg} used as a value slot"),
        }
    }

    /// The scoreboard entry of a register.
    fn sb(&self, reg: Reg) -> u32 {
        match reg.class() {
            RegClass::Pred => self.nregs + reg.index(),
            _ => self.slot(reg),
        }
    }

    fn constant(&mut self, value: u64) -> Src {
        let i = match self.const_values.iter().position(|&v| v == Some(value)) {
            Some(i) => i,
            None => {
                self.const_values.push(Some(value));
                let w = self.shape.warp_size as usize;
                self.consts.extend(std::iter::repeat_n(value, w));
                self.const_values.len() - 1
            }
        };
        Src::Const(i as u32)
    }

    /// A constant lane vector of the source lanes of a shuffle whose lane
    /// operand is constant `c`.
    fn shfl_perm(&mut self, mode: ShflMode, width: u32, c: u32) -> u32 {
        let w = self.shape.warp_size;
        let arg = self.consts[(c * w) as usize] as u32;
        self.const_values.push(None);
        for lane in 0..w {
            let src = crate::exec::shfl_source(mode, lane, arg, width, w);
            self.consts.push(src.into());
        }
        (self.const_values.len() - 1) as u32
    }

    fn special(&mut self, s: Special) -> Src {
        let (grid, block, w) = (self.shape.grid, self.shape.block, self.shape.warp_size);
        let uniform = match s {
            Special::NWarps => Some(block.count().div_ceil(w.into())),
            Special::WarpSize => Some(w.into()),
            Special::NtidX => Some(block.x.into()),
            Special::NtidY => Some(block.y.into()),
            Special::NtidZ => Some(block.z.into()),
            Special::NctaidX => Some(grid.x.into()),
            Special::NctaidY => Some(grid.y.into()),
            Special::NctaidZ => Some(grid.z.into()),
            _ => None,
        };
        if let Some(v) = uniform {
            return self.constant(v & 0xFFFF_FFFF);
        }
        if let Some(s) = self.specials.iter().find(|x| x.special == s) {
            return Src::Slot(s.slot);
        }
        let slot = self.nregs + self.specials.len() as u32;
        self.specials.push(SpecialSlot { special: s, slot });
        Src::Slot(slot)
    }

    fn operand(&mut self, op: Operand) -> Src {
        match op {
            Operand::Reg(r) if r.class() == RegClass::Pred => Src::Pred(r.index()),
            Operand::Reg(r) => Src::Slot(self.slot(r)),
            Operand::Imm(v) => self.constant(v as u64),
            Operand::Param(p) => self.constant(self.shape.params[p.index()].bits()),
            Operand::Special(s) => self.special(s),
        }
    }

    fn dst(&self, reg: Reg) -> Dst {
        match reg.class() {
            RegClass::Pred => Dst::Pred(reg.index()),
            _ => Dst::Slot(self.slot(reg)),
        }
    }

    /// The width of an operand in a comparison (0: takes the other's).
    fn width_of(&self, op: Operand) -> u32 {
        match op {
            Operand::Reg(r) => r.class().bits(),
            Operand::Param(p) => match self.shape.params[p.index()] {
                ParamValue::U32(_) => 32,
                ParamValue::U64(_) => 64,
            },
            _ => 0,
        }
    }

    fn kind(&mut self, vk: &VerifiedKernel, pc: u32, data: &InstData) -> (Kind, Pipe) {
        match *data {
            InstData::Unary { opcode, dst, src } => {
                let dst_width = dst.class().bits();
                let src_width = match opcode {
                    Opcode::CvtU64U32 | Opcode::CvtS64S32 => 32,
                    Opcode::CvtU32U64 => 64,
                    _ => dst_width,
                };
                let (src, dst) = (self.operand(src), self.dst(dst));
                (
                    Kind::Unary {
                        opcode,
                        src_width,
                        dst_width,
                        src,
                        dst,
                    },
                    Pipe::Alu,
                )
            }
            InstData::Binary { opcode, dst, args } => {
                let width = if opcode.comparison().is_some() {
                    match self.width_of(args[0]).max(self.width_of(args[1])) {
                        0 => 32,
                        w => w,
                    }
                } else {
                    dst.class().bits()
                };
                let (a, b) = (self.operand(args[0]), self.operand(args[1]));
                (
                    Kind::Binary {
                        opcode,
                        width,
                        a,
                        b,
                        dst: self.dst(dst),
                    },
                    Pipe::Alu,
                )
            }
            InstData::Select {
                dst, args, pred, ..
            } => {
                let (a, b) = (self.operand(args[0]), self.operand(args[1]));
                let width = dst.class().bits();
                (
                    Kind::Select {
                        width,
                        a,
                        b,
                        pred: pred.index(),
                        dst: self.dst(dst),
                    },
                    Pipe::Alu,
                )
            }
            InstData::Cmpx {
                opcode,
                regs: [lo, hi],
            } => {
                let kind = Kind::Cmpx {
                    signed: opcode == Opcode::CmpxS,
                    width: lo.class().bits(),
                    lo: self.slot(lo),
                    hi: self.slot(hi),
                };
                (kind, Pipe::Alu)
            }
            InstData::Load {
                opcode,
                dsts: regs,
                addr,
            }
            | InstData::Store {
                opcode,
                srcs: regs,
                addr,
            } => {
                let (space, bytes) = opcode.memory().expect("memory opcode");
                let mut op = MemOp {
                    space,
                    bytes,
                    store: matches!(data, InstData::Store { .. }),
                    base: addr.base.map(|b| self.slot(b)),
                    offset: addr.offset.into(),
                    regs: [(0, 0); 4],
                    nregs: regs.as_slice().len() as u8,
                };
                for (i, &r) in regs.as_slice().iter().enumerate() {
                    op.regs[i] = (self.slot(r), r.class().bits() / 8);
                }
                let pipe = if space == Space::Global {
                    Pipe::Lsu
                } else {
                    Pipe::Smem
                };
                (Kind::Mem(op), pipe)
            }
            InstData::Shfl {
                opcode,
                dst,
                src,
                lane,
                width,
            } => {
                let mode = opcode.shfl_mode().expect("shuffle opcode");
                let src = self.operand(Operand::Reg(src));
                let lane = self.operand(lane);
                let perm = match lane {
                    Src::Const(c) => Some(self.shfl_perm(mode, width, c)),
                    _ => None,
                };
                (
                    Kind::Shfl {
                        mode,
                        width,
                        src,
                        lane,
                        dst: self.dst(dst),
                        perm,
                    },
                    Pipe::Shfl,
                )
            }
            InstData::Branch { .. } => {
                let kind = Kind::Bra {
                    target: vk.branch_target(pc),
                    rpc: vk.reconvergence_pc(pc),
                };
                (kind, Pipe::Ctrl)
            }
            InstData::Nullary { opcode } => {
                let kind = match opcode {
                    Opcode::BarSync => Kind::Bar,
                    Opcode::WarpSync => Kind::WarpSync,
                    _ => Kind::Exit,
                };
                (kind, Pipe::Ctrl)
            }
        }
    }
}

/// Decodes `vk` for a launch. The caller has checked the parameters'
/// count and types.
pub(crate) fn decode(vk: &VerifiedKernel, shape: &Shape<'_>) -> Program {
    let kernel = vk.kernel();
    let regs = kernel.regs;
    let mut d = Decoder {
        shape,
        b32: regs.b32,
        nregs: regs.b32 + regs.b64,
        consts: Vec::new(),
        const_values: Vec::new(),
        specials: Vec::new(),
    };
    let mut insts = Vec::with_capacity(kernel.insts.len());
    for (pc, inst) in kernel.insts.iter().enumerate() {
        let (kind, pipe) = d.kind(vk, pc as u32, &inst.data);
        let mut deps = Vec::with_capacity(MAX_DEPS);
        let mut writes = Vec::with_capacity(4);
        if let Some(g) = inst.guard {
            deps.push(d.sb(g.pred));
        }
        kernels_ir::uses::for_each_use(inst, |r| deps.push(d.sb(r)));
        kernels_ir::uses::for_each_def(inst, |r| writes.push(d.sb(r)));
        deps.extend_from_slice(&writes);
        deps.sort_unstable();
        deps.dedup();
        writes.sort_unstable();
        writes.dedup();
        assert!(
            deps.len() <= MAX_DEPS && writes.len() <= 4,
            "operand lists are bounded"
        );
        let mut dep_arr = [0; MAX_DEPS];
        dep_arr[..deps.len()].copy_from_slice(&deps);
        let mut write_arr = [0; 4];
        write_arr[..writes.len()].copy_from_slice(&writes);
        insts.push(DInst {
            kind,
            guard: inst.guard.map(|g| (g.pred.index(), g.negated)),
            pipe,
            issue_slots: if matches!(kind, Kind::Cmpx { .. }) {
                2
            } else {
                1
            },
            deps: dep_arr,
            ndeps: deps.len() as u8,
            writes: write_arr,
            nwrites: writes.len() as u8,
        });
    }
    if insts.is_empty() {
        // An empty kernel still runs its implicit `exit`.
        insts.push(DInst {
            kind: Kind::Exit,
            guard: None,
            pipe: Pipe::Ctrl,
            issue_slots: 1,
            deps: [0; MAX_DEPS],
            ndeps: 0,
            writes: [0; 4],
            nwrites: 0,
        });
    }
    Program {
        consts: d.consts,
        nslots: (d.nregs as usize) + d.specials.len(),
        npreds: regs.pred as usize,
        nsb: (d.nregs + regs.pred) as usize,
        specials: d.specials,
        zero_slots: crate::init::slots_to_zero(kernel),
        end: insts.len() as u32,
        insts,
        b32: regs.b32,
        b64: regs.b64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::{KernelBuilder, ParamType, verify_kernel};

    #[test]
    fn operands_resolve_to_slots_constants_and_predicates() {
        let mut b = KernelBuilder::new("t");
        let n = b.param("n", ParamType::U32);
        let (r0, r1, d0, p0) = (b.reg32(), b.reg32(), b.reg64(), b.pred());
        b.add(r0, r1, n); // 0
        b.setp_lt_u(p0, Special::LaneId, 3); // 1
        b.when(p0).cvt_u64_u32(d0, Special::NtidX); // 2
        b.cmpx_u(r0, r1); // 3
        let vk = verify_kernel(b.build()).unwrap();
        let shape = Shape {
            warp_size: 4,
            grid: Dim3::x(2),
            block: Dim3::x(8),
            params: &[ParamValue::U32(7)],
        };
        let p = decode(&vk, &shape);
        assert_eq!(p.nslots, 4, "r0 r1 d0 and %laneid");
        assert_eq!(p.nsb, 4, "r0 r1 d0 p0");
        assert!(matches!(
            p.insts[0].kind,
            Kind::Binary {
                a: Src::Slot(1),
                b: Src::Const(0),
                dst: Dst::Slot(0),
                width: 32,
                ..
            }
        ));
        assert_eq!(&p.consts[..4], &[7; 4]);
        assert!(matches!(
            p.insts[1].kind,
            Kind::Binary {
                a: Src::Slot(3),
                dst: Dst::Pred(0),
                ..
            }
        ));
        assert_eq!(p.insts[2].guard, Some((0, false)));
        assert_eq!(p.insts[2].deps(), &[2, 3], "d0 (write) and p0 (guard)");
        assert_eq!(p.insts[3].issue_slots, 2);
        assert_eq!(p.insts[3].writes(), &[0, 1]);
    }
}
