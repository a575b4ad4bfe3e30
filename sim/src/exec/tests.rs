//! Every specialised operation family against a plain scalar reference (the
//! specification's per-thread rules on `u64` patterns masked to the width),
//! over edge-case values, every operand shape (register or immediate, the
//! destination aliasing a source), full, partial and empty lane masks, and
//! warps of 8, 32 and 64 lanes.

use super::shfl::shfl_source;
use super::*;
use crate::regfile::{Slots, ZeroSlots, lane_mask};
use crate::tests::values::{COMPARISONS, V32, V64, reference, sext};

/// Immediates as the IR holds them (`i64` bit patterns), some negative.
const IMMS: [u64; 6] = [0, 1, 5, 40, -1i64 as u64, -2_147_483_648i64 as u64];

const SLOTS: u32 = 4;
const WIDTHS: [usize; 3] = [8, 32, 64];

fn mask(width: u32) -> u64 {
    lane_mask(width as usize)
}

/// A register file of `lanes` lanes with `SLOTS` slots of each width and
/// 4 predicates, filled with edge-case values (different per slot and lane).
fn regfile(lanes: usize) -> RegFile {
    let mut rf = RegFile::default();
    let slots = Slots {
        b32: SLOTS,
        b64: SLOTS,
        specials: 0,
    };
    rf.reset(slots, 4, 0, lanes, &ZeroSlots::default());
    for s in 0..SLOTS {
        for l in 0..lanes {
            let i = (l * 7 + s as usize * 3) % 10;
            rf.r32_mut(s)[l] = V32[i] as u32;
            rf.r64_mut(s)[l] = V64[(i + s as usize) % 10];
        }
    }
    // Shift counts: small and large ones in 32-bit slot 3.
    for l in 0..lanes {
        rf.r32_mut(3)[l] = [0, 1, 4, 31, 32, 33, 63, 64, 65, u32::MAX][l % 10];
    }
    let preds = rf.preds_mut();
    preds.copy_from_slice(&[0x5555_5555_5555_5555, 0x0F0F_F0F0_1234_5678, u64::MAX, 0]);
    rf
}

/// Lane masks: all, some, none.
fn masks(lanes: usize) -> [u64; 3] {
    let all = lane_mask(lanes);
    [all, all & 0x8000_0001_3C3C_A5A5, 0]
}

/// Operand `src` of lane `l` as the reference reads it, from the area of
/// `width` bits.
fn read(rf: &RegFile, src: Src, width: u32, l: usize) -> u64 {
    match src {
        Src::Reg(s) if width == 64 => rf.r64(s)[l],
        Src::Reg(s) => rf.r32(s)[l].into(),
        Src::Imm(v) => v,
        Src::Pred(p) => rf.preds()[p as usize] >> l & 1,
    }
}

/// Value operands: every register slot and a few immediates.
fn srcs() -> Vec<Src> {
    (0..SLOTS)
        .map(Src::Reg)
        .chain(IMMS.iter().map(|&v| Src::Imm(v)))
        .collect()
}

/// Lane `l` of what slot `dst` (of `width` bits) holds.
fn lane(rf: &RegFile, width: u32, dst: u32, l: usize) -> u64 {
    if width == 64 {
        rf.r64(dst)[l]
    } else {
        rf.r32(dst)[l].into()
    }
}

/// Runs a decoded instruction.
fn run(alu: Alu, rf: &mut RegFile, consts: &Consts, exec: u64) {
    execute(
        &Kind::Binary(alu),
        rf,
        consts,
        exec,
        &mut Scratch::default(),
    );
}

const VALUE_OPS: [Opcode; 13] = [
    Opcode::Add,
    Opcode::Sub,
    Opcode::Mul,
    Opcode::And,
    Opcode::Or,
    Opcode::Xor,
    Opcode::Shl,
    Opcode::Shr,
    Opcode::Sra,
    Opcode::MinU,
    Opcode::MaxU,
    Opcode::MinS,
    Opcode::MaxS,
];

#[test]
fn value_operations_match_the_reference_in_active_lanes_only() {
    for lanes in WIDTHS {
        for exec in masks(lanes) {
            for opcode in VALUE_OPS {
                for width in [32, 64] {
                    let shift = matches!(opcode, Opcode::Shl | Opcode::Shr | Opcode::Sra);
                    let b_width = if shift { 32 } else { width };
                    for a in srcs() {
                        for b in srcs() {
                            for dst in [0, 1, 3] {
                                let mut rf = regfile(lanes);
                                let before = rf.clone();
                                let op = AluOp::Binary(BinOp::new(opcode, width));
                                run(
                                    Alu::new(op, a, b, dst, 0, &Consts::default()),
                                    &mut rf,
                                    &Consts::default(),
                                    exec,
                                );
                                for l in 0..lanes {
                                    let want = if exec >> l & 1 != 0 {
                                        let (x, y) = (
                                            read(&before, a, width, l),
                                            read(&before, b, b_width, l),
                                        );
                                        reference(opcode, width, x, y)
                                    } else {
                                        lane(&before, width, dst, l)
                                    };
                                    assert_eq!(
                                        lane(&rf, width, dst, l),
                                        want,
                                        "{opcode} {width} {a:?} {b:?} -> {dst}, lane {l} of {lanes}, exec {exec:#x}"
                                    );
                                }
                                // Nothing else changed.
                                for s in (0..SLOTS).filter(|&s| s != dst) {
                                    assert_eq!(
                                        lane_vec(&rf, width, s),
                                        lane_vec(&before, width, s)
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn lane_vec(rf: &RegFile, width: u32, s: u32) -> Vec<u64> {
    (0..rf.width).map(|l| lane(rf, width, s, l)).collect()
}

#[test]
fn comparisons_write_the_predicate_mask_in_active_lanes_only() {
    for lanes in WIDTHS {
        for exec in masks(lanes) {
            for opcode in COMPARISONS {
                for width in [32, 64] {
                    for a in srcs() {
                        for b in srcs() {
                            let mut rf = regfile(lanes);
                            let before = rf.clone();
                            let op = AluOp::Binary(BinOp::new(opcode, width));
                            run(
                                Alu::new(op, a, b, 1, 0, &Consts::default()),
                                &mut rf,
                                &Consts::default(),
                                exec,
                            );
                            let mut want = before.preds()[1] & !exec;
                            for l in 0..lanes {
                                let (x, y) =
                                    (read(&before, a, width, l), read(&before, b, width, l));
                                want |= (reference(opcode, width, x, y) & exec >> l & 1) << l;
                            }
                            assert_eq!(
                                rf.preds()[1],
                                want,
                                "{opcode} {width} {a:?} {b:?}, {lanes} lanes, exec {exec:#x}"
                            );
                            assert_eq!(rf.preds()[0], before.preds()[0]);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn predicate_logic_works_on_masks() {
    let preds = (0..4).map(Src::Pred).chain([Src::Imm(0), Src::Imm(1)]);
    let preds: Vec<Src> = preds.collect();
    for lanes in WIDTHS {
        for exec in masks(lanes) {
            for &a in &preds {
                for (opcode, f) in [
                    (Opcode::And, (|x, y| x & y) as fn(u64, u64) -> u64),
                    (Opcode::Or, |x, y| x | y),
                    (Opcode::Xor, |x, y| x ^ y),
                ] {
                    for &b in &preds {
                        let mut rf = regfile(lanes);
                        let before = rf.clone();
                        let op = AluOp::Binary(BinOp::new(opcode, 1));
                        run(
                            Alu::new(op, a, b, 0, 0, &Consts::default()),
                            &mut rf,
                            &Consts::default(),
                            exec,
                        );
                        for l in 0..lanes {
                            let want = if exec >> l & 1 != 0 {
                                f(read(&before, a, 1, l), read(&before, b, 1, l)) & 1
                            } else {
                                before.preds()[0] >> l & 1
                            };
                            assert_eq!(rf.preds()[0] >> l & 1, want, "{opcode} {a:?} {b:?}");
                        }
                    }
                }
                for (opcode, f) in [
                    (Opcode::Mov, (|x| x) as fn(u64) -> u64),
                    (Opcode::Not, |x| !x),
                ] {
                    let mut rf = regfile(lanes);
                    let before = rf.clone();
                    let op = AluOp::Unary(UnOp::new(opcode, 1));
                    run(
                        Alu::new(op, a, Src::Imm(0), 3, 0, &Consts::default()),
                        &mut rf,
                        &Consts::default(),
                        exec,
                    );
                    for l in 0..lanes {
                        let want = if exec >> l & 1 != 0 {
                            f(read(&before, a, 1, l)) & 1
                        } else {
                            0
                        };
                        assert_eq!(rf.preds()[3] >> l & 1, want, "{opcode} {a:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn moves_and_conversions_extend_and_truncate() {
    let cases: [(Opcode, u32, u32); 7] = [
        (Opcode::Mov, 32, 32),
        (Opcode::Mov, 64, 64),
        (Opcode::Not, 32, 32),
        (Opcode::Not, 64, 64),
        (Opcode::CvtU64U32, 32, 64),
        (Opcode::CvtS64S32, 32, 64),
        (Opcode::CvtU32U64, 64, 32),
    ];
    for lanes in WIDTHS {
        for exec in masks(lanes) {
            for (opcode, from, to) in cases {
                for src in srcs() {
                    for dst in [0, 2] {
                        let mut rf = regfile(lanes);
                        let before = rf.clone();
                        let op = AluOp::Unary(UnOp::new(opcode, to));
                        let c = Consts::default();
                        run(
                            Alu::new(op, src, Src::Imm(0), dst, 0, &c),
                            &mut rf,
                            &c,
                            exec,
                        );
                        for l in 0..lanes {
                            let v = read(&before, src, from, l) & mask(from);
                            let want = if exec >> l & 1 == 0 {
                                lane(&before, to, dst, l)
                            } else {
                                match opcode {
                                    Opcode::Not => !v & mask(to),
                                    Opcode::CvtS64S32 => sext(v, 32) as u64,
                                    _ => v & mask(to),
                                }
                            };
                            assert_eq!(lane(&rf, to, dst, l), want, "{opcode} {src:?} lane {l}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn selects_pick_by_predicate_in_active_lanes() {
    for lanes in WIDTHS {
        for exec in masks(lanes) {
            for width in [32, 64] {
                for a in srcs() {
                    for b in srcs() {
                        let mut rf = regfile(lanes);
                        let before = rf.clone();
                        let op = AluOp::Select { wide: width == 64 };
                        run(
                            Alu::new(op, a, b, 1, 1, &Consts::default()),
                            &mut rf,
                            &Consts::default(),
                            exec,
                        );
                        let p = before.preds()[1];
                        for l in 0..lanes {
                            let want = if exec >> l & 1 == 0 {
                                lane(&before, width, 1, l)
                            } else if p >> l & 1 != 0 {
                                read(&before, a, width, l) & mask(width)
                            } else {
                                read(&before, b, width, l) & mask(width)
                            };
                            assert_eq!(lane(&rf, width, 1, l), want, "{a:?} {b:?} lane {l}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn compare_exchanges_order_signed_and_unsigned() {
    for lanes in WIDTHS {
        for exec in masks(lanes) {
            for (op, signed, width) in [
                (CmpxOp::U32, false, 32),
                (CmpxOp::S32, true, 32),
                (CmpxOp::U64, false, 64),
                (CmpxOp::S64, true, 64),
            ] {
                for (lo, hi) in [(0, 1), (2, 0), (1, 1)] {
                    let mut rf = regfile(lanes);
                    let before = rf.clone();
                    let (none, c) = (Src::Imm(0), Consts::default());
                    run(
                        Alu::new(AluOp::Cmpx(op), none, none, lo, hi, &c),
                        &mut rf,
                        &c,
                        exec,
                    );
                    for l in 0..lanes {
                        let (a, b) = (lane(&before, width, lo, l), lane(&before, width, hi, l));
                        let keep = if signed {
                            sext(a, width) <= sext(b, width)
                        } else {
                            a <= b
                        };
                        let want = if exec >> l & 1 == 0 || keep {
                            (a, b)
                        } else {
                            (b, a)
                        };
                        let got = (lane(&rf, width, lo, l), lane(&rf, width, hi, l));
                        assert_eq!(got, want, "{op:?} {lo} {hi} lane {l}");
                    }
                }
            }
        }
    }
}

#[test]
fn shuffles_read_their_source_lanes_with_constant_or_register_lanes() {
    let modes = [ShflMode::Idx, ShflMode::Xor, ShflMode::Up, ShflMode::Down];
    for lanes in WIDTHS {
        for exec in masks(lanes) {
            for mode in modes {
                for seg in [1, 4, 8, 32, 64].into_iter().filter(|&s| s <= lanes as u32) {
                    for arg in [0, 1, 3, 5, 6, 12, 15, 16, 31, 33, u32::MAX] {
                        for (src, dst) in [(0, 1), (2, 2), (2, 0), (1, 2)] {
                            let mut consts = Consts::default();
                            let perm = consts.perms.len() as u32;
                            consts.perms.push(Perm::new(mode, seg, arg, lanes as u32));
                            let mut rf = regfile(lanes);
                            rf.r32_mut(3).fill(arg);
                            let before = rf.clone();
                            let ways = [
                                (ShflLanes::Perm(perm), Src::Imm(arg.into())),
                                (ShflLanes::Dynamic { mode, width: seg }, Src::Reg(3)),
                            ];
                            for (how, lane) in ways {
                                let mut rf = rf.clone();
                                let op = AluOp::Shfl(how);
                                run(
                                    Alu::new(op, Src::Reg(src), lane, dst, perm, &consts),
                                    &mut rf,
                                    &consts,
                                    exec,
                                );
                                for l in 0..lanes {
                                    let from =
                                        reference_source(mode, l as u32, arg, seg, lanes as u32);
                                    let want = if exec >> l & 1 != 0 {
                                        before.r32(src)[from as usize]
                                    } else {
                                        before.r32(dst)[l]
                                    };
                                    assert_eq!(
                                        rf.r32(dst)[l],
                                        want,
                                        "{mode:?} {arg} w{seg} {how:?} lane {l}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The specification's source lane, written out case by case.
fn reference_source(mode: ShflMode, l: u32, x: u32, w: u32, warp: u32) -> u32 {
    let start = l & !(w - 1);
    let src = match mode {
        ShflMode::Idx => Some(start + (x & (w - 1))),
        ShflMode::Up => (l % w >= x).then(|| l - x),
        ShflMode::Down => (u64::from(l % w) + u64::from(x) < u64::from(w)).then(|| l + x),
        ShflMode::Xor => Some(l ^ x).filter(|s| s & !(w - 1) == start),
    };
    src.filter(|&s| s < warp).unwrap_or(l)
}

#[test]
fn shuffle_sources_stay_inside_their_segment() {
    assert_eq!(shfl_source(ShflMode::Xor, 5, 4, 8, 32), 1);
    assert_eq!(shfl_source(ShflMode::Xor, 5, 8, 8, 32), 5);
    assert_eq!(shfl_source(ShflMode::Up, 9, 2, 8, 32), 9);
    assert_eq!(shfl_source(ShflMode::Up, 11, 2, 8, 32), 9);
    assert_eq!(shfl_source(ShflMode::Down, 14, 2, 8, 32), 14);
    assert_eq!(shfl_source(ShflMode::Down, 13, 2, 8, 32), 15);
    assert_eq!(shfl_source(ShflMode::Idx, 13, 11, 8, 32), 11);
    assert_eq!(shfl_source(ShflMode::Down, 3, u32::MAX, 4, 4), 3);
}

#[test]
fn decode_rewrites_operations_into_equal_faster_ones() {
    let c = Consts::default();
    let bin = |op, a, b| {
        let alu = Alu::new(AluOp::Binary(op), a, b, 1, 0, &c);
        (alu.op, alu.a, alu.b)
    };
    let (r, imm) = (Src::Reg(2), Src::Imm(8));
    let shl64 = AluOp::Binary(BinOp::Shl64);
    assert_eq!(bin(BinOp::Mul64, r, imm), (shl64, r, Src::Imm(3)));
    assert_eq!(bin(BinOp::Mul64, imm, r), (shl64, r, Src::Imm(3)));
    let shl32 = AluOp::Binary(BinOp::Shl32);
    assert_eq!(
        bin(BinOp::Mul32, r, Src::Imm(1 << 31)),
        (shl32, r, Src::Imm(31))
    );
    let mul32 = AluOp::Binary(BinOp::Mul32);
    assert_eq!(bin(BinOp::Mul32, r, Src::Imm(6)), (mul32, r, Src::Imm(6)));
    assert_eq!(bin(BinOp::Mul32, r, Src::Imm(0)), (mul32, r, Src::Imm(0)));
    let add = AluOp::Binary(BinOp::Add32);
    assert_eq!(bin(BinOp::Add32, imm, r), (add, r, imm));
    let sub = AluOp::Binary(BinOp::Sub32);
    assert_eq!(bin(BinOp::Sub32, imm, r), (sub, imm, r), "not commutative");
}
