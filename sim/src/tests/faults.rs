//! Every fault and launch error gives its own error, naming what the issue
//! asks for (kernel, block, warp, instruction, cycle), and never a panic or
//! a hang.

use kernels_ir::{Dim3, KernelBuilder, Opcode, ParamType, ParamValue, Special};

use super::util::{gpu, verified};
use crate::{Cycle, FaultKind, Gpu, GpuConfig, LaunchProblem, RunOptions, SimError};

/// Runs a kernel whose `body` gets the address of a 64-byte buffer in `d0`
/// (`buf`) on one block of two warps on `tiny`.
fn fault_of(body: impl FnOnce(&mut KernelBuilder, kernels_ir::Reg)) -> SimError {
    let mut b = KernelBuilder::new("bad");
    let buf = b.param("buf", ParamType::U64);
    let base = b.reg64();
    b.mov(base, buf);
    body(&mut b, base);
    b.exit();
    let k = verified(b.build());
    let mut g = gpu(GpuConfig::tiny());
    let a = g.alloc(64);
    g.launch(&k, Dim3::x(3), Dim3::x(16), &[ParamValue::U64(a)])
        .unwrap_err()
}

fn fault(e: SimError) -> crate::Fault {
    match e {
        SimError::Fault(f) => *f,
        other => panic!("expected a fault, got {other}"),
    }
}

#[test]
fn global_out_of_bounds_names_everything() {
    let e = fault_of(|b, base| {
        let (off, a, v) = (b.reg64(), b.reg64(), b.reg32());
        b.cvt_u64_u32(off, Special::TidX);
        b.shl(off, off, 3);
        b.add(a, base, off);
        b.ld_global_b32(v, a, 0);
    });
    let msg = e.to_string();
    let f = fault(e);
    assert!(
        matches!(f.kind, FaultKind::GlobalOutOfBounds { bytes: 4, .. }),
        "{msg}"
    );
    assert_eq!(
        (f.block.0, f.warp.0, f.lane, f.pc),
        (0, 1, 0, 4),
        "lane 8 is the first past 64 bytes"
    );
    assert_eq!(f.inst, "ld.global.b32 r0, [d2+0]");
    assert!(f.cycle > Cycle(0));
    for part in [
        "kernel `bad`",
        "block 0",
        "warp 1",
        "pc 4",
        "ld.global.b32 r0, [d2+0]",
        "out of bounds",
        "cycle",
    ] {
        assert!(msg.contains(part), "`{part}` missing from: {msg}");
    }
}

#[test]
fn misaligned_global_and_shared_accesses_fault() {
    let e = fault(fault_of(|b, base| {
        let v = b.reg32();
        b.ld_global_b32(v, base, 2);
    }));
    assert!(
        matches!(
            e.kind,
            FaultKind::Misaligned {
                space: kernels_ir::Space::Global,
                bytes: 4,
                ..
            }
        ),
        "{e}"
    );
    let e = fault(fault_of(|b, _| {
        let (v, a) = (b.reg64(), b.reg32());
        let sh = b.shared(64, 8);
        b.shl(a, Special::LaneId, 2);
        b.load(Opcode::LdSharedB64, v, Some(a), sh as i32);
    }));
    let space = kernels_ir::Space::Shared;
    assert_eq!(
        e.kind,
        FaultKind::Misaligned {
            space,
            bytes: 8,
            addr: 4
        }
    );
    assert_eq!(e.lane, 1);
}

#[test]
fn shared_out_of_bounds_faults() {
    let e = fault(fault_of(|b, _| {
        let (a, v) = (b.reg32(), b.reg32());
        b.shared(32, 4);
        b.shl(a, Special::TidX, 2);
        b.st_shared_b32(Some(a), 0, v);
    }));
    assert_eq!(
        e.kind,
        FaultKind::SharedOutOfBounds {
            addr: 32,
            bytes: 4,
            size: 32
        }
    );
    assert_eq!(
        (e.warp.0, e.lane),
        (1, 0),
        "thread 8 is the first past 32 bytes"
    );
}

#[test]
fn an_endless_loop_hits_the_cycle_limit_and_names_its_warps() {
    let mut b = KernelBuilder::new("spin");
    let top = b.label("top");
    b.bind(top);
    b.bar_sync();
    b.bra(top);
    let k = verified(b.build());
    let mut g = Gpu::new(
        GpuConfig::tiny(),
        RunOptions {
            max_cycles: Cycle(5000),
            ..RunOptions::default()
        },
    )
    .unwrap();
    let e = g.launch(&k, Dim3::x(1), Dim3::x(16), &[]).unwrap_err();
    match &e {
        SimError::CycleLimit {
            kernel,
            limit,
            warps,
        } => {
            assert_eq!((kernel.as_str(), *limit), ("spin", Cycle(5000)));
            assert_eq!(warps.len(), 2);
        }
        other => panic!("expected the cycle limit, got {other}"),
    }
    assert!(e.to_string().contains("block 0 warp"), "{e}");
    assert!(e.is_runtime());
}

#[test]
fn launch_errors_name_the_problem() {
    let mut b = KernelBuilder::new("k");
    b.param("n", ParamType::U32);
    let r = b.regs32(70);
    b.mov(r[69], 1);
    b.exit();
    let k = verified(b.build());
    let mut g = gpu(GpuConfig::tiny());
    let problem =
        |g: &mut Gpu, grid, block, params: &[ParamValue]| match g.launch(&k, grid, block, params) {
            Err(SimError::Launch { kernel, problem }) => {
                assert_eq!(kernel, "k");
                problem
            }
            other => panic!("expected a launch error, got {other:?}"),
        };
    let one = Dim3::x(1);
    assert_eq!(
        problem(&mut g, one, one, &[]),
        LaunchProblem::ParamCount {
            expected: 1,
            got: 0
        }
    );
    assert!(matches!(
        problem(&mut g, one, one, &[ParamValue::U64(0)]),
        LaunchProblem::ParamType { .. }
    ));
    let n = [ParamValue::U32(1)];
    assert!(matches!(
        problem(&mut g, Dim3::x(0), one, &n),
        LaunchProblem::Empty { .. }
    ));
    assert_eq!(
        problem(&mut g, one, Dim3::x(65), &n),
        LaunchProblem::BlockTooLarge {
            threads: 65,
            max: 64
        }
    );
    assert_eq!(
        problem(&mut g, one, one, &n),
        LaunchProblem::TooManyRegisters { regs: 70, max: 64 }
    );
    let mut cfg = GpuConfig::tiny();
    cfg.max_regs_per_thread = 255;
    let mut g = gpu(cfg);
    let e = problem(&mut g, one, Dim3::x(64), &n);
    assert!(e.to_string().contains("registers"), "{e}");
}

#[test]
fn shared_memory_and_shuffle_width_limits() {
    let mut b = KernelBuilder::new("k");
    b.shared(4096, 4);
    b.exit();
    let k = verified(b.build());
    let e = gpu(GpuConfig::tiny())
        .launch(&k, Dim3::x(1), Dim3::x(1), &[])
        .unwrap_err();
    assert!(
        matches!(
            e,
            SimError::Launch {
                problem: LaunchProblem::SharedTooLarge {
                    bytes: 4096,
                    max: 2048
                },
                ..
            }
        ),
        "{e}"
    );
    let mut b = KernelBuilder::new("k");
    let r = b.reg32();
    b.shfl(Opcode::ShflXor, r, r, 1, 16);
    let k = verified(b.build());
    let e = gpu(GpuConfig::tiny())
        .launch(&k, Dim3::x(1), Dim3::x(1), &[])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel `k`: shuffle width 16 exceeds the warp size 8"
    );
}

#[test]
fn bad_configs_and_host_copies_are_errors() {
    let mut cfg = GpuConfig::tiny();
    cfg.warp_size = 3;
    cfg.smem_banks = 6;
    match Gpu::new(cfg, RunOptions::default()) {
        Err(SimError::Config(errors)) => assert_eq!(errors.len(), 2),
        other => panic!("expected a config error, got {:?}", other.err()),
    }
    let mut g = gpu(GpuConfig::tiny());
    let a = g.alloc(8);
    assert_eq!(
        g.read_u32s(a, 3),
        Err(SimError::HostOutOfBounds { addr: a, len: 12 })
    );
    assert!(g.write_u64s(a + 8, &[1]).is_err());
}

/// SMs that fault in one quantum report the fault of the SM a cycle-by-cycle
/// run would have reached first, however the launch runs: traced (pass by
/// pass, one SM at a time in event order), untraced on 1, 2 or 3 host
/// threads (passes that issue nothing skipped, errors ranked by
/// `Sm::rank_key`) or in lockstep. Blocks spin on `cmpx` (two issue slots,
/// so most warps wait for the ALU) for a few rounds that vary by block,
/// then read out of bounds.
#[test]
fn the_first_fault_is_the_same_however_the_launch_runs() {
    for (mult, sms) in [(0, 12), (1, 12), (3, 7), (5, 12), (7, 5), (9, 9)] {
        let k = late_fault(mult);
        let mut cfg = GpuConfig::h200();
        cfg.num_sms = sms;
        let run = |threads: usize, lockstep: bool, traced: bool| {
            let opts = RunOptions {
                threads,
                lockstep,
                ..RunOptions::default()
            };
            let mut g = Gpu::new(cfg.clone(), opts).unwrap();
            let a = g.alloc(64);
            let params = [ParamValue::U64(a)];
            let (grid, block) = (Dim3::x(40), Dim3::x(8 * cfg.warp_size));
            let e = if traced {
                let mut sink = crate::VecSink::default();
                g.launch_traced(&k, grid, block, &params, &mut sink)
            } else {
                g.launch(&k, grid, block, &params)
            };
            e.unwrap_err().to_string()
        };
        let traced = run(1, false, true);
        assert!(traced.contains("out of bounds"), "{traced}");
        for (threads, lockstep) in [(1, false), (2, false), (3, false), (1, true)] {
            let e = run(threads, lockstep, false);
            assert_eq!(
                e, traced,
                "{mult}, {sms} SMs, {threads} thread(s), lockstep {lockstep}"
            );
        }
    }
}

/// A kernel whose blocks spin `40 + (ctaid.x * mult & 7)` rounds of `cmpx`,
/// then read past a 64-byte buffer from lane 0 of every warp.
fn late_fault(mult: i64) -> kernels_ir::VerifiedKernel {
    let mut b = KernelBuilder::new("late");
    let buf = b.param("buf", ParamType::U64);
    let (i, n, x, y, v, p) = (
        b.reg32(),
        b.reg32(),
        b.reg32(),
        b.reg32(),
        b.reg32(),
        b.pred(),
    );
    let (off, a) = (b.reg64(), b.reg64());
    b.mul(n, Special::CtaidX, mult);
    b.and(n, n, 7);
    b.add(n, n, 40);
    b.mov(x, Special::TidX);
    b.mov(y, Special::LaneId);
    b.mov(i, 0);
    let top = b.label("top");
    b.bind(top);
    b.cmpx_u(x, y);
    b.add(y, y, 3);
    b.cmpx_u(y, x);
    b.add(i, i, 1);
    b.setp_lt_u(p, i, n);
    b.when(p).bra(top);
    b.cvt_u64_u32(off, Special::WarpId);
    b.shl(off, off, 8);
    b.add(off, off, 64);
    b.add(a, buf, off);
    b.ld_global_b32(v, a, 0);
    b.exit();
    verified(b.build())
}
