//! The `h200` preset against the dependent-chain latencies measured on an
//! H200 (`hardware.md`), each a loop of 64 steps timed per step.

use kernels_ir::{Dim3, KernelBuilder, Opcode, ParamType, ParamValue, Reg, Special};

use super::util::{gpu, verified};
use crate::GpuConfig;

const STEPS: u32 = 64;

/// Cycles per loop iteration of `body` (run `STEPS` times) for `threads`
/// threads in one block, minus nothing: the loop's own cost is part of
/// what the H200 figures measure.
fn per_step(
    threads: u32,
    setup: impl FnOnce(&mut KernelBuilder, Reg),
    body: impl Fn(&mut KernelBuilder, Reg),
) -> f64 {
    per_step_on(GpuConfig::h200(), threads, setup, body)
}

/// [`per_step`] on the machine `cfg`.
fn per_step_on(
    cfg: GpuConfig,
    threads: u32,
    setup: impl FnOnce(&mut KernelBuilder, Reg),
    body: impl Fn(&mut KernelBuilder, Reg),
) -> f64 {
    let mut b = KernelBuilder::new("chain");
    let buf = b.param("buf", ParamType::U64);
    let (i, p, v, base) = (b.reg32(), b.pred(), b.reg32(), b.reg64());
    let top = b.label("top");
    b.mov(base, buf);
    setup(&mut b, v);
    b.mov(i, 0);
    b.bind(top);
    body(&mut b, v);
    b.add(i, i, 1);
    b.setp_lt_u(p, i, i64::from(STEPS));
    b.when(p).bra(top);
    b.st_global_b32(base, 0, v);
    b.exit();
    let k = verified(b.build());
    let mut g = gpu(cfg);
    let a = g.alloc(1 << 20);
    // A chain through global memory: word k holds the byte offset k*4+4096 (mod 1 MiB).
    let words: Vec<u32> = (0..1 << 18)
        .map(|k: u32| (k * 4 + 4096) % (1 << 20))
        .collect();
    g.write_u32s(a, &words).unwrap();
    let s = g
        .launch(&k, Dim3::x(1), Dim3::x(threads), &[ParamValue::U64(a)])
        .unwrap();
    in_kernel(&s) / f64::from(STEPS)
}

/// Like [`per_step`] for a body that runs the loop counter `i` and sets the
/// loop predicate `p` itself.
fn per_step_interleaved(threads: u32, body: impl Fn(&mut KernelBuilder, Reg, Reg, Reg)) -> f64 {
    let mut b = KernelBuilder::new("chain");
    let buf = b.param("buf", ParamType::U64);
    let (i, p, v, base) = (b.reg32(), b.pred(), b.reg32(), b.reg64());
    let top = b.label("top");
    b.mov(base, buf);
    b.mov(v, Special::LaneId);
    b.mov(i, 0);
    b.bind(top);
    body(&mut b, v, i, p);
    b.when(p).bra(top);
    b.st_global_b32(base, 0, v);
    b.exit();
    let k = verified(b.build());
    let mut g = gpu(GpuConfig::h200());
    let a = g.alloc(4);
    let s = g
        .launch(&k, Dim3::x(1), Dim3::x(threads), &[ParamValue::U64(a)])
        .unwrap();
    in_kernel(&s) / f64::from(STEPS)
}

/// The cycles of a launch without the launch's fixed cost: the H200
/// figures were timed inside the kernel (clock64), where that cost is not.
fn in_kernel(s: &crate::KernelStats) -> f64 {
    (s.cycles.0 - crate::gpu::fixed_launch_cycles(&GpuConfig::h200(), s)) as f64
}

fn assert_near(what: &str, got: f64, lo: f64, hi: f64) {
    assert!(
        (lo..=hi).contains(&got),
        "{what}: {got:.1} cycles per step, the H200 takes {lo}-{hi}"
    );
}

#[test]
fn integer_chain_costs_about_four_cycles_an_op() {
    // The loop counter's work is interleaved with the chain, as a compiler
    // schedules it (the warp issues in order).
    let got = per_step_interleaved(32, |b, v, i, p| {
        b.min_u(v, v, 1000);
        b.add(i, i, 1);
        b.max_u(v, v, 3);
        b.setp_lt_u(p, i, i64::from(STEPS));
        b.add(v, v, 1);
    });
    assert_near("min/max/add chain", got, 11.0, 14.0);
}

#[test]
fn shuffle_plus_add_costs_about_thirty() {
    let got = per_step_interleaved(32, |b, v, i, p| {
        let t = b.reg32();
        b.shfl(Opcode::ShflXor, t, v, 1, 32);
        b.add(i, i, 1);
        b.setp_lt_u(p, i, i64::from(STEPS));
        b.add(v, v, t);
    });
    assert_near("shfl + add chain", got, 28.0, 33.0);
}

#[test]
fn shared_pointer_chase_costs_about_twenty_nine() {
    let got = per_step(
        32,
        |b, v| {
            // Each lane chases its own word, which points at itself.
            b.shared(4096, 4);
            b.shl(v, Special::LaneId, 2);
            b.st_shared_b32(Some(v), 0, v);
        },
        |b, v| {
            b.ld_shared_b32(v, Some(v), 0);
        },
    );
    assert_near("shared chase", got, 27.0, 33.0);
}

/// A chase's step: `v` becomes the global word at byte offset `v` of the
/// buffer in `%d0`.
fn load_word_at(b: &mut KernelBuilder, v: Reg) {
    let (off, a) = (b.reg64(), b.reg64());
    b.cvt_u64_u32(off, v);
    b.add(a, kernels_ir::Reg::d(0), off);
    b.ld_global_b32(v, a, 0);
}

#[test]
fn global_pointer_chase_through_dram() {
    let got = per_step(
        1,
        |b, v| {
            b.mov(v, 0);
        },
        load_word_at,
    );
    // Every step touches a new line: a DRAM access each (the L2 starts empty).
    assert_near("global chase", got, 620.0, 700.0);
}

#[test]
fn global_chase_hitting_in_l2() {
    let chase = |cfg| {
        per_step_on(
            cfg,
            1,
            |b, v| {
                b.mov(v, 0);
            },
            |b, v| {
                load_word_at(b, v);
                b.and(v, v, 0); // always word 0: a DRAM miss, then hits
            },
        )
    };
    // hw/latency.cu loads with `__ldcg`, cached in L2 only: no L1.
    let mut l2_only = GpuConfig::h200();
    l2_only.l1_unified_bytes = 0;
    assert_near("L2 chase", chase(l2_only), 300.0, 370.0);
    // A plain load hits in L1 from the second step on.
    let l1 = chase(GpuConfig::h200());
    let lo = f64::from(GpuConfig::h200().l1_latency_cycles);
    assert!(
        (lo..100.0).contains(&l1),
        "L1 chase: {l1:.1} cycles per step"
    );
}

#[test]
fn barriers_cost_about_fourteen_cycles_alone_and_more_with_many_warps() {
    let one = per_step(
        32,
        |b, v| {
            b.mov(v, 0);
        },
        |b, _| {
            b.bar_sync();
        },
    );
    assert_near("bar.sync, one warp", one, 11.0, 18.0);
    let many = per_step(
        1024,
        |b, v| {
            b.mov(v, 0);
        },
        |b, _| {
            b.bar_sync();
        },
    );
    assert_near("bar.sync, 32 warps", many, 60.0, 90.0);
}
