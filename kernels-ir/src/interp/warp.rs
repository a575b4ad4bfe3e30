//! One warp of the reference interpreter: registers, the SIMT stack, and
//! the execution of one instruction over the active lanes.

use super::InterpError;
use super::memory::DeviceMemory;
use super::values;
use crate::entities::{Reg, RegClass};
use crate::inst::{InstData, Operand, Special};
use crate::launch::{Dim3, ParamValue};
use crate::opcode::{Format, Opcode, Space};
use crate::verify::VerifiedKernel;

/// What a `bar.sync` reached by part of a warp reports: no verified kernel
/// does that (`verify/barrier.rs` says why), so it is the verifier's bug.
pub(crate) const DIVERGENT_BARRIER: &str = "internal error: bar.sync reached by a divergent \
     warp, which the verifier's barrier rule rules out (a simsort bug: please report it with \
     this kernel)";

/// What the interpreter needs to know about the block being run.
pub(crate) struct BlockContext<'a> {
    pub grid: Dim3,
    pub block: Dim3,
    pub block_id: [u32; 3],
    pub block_index: u64,
    pub warp_size: u32,
    pub params: &'a [ParamValue],
}

/// How a step ended.
pub(crate) enum Step {
    /// The warp can go on.
    Continue,
    /// The warp arrived at `bar.sync`.
    Barrier,
    /// Nothing was left to run: the warp has finished.
    Done,
}

/// One SIMT stack entry: run `mask` from `pc` until `rpc`.
#[derive(Clone, Copy, Debug)]
struct Entry {
    pc: u32,
    mask: u64,
    rpc: u32,
}

/// A warp's architectural state.
pub(crate) struct Warp {
    index: u32,
    width: usize,
    /// Lanes that have not exited.
    live: u64,
    stack: Vec<Entry>,
    at_barrier: bool,
    r: Vec<u32>,
    d: Vec<u64>,
    /// One lane mask per predicate register.
    p: Vec<u64>,
}

impl Warp {
    pub fn new(kernel: &VerifiedKernel, ctx: &BlockContext<'_>, index: u32) -> Warp {
        let threads = ctx.block.count();
        let first = index as u64 * ctx.warp_size as u64;
        let lanes = (threads - first).min(ctx.warp_size as u64) as u32;
        let live = values::mask(lanes);
        let regs = kernel.kernel().regs;
        let width = ctx.warp_size as usize;
        let end = kernel.kernel().insts.len() as u32;
        Warp {
            index,
            width,
            live,
            stack: vec![Entry {
                pc: 0,
                mask: live,
                rpc: end,
            }],
            at_barrier: false,
            r: vec![0; regs.b32 as usize * width],
            d: vec![0; regs.b64 as usize * width],
            p: vec![0; regs.pred as usize],
        }
    }

    pub fn finished(&self) -> bool {
        self.live == 0 || self.stack.is_empty()
    }

    pub fn runnable(&self) -> bool {
        !self.at_barrier && !self.finished()
    }

    pub fn release_barrier(&mut self) {
        self.at_barrier = false;
    }

    /// Pops finished entries; returns the active entry, if any.
    fn normalize(&mut self, end: u32) -> Option<Entry> {
        while let Some(top) = self.stack.last_mut() {
            top.mask &= self.live;
            if top.mask == 0 || top.pc == top.rpc {
                self.stack.pop();
            } else if top.pc >= end {
                // Falling off the end is an implicit exit.
                self.live &= !top.mask;
                self.stack.pop();
            } else {
                return Some(*top);
            }
        }
        None
    }

    #[inline(always)]
    fn get(&self, reg: Reg, lane: usize) -> u64 {
        let i = reg.index() as usize;
        match reg.class() {
            RegClass::B32 => self.r[i * self.width + lane] as u64,
            RegClass::B64 => self.d[i * self.width + lane],
            RegClass::Pred => (self.p[i] >> lane) & 1,
        }
    }

    #[inline(always)]
    fn set(&mut self, reg: Reg, lane: usize, value: u64) {
        let i = reg.index() as usize;
        match reg.class() {
            RegClass::B32 => self.r[i * self.width + lane] = value as u32,
            RegClass::B64 => self.d[i * self.width + lane] = value,
            RegClass::Pred => {
                let bit = 1u64 << lane;
                self.p[i] = if value & 1 != 0 {
                    self.p[i] | bit
                } else {
                    self.p[i] & !bit
                };
            }
        }
    }

    fn special(&self, s: Special, ctx: &BlockContext<'_>, lane: usize) -> u64 {
        let t = self.index as u64 * ctx.warp_size as u64 + lane as u64;
        let (bx, by) = (ctx.block.x as u64, ctx.block.y as u64);
        let v = match s {
            Special::LaneId => lane as u64,
            Special::WarpId => self.index as u64,
            Special::NWarps => ctx.block.count().div_ceil(ctx.warp_size as u64),
            Special::WarpSize => ctx.warp_size as u64,
            Special::TidX => t % bx,
            Special::TidY => (t / bx) % by,
            Special::TidZ => t / (bx * by),
            Special::NtidX => ctx.block.x as u64,
            Special::NtidY => ctx.block.y as u64,
            Special::NtidZ => ctx.block.z as u64,
            Special::CtaidX => ctx.block_id[0] as u64,
            Special::CtaidY => ctx.block_id[1] as u64,
            Special::CtaidZ => ctx.block_id[2] as u64,
            Special::NctaidX => ctx.grid.x as u64,
            Special::NctaidY => ctx.grid.y as u64,
            Special::NctaidZ => ctx.grid.z as u64,
        };
        v & values::mask(32)
    }

    #[inline(always)]
    fn read(&self, op: &Operand, ctx: &BlockContext<'_>, lane: usize) -> u64 {
        match *op {
            Operand::Reg(r) => self.get(r, lane),
            Operand::Imm(v) => v as u64,
            Operand::Special(s) => self.special(s, ctx, lane),
            Operand::Param(p) => ctx.params[p.index()].bits(),
        }
    }

    /// Executes the instruction at the top of the SIMT stack.
    pub fn step(
        &mut self,
        kernel: &VerifiedKernel,
        ctx: &BlockContext<'_>,
        global: &mut DeviceMemory,
        shared: &mut [u8],
    ) -> Result<Step, InterpError> {
        let insts = &kernel.kernel().insts;
        let Some(top) = self.normalize(insts.len() as u32) else {
            return Ok(Step::Done);
        };
        let pc = top.pc;
        let inst = &insts[pc as usize];
        let active = match inst.guard {
            Some(g) => {
                let p = self.p[g.pred.index() as usize];
                top.mask & if g.negated { !p } else { p }
            }
            None => top.mask,
        };
        let warp_index = self.index;
        let fault = |lane: u32, what: String| InterpError::Fault {
            kernel: kernel.kernel().name.clone(),
            block: ctx.block_index,
            warp: warp_index,
            lane,
            pc,
            inst: format!("{:?}", inst.data),
            what,
        };
        let mut next = pc + 1;
        match inst.data {
            InstData::Branch { .. } => {
                let target = kernel.branch_target(pc);
                let taken = active;
                let not_taken = top.mask & !taken;
                if not_taken == 0 {
                    next = target;
                } else if taken != 0 {
                    let rpc = kernel.reconvergence_pc(pc);
                    let depth = self.stack.len() - 1;
                    self.stack[depth].pc = rpc;
                    self.stack.push(Entry {
                        pc: pc + 1,
                        mask: not_taken,
                        rpc,
                    });
                    self.stack.push(Entry {
                        pc: target,
                        mask: taken,
                        rpc,
                    });
                    return Ok(Step::Continue);
                }
            }
            InstData::Nullary {
                opcode: Opcode::Exit,
            } => {
                self.live &= !active;
            }
            InstData::Nullary {
                opcode: Opcode::BarSync,
            } => {
                if top.mask != self.live {
                    // No verified kernel gets here (the proof is in
                    // `verify/barrier.rs`): this is the verifier's bug, and
                    // says so rather than blame the kernel.
                    let lane = (self.live & !top.mask).trailing_zeros();
                    return Err(fault(lane, DIVERGENT_BARRIER.into()));
                }
                self.at_barrier = true;
                self.set_pc(next);
                return Ok(Step::Barrier);
            }
            InstData::Nullary { .. } => {} // warp.sync
            InstData::Load { .. } | InstData::Store { .. } => {
                self.memory(&inst.data, active, global, shared)
                    .map_err(|(lane, what)| fault(lane, what))?;
            }
            InstData::Atomic { .. } => {
                self.atomic(&inst.data, active, ctx, shared)
                    .map_err(|(lane, what)| fault(lane, what))?;
            }
            InstData::Shfl {
                opcode,
                dst,
                src,
                lane,
                width,
            } => {
                let mode = opcode.shfl_mode().expect("shfl format");
                let w = ctx.warp_size;
                // Every lane's source is read before any is written: `dst`
                // may be `src`. (On the stack: this runs once per shuffle.)
                let mut vals = [0u64; 64];
                for (l, v) in vals.iter_mut().enumerate().take(self.width) {
                    let arg = self.read(&lane, ctx, l) as u32;
                    let s = values::shfl_source(mode, l as u32, arg, width, w);
                    *v = self.get(src, s as usize);
                }
                for_lanes(active, |l| self.set(dst, l, vals[l]));
            }
            _ => self.alu(&inst.data, active, ctx),
        }
        if !matches!(
            inst.data,
            InstData::Nullary {
                opcode: Opcode::Exit
            }
        ) || active != top.mask
        {
            self.set_pc(next);
        }
        Ok(Step::Continue)
    }

    fn set_pc(&mut self, pc: u32) {
        if let Some(top) = self.stack.last_mut() {
            top.pc = pc;
        }
    }

    fn alu(&mut self, data: &InstData, active: u64, ctx: &BlockContext<'_>) {
        let width_of = |op: &Operand| match op {
            Operand::Reg(r) => r.class().bits(),
            Operand::Param(p) => match ctx.params[p.index()] {
                ParamValue::U32(_) => 32,
                ParamValue::U64(_) => 64,
            },
            _ => 0,
        };
        match *data {
            InstData::Unary { opcode, dst, src } => {
                let dst_width = dst.class().bits();
                let src_width = match opcode {
                    Opcode::CvtU64U32 | Opcode::CvtS64S32 => 32,
                    Opcode::CvtU32U64 => 64,
                    _ => dst_width,
                };
                for_lanes(active, |l| {
                    let v = self.read(&src, ctx, l);
                    let r = values::unary(opcode, src_width, dst_width, v).expect("unary");
                    self.set(dst, l, r);
                });
            }
            InstData::Binary { opcode, dst, args } => {
                let width = if opcode.comparison().is_some() {
                    match width_of(&args[0]).max(width_of(&args[1])) {
                        0 => 32,
                        w => w,
                    }
                } else {
                    dst.class().bits()
                };
                for_lanes(active, |l| {
                    let a = self.read(&args[0], ctx, l);
                    let b = self.read(&args[1], ctx, l);
                    self.set(dst, l, values::binary(opcode, width, a, b).expect("binary"));
                });
            }
            InstData::Select {
                dst, args, pred, ..
            } => {
                for_lanes(active, |l| {
                    let v = if self.get(pred, l) != 0 {
                        &args[0]
                    } else {
                        &args[1]
                    };
                    let v = self.read(v, ctx, l) & values::mask(dst.class().bits());
                    self.set(dst, l, v);
                });
            }
            InstData::Cmpx {
                opcode,
                regs: [lo, hi],
            } => {
                let width = lo.class().bits();
                let signed = opcode == Opcode::CmpxS;
                for_lanes(active, |l| {
                    let (a, b) = (self.get(lo, l), self.get(hi, l));
                    let (mn, mx) = values::cmpx(signed, width, a, b);
                    self.set(lo, l, mn);
                    self.set(hi, l, mx);
                });
            }
            _ => unreachable!("non-ALU instruction {data:?} in alu()"),
        }
    }

    /// A shared atomic: the active lanes apply their operations one after
    /// another in ascending lane order, each reading the word as the lanes
    /// before it left it (the order hardware leaves unspecified; ours makes
    /// the returned values deterministic, and the simulator uses the same).
    fn atomic(
        &mut self,
        data: &InstData,
        active: u64,
        ctx: &BlockContext<'_>,
        shared: &mut [u8],
    ) -> Result<(), (u32, String)> {
        let InstData::Atomic {
            opcode,
            dst,
            addr,
            src,
        } = *data
        else {
            unreachable!("atomic() on a non-atomic instruction")
        };
        let mut lanes = active;
        while lanes != 0 {
            let lane = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let base = addr.base.map_or(0, |b| self.get(b, lane));
            let a = base.wrapping_add(addr.offset as i64 as u64) & values::mask(32);
            let a = shared_word(a, shared.len()).map_err(|what| (lane as u32, what))?;
            let word = &mut shared[a..a + 4];
            let old = u32::from_le_bytes(word.try_into().expect("4 bytes"));
            let operand = self.read(&src, ctx, lane) as u32;
            let new = match opcode {
                Opcode::AtomSharedAddU32 => old.wrapping_add(operand),
                _ => unreachable!("{opcode} is not a shared atomic"),
            };
            word.copy_from_slice(&new.to_le_bytes());
            self.set(dst, lane, old.into());
        }
        Ok(())
    }

    fn memory(
        &mut self,
        data: &InstData,
        active: u64,
        global: &mut DeviceMemory,
        shared: &mut [u8],
    ) -> Result<(), (u32, String)> {
        let (opcode, list, addr) = match *data {
            InstData::Load { opcode, dsts, addr } => (opcode, dsts, addr),
            InstData::Store { opcode, srcs, addr } => (opcode, srcs, addr),
            _ => unreachable!("memory() on a non-memory instruction"),
        };
        let store = opcode.format() == Format::Store;
        let regs = list.as_slice();
        let (space, bytes) = opcode.memory().expect("memory opcode");
        for lane in 0..self.width {
            if active >> lane & 1 == 0 {
                continue;
            }
            let base = addr.base.map_or(0, |b| self.get(b, lane));
            let a = base.wrapping_add(addr.offset as i64 as u64);
            let a = if space == Space::Shared {
                a & values::mask(32)
            } else {
                a
            };
            if a % bytes as u64 != 0 {
                return Err((
                    lane as u32,
                    format!("misaligned {bytes}-byte access at {a:#x}"),
                ));
            }
            let oob = || {
                (
                    lane as u32,
                    format!("{space:?} access of {bytes} bytes at {a:#x} is out of bounds"),
                )
            };
            let mem: &mut [u8] = match space {
                Space::Global => global.slice_mut(a, bytes as u64).ok_or_else(oob)?,
                Space::Shared => {
                    let end = a
                        .checked_add(bytes as u64)
                        .filter(|&e| e <= shared.len() as u64);
                    end.ok_or_else(oob)?;
                    &mut shared[a as usize..a as usize + bytes as usize]
                }
            };
            let mut off = 0;
            for &reg in regs {
                let n = (reg.class().bits() / 8) as usize;
                if store {
                    let v = self.get(reg, lane).to_le_bytes();
                    mem[off..off + n].copy_from_slice(&v[..n]);
                } else {
                    let mut v = [0u8; 8];
                    v[..n].copy_from_slice(&mem[off..off + n]);
                    self.set(reg, lane, u64::from_le_bytes(v));
                }
                off += n;
            }
        }
        Ok(())
    }
}

/// The index of the 4-byte shared word at byte address `a`, or why it is
/// not one (the same messages as a shared load's faults).
fn shared_word(a: u64, shared_bytes: usize) -> Result<usize, String> {
    if !a.is_multiple_of(4) {
        return Err(format!("misaligned 4-byte access at {a:#x}"));
    }
    if a + 4 > shared_bytes as u64 {
        return Err(format!(
            "{:?} access of 4 bytes at {a:#x} is out of bounds",
            Space::Shared
        ));
    }
    Ok(a as usize)
}

/// Calls `f` for each lane set in `mask`, lowest first.
#[inline(always)]
fn for_lanes(mut mask: u64, mut f: impl FnMut(usize)) {
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        f(lane);
        mask &= mask - 1;
    }
}
