//! Every operation, checked lane by lane against a plain per-thread
//! evaluator written here with Rust's own integer operations (independent
//! of both the simulator's lane loops and the reference interpreter).

use kernels_ir::{
    Dim3, KernelBuilder, Opcode, ParamType, ParamValue, Reg, RegList, ShflMode, Special,
};

use super::util::{gpu, verified};
use super::values::{V32, V64, reference};
use crate::GpuConfig;

/// Runs `body` for 100 threads, thread `t` reading operand pair `t` of the
/// cartesian product of `values` (at `src + 16 t`, 8 bytes each) and
/// writing 8 bytes at `out + 8 t`; returns the 100 results.
fn run_pairs(values: &[u64; 10], body: impl FnOnce(&mut KernelBuilder, [Reg; 2], Reg)) -> Vec<u64> {
    let mut b = KernelBuilder::new("op");
    let src = b.param("src", ParamType::U64);
    let out = b.param("out", ParamType::U64);
    let (t, off, a, r) = (b.reg32(), b.reg64(), b.reg64(), b.reg64());
    let (x, y) = (b.reg64(), b.reg64());
    b.mov(t, Special::TidX);
    b.cvt_u64_u32(off, t);
    b.shl(off, off, 4);
    b.add(a, src, off);
    b.load(Opcode::LdGlobalB128, RegList::new(&[x, y]), Some(a), 0);
    body(&mut b, [x, y], r);
    b.shr(off, off, 1);
    b.add(a, out, off);
    b.store(Opcode::StGlobalB64, Some(a), 0, r);
    b.exit();
    let k = verified(b.build());
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 1;
    let mut g = gpu(cfg);
    let (src, out) = (g.alloc(1600), g.alloc(800));
    let pairs: Vec<u64> = values
        .iter()
        .flat_map(|&a| values.iter().flat_map(move |&b| [a, b]))
        .collect();
    g.write_u64s(src, &pairs).unwrap();
    g.launch(
        &k,
        Dim3::x(1),
        Dim3::x(100),
        &[ParamValue::U64(src), ParamValue::U64(out)],
    )
    .unwrap();
    g.read_u64s(out, 100).unwrap()
}

fn pairs(values: &[u64; 10]) -> impl Iterator<Item = (u64, u64)> + '_ {
    values
        .iter()
        .flat_map(move |&a| values.iter().map(move |&b| (a, b)))
}

#[test]
fn every_binary_operation_matches_the_per_thread_evaluator() {
    let ops = Opcode::ALL
        .iter()
        .filter(|op| op.format() == kernels_ir::Format::Binary);
    for &op in ops {
        for wide in [false, true] {
            let values = if wide { &V64 } else { &V32 };
            let got = run_pairs(values, |b, [x, y], r| {
                let setp = op.comparison().is_some();
                let shift = matches!(op, Opcode::Shl | Opcode::Shr | Opcode::Sra);
                if wide && shift {
                    // Shift amounts are 32-bit operands.
                    let amount = b.reg32();
                    b.cvt_u32_u64(amount, y);
                    b.binary(op, r, x, amount);
                } else if wide {
                    if setp {
                        let p = b.pred();
                        b.binary(op, p, x, y);
                        b.selp(r, 1, 0, p);
                    } else {
                        b.binary(op, r, x, y);
                    }
                } else {
                    let (x32, y32, r32) = (b.reg32(), b.reg32(), b.reg32());
                    b.cvt_u32_u64(x32, x);
                    b.cvt_u32_u64(y32, y);
                    if setp {
                        let p = b.pred();
                        b.binary(op, p, x32, y32);
                        b.selp(r32, 1, 0, p);
                    } else {
                        b.binary(op, r32, x32, y32);
                    }
                    b.cvt_u64_u32(r, r32);
                }
            });
            for (t, (a, b)) in pairs(values).enumerate() {
                let shift = matches!(op, Opcode::Shl | Opcode::Shr | Opcode::Sra);
                let b = if wide && shift { b & 0xFFFF_FFFF } else { b };
                let want = reference(op, if wide { 64 } else { 32 }, a, b);
                assert_eq!(
                    got[t],
                    want,
                    "{op} {} ({a:#x}, {b:#x})",
                    if wide { 64 } else { 32 }
                );
            }
        }
    }
}

#[test]
fn unary_select_and_compare_exchange_match_the_per_thread_evaluator() {
    type Case = (
        &'static str,
        fn(&mut KernelBuilder, [Reg; 2], Reg),
        fn(u64, u64) -> u64,
    );
    let cases: [Case; 8] = [
        (
            "not.64",
            |b, [x, _], r| {
                b.not(r, x);
            },
            |a, _| !a,
        ),
        (
            "cvt.s64.s32",
            |b, [x, _], r| {
                let t = b.reg32();
                b.cvt_u32_u64(t, x);
                b.cvt_s64_s32(r, t);
            },
            |a, _| a as u32 as i32 as i64 as u64,
        ),
        (
            "cvt.u64.u32",
            |b, [x, _], r| {
                let t = b.reg32();
                b.cvt_u32_u64(t, x);
                b.cvt_u64_u32(r, t);
            },
            |a, _| a & 0xFFFF_FFFF,
        ),
        (
            "mov.imm",
            |b, _, r| {
                b.mov(r, -2);
            },
            |_, _| u64::MAX - 1,
        ),
        (
            "selp",
            |b, [x, y], r| {
                let p = b.pred();
                b.setp_gt_u(p, x, y);
                b.selp(r, x, y, p);
            },
            |a, b| a.max(b),
        ),
        (
            "cmpx.u",
            |b, [x, y], r| {
                b.cmpx_u(x, y);
                b.sub(r, y, x);
            },
            |a, b| a.max(b) - a.min(b),
        ),
        (
            "cmpx.s",
            |b, [x, y], r| {
                b.cmpx_s(x, y);
                b.mov(r, x);
            },
            |a, b| (a as i64).min(b as i64) as u64,
        ),
        (
            "guarded",
            |b, [x, y], r| {
                let p = b.pred();
                b.mov(r, 7);
                b.setp_lt_u(p, x, y);
                b.when(p).mov(r, x);
            },
            |a, b| if a < b { a } else { 7 },
        ),
    ];
    for (name, body, want) in cases {
        let got = run_pairs(&V64, body);
        for (t, (a, b)) in pairs(&V64).enumerate() {
            assert_eq!(got[t], want(a, b), "{name} ({a:#x}, {b:#x})");
        }
    }
}

/// The lane a shuffle reads, by CUDA's rules, spelled out plainly.
fn expect_source(mode: ShflMode, lane: u32, arg: u32, width: u32) -> u32 {
    let segment = lane / width;
    match mode {
        ShflMode::Idx => segment * width + arg % width,
        ShflMode::Up => {
            if lane % width >= arg {
                lane - arg
            } else {
                lane
            }
        }
        ShflMode::Down => {
            if u64::from(lane % width) + u64::from(arg) < u64::from(width) {
                lane + arg
            } else {
                lane
            }
        }
        ShflMode::Xor => {
            let s = lane ^ arg;
            if s / width == segment { s } else { lane }
        }
    }
}

#[test]
fn shuffles_match_cuda_for_every_mode_width_and_argument() {
    let mut cfg = GpuConfig::tiny();
    cfg.warp_size = 16;
    let warp = cfg.warp_size;
    let modes = [
        Opcode::ShflIdx,
        Opcode::ShflXor,
        Opcode::ShflUp,
        Opcode::ShflDown,
    ];
    for op in modes {
        for width in [1, 2, 4, 8, 16] {
            for arg in [0u32, 1, 3, 5, 8, 15, 16, 17, u32::MAX] {
                let mut b = KernelBuilder::new("shfl");
                let out = b.param("out", ParamType::U64);
                let (v, s, odd) = (b.reg32(), b.reg32(), b.pred());
                let (off, a) = (b.reg64(), b.reg64());
                b.mul(v, Special::LaneId, 100);
                b.mov(s, 1);
                b.and(s, Special::LaneId, 1);
                b.setp_eq(odd, s, 1);
                b.mov(s, 9999);
                // Odd lanes shuffle (even lanes still supply their values).
                b.when(odd).shfl(op, s, v, i64::from(arg), width);
                b.cvt_u64_u32(off, Special::LaneId);
                b.shl(off, off, 2);
                b.add(a, out, off);
                b.st_global_b32(a, 0, s);
                b.exit();
                let k = verified(b.build());
                let mut g = gpu(cfg.clone());
                let buf = g.alloc(4 * u64::from(warp));
                g.launch(&k, Dim3::x(1), Dim3::x(warp), &[ParamValue::U64(buf)])
                    .unwrap();
                let got = g.read_u32s(buf, warp as usize).unwrap();
                let mode = op.shfl_mode().unwrap();
                for lane in 0..warp {
                    let want = if lane % 2 == 1 {
                        100 * expect_source(mode, lane, arg, width)
                    } else {
                        9999
                    };
                    assert_eq!(
                        got[lane as usize], want,
                        "{op} width {width} arg {arg} lane {lane}"
                    );
                }
            }
        }
    }
}

#[test]
fn multi_register_accesses_fill_the_lowest_address_first() {
    let mut b = KernelBuilder::new("lists");
    let buf = b.param("buf", ParamType::U64);
    let (r0, r1, r2, r3) = (b.reg32(), b.reg32(), b.reg32(), b.reg32());
    let (d0, d1, base) = (b.reg64(), b.reg64(), b.reg64());
    let sh = b.shared(32, 16);
    b.mov(base, buf);
    b.load(Opcode::LdGlobalB64, RegList::new(&[r0, r1]), Some(base), 0);
    b.load(
        Opcode::LdGlobalB128,
        RegList::new(&[d0, d1]),
        Some(base),
        16,
    );
    b.store(
        Opcode::StSharedB128,
        None,
        sh as i32,
        RegList::new(&[d0, d1]),
    );
    b.load(
        Opcode::LdSharedB128,
        RegList::new(&[r0, r1, r2, r3]),
        None,
        sh as i32,
    );
    b.store(
        Opcode::StGlobalB128,
        Some(base),
        32,
        RegList::new(&[r3, r2, r1, r0]),
    );
    b.load(Opcode::LdGlobalB64, d0, Some(base), 0);
    b.store(Opcode::StSharedB64, None, sh as i32 + 16, d0);
    b.load(
        Opcode::LdSharedB64,
        RegList::new(&[r0, r1]),
        None,
        sh as i32 + 16,
    );
    b.store(Opcode::StGlobalB64, Some(base), 48, RegList::new(&[r1, r0]));
    b.exit();
    let k = verified(b.build());
    let mut g = gpu(GpuConfig::tiny());
    let a = g.alloc(64);
    let words: Vec<u32> = (1..=8).collect();
    g.write_u32s(a, &words).unwrap();
    g.launch(&k, Dim3::x(1), Dim3::x(1), &[ParamValue::U64(a)])
        .unwrap();
    let got = g.read_u32s(a, 16).unwrap();
    assert_eq!(
        &got[8..12],
        &[8, 7, 6, 5],
        "b128 reversed through four r registers"
    );
    assert_eq!(&got[12..14], &[2, 1], "b64 of one d read back as two r");
}
