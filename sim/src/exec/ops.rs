//! The specialised loops of value, predicate and compare operations, and
//! the choice among them at decode.
//!
//! Each operation is a zero-sized type implementing [`Op1`], [`Op2`] or
//! [`Test`] for the lane types it works on; the loops are generic over it,
//! so every (operation, width, operand shape) pair is its own function.

use super::{Alu, AluFn, BinOp, Cmp, CmpxOp, Consts, Scratch, UnOp};
use crate::decode::Src;
use crate::lanes::{self, Splat};
use crate::regfile::{Lane, RegFile, lane_mask, split1, split2};

/// A one-operand operation from `A` lanes to `T` lanes.
pub(super) trait Op1<A, T> {
    fn f(x: A) -> T;
}

/// A two-operand operation on `T` and `B` lanes into `T` lanes.
pub(super) trait Op2<T, B> {
    fn f(x: T, y: B) -> T;
}

/// A comparison of two `T` lanes.
pub(super) trait Test<T> {
    fn f(x: T, y: T) -> bool;
}

/// Binary operations at both widths; the 64-bit form's second operand is
/// `$rhs64` (shift counts are 32-bit operands at either width).
macro_rules! ops {
    ($rhs64:ty; $($name:ident: |$x:ident, $y:ident| $e32:expr, $e64:expr;)*) => {
        $(
            pub(super) struct $name;
            impl Op2<u32, u32> for $name {
                #[inline(always)]
                fn f($x: u32, $y: u32) -> u32 {
                    $e32
                }
            }
            impl Op2<u64, $rhs64> for $name {
                #[inline(always)]
                fn f($x: u64, $y: $rhs64) -> u64 {
                    $e64
                }
            }
        )*
    };
}

ops! { u64;
    Add: |x, y| x.wrapping_add(y), x.wrapping_add(y);
    Sub: |x, y| x.wrapping_sub(y), x.wrapping_sub(y);
    Mul: |x, y| x.wrapping_mul(y), x.wrapping_mul(y);
    And: |x, y| x & y, x & y;
    Or: |x, y| x | y, x | y;
    Xor: |x, y| x ^ y, x ^ y;
    MinU: |x, y| x.min(y), x.min(y);
    MaxU: |x, y| x.max(y), x.max(y);
    MinS: |x, y| (x as i32).min(y as i32) as u32, (x as i64).min(y as i64) as u64;
    MaxS: |x, y| (x as i32).max(y as i32) as u32, (x as i64).max(y as i64) as u64;
}

ops! { u32;
    Shl: |x, y| if y >= 32 { 0 } else { x << y }, if y >= 64 { 0 } else { x << y };
    Shr: |x, y| if y >= 32 { 0 } else { x >> y }, if y >= 64 { 0 } else { x >> y };
    Sra: |x, y| ((x as i32) >> y.min(31)) as u32, ((x as i64) >> y.min(63)) as u64;
}

macro_rules! tests {
    ($($name:ident: |$x:ident, $y:ident| $e32:expr, $e64:expr;)*) => {
        $(
            pub(super) struct $name;
            impl Test<u32> for $name {
                #[inline(always)]
                fn f($x: u32, $y: u32) -> bool {
                    $e32
                }
            }
            impl Test<u64> for $name {
                #[inline(always)]
                fn f($x: u64, $y: u64) -> bool {
                    $e64
                }
            }
        )*
    };
}

tests! {
    Eq: |x, y| x == y, x == y;
    Ne: |x, y| x != y, x != y;
    LtU: |x, y| x < y, x < y;
    LeU: |x, y| x <= y, x <= y;
    GtU: |x, y| x > y, x > y;
    GeU: |x, y| x >= y, x >= y;
    LtS: |x, y| (x as i32) < (y as i32), (x as i64) < (y as i64);
    LeS: |x, y| (x as i32) <= (y as i32), (x as i64) <= (y as i64);
    GtS: |x, y| (x as i32) > (y as i32), (x as i64) > (y as i64);
    GeS: |x, y| (x as i32) >= (y as i32), (x as i64) >= (y as i64);
}

macro_rules! op1 {
    ($name:ident: $($a:ty => $t:ty: |$x:ident| $e:expr;)*) => {
        $(
            impl Op1<$a, $t> for $name {
                #[inline(always)]
                fn f($x: $a) -> $t {
                    $e
                }
            }
        )*
    };
}

pub(super) struct Id;
op1! { Id:
    u32 => u32: |x| x;
    u64 => u64: |x| x;
    u64 => u32: |x| x as u32;
    u32 => u64: |x| x.into();
}
pub(super) struct Not;
op1! { Not:
    u32 => u32: |x| !x;
    u64 => u64: |x| !x;
}
pub(super) struct Sext;
op1! { Sext:
    u32 => u64: |x| x as i32 as i64 as u64;
}

/// The register slot of an operand the shape says is a register.
#[inline(always)]
fn reg(s: Src) -> u32 {
    match s {
        Src::Reg(r) => r,
        _ => unreachable!("operand shapes are checked at decode"),
    }
}

/// The value of an operand the shape says is an immediate.
#[inline(always)]
fn imm<T: Lane>(s: Src) -> T {
    match s {
        Src::Imm(v) => T::imm(v),
        _ => unreachable!("operand shapes are checked at decode"),
    }
}

/// Every lane of the warp active?
#[inline(always)]
fn all(rf: &RegFile, exec: u64) -> bool {
    exec == lane_mask(rf.width)
}

/// A lane type with its scratch vector.
pub(super) trait Scratched: Lane {
    fn scratch(s: &mut Scratch) -> &mut [Self; crate::regfile::MAX_LANES];
}

impl Scratched for u32 {
    #[inline(always)]
    fn scratch(s: &mut Scratch) -> &mut [u32; crate::regfile::MAX_LANES] {
        &mut s.o32
    }
}

impl Scratched for u64 {
    #[inline(always)]
    fn scratch(s: &mut Scratch) -> &mut [u64; crate::regfile::MAX_LANES] {
        &mut s.o64
    }
}

/// How a two-operand instruction's operands sit, for choosing its loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Shape {
    /// Registers, the destination apart from both.
    Rr,
    /// Registers, the destination the first and not the second.
    Xr,
    /// A register apart from the destination, and an immediate.
    Ri,
    /// The destination register, and an immediate.
    Xi,
    /// Anything else (through a scratch vector).
    Any,
}

impl Shape {
    /// The shape of `dst = op(a, b)`; `same`: `b` is in `dst`'s area.
    fn of(a: Src, b: Src, dst: u32, same: bool) -> Shape {
        match (a, b) {
            (Src::Reg(a), Src::Reg(b)) if same && a != dst && b != dst => Shape::Rr,
            (Src::Reg(a), Src::Reg(b)) if same && a == dst && b != dst => Shape::Xr,
            (Src::Reg(a), Src::Imm(_)) if a != dst => Shape::Ri,
            (Src::Reg(_), Src::Imm(_)) => Shape::Xi,
            _ => Shape::Any,
        }
    }
}

/// `dst = O(a, b)`, registers, `dst` apart from both.
fn bin_rr<T: Lane, O: Op2<T, T>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    _: &mut Scratch,
) {
    let full = all(rf, exec);
    let (d, a, b) = split2::<T>(rf, alu.dst, reg(alu.a), reg(alu.b));
    lanes::zip2(d, a, b, exec, full, O::f);
}

/// `dst = O(dst, b)`, `b` another register.
fn bin_xr<T: Lane, O: Op2<T, T>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    _: &mut Scratch,
) {
    let full = all(rf, exec);
    let (d, b) = split1::<T>(rf, alu.dst, reg(alu.b));
    lanes::update(d, b, exec, full, O::f);
}

/// `dst = O(a, imm)`, `a` another register.
fn bin_ri<T: Lane, B: Lane, O: Op2<T, B>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    _: &mut Scratch,
) {
    let full = all(rf, exec);
    let y = Splat(imm::<B>(alu.b));
    let (d, a) = split1::<T>(rf, alu.dst, reg(alu.a));
    lanes::zip2(d, a, y, exec, full, O::f);
}

/// `dst = O(dst, imm)`.
fn bin_xi<T: Lane, B: Lane, O: Op2<T, B>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    _: &mut Scratch,
) {
    let full = all(rf, exec);
    let y = Splat(imm::<B>(alu.b));
    lanes::update(T::slot_mut(rf, alu.dst), y, exec, full, O::f);
}

/// `dst = O(a, b)` for any operands, through the scratch vector.
fn bin_any<T: Scratched, B: Lane, O: Op2<T, B>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    s: &mut Scratch,
) {
    let (w, full) = (rf.width, all(rf, exec));
    let out = &mut T::scratch(s)[..w];
    match (alu.a, alu.b) {
        (Src::Reg(a), Src::Reg(b)) => {
            lanes::zip2(out, T::slot(rf, a), B::slot(rf, b), !0, true, O::f)
        }
        (Src::Reg(a), b) => lanes::zip2(out, T::slot(rf, a), Splat(imm::<B>(b)), !0, true, O::f),
        (a, Src::Reg(b)) => lanes::zip2(out, Splat(imm::<T>(a)), B::slot(rf, b), !0, true, O::f),
        (a, b) => lanes::zip2(out, Splat(imm::<T>(a)), Splat(imm::<B>(b)), !0, true, O::f),
    }
    lanes::zip1(T::slot_mut(rf, alu.dst), &out[..], exec, full, |x| x);
}

/// The loop of `O` on operands of one width.
fn same<T: Scratched, O: Op2<T, T> + 'static>(shape: Shape) -> AluFn {
    match shape {
        Shape::Rr => bin_rr::<T, O>,
        Shape::Xr => bin_xr::<T, O>,
        Shape::Ri => bin_ri::<T, T, O>,
        Shape::Xi => bin_xi::<T, T, O>,
        Shape::Any => bin_any::<T, T, O>,
    }
}

/// The loop of a 64-bit shift (its count is 32-bit).
fn shift64<O: Op2<u64, u32> + 'static>(shape: Shape) -> AluFn {
    match shape {
        Shape::Ri => bin_ri::<u64, u32, O>,
        Shape::Xi => bin_xi::<u64, u32, O>,
        _ => bin_any::<u64, u32, O>,
    }
}

/// Predicate `dst = T(a, b)` in the lanes of `exec`.
fn setp<T: Lane, C: Test<T>>(alu: &Alu, rf: &mut RegFile, exec: u64, _: &Consts, _: &mut Scratch) {
    let w = rf.width;
    let bits = match (alu.a, alu.b) {
        (Src::Reg(a), Src::Reg(b)) => lanes::pack2(w, T::slot(rf, a), T::slot(rf, b), C::f),
        (Src::Reg(a), b) => lanes::pack2(w, T::slot(rf, a), Splat(imm::<T>(b)), C::f),
        (a, Src::Reg(b)) => lanes::pack2(w, Splat(imm::<T>(a)), T::slot(rf, b), C::f),
        (a, b) => lanes::pack2(w, Splat(imm::<T>(a)), Splat(imm::<T>(b)), C::f),
    };
    write_pred(rf, alu.dst, bits, exec);
}

fn setp_fn<T: Lane>(c: Cmp) -> AluFn
where
    Eq: Test<T>,
    Ne: Test<T>,
    LtU: Test<T>,
    LeU: Test<T>,
    GtU: Test<T>,
    GeU: Test<T>,
    LtS: Test<T>,
    LeS: Test<T>,
    GtS: Test<T>,
    GeS: Test<T>,
{
    match c {
        Cmp::Eq => setp::<T, Eq>,
        Cmp::Ne => setp::<T, Ne>,
        Cmp::LtU => setp::<T, LtU>,
        Cmp::LeU => setp::<T, LeU>,
        Cmp::GtU => setp::<T, GtU>,
        Cmp::GeU => setp::<T, GeU>,
        Cmp::LtS => setp::<T, LtS>,
        Cmp::LeS => setp::<T, LeS>,
        Cmp::GtS => setp::<T, GtS>,
        Cmp::GeS => setp::<T, GeS>,
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

/// Predicate logic: `dst = f(a, b)` on lane masks.
fn pred2<const OP: u8>(alu: &Alu, rf: &mut RegFile, exec: u64, _: &Consts, _: &mut Scratch) {
    let (a, b) = (pred_opnd(rf, alu.a), pred_opnd(rf, alu.b));
    let bits = match OP {
        0 => a & b,
        1 => a | b,
        _ => a ^ b,
    };
    write_pred(rf, alu.dst, bits, exec);
}

/// `mov` (`NOT == false`) or `not` of a predicate.
fn pred1<const NOT: bool>(alu: &Alu, rf: &mut RegFile, exec: u64, _: &Consts, _: &mut Scratch) {
    let a = pred_opnd(rf, alu.a);
    write_pred(rf, alu.dst, if NOT { !a } else { a }, exec);
}

/// The loop of a two-operand operation on these operands.
pub(super) fn binary_fn(op: BinOp, a: Src, b: Src, dst: u32) -> AluFn {
    use BinOp::*;
    let shape = Shape::of(a, b, dst, true);
    // A 64-bit shift's count is in the other area: never the destination.
    let shape64 = Shape::of(a, b, dst, false);
    match op {
        Add32 => same::<u32, Add>(shape),
        Sub32 => same::<u32, Sub>(shape),
        Mul32 => same::<u32, Mul>(shape),
        And32 => same::<u32, And>(shape),
        Or32 => same::<u32, Or>(shape),
        Xor32 => same::<u32, Xor>(shape),
        Shl32 => same::<u32, Shl>(shape),
        Shr32 => same::<u32, Shr>(shape),
        Sra32 => same::<u32, Sra>(shape),
        MinU32 => same::<u32, MinU>(shape),
        MaxU32 => same::<u32, MaxU>(shape),
        MinS32 => same::<u32, MinS>(shape),
        MaxS32 => same::<u32, MaxS>(shape),
        Add64 => same::<u64, Add>(shape),
        Sub64 => same::<u64, Sub>(shape),
        Mul64 => same::<u64, Mul>(shape),
        And64 => same::<u64, And>(shape),
        Or64 => same::<u64, Or>(shape),
        Xor64 => same::<u64, Xor>(shape),
        Shl64 => shift64::<Shl>(shape64),
        Shr64 => shift64::<Shr>(shape64),
        Sra64 => shift64::<Sra>(shape64),
        MinU64 => same::<u64, MinU>(shape),
        MaxU64 => same::<u64, MaxU>(shape),
        MinS64 => same::<u64, MinS>(shape),
        MaxS64 => same::<u64, MaxS>(shape),
        AndP => pred2::<0>,
        OrP => pred2::<1>,
        XorP => pred2::<2>,
        Setp32(c) => setp_fn::<u32>(c),
        Setp64(c) => setp_fn::<u64>(c),
    }
}

/// `dst = O(a)`, same area, `a` another register.
fn un_r<T: Lane, O: Op1<T, T>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    _: &mut Scratch,
) {
    let full = all(rf, exec);
    let (d, a) = split1::<T>(rf, alu.dst, reg(alu.a));
    lanes::zip1(d, a, exec, full, O::f);
}

/// `dst = O(dst)`.
fn un_x<T: Lane, O: Op1<T, T>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    _: &mut Scratch,
) {
    let full = all(rf, exec);
    lanes::update(T::slot_mut(rf, alu.dst), Splat(()), exec, full, |x, ()| {
        O::f(x)
    });
}

/// `dst = O(imm)`.
fn un_i<A: Lane, T: Lane, O: Op1<A, T>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    _: &mut Scratch,
) {
    let full = all(rf, exec);
    let v = O::f(imm::<A>(alu.a));
    lanes::zip1(T::slot_mut(rf, alu.dst), Splat(v), exec, full, |x| x);
}

/// `dst = O(a)`, a 32-bit register into a 64-bit one.
fn widen<O: Op1<u32, u64>>(alu: &Alu, rf: &mut RegFile, exec: u64, _: &Consts, _: &mut Scratch) {
    let full = all(rf, exec);
    let (a, d) = rf.r32_to_r64(reg(alu.a), alu.dst);
    lanes::zip1(d, a, exec, full, O::f);
}

/// `dst = a` truncated, a 64-bit register into a 32-bit one.
fn narrow(alu: &Alu, rf: &mut RegFile, exec: u64, _: &Consts, _: &mut Scratch) {
    let full = all(rf, exec);
    let (a, d) = rf.r64_to_r32(reg(alu.a), alu.dst);
    lanes::zip1(d, a, exec, full, |x| x as u32);
}

/// Does nothing (`mov r, r`, `cmpx r, r`).
fn nothing(_: &Alu, _: &mut RegFile, _: u64, _: &Consts, _: &mut Scratch) {}

/// The loop of a one-operand operation on this operand.
pub(super) fn unary_fn(op: UnOp, a: Src, dst: u32) -> AluFn {
    fn same1<T: Lane, O: Op1<T, T> + 'static>(a: Src, dst: u32) -> AluFn {
        match a {
            Src::Reg(r) if r == dst => un_x::<T, O>,
            Src::Reg(_) => un_r::<T, O>,
            _ => un_i::<T, T, O>,
        }
    }
    let reg = matches!(a, Src::Reg(_));
    match op {
        UnOp::Mov32 | UnOp::Mov64 if a == Src::Reg(dst) => nothing,
        UnOp::Mov32 => same1::<u32, Id>(a, dst),
        UnOp::Mov64 => same1::<u64, Id>(a, dst),
        UnOp::Not32 => same1::<u32, Not>(a, dst),
        UnOp::Not64 => same1::<u64, Not>(a, dst),
        UnOp::MovP => pred1::<false>,
        UnOp::NotP => pred1::<true>,
        UnOp::Zext if reg => widen::<Id>,
        UnOp::Zext => un_i::<u32, u64, Id>,
        UnOp::Sext if reg => widen::<Sext>,
        UnOp::Sext => un_i::<u32, u64, Sext>,
        UnOp::Trunc if reg => narrow,
        UnOp::Trunc => un_i::<u64, u32, Id>,
    }
}

/// `selp dst, a, b, aux` on `T` values.
fn select<T: Scratched>(alu: &Alu, rf: &mut RegFile, exec: u64, _: &Consts, s: &mut Scratch) {
    let (w, full) = (rf.width, all(rf, exec));
    let p = rf.preds()[alu.aux as usize];
    let out = &mut T::scratch(s)[..w];
    match (alu.a, alu.b) {
        (Src::Reg(a), Src::Reg(b)) => lanes::select(out, T::slot(rf, a), T::slot(rf, b), p),
        (Src::Reg(a), b) => lanes::select(out, T::slot(rf, a), Splat(imm::<T>(b)), p),
        (a, Src::Reg(b)) => lanes::select(out, Splat(imm::<T>(a)), T::slot(rf, b), p),
        (a, b) => lanes::select(out, Splat(imm::<T>(a)), Splat(imm::<T>(b)), p),
    }
    lanes::zip1(T::slot_mut(rf, alu.dst), &out[..], exec, full, |x| x);
}

/// The loop of `selp`.
pub(super) fn select_fn(wide: bool) -> AluFn {
    if wide { select::<u64> } else { select::<u32> }
}

/// `cmpx dst, aux`: `lo, hi = min, max` by `Min` and `Max`.
fn cmpx<T: Lane, Min: Op2<T, T>, Max: Op2<T, T>>(
    alu: &Alu,
    rf: &mut RegFile,
    exec: u64,
    _: &Consts,
    _: &mut Scratch,
) {
    let full = all(rf, exec);
    let (lo, hi) = crate::regfile::pair_mut::<T>(rf, alu.dst, alu.aux);
    lanes::cmpx(lo, hi, exec, full, Min::f, Max::f);
}

/// The loop of a compare-exchange of slots `lo` and `hi`.
pub(super) fn cmpx_fn(op: CmpxOp, lo: u32, hi: u32) -> AluFn {
    if lo == hi {
        return nothing; // min and max of a value with itself: no change
    }
    match op {
        CmpxOp::U32 => cmpx::<u32, MinU, MaxU>,
        CmpxOp::S32 => cmpx::<u32, MinS, MaxS>,
        CmpxOp::U64 => cmpx::<u64, MinU, MaxU>,
        CmpxOp::S64 => cmpx::<u64, MinS, MaxS>,
    }
}
