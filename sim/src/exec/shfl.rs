//! Shuffles: the source lane rule, and its loops.
//!
//! A shuffle reads every lane of its source register, so the source is
//! copied first (the destination may be the source) into a fixed-size
//! vector that needs no bounds checks. With a constant lane operand the
//! source lanes are worked out at decode ([`Perm`]) and sorted into three
//! patterns: a butterfly (`shfl.xor` inside the segment: lane `l` reads
//! `l ^ m`) moves whole groups of sixteen lanes, each permuted the same way; a
//! shift (`shfl.up`/`shfl.down`: lane `l` reads `l + s` or itself) is one
//! blend of the vector and the vector shifted; anything else is a gather.

use kernels_ir::ShflMode;

use super::{Alu, AluFn, AluOp, Consts, Scratch, ShflLanes};
use crate::decode::Src;
use crate::lanes;
use crate::regfile::{MAX_LANES, RegFile, lane_mask};

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

/// The source lanes of a shuffle with a constant lane operand, and their
/// pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Perm {
    /// Lane `l` reads lane `lanes[l]` (the first `warp_size` entries).
    pub lanes: [u8; MAX_LANES],
    /// Every lane reads `l ^ xor`, on a warp of a multiple of 4 lanes.
    pub xor: Option<u8>,
    /// Every lane reads `l + shift` or, the lanes of `own`, itself.
    pub shift: Option<i8>,
    /// The lanes that read themselves.
    pub own: u64,
}

impl Perm {
    /// The source lanes of a `mode` shuffle by `arg` in segments of `width`
    /// lanes, on a warp of `warp` lanes.
    pub fn new(mode: ShflMode, width: u32, arg: u32, warp: u32) -> Perm {
        let mut lanes = [0; MAX_LANES];
        let mut own = 0;
        for l in 0..warp {
            let from = shfl_source(mode, l, arg, width, warp);
            lanes[l as usize] = from as u8;
            own |= u64::from(from == l) << l;
        }
        let used = &lanes[..warp as usize];
        let m = usize::from(used[0]); // lane 0 reads 0 ^ m
        let butterfly = used
            .iter()
            .enumerate()
            .all(|(l, &s)| usize::from(s) == l ^ m);
        let xor = (warp.is_multiple_of(4) && butterfly).then_some(m as u8);
        // The offset of the first lane that moves; every other one alike.
        let moved = (0..warp as usize).find(|&l| usize::from(used[l]) != l);
        let shift = moved.and_then(|first| {
            let s = i32::from(used[first]) - first as i32;
            let alike = used.iter().enumerate().all(|(l, &from)| {
                let from = i32::from(from);
                from == l as i32 || from == l as i32 + s
            });
            alike.then_some(s as i8)
        });
        Perm {
            lanes,
            xor,
            shift,
            own,
        }
    }
}

/// The butterfly loops, by the low four bits of the lane mask.
const XOR: [AluFn; GROUP] = [
    xor::<0>, xor::<1>, xor::<2>, xor::<3>, xor::<4>, xor::<5>, xor::<6>, xor::<7>, xor::<8>,
    xor::<9>, xor::<10>, xor::<11>, xor::<12>, xor::<13>, xor::<14>, xor::<15>,
];

/// The loop of a shuffle.
pub(super) fn shfl_fn(how: ShflLanes, consts: &Consts) -> AluFn {
    match how {
        ShflLanes::Perm(p) => {
            let perm = &consts.perms[p as usize];
            match (perm.xor, perm.shift) {
                (Some(m), _) => XOR[usize::from(m) % GROUP],
                (None, Some(_)) => shift,
                (None, None) => gather,
            }
        }
        ShflLanes::Dynamic { .. } => dynamic,
    }
}

/// The source lanes of a shuffle's source register (`alu.a`), copied to
/// `t[MAX_LANES..]` with room on both sides.
#[inline(always)]
fn source(alu: &Alu, rf: &RegFile, t: &mut [u32; 3 * MAX_LANES]) {
    let Src::Reg(src) = alu.a else {
        unreachable!("a shuffle's source is a register")
    };
    let vals = rf.r32(src);
    lanes::copy(&mut t[MAX_LANES..MAX_LANES + vals.len()], vals);
}

/// The copied source lanes.
#[inline(always)]
fn copied(t: &[u32; 3 * MAX_LANES]) -> &[u32; MAX_LANES] {
    t[MAX_LANES..2 * MAX_LANES]
        .try_into()
        .expect("a warp of lanes")
}

/// Lanes per group of a butterfly: a group of lanes reads one group of the
/// source, permuted the same way.
const GROUP: usize = 16;

/// Lane `l` reads lane `l ^ m` (a butterfly inside the segment), `LO` the
/// low four bits of `m`: groups of [`GROUP`] lanes move as groups, each
/// permuted by `i -> i ^ LO`. With `LO` a constant that permutation is one
/// vector shuffle per group (an index worked out per lane at run time made
/// the host compiler gather lane by lane), and the whole [`MAX_LANES`]
/// vector is permuted so the loop has no run-time length; the warp's lanes
/// are then copied out.
fn xor<const LO: usize>(alu: &Alu, rf: &mut RegFile, exec: u64, consts: &Consts, s: &mut Scratch) {
    let w = rf.width;
    let full = exec == lane_mask(w);
    let m = consts.perms[alu.aux as usize].xor.unwrap_or(0);
    let hi = usize::from(m) / GROUP;
    let Scratch { o32, t32, .. } = s;
    source(alu, rf, t32);
    let vals = copied(t32);
    for g in 0..MAX_LANES / GROUP {
        let at = ((g ^ hi) % (MAX_LANES / GROUP)) * GROUP;
        let src: &[u32; GROUP] = vals[at..at + GROUP].try_into().expect("a group");
        let out: &mut [u32; GROUP] = (&mut o32[g * GROUP..(g + 1) * GROUP])
            .try_into()
            .expect("a group");
        *out = std::array::from_fn(|i| src[i ^ LO]);
    }
    let dst = rf.r32_mut(alu.dst);
    if full {
        lanes::copy(dst, &o32[..w]);
    } else {
        lanes::zip1(dst, &o32[..w], exec, false, |x| x);
    }
}

/// Lane `l` reads lane `l + s`, or itself for the lanes of `own`.
fn shift(alu: &Alu, rf: &mut RegFile, exec: u64, consts: &Consts, s: &mut Scratch) {
    let w = rf.width;
    let full = exec == lane_mask(w);
    let perm = &consts.perms[alu.aux as usize];
    let (own, by) = (perm.own, perm.shift.unwrap_or(0));
    let Scratch { o32, t32, .. } = s;
    source(alu, rf, t32);
    let base = &t32[MAX_LANES..MAX_LANES + w];
    let at = MAX_LANES.saturating_add_signed(by.into());
    let moved = &t32[at..at + w];
    let dst = rf.r32_mut(alu.dst);
    if full {
        lanes::select(dst, base, moved, own);
    } else {
        let out = &mut o32[..w];
        lanes::select(out, base, moved, own);
        lanes::zip1(dst, &out[..], exec, false, |x| x);
    }
}

/// Lane `l` reads the lane decode worked out.
fn gather(alu: &Alu, rf: &mut RegFile, exec: u64, consts: &Consts, s: &mut Scratch) {
    let w = rf.width;
    let full = exec == lane_mask(w);
    let perm = &consts.perms[alu.aux as usize].lanes[..w];
    source(alu, rf, &mut s.t32);
    let vals = copied(&s.t32);
    let dst = rf.r32_mut(alu.dst);
    lanes::zip1(dst, perm, exec, full, |l| vals[usize::from(l) % MAX_LANES]);
}

/// Lane `l` reads the lane its lane operand names.
fn dynamic(alu: &Alu, rf: &mut RegFile, exec: u64, _: &Consts, s: &mut Scratch) {
    let AluOp::Shfl(ShflLanes::Dynamic { mode, width }) = alu.op else {
        unreachable!("a shuffle with a register lane operand")
    };
    let Src::Reg(lane) = alu.b else {
        unreachable!("a register lane operand")
    };
    let w = rf.width;
    let full = exec == lane_mask(w);
    let Scratch { o32, t32, .. } = s;
    source(alu, rf, t32);
    let vals = copied(t32);
    let out = &mut o32[..w];
    for (l, (o, &arg)) in out.iter_mut().zip(rf.r32(lane)).enumerate() {
        let from = shfl_source(mode, l as u32, arg, width, w as u32);
        *o = vals[from as usize % MAX_LANES];
    }
    lanes::zip1(rf.r32_mut(alu.dst), &out[..], exec, full, |x| x);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_shuffles_are_sorted_into_patterns() {
        let p = Perm::new(ShflMode::Xor, 32, 5, 32);
        assert_eq!((p.xor, p.lanes[0], p.lanes[5]), (Some(5), 5, 0));
        let p = Perm::new(ShflMode::Xor, 8, 8, 32);
        let all = u64::from(u32::MAX);
        assert_eq!(
            (p.xor, p.shift, p.own),
            (Some(0), None, all),
            "leaves the segment: a copy"
        );
        let p = Perm::new(ShflMode::Down, 32, 4, 32);
        assert_eq!((p.xor, p.shift, p.own), (None, Some(4), 0xF000_0000));
        let p = Perm::new(ShflMode::Up, 8, 2, 16);
        assert_eq!((p.shift, p.own), (Some(-2), 0x0303));
        let p = Perm::new(ShflMode::Idx, 32, 3, 32);
        assert_eq!((p.xor, p.shift), (None, None));
        let p = Perm::new(ShflMode::Idx, 2, 1, 8);
        assert_eq!(
            (p.xor, p.shift, p.own),
            (None, Some(1), 0b1010_1010),
            "1,1,3,3,.."
        );
        let p = Perm::new(ShflMode::Idx, 4, 1, 8);
        assert_eq!((p.xor, p.shift), (None, None), "1,1,1,1,5,..: two offsets");
        let p = Perm::new(ShflMode::Xor, 4, 1, 6);
        assert_eq!(p.xor, None, "not a multiple of four lanes");
    }
}
