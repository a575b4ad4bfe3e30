//! Pre-decoding: a verified kernel becomes a flat array of compact
//! instructions with resolved operands, once per launch.
//!
//! The simulator's inner loop never looks at `kernels_ir` data: every
//! operation is resolved to its native width ([`crate::exec`]), and every
//! operand is a *slot* of the warp's register file in the area of that
//! width (registers, and the 32-bit special values that differ between
//! warps), an *immediate* (immediates, parameters, and the special values
//! that are the same for the whole launch: one value for every lane) or a
//! predicate. Each instruction also lists the scoreboard entries it reads
//! and writes and the pipe it needs.

use kernels_ir::{
    Dim3, InstData, Opcode, Operand, ParamValue, Reg, RegClass, ShflMode, Space, Special,
    VerifiedKernel,
};

use crate::exec::{Alu, AluOp, BinOp, CmpxOp, Consts, Perm, ShflLanes, UnOp};
use crate::regfile::{Slots, ZeroSlots};

/// Where an operand's lane values come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    /// A slot of the register-file area of the operand's width (the
    /// operation says which: 32-bit slots are the `r` registers, then the
    /// per-warp specials; 64-bit slots the `d` registers).
    Reg(u32),
    /// The same value in every lane (immediates, parameters, launch-uniform
    /// specials), as a 64-bit pattern the operation takes modulo 2^width.
    Imm(u64),
    /// A predicate register (operands of predicate operations only).
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

/// What an instruction does, with resolved operands. ALU operations and
/// shuffles carry their specialised loop ([`Alu`]).
#[derive(Copy, Clone, Debug)]
pub(crate) enum Kind {
    /// `mov`, `not`, `cvt.*`: `dst = op(src)`.
    Unary(Alu),
    /// Arithmetic, logic, shifts, min/max, `setp`.
    Binary(Alu),
    /// `selp dst, a, b, pred`.
    Select(Alu),
    /// `cmpx lo, hi`.
    Cmpx(Alu),
    /// A load or store.
    Mem(MemOp),
    /// A shuffle.
    Shfl(Alu),
    /// `bra`: the first pc a warp issues at the target and at the
    /// reconvergence point ([`crate::load_sched`]).
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
    /// The base register's slot, if any (64-bit for global, 32-bit for
    /// shared).
    pub base: Option<u32>,
    /// The byte offset.
    pub offset: i64,
    /// The data registers, lowest address first: (slot, bytes), a 32-bit
    /// slot for 4 bytes and a 64-bit one for 8.
    pub regs: [(u32, u32); 4],
    /// How many of `regs` are used.
    pub nregs: u8,
    /// For a shared atomic (`atom.shared.add.u32`), the operand added to
    /// each lane's word; its old value goes to `regs[0]`.
    pub atom: Option<Src>,
}

/// Most scoreboard entries one instruction reads or writes.
pub(crate) const MAX_DEPS: usize = 8;

/// Most register-file rows one instruction reads or writes.
pub(crate) const MAX_ROWS: usize = 8;

/// In [`DInst::rows`], marks a 64-bit slot (else a 32-bit one).
pub(crate) const ROW64: u32 = 1 << 31;

/// One pre-decoded instruction.
#[derive(Clone, Debug)]
pub(crate) struct DInst {
    /// What it does.
    pub kind: Kind,
    /// The guard predicate, if any, and whether it is negated.
    pub guard: Option<(u32, bool)>,
    /// The throttle class of the pipe it needs
    /// ([`crate::scheduler::throttle_class`]), which the scheduler keeps
    /// for each warp's next instruction.
    pub class: u8,
    /// Issue slots it takes: the SASS instructions it becomes
    /// ([`crate::sass_slots`]; a 32-bit `cmpx` is two min/max, one where
    /// it folds into a select: [`crate::select_fold`]).
    pub issue_slots: u8,
    /// A register rename in SASS (packing a 64-bit value's halves,
    /// [`crate::sass_size::renames`]): a warp that reaches it straight after
    /// another instruction runs it at no cost, its destination ready when
    /// its sources are (`Sm::absorb_renames`). Reached otherwise (a jump, a
    /// warp's first instruction, a source whose load is not timed yet), it
    /// issues in its `issue_slots`.
    pub rename: bool,
    /// Scoreboard entries it must wait for: sources, guard, and
    /// destinations (write after write).
    pub deps: [u32; MAX_DEPS],
    /// How many of `deps` are used.
    pub ndeps: u8,
    /// Scoreboard entries it writes.
    pub writes: [u32; 4],
    /// How many of `writes` are used.
    pub nwrites: u8,
    /// The register-file rows (lane vectors) it reads or writes, for the
    /// host prefetch ([`crate::regfile::RegFile::prefetch_rows`]): a 32-bit
    /// slot (registers and per-warp specials), or a 64-bit slot marked
    /// [`ROW64`].
    pub rows: [u32; MAX_ROWS],
    /// How many of `rows` are used.
    pub nrows: u8,
    /// The pc a warp issues after this one: the next in the order
    /// [`crate::load_sched`] gives its block (the pc after it in the IR
    /// where nothing moved), [`Program::end`] after the last.
    pub next: u32,
    /// Whether the instruction after it in the IR starts another
    /// instruction-cache line ([`crate::icache`]; `Shape::icache_line_bytes`).
    /// A warp that goes on elsewhere (a jump, or an order `load_sched`
    /// changed) looks its next line up in any case.
    pub new_line: bool,
    /// A shared-memory load, store or atomic: the warp issues it no sooner
    /// than `smem_issue_interval_cycles` after its last one.
    pub spaced: bool,
    /// The back edge of a loop where ptxas puts a `YIELD`
    /// ([`crate::yield_loop`]): it holds the warp `yield_cycles` more.
    pub yields: bool,
    /// A 16-byte global store of computed data, which ptxas stages in a
    /// quad of registers it shares with other such stores
    /// ([`crate::store_staging`]).
    pub staged: bool,
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

    /// The register-file rows read or written.
    #[inline]
    pub fn rows(&self) -> &[u32] {
        &self.rows[..self.nrows as usize]
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
    /// The constants instructions refer to (shuffle permutations).
    pub consts: Consts,
    /// Value slots per warp, by area.
    pub nslots: Slots,
    /// Predicate registers per warp.
    pub npreds: usize,
    /// Scoreboard entries per warp (value registers, then predicates).
    pub nsb: usize,
    /// The special values each warp must fill in (32-bit slots).
    pub specials: Vec<SpecialSlot>,
    /// The `S2R`s a warp makes at its start for them ([`crate::s2r`]);
    /// special `i`'s value is scoreboard entry [`Program::special_sb`] + `i`.
    pub s2r: crate::s2r::Reads,
    /// The register slots a new warp must zero ([`crate::init`]).
    pub zero_slots: ZeroSlots,
    /// The kernel's end: the number of instructions (an implicit `exit`).
    pub end: u32,
    /// The pc a warp starts at (the first of the entry block's order).
    pub entry: u32,
    /// 32-bit registers, then 64-bit ones: how scoreboard entries map back
    /// to registers.
    pub b32: u32,
    pub b64: u32,
    /// Per pc (and one past the end), where its SASS starts: the SASS
    /// instructions before it (each IR instruction as many as ptxas emits
    /// for it, [`crate::sass_size`]; not its issue slots), the kernel's
    /// static layout that instruction fetch sees ([`crate::icache`]).
    pub sass_at: Vec<u32>,
}

impl Program {
    /// The scoreboard entry of the first special's `S2R`s: the specials'
    /// entries come last ([`crate::s2r`]).
    pub fn special_sb(&self) -> usize {
        self.nsb - self.specials.len()
    }

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

    /// The scoreboard entry of a memory operand's value register, given as
    /// [`MemOp::regs`] holds it (its slot and its bytes): 64-bit registers'
    /// entries follow the 32-bit ones, as [`Program::reg_of`] reads them.
    pub fn value_sb(&self, slot: u32, bytes: u32) -> u32 {
        if bytes == 8 { self.b32 + slot } else { slot }
    }
}

/// The launch facts decoding depends on.
pub(crate) struct Shape<'a> {
    pub warp_size: u32,
    pub grid: Dim3,
    pub block: Dim3,
    pub params: &'a [ParamValue],
    /// The instruction-cache line, bytes (`GpuConfig::icache_line_bytes`).
    pub icache_line_bytes: u32,
}

struct Decoder<'a> {
    shape: &'a Shape<'a>,
    b32: u32,
    nregs: u32,
    consts: Consts,
    specials: Vec<SpecialSlot>,
    /// The per-warp special slots the instruction being decoded reads.
    read_specials: Vec<u32>,
    /// The order warps issue the pcs in ([`crate::load_sched`]).
    order: Vec<u32>,
}

impl Decoder<'_> {
    /// The pc a warp issues first when it enters the block starting at
    /// `pc` (or the end).
    fn first(&self, pc: u32) -> u32 {
        self.order.get(pc as usize).copied().unwrap_or(pc)
    }

    /// The slot of a value register in its width's area.
    fn slot(&self, reg: Reg) -> u32 {
        match reg.class() {
            RegClass::B32 | RegClass::B64 => reg.index(),
            RegClass::Pred => unreachable!("predicate {reg} used as a value slot"),
        }
    }

    /// The scoreboard entry of a register.
    fn sb(&self, reg: Reg) -> u32 {
        match reg.class() {
            RegClass::B32 => reg.index(),
            RegClass::B64 => self.b32 + reg.index(),
            RegClass::Pred => self.nregs + reg.index(),
        }
    }

    /// The entry of the source lanes of a shuffle whose lane operand is
    /// constant `arg` (shuffles with the same source lanes share one).
    fn shfl_perm(&mut self, mode: ShflMode, width: u32, arg: u32) -> u32 {
        let perm = Perm::new(mode, width, arg, self.shape.warp_size);
        let perms = &mut self.consts.perms;
        let i = perms.iter().position(|p| *p == perm).unwrap_or_else(|| {
            perms.push(perm);
            perms.len() - 1
        });
        i as u32
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
            return Src::Imm(v & 0xFFFF_FFFF);
        }
        let slot = match self.specials.iter().find(|x| x.special == s) {
            Some(s) => s.slot,
            None => {
                let slot = self.b32 + self.specials.len() as u32;
                self.specials.push(SpecialSlot { special: s, slot });
                slot
            }
        };
        self.read_specials.push(slot);
        Src::Reg(slot)
    }

    fn operand(&mut self, op: Operand) -> Src {
        match op {
            Operand::Reg(r) if r.class() == RegClass::Pred => Src::Pred(r.index()),
            Operand::Reg(r) => Src::Reg(self.slot(r)),
            Operand::Imm(v) => Src::Imm(v as u64),
            Operand::Param(p) => Src::Imm(self.shape.params[p.index()].bits()),
            Operand::Special(s) => self.special(s),
        }
    }

    /// An ALU instruction with its loop chosen.
    fn alu(&self, op: AluOp, a: Src, b: Src, dst: u32, aux: u32) -> Alu {
        Alu::new(op, a, b, dst, aux, &self.consts)
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
                let op = UnOp::new(opcode, dst.class().bits());
                let src = self.operand(src);
                let alu = self.alu(AluOp::Unary(op), src, Src::Imm(0), dst.index(), 0);
                (Kind::Unary(alu), Pipe::Alu)
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
                let op = AluOp::Binary(BinOp::new(opcode, width));
                (Kind::Binary(self.alu(op, a, b, dst.index(), 0)), Pipe::Alu)
            }
            InstData::Select {
                dst, args, pred, ..
            } => {
                let (a, b) = (self.operand(args[0]), self.operand(args[1]));
                let op = AluOp::Select {
                    wide: dst.class() == RegClass::B64,
                };
                let alu = self.alu(op, a, b, dst.index(), pred.index());
                (Kind::Select(alu), Pipe::Alu)
            }
            InstData::Cmpx {
                opcode,
                regs: [lo, hi],
            } => {
                let op = match (opcode == Opcode::CmpxS, lo.class()) {
                    (false, RegClass::B32) => CmpxOp::U32,
                    (true, RegClass::B32) => CmpxOp::S32,
                    (false, _) => CmpxOp::U64,
                    (true, _) => CmpxOp::S64,
                };
                let none = Src::Imm(0);
                let alu = self.alu(AluOp::Cmpx(op), none, none, self.slot(lo), self.slot(hi));
                (Kind::Cmpx(alu), Pipe::Alu)
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
                    atom: None,
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
            InstData::Atomic {
                opcode,
                dst,
                addr,
                src,
            } => {
                // Verified: a shared 32-bit word, a 32-bit destination and operand.
                let (space, bytes) = opcode.memory().expect("an atomic accesses memory");
                let op = MemOp {
                    space,
                    bytes,
                    store: false,
                    base: addr.base.map(|b| self.slot(b)),
                    offset: addr.offset.into(),
                    regs: [(self.slot(dst), 4), (0, 0), (0, 0), (0, 0)],
                    nregs: 1,
                    atom: Some(self.operand(src)),
                };
                (Kind::Mem(op), Pipe::Smem)
            }
            InstData::Shfl {
                opcode,
                dst,
                src,
                lane,
                width,
            } => {
                let mode = opcode.shfl_mode().expect("shuffle opcode");
                let (src, lane) = (Src::Reg(self.slot(src)), self.operand(lane));
                let (how, perm) = match lane {
                    Src::Imm(arg) => {
                        let p = self.shfl_perm(mode, width, arg as u32);
                        (ShflLanes::Perm(p), p)
                    }
                    _ => (ShflLanes::Dynamic { mode, width }, 0),
                };
                let alu = self.alu(AluOp::Shfl(how), src, lane, self.slot(dst), perm);
                (Kind::Shfl(alu), Pipe::Shfl)
            }
            InstData::Branch { .. } => {
                let kind = Kind::Bra {
                    target: self.first(vk.branch_target(pc)),
                    rpc: self.first(vk.reconvergence_pc(pc)),
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

/// The registers of the compare-exchange that the instruction at `pc`
/// selects from, when it is the `mov` of a folded pair: it reads their
/// values from before the compare, as the compare does
/// ([`crate::select_fold`]).
fn folded_pair(kernel: &kernels_ir::Kernel, pc: usize) -> Option<[Reg; 2]> {
    let prev = pc.checked_sub(1)?;
    let InstData::Cmpx { regs, .. } = kernel.insts[prev].data else {
        return None;
    };
    crate::select_fold::folds_into_select(&kernel.insts, prev).then_some(regs)
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
        consts: Consts::default(),
        specials: Vec::new(),
        read_specials: Vec::new(),
        order: crate::load_sched::exec_order(kernel),
    };
    // Where each pc stands in the issue order: its successor follows it.
    let mut position = vec![0; kernel.insts.len()];
    for (i, &pc) in d.order.iter().enumerate() {
        position[pc as usize] = i;
    }
    // Renames: the packing of 64-bit halves, and the second instruction of
    // a pair ptxas writes as one three-input instruction.
    let renamed: Vec<bool> = (crate::sass_size::renames(kernel).into_iter())
        .zip(crate::three_input::folded(kernel))
        .map(|(packing, folded)| packing || folded)
        .collect();
    let yields = crate::yield_loop::yield_back_edges(kernel);
    let staged = crate::store_staging::staged_stores(kernel);
    // Scoreboard entries: the registers, the predicates, then one per
    // special for its `S2R`s ([`crate::s2r`]).
    let special_sb = d.nregs + regs.pred;
    let mut insts = Vec::with_capacity(kernel.insts.len());
    for (pc, inst) in kernel.insts.iter().enumerate() {
        d.read_specials.clear();
        let (kind, pipe) = d.kind(vk, pc as u32, &inst.data);
        let mut deps = Vec::with_capacity(MAX_DEPS);
        let mut writes = Vec::with_capacity(4);
        if let Some(g) = inst.guard {
            deps.push(d.sb(g.pred));
        }
        kernels_ir::uses::for_each_use(inst, |r| deps.push(d.sb(r)));
        kernels_ir::uses::for_each_def(inst, |r| writes.push(d.sb(r)));
        deps.extend_from_slice(&writes);
        // The specials read wait for their `S2R`s ([`crate::s2r`]).
        deps.extend(
            d.read_specials
                .iter()
                .map(|&slot| special_sb + slot - d.b32),
        );
        if let Some(pair) = folded_pair(kernel, pc) {
            // The select of a folded compare-exchange reads the pair's
            // original values, as the compare does: it waits for neither
            // of the compare's results (`crate::select_fold`).
            let pair = pair.map(|r| d.sb(r));
            deps.retain(|r| !pair.contains(r));
        }
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
        // Value registers by their slot, then the specials read.
        let mut rows: Vec<u32> = (deps.iter())
            .filter(|&&r| r < d.nregs)
            .map(|&r| if r < d.b32 { r } else { ROW64 | (r - d.b32) })
            .collect();
        d.read_specials.sort_unstable();
        d.read_specials.dedup();
        rows.extend_from_slice(&d.read_specials);
        rows.truncate(MAX_ROWS); // a hint: the rest go unprefetched
        let mut row_arr = [0; MAX_ROWS];
        row_arr[..rows.len()].copy_from_slice(&rows);
        insts.push(DInst {
            kind,
            guard: inst.guard.map(|g| (g.pred.index(), g.negated)),
            class: crate::scheduler::throttle_class(pipe),
            issue_slots: match kind {
                Kind::Cmpx(a) if crate::select_fold::folds_into_select(&kernel.insts, pc) => {
                    crate::sass_slots::folded_cmpx_slots(a.op)
                }
                Kind::Unary(a) | Kind::Binary(a)
                    if inst.guard.is_some()
                        && !crate::select_fold::selects_for_cmpx(&kernel.insts, pc) =>
                {
                    crate::sass_slots::guarded_slots(a.op)
                }
                Kind::Unary(a) | Kind::Binary(a) | Kind::Select(a) | Kind::Cmpx(a) => {
                    crate::sass_slots::issue_slots(a.op)
                }
                _ => 1,
            },
            rename: renamed[pc],
            deps: dep_arr,
            ndeps: deps.len() as u8,
            writes: write_arr,
            nwrites: writes.len() as u8,
            rows: row_arr,
            nrows: rows.len() as u8,
            next: d.first(position[pc] as u32 + 1),
            new_line: false,
            spaced: pipe == Pipe::Smem,
            yields: yields[pc],
            staged: staged[pc],
        });
    }
    if insts.is_empty() {
        // An empty kernel still runs its implicit `exit`.
        insts.push(DInst {
            kind: Kind::Exit,
            guard: None,
            class: crate::scheduler::throttle_class(Pipe::Ctrl),
            issue_slots: 1,
            rename: false,
            deps: [0; MAX_DEPS],
            ndeps: 0,
            writes: [0; 4],
            nwrites: 0,
            rows: [0; MAX_ROWS],
            nrows: 0,
            next: 1,
            new_line: false,
            spaced: false,
            yields: false,
            staged: false,
        });
    }
    let entry = d.first(0);
    let issue: Vec<u8> = insts.iter().map(|i| i.issue_slots).collect();
    let sizes = if kernel.insts.is_empty() {
        issue // the implicit `exit`
    } else {
        crate::sass_size::code_sizes(kernel, &issue, &renamed)
    };
    let mut sass_at = Vec::with_capacity(insts.len() + 1);
    let mut at = 0u32;
    for &size in &sizes {
        sass_at.push(at);
        at += u32::from(size);
    }
    sass_at.push(at);
    let per_line = (shape.icache_line_bytes / crate::icache::SASS_INST_BYTES).max(1);
    for (pc, inst) in insts.iter_mut().enumerate() {
        inst.new_line = sass_at[pc + 1] / per_line != sass_at[pc] / per_line;
    }
    Program {
        sass_at,
        consts: d.consts,
        nslots: Slots {
            b32: regs.b32,
            b64: regs.b64,
            specials: d.specials.len() as u32,
        },
        npreds: regs.pred as usize,
        nsb: special_sb as usize + d.specials.len(),
        s2r: crate::s2r::reads(&d.specials),
        specials: d.specials,
        zero_slots: crate::init::slots_to_zero(kernel),
        end: insts.len() as u32,
        entry,
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
    fn guarded_wide_compares_and_moves_take_the_slots_ptxas_merges_them_in() {
        // HotSort's key-value lane stage over 64-bit keys, then a cmpx and
        // its select (`crate::sass_slots::guarded_slots`).
        let mut b = KernelBuilder::new("t");
        let (r0, p0, p1) = (b.reg32(), b.pred(), b.pred());
        let (d0, d1, d2) = (b.reg64(), b.reg64(), b.reg64());
        b.setp_eq(p0, r0, 0u32); // 0
        b.when(p0).setp_lt_u(p1, d0, d1); // 1
        b.unless(p0).setp_gt_u(p1, d0, d1); // 2
        b.when(p1).mov(d0, d1); // 3
        b.when(p1).mov(r0, 7u32); // 4
        b.cmpx_u(d0, d2); // 5
        b.when(p1).mov(d0, d2); // 6: the cmpx's select
        b.setp_lt_u(p1, d0, d2); // 7
        b.add(d1, d2, d0); // 8: d2 read, so 5 and 6 do not fold
        let vk = verify_kernel(b.build()).unwrap();
        let shape = Shape {
            warp_size: 4,
            grid: Dim3::x(1),
            block: Dim3::x(4),
            params: &[],
            icache_line_bytes: 32,
        };
        let p = decode(&vk, &shape);
        let slots: Vec<u8> = p.insts.iter().map(|i| i.issue_slots).collect();
        assert_eq!(slots, [1, 3, 3, 2, 1, 8, 1, 2, 1]);
    }

    #[test]
    fn operands_resolve_to_slots_of_their_width_immediates_and_predicates() {
        let mut b = KernelBuilder::new("t");
        let n = b.param("n", ParamType::U32);
        let (r0, r1, d0, p0) = (b.reg32(), b.reg32(), b.reg64(), b.pred());
        let d1 = b.reg64();
        b.add(r0, r1, n); // 0
        b.setp_lt_u(p0, Special::LaneId, 3); // 1
        b.when(p0).cvt_u64_u32(d0, Special::NtidX); // 2
        b.cmpx_u(r0, r1); // 3
        b.shl(d1, d0, r1); // 4
        b.shfl(Opcode::ShflXor, r0, r1, 1, 4); // 5
        b.shfl(Opcode::ShflDown, r0, r1, r0, 4); // 6
        b.shfl(Opcode::ShflXor, r1, r0, 1, 4); // 7: the same lanes as 5
        let vk = verify_kernel(b.build()).unwrap();
        let shape = Shape {
            warp_size: 4,
            grid: Dim3::x(2),
            block: Dim3::x(8),
            params: &[ParamValue::U32(7)],
            icache_line_bytes: 32,
        };
        let p = decode(&vk, &shape);
        let want = Slots {
            b32: 2,
            b64: 2,
            specials: 1,
        };
        assert_eq!(p.nslots, want, "r0 r1, then %laneid; d0 d1");
        assert_eq!(p.nsb, 6, "r0 r1 d0 d1 p0, then %laneid's S2R");
        let alu = |pc: usize| match p.insts[pc].kind {
            Kind::Unary(a) | Kind::Binary(a) | Kind::Select(a) | Kind::Cmpx(a) | Kind::Shfl(a) => {
                (a.op, a.a, a.b, a.dst, a.aux)
            }
            other => unreachable!("{other:?}"),
        };
        let none = Src::Imm(0);
        let add = AluOp::Binary(BinOp::Add32);
        assert_eq!(alu(0), (add, Src::Reg(1), Src::Imm(7), 0, 0));
        let lt = AluOp::Binary(BinOp::Setp32(crate::exec::Cmp::LtU));
        assert_eq!(
            alu(1),
            (lt, Src::Reg(2), Src::Imm(3), 0, 0),
            "%laneid after r0 r1"
        );
        let zext = AluOp::Unary(UnOp::Zext);
        assert_eq!(
            alu(2),
            (zext, Src::Imm(8), none, 0, 0),
            "%ntid.x is uniform"
        );
        assert_eq!(p.insts[2].guard, Some((0, false)));
        assert_eq!(p.insts[2].deps(), &[2, 4], "d0 (write) and p0 (guard)");
        assert_eq!(alu(3), (AluOp::Cmpx(CmpxOp::U32), none, none, 0, 1));
        assert_eq!(p.insts[3].issue_slots, 2);
        assert_eq!(p.insts[3].writes(), &[0, 1]);
        assert_eq!(
            p.sass_at[..5],
            [0, 1, 2, 3, 5],
            "the layout: each instruction after the SASS of those before it"
        );
        assert_eq!(p.sass_at.len(), p.insts.len() + 1);
        let new_line: Vec<bool> = p.insts[..4].iter().map(|i| i.new_line).collect();
        assert_eq!(
            new_line,
            [false, true, false, true],
            "two SASS instructions a 32-byte line: 2 and 4 start lines"
        );
        let shl = AluOp::Binary(BinOp::Shl64);
        assert_eq!(
            alu(4),
            (shl, Src::Reg(0), Src::Reg(1), 1, 0),
            "a 32-bit count"
        );
        assert_eq!(p.insts[4].writes(), &[3], "d1 is register 2 + 1");
        // The rows to prefetch: 32-bit slots, specials included, and
        // 64-bit slots marked; no predicates, no uniform specials.
        assert_eq!(p.insts[0].rows(), &[0, 1], "r0 r1");
        assert_eq!(p.insts[1].rows(), &[2], "%laneid's slot, not p0");
        assert_eq!(p.insts[2].rows(), &[ROW64], "d0; %ntid.x is an immediate");
        assert_eq!(p.insts[4].rows(), &[1, ROW64, ROW64 | 1], "r1, d0, d1");
        let xor = AluOp::Shfl(ShflLanes::Perm(0));
        assert_eq!(alu(5), (xor, Src::Reg(1), Src::Imm(1), 0, 0));
        assert_eq!(
            p.consts.perms.len(),
            1,
            "shuffles 5 and 7 share their lanes"
        );
        assert_eq!(p.consts.perms[0].lanes[..4], [1, 0, 3, 2]);
        let down = AluOp::Shfl(ShflLanes::Dynamic {
            mode: ShflMode::Down,
            width: 4,
        });
        assert_eq!(alu(6), (down, Src::Reg(1), Src::Reg(0), 0, 0));
        assert_eq!(
            alu(7),
            (xor, Src::Reg(0), Src::Imm(1), 1, 0),
            "the same lanes as 5"
        );
    }
}
