//! Functional semantics of ALU instructions and shuffles over the active
//! lanes of a warp: the same results as `kernels_ir::interp`, computed as
//! tight loops over lane vectors.
//!
//! Decoding resolves each instruction to an operation at its native width
//! ([`UnOp`], [`BinOp`], [`CmpxOp`], [`ShflLanes`]), so each arm below is a
//! loop over `u32` or `u64` lanes with no width masking or opcode test
//! inside: a 32-bit operation wraps because its lanes are `u32`. Results go
//! to a scratch vector, then to the destination: a plain copy when every
//! lane is active, a masked blend otherwise. `setp` packs its comparisons
//! straight into the predicate mask and `selp` selects from it. Memory
//! instructions live in [`crate::shared_mem`] and [`crate::memory`].

use kernels_ir::{Opcode, ShflMode};

use crate::decode::{Kind, Src};
use crate::lanes::{self, Opnd};
use crate::regfile::{Lane, MAX_LANES, RegFile, lane_mask};

/// A one-operand operation at its operand widths.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Mov32,
    Mov64,
    MovP,
    Not32,
    Not64,
    NotP,
    /// `cvt.u64.u32`.
    Zext,
    /// `cvt.s64.s32`.
    Sext,
    /// `cvt.u32.u64`.
    Trunc,
}

impl UnOp {
    /// The operation of `opcode` writing a destination of `width` bits
    /// (1: a predicate).
    pub fn new(opcode: Opcode, width: u32) -> UnOp {
        match (opcode, width) {
            (Opcode::Mov, 1) => UnOp::MovP,
            (Opcode::Mov, 32) => UnOp::Mov32,
            (Opcode::Mov, _) => UnOp::Mov64,
            (Opcode::Not, 1) => UnOp::NotP,
            (Opcode::Not, 32) => UnOp::Not32,
            (Opcode::Not, _) => UnOp::Not64,
            (Opcode::CvtU64U32, _) => UnOp::Zext,
            (Opcode::CvtS64S32, _) => UnOp::Sext,
            (Opcode::CvtU32U64, _) => UnOp::Trunc,
            _ => unreachable!("{opcode} is not a unary-format operation"),
        }
    }
}

/// A comparison of `setp` (`U`: unsigned, `S`: signed).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
    LtS,
    LeS,
    GtS,
    GeS,
}

/// A two-operand operation at its operands' width: 32- or 64-bit values
/// (the shift count is always 32-bit), predicates (`P`), or a comparison
/// of 32- or 64-bit values into a predicate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add32,
    Sub32,
    Mul32,
    And32,
    Or32,
    Xor32,
    Shl32,
    Shr32,
    Sra32,
    MinU32,
    MaxU32,
    MinS32,
    MaxS32,
    Add64,
    Sub64,
    Mul64,
    And64,
    Or64,
    Xor64,
    Shl64,
    Shr64,
    Sra64,
    MinU64,
    MaxU64,
    MinS64,
    MaxS64,
    AndP,
    OrP,
    XorP,
    Setp32(Cmp),
    Setp64(Cmp),
}

impl BinOp {
    /// The operation of `opcode` on `width`-bit operands (1: predicates).
    pub fn new(opcode: Opcode, width: u32) -> BinOp {
        use BinOp::*;
        let cmp = match opcode {
            Opcode::SetpEq => Some(Cmp::Eq),
            Opcode::SetpNe => Some(Cmp::Ne),
            Opcode::SetpLtU => Some(Cmp::LtU),
            Opcode::SetpLeU => Some(Cmp::LeU),
            Opcode::SetpGtU => Some(Cmp::GtU),
            Opcode::SetpGeU => Some(Cmp::GeU),
            Opcode::SetpLtS => Some(Cmp::LtS),
            Opcode::SetpLeS => Some(Cmp::LeS),
            Opcode::SetpGtS => Some(Cmp::GtS),
            Opcode::SetpGeS => Some(Cmp::GeS),
            _ => None,
        };
        if let Some(c) = cmp {
            return if width == 64 { Setp64(c) } else { Setp32(c) };
        }
        let ops = match width {
            1 => match opcode {
                Opcode::And => return AndP,
                Opcode::Or => return OrP,
                Opcode::Xor => return XorP,
                _ => unreachable!("{opcode} on predicates"),
            },
            32 => [
                Add32, Sub32, Mul32, And32, Or32, Xor32, Shl32, Shr32, Sra32, MinU32, MaxU32,
                MinS32, MaxS32,
            ],
            _ => [
                Add64, Sub64, Mul64, And64, Or64, Xor64, Shl64, Shr64, Sra64, MinU64, MaxU64,
                MinS64, MaxS64,
            ],
        };
        let i = match opcode {
            Opcode::Add => 0,
            Opcode::Sub => 1,
            Opcode::Mul => 2,
            Opcode::And => 3,
            Opcode::Or => 4,
            Opcode::Xor => 5,
            Opcode::Shl => 6,
            Opcode::Shr => 7,
            Opcode::Sra => 8,
            Opcode::MinU => 9,
            Opcode::MaxU => 10,
            Opcode::MinS => 11,
            Opcode::MaxS => 12,
            _ => unreachable!("{opcode} is not a binary-format operation"),
        };
        ops[i]
    }
}

/// A compare-exchange at its registers' width.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CmpxOp {
    U32,
    S32,
    U64,
    S64,
}

/// Where each lane of a shuffle reads from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ShflLanes {
    /// A constant lane operand: the source lanes, worked out at decode,
    /// are `warp_size` entries of [`Consts::perms`] from this one on.
    Perm(u32),
    /// A lane operand in 32-bit slot `lane`.
    Dynamic { mode: ShflMode, width: u32, lane: u32 },
}

/// Launch constants the instructions refer to.
#[derive(Clone, Debug, Default)]
pub(crate) struct Consts {
    /// Source lanes of shuffles with a constant lane operand.
    pub perms: Vec<u8>,
}

/// The source lane of a shuffle (CUDA `__shfl_*_sync` with a `width`-lane
/// segment); a source outside the segment or the warp means the own lane.
#[inline]
pub(crate) fn shfl_source(mode: ShflMode, lane: u32, arg: u32, width: u32, warp: u32) -> u32 {
    let seg = lane & !(width - 1);
    let pos = lane - seg;
    let src = match mode {
        ShflMode::Idx => seg + (arg & (width - 1)),
        ShflMode::Up => {
            if pos >= arg {
                lane - arg
            } else {
                lane
            }
        }
        ShflMode::Down => {
            if u64::from(pos) + u64::from(arg) < u64::from(width) {
                lane + arg
            } else {
                lane
            }
        }
        ShflMode::Xor => {
            let s = lane ^ arg;
            if s & !(width - 1) == seg { s } else { lane }
        }
    };
    if src < warp { src } else { lane }
}

/// Lane vectors an instruction computes into, kept between instructions so
/// no instruction pays for initialising them.
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    o32: [u32; MAX_LANES],
    o64: [u64; MAX_LANES],
    t32: [u32; MAX_LANES],
    t64: [u64; MAX_LANES],
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            o32: [0; MAX_LANES],
            o64: [0; MAX_LANES],
            t32: [0; MAX_LANES],
            t64: [0; MAX_LANES],
        }
    }
}

/// A lane type's scratch vectors.
trait Scratched: Lane {
    /// The output vector and a temporary.
    fn scratch(s: &mut Scratch) -> (&mut [Self; MAX_LANES], &mut [Self; MAX_LANES]);
}

impl Scratched for u32 {
    #[inline(always)]
    fn scratch(s: &mut Scratch) -> (&mut [u32; MAX_LANES], &mut [u32; MAX_LANES]) {
        (&mut s.o32, &mut s.t32)
    }
}

impl Scratched for u64 {
    #[inline(always)]
    fn scratch(s: &mut Scratch) -> (&mut [u64; MAX_LANES], &mut [u64; MAX_LANES]) {
        (&mut s.o64, &mut s.t64)
    }
}

/// The lanes of value operand `src` of a `T`-wide operation.
#[inline(always)]
fn opnd<T: Lane>(rf: &RegFile, src: Src) -> Opnd<'_, T> {
    match src {
        Src::Reg(s) => Opnd::Lanes(T::slot(rf, s)),
        Src::Imm(v) => Opnd::Splat(T::imm(v)),
        Src::Pred(_) => unreachable!("a predicate as a value operand"),
    }
}

/// The lane mask of predicate operand `src`.
#[inline(always)]
fn pred_opnd(rf: &RegFile, src: Src) -> u64 {
    match src {
        Src::Pred(p) => rf.preds()[p as usize],
        Src::Imm(v) => 0u64.wrapping_sub(v & 1),
        Src::Reg(_) => unreachable!("a value register as a predicate operand"),
    }
}

/// Writes predicate `p` from `bits` in the lanes of `exec`.
#[inline(always)]
fn write_pred(rf: &mut RegFile, p: u32, bits: u64, exec: u64) {
    let old = &mut rf.preds_mut()[p as usize];
    *old = (*old & !exec) | (bits & exec);
}

/// Executes an ALU instruction or shuffle in the lanes of `exec`.
pub(crate) fn execute(kind: &Kind, rf: &mut RegFile, consts: &Consts, exec: u64, s: &mut Scratch) {
    let full = exec == lane_mask(rf.width);
    match *kind {
        Kind::Unary { op, src, dst } => unary(op, src, dst, rf, exec, full, s),
        Kind::Binary { op, a, b, dst } => binary(op, a, b, dst, rf, exec, full, s),
        Kind::Select {
            wide,
            a,
            b,
            pred,
            dst,
        } => {
            if wide {
                select::<u64>(a, b, pred, dst, rf, exec, full, s);
            } else {
                select::<u32>(a, b, pred, dst, rf, exec, full, s);
            }
        }
        Kind::Cmpx { op, lo, hi } => {
            if lo == hi {
                return; // min and max of a value with itself: no change
            }
            match op {
                CmpxOp::U32 => cmpx::<u32>(rf, lo, hi, exec, full, u32::min, u32::max),
                CmpxOp::S32 => cmpx::<u32>(
                    rf,
                    lo,
                    hi,
                    exec,
                    full,
                    |x, y| (x as i32).min(y as i32) as u32,
                    |x, y| (x as i32).max(y as i32) as u32,
                ),
                CmpxOp::U64 => cmpx::<u64>(rf, lo, hi, exec, full, u64::min, u64::max),
                CmpxOp::S64 => cmpx::<u64>(
                    rf,
                    lo,
                    hi,
                    exec,
                    full,
                    |x, y| (x as i64).min(y as i64) as u64,
                    |x, y| (x as i64).max(y as i64) as u64,
                ),
            }
        }
        Kind::Shfl { src, dst, lanes } => shfl(src, dst, lanes, rf, consts, exec, full, s),
        _ => unreachable!("not an ALU or shuffle instruction: {kind:?}"),
    }
}

/// `dst = f(a, b)` on `T`-wide values, `b` of type `B`, for the lanes of
/// `exec`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn value2<T: Scratched, B: Lane>(
    a: Src,
    b: Src,
    dst: u32,
    rf: &mut RegFile,
    exec: u64,
    full: bool,
    s: &mut Scratch,
    f: impl Fn(T, B) -> T,
) {
    let w = rf.width;
    let out = &mut T::scratch(s).0[..w];
    lanes::map2(out, opnd::<T>(rf, a), opnd::<B>(rf, b), f);
    lanes::write(T::slot_mut(rf, dst), out, exec, full);
}

/// `dst = f(a)` on `T`-wide values.
#[inline(always)]
fn value1<T: Scratched>(
    a: Src,
    dst: u32,
    rf: &mut RegFile,
    exec: u64,
    full: bool,
    s: &mut Scratch,
    f: impl Fn(T) -> T,
) {
    let w = rf.width;
    let out = &mut T::scratch(s).0[..w];
    lanes::map1(out, opnd::<T>(rf, a), f);
    lanes::write(T::slot_mut(rf, dst), out, exec, full);
}

/// Predicate `dst = f(a, b)` on `T`-wide values.
#[inline(always)]
fn setp<T: Lane>(a: Src, b: Src, dst: u32, rf: &mut RegFile, exec: u64, f: impl Fn(T, T) -> bool) {
    let bits = lanes::pack2(rf.width, opnd::<T>(rf, a), opnd::<T>(rf, b), f);
    write_pred(rf, dst, bits, exec);
}

fn unary(op: UnOp, src: Src, dst: u32, rf: &mut RegFile, exec: u64, full: bool, s: &mut Scratch) {
    match op {
        UnOp::Mov32 => value1::<u32>(src, dst, rf, exec, full, s, |x| x),
        UnOp::Mov64 => value1::<u64>(src, dst, rf, exec, full, s, |x| x),
        UnOp::Not32 => value1::<u32>(src, dst, rf, exec, full, s, |x| !x),
        UnOp::Not64 => value1::<u64>(src, dst, rf, exec, full, s, |x| !x),
        UnOp::MovP => {
            let bits = pred_opnd(rf, src);
            write_pred(rf, dst, bits, exec);
        }
        UnOp::NotP => {
            let bits = !pred_opnd(rf, src);
            write_pred(rf, dst, bits, exec);
        }
        UnOp::Zext => widen(src, dst, rf, exec, full, s, u64::from),
        UnOp::Sext => widen(src, dst, rf, exec, full, s, |x| x as i32 as i64 as u64),
        UnOp::Trunc => {
            let w = rf.width;
            match src {
                Src::Reg(r) if full => {
                    let (a, d) = rf.r64_to_r32(r, dst);
                    lanes::map1(d, Opnd::Lanes(a), |x| x as u32);
                }
                _ => {
                    let out = &mut s.o32[..w];
                    lanes::map1(out, opnd::<u64>(rf, src), |x| x as u32);
                    lanes::write(rf.r32_mut(dst), out, exec, full);
                }
            }
        }
    }
}

/// A conversion of a 32-bit operand into a 64-bit slot: straight from one
/// area into the other when every lane is active.
#[inline(always)]
fn widen(
    src: Src,
    dst: u32,
    rf: &mut RegFile,
    exec: u64,
    full: bool,
    s: &mut Scratch,
    f: impl Fn(u32) -> u64,
) {
    let w = rf.width;
    match src {
        Src::Reg(r) if full => {
            let (a, d) = rf.r32_to_r64(r, dst);
            lanes::map1(d, Opnd::Lanes(a), f);
        }
        _ => {
            let out = &mut s.o64[..w];
            lanes::map1(out, opnd::<u32>(rf, src), f);
            lanes::write(rf.r64_mut(dst), out, exec, full);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn binary(
    op: BinOp,
    a: Src,
    b: Src,
    dst: u32,
    rf: &mut RegFile,
    exec: u64,
    full: bool,
    s: &mut Scratch,
) {
    use BinOp::*;
    macro_rules! v32 {
        ($f:expr) => {
            value2::<u32, u32>(a, b, dst, rf, exec, full, s, $f)
        };
    }
    macro_rules! v64 {
        ($f:expr) => {
            value2::<u64, u64>(a, b, dst, rf, exec, full, s, $f)
        };
    }
    // 64-bit shifts take a 32-bit count.
    macro_rules! sh64 {
        ($f:expr) => {
            value2::<u64, u32>(a, b, dst, rf, exec, full, s, $f)
        };
    }
    macro_rules! pred {
        ($f:expr) => {{
            let bits = $f(pred_opnd(rf, a), pred_opnd(rf, b));
            write_pred(rf, dst, bits, exec)
        }};
    }
    match op {
        Add32 => v32!(u32::wrapping_add),
        Sub32 => v32!(u32::wrapping_sub),
        Mul32 => v32!(u32::wrapping_mul),
        And32 => v32!(|x, y| x & y),
        Or32 => v32!(|x, y| x | y),
        Xor32 => v32!(|x, y| x ^ y),
        Shl32 => v32!(|x: u32, y| if y >= 32 { 0 } else { x << y }),
        Shr32 => v32!(|x: u32, y| if y >= 32 { 0 } else { x >> y }),
        Sra32 => v32!(|x, y: u32| ((x as i32) >> y.min(31)) as u32),
        MinU32 => v32!(u32::min),
        MaxU32 => v32!(u32::max),
        MinS32 => v32!(|x, y| (x as i32).min(y as i32) as u32),
        MaxS32 => v32!(|x, y| (x as i32).max(y as i32) as u32),
        Add64 => v64!(u64::wrapping_add),
        Sub64 => v64!(u64::wrapping_sub),
        Mul64 => v64!(u64::wrapping_mul),
        And64 => v64!(|x, y| x & y),
        Or64 => v64!(|x, y| x | y),
        Xor64 => v64!(|x, y| x ^ y),
        Shl64 => sh64!(|x: u64, y| if y >= 64 { 0 } else { x << y }),
        Shr64 => sh64!(|x: u64, y| if y >= 64 { 0 } else { x >> y }),
        Sra64 => sh64!(|x, y: u32| ((x as i64) >> y.min(63)) as u64),
        MinU64 => v64!(u64::min),
        MaxU64 => v64!(u64::max),
        MinS64 => v64!(|x, y| (x as i64).min(y as i64) as u64),
        MaxS64 => v64!(|x, y| (x as i64).max(y as i64) as u64),
        AndP => pred!(|x, y| x & y),
        OrP => pred!(|x, y| x | y),
        XorP => pred!(|x, y| x ^ y),
        Setp32(c) => match c {
            Cmp::Eq => setp::<u32>(a, b, dst, rf, exec, |x, y| x == y),
            Cmp::Ne => setp::<u32>(a, b, dst, rf, exec, |x, y| x != y),
            Cmp::LtU => setp::<u32>(a, b, dst, rf, exec, |x, y| x < y),
            Cmp::LeU => setp::<u32>(a, b, dst, rf, exec, |x, y| x <= y),
            Cmp::GtU => setp::<u32>(a, b, dst, rf, exec, |x, y| x > y),
            Cmp::GeU => setp::<u32>(a, b, dst, rf, exec, |x, y| x >= y),
            Cmp::LtS => setp::<u32>(a, b, dst, rf, exec, |x, y| (x as i32) < (y as i32)),
            Cmp::LeS => setp::<u32>(a, b, dst, rf, exec, |x, y| (x as i32) <= (y as i32)),
            Cmp::GtS => setp::<u32>(a, b, dst, rf, exec, |x, y| (x as i32) > (y as i32)),
            Cmp::GeS => setp::<u32>(a, b, dst, rf, exec, |x, y| (x as i32) >= (y as i32)),
        },
        Setp64(c) => match c {
            Cmp::Eq => setp::<u64>(a, b, dst, rf, exec, |x, y| x == y),
            Cmp::Ne => setp::<u64>(a, b, dst, rf, exec, |x, y| x != y),
            Cmp::LtU => setp::<u64>(a, b, dst, rf, exec, |x, y| x < y),
            Cmp::LeU => setp::<u64>(a, b, dst, rf, exec, |x, y| x <= y),
            Cmp::GtU => setp::<u64>(a, b, dst, rf, exec, |x, y| x > y),
            Cmp::GeU => setp::<u64>(a, b, dst, rf, exec, |x, y| x >= y),
            Cmp::LtS => setp::<u64>(a, b, dst, rf, exec, |x, y| (x as i64) < (y as i64)),
            Cmp::LeS => setp::<u64>(a, b, dst, rf, exec, |x, y| (x as i64) <= (y as i64)),
            Cmp::GtS => setp::<u64>(a, b, dst, rf, exec, |x, y| (x as i64) > (y as i64)),
            Cmp::GeS => setp::<u64>(a, b, dst, rf, exec, |x, y| (x as i64) >= (y as i64)),
        },
    }
}

/// `selp`: `dst = pred ? a : b` on `T`-wide values.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn select<T: Scratched>(
    a: Src,
    b: Src,
    pred: u32,
    dst: u32,
    rf: &mut RegFile,
    exec: u64,
    full: bool,
    s: &mut Scratch,
) {
    let w = rf.width;
    let p = rf.preds()[pred as usize];
    let (out, tmp) = T::scratch(s);
    let out = &mut out[..w];
    match (opnd::<T>(rf, a), opnd::<T>(rf, b)) {
        (Opnd::Lanes(a), Opnd::Lanes(b)) => lanes::select(out, a, b, p),
        (Opnd::Lanes(a), Opnd::Splat(y)) => {
            let b = &mut tmp[..w];
            b.fill(y);
            lanes::select(out, a, b, p);
        }
        (Opnd::Splat(x), Opnd::Lanes(b)) => {
            let a = &mut tmp[..w];
            a.fill(x);
            lanes::select(out, a, b, p);
        }
        (Opnd::Splat(x), Opnd::Splat(y)) => {
            out.fill(y);
            lanes::write(out, &[x; MAX_LANES], p, false);
        }
    }
    lanes::write(T::slot_mut(rf, dst), out, exec, full);
}

/// `cmpx`: `lo, hi = min, max` in the lanes of `exec`.
#[inline(always)]
fn cmpx<T: Lane>(
    rf: &mut RegFile,
    lo: u32,
    hi: u32,
    exec: u64,
    full: bool,
    min: impl Fn(T, T) -> T,
    max: impl Fn(T, T) -> T,
) {
    let (los, his) = T::slot_pair_mut(rf, lo, hi);
    lanes::cmpx(los, his, exec, full, min, max);
}

#[allow(clippy::too_many_arguments)]
fn shfl(
    src: u32,
    dst: u32,
    how: ShflLanes,
    rf: &mut RegFile,
    consts: &Consts,
    exec: u64,
    full: bool,
    s: &mut Scratch,
) {
    let w = rf.width;
    let out = &mut s.o32[..w];
    let vals = rf.r32(src);
    match how {
        ShflLanes::Perm(p) => {
            let perm = &consts.perms[p as usize..p as usize + w];
            for (o, &l) in out.iter_mut().zip(perm) {
                *o = vals[l as usize];
            }
        }
        ShflLanes::Dynamic { mode, width, lane } => {
            let args = rf.r32(lane);
            for (l, (o, &arg)) in out.iter_mut().zip(args).enumerate() {
                *o = vals[shfl_source(mode, l as u32, arg, width, w as u32) as usize];
            }
        }
    }
    lanes::write(rf.r32_mut(dst), out, exec, full);
}

#[cfg(test)]
mod tests;
