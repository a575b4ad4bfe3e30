//! Stall accounting: every resident warp is charged exactly one reason per
//! cycle, per kernel and per instruction; runs are deterministic.

use kernels_ir::{Dim3, KernelBuilder, ParamType, ParamValue, Special, VerifiedKernel};

use super::util::{gpu, run_both, verified};
use crate::{Gpu, GpuConfig, KernelStats, SchedulerPolicy, StallReason};

fn check_accounting(s: &KernelStats, what: &str) {
    let total: u64 = s.stalls.iter().sum();
    assert_eq!(
        total, s.warp_cycles,
        "{what}: reasons sum to resident warp-cycles"
    );
    assert_eq!(s.stall(StallReason::Selected), s.inst_executed, "{what}");
    assert_eq!(s.issue_active, s.inst_executed, "{what}");
    let per_pc_inst: u64 = s.per_pc.iter().map(|p| p.inst_executed).sum();
    assert_eq!(per_pc_inst, s.inst_executed, "{what}");
    for r in StallReason::ALL {
        let per_pc: u64 = s.per_pc.iter().map(|p| p.stalls[r.index()]).sum();
        // A warp released from a barrier at the kernel's end waits at no pc.
        assert!(per_pc <= s.stall(*r), "{what}: {r}");
        if *r != StallReason::Barrier {
            assert_eq!(per_pc, s.stall(*r), "{what}: {r}");
        }
    }
    for r in [StallReason::DispatchStall, StallReason::Membar] {
        assert_eq!(s.stall(r), 0, "{what}: {r} is not modelled");
    }
    // These kernels fit the instruction cache's L0 (`crate::icache`): a
    // warp waits for instructions only at its start, in a launch's first
    // wave (`warp_start_fetch_cycles`), at the kernel's first instruction.
    let waited = s
        .per_pc
        .iter()
        .filter(|p| p.stalls[StallReason::NoInstruction.index()] > 0)
        .count();
    assert!(waited <= 1, "{what}: no_instruction at {waited} pcs");
    let wf: u64 = s.per_pc.iter().map(|p| p.smem_wavefronts).sum();
    let all = s.smem_ld_wavefronts + s.smem_st_wavefronts + s.smem_atom_wavefronts;
    assert_eq!(wf, all, "{what}");
    let sectors: u64 = s.per_pc.iter().map(|p| p.gmem_sectors).sum();
    assert_eq!(sectors, s.gmem_ld_sectors + s.gmem_st_sectors, "{what}");
}

/// Inputs for a catalog kernel on `g`: two 1 MiB buffers, the source
/// filled with hashed words; the first u64 parameter is the source, any
/// other the destination, and every u32 parameter is `40 * warp`. Returns
/// the destination and the parameters.
fn catalog_inputs(g: &mut Gpu, k: &VerifiedKernel, warp: u32) -> (u64, Vec<ParamValue>) {
    let (src, dst) = (g.alloc(1 << 20), g.alloc(1 << 20));
    let data: Vec<u32> = (0..1 << 18)
        .map(|i: u32| i.wrapping_mul(2_654_435_761))
        .collect();
    g.write_u32s(src, &data).unwrap();
    let params = k
        .kernel()
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| match p.ty {
            ParamType::U64 => ParamValue::U64(if i == 0 { src } else { dst }),
            ParamType::U32 => ParamValue::U32(40 * warp),
        })
        .collect();
    (dst, params)
}

#[test]
fn reasons_sum_to_warp_cycles_on_every_example() {
    for (policy, cfg) in [
        (SchedulerPolicy::Gto, GpuConfig::tiny()),
        (SchedulerPolicy::Lrr, GpuConfig::h200()),
    ] {
        let mut cfg = cfg;
        cfg.scheduler = policy;
        cfg.num_sms = 2;
        let warp = cfg.warp_size;
        for named in kernels_ir::kernels::catalog(warp) {
            let name = named.name().to_string();
            let k = verified(named.kernel);
            let (s, _, _) = run_both(
                &cfg,
                &k,
                Dim3::x(5),
                Dim3::x(2 * warp),
                1 << 20,
                8 * warp,
                3,
            );
            check_accounting(&s, &name);
        }
    }
}

#[test]
fn memory_and_barriers_show_up_as_their_reasons() {
    let mut cfg = GpuConfig::h200();
    // Warps that start together: their special-register reads
    // (`crate::s2r`) would spread these few warps' starts apart.
    cfg.s2r_latency_cycles = 0;
    let reduce = verified(kernels_ir::kernels::examples::reduce(32));
    let (s, _, _) = run_both(&cfg, &reduce, Dim3::x(4), Dim3::x(256), 1 << 16, 1024, 1);
    assert!(s.stall(StallReason::LongScoreboard) > 0);
    assert!(
        s.stall(StallReason::ShortScoreboard) > 0,
        "shuffles and shared loads"
    );
    assert!(s.stall(StallReason::Barrier) > 0);
    assert!(
        s.stall(StallReason::NotSelected) > 0,
        "8 warps per block compete"
    );
    let ratio = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
    let expect = s.stall(StallReason::LongScoreboard) as f64 / s.issue_active as f64;
    assert_eq!(s.metrics()[ratio], expect);
}

/// Every catalog kernel on `sms` SMs of each of `cfgs`, `grid` blocks of
/// `block_warps` warps, run in quanta on 1, 2 and 3 threads: the same
/// counters and memory as the cycle-by-cycle (lockstep) loop.
fn catalog_agrees_with_lockstep(cfgs: Vec<GpuConfig>, sms: u32, grid: u32, block_warps: u32) {
    for cfg in cfgs {
        let warp = cfg.warp_size;
        let mut cfg = cfg;
        cfg.num_sms = sms;
        for named in kernels_ir::kernels::catalog(warp) {
            let name = named.name().to_string();
            let k = verified(named.kernel);
            let run = |lockstep: bool, threads: usize| {
                let mut g = crate::Gpu::new(
                    cfg.clone(),
                    crate::RunOptions {
                        lockstep,
                        threads,
                        ..Default::default()
                    },
                )
                .unwrap();
                let (dst, params) = catalog_inputs(&mut g, &k, warp);
                let s = g
                    .launch(&k, Dim3::x(grid), Dim3::x(block_warps * warp), &params)
                    .unwrap();
                (s, g.read_u32s(dst, 1 << 18).unwrap())
            };
            let lockstep = run(true, 1);
            for threads in 1..=3 {
                let quanta = run(false, threads);
                assert!(
                    quanta == lockstep,
                    "{name}, {threads} threads: {:?}\nvs\n{:?}",
                    quanta.0,
                    lockstep.0
                );
            }
        }
    }
}

#[test]
fn quanta_give_the_same_results_as_cycle_by_cycle_on_any_thread_count() {
    // An interleave finer than a line puts a line's sectors in several
    // partitions: the L2 cannot be cut by partition, and one thread times
    // the memory however many run the SMs (`MemTiming::groups`).
    let mut fine = GpuConfig::tiny();
    fine.partition_interleave_bytes = 64;
    // Slices hashed on three bits (the preset folds every bit): the groups
    // of partitions each thread times must hold the hashed sectors' sets.
    let mut hashed = GpuConfig::h200();
    hashed.partition_hash = 3;
    // 3 SMs on 1, 2 (SMs 0-1 and 2) and 3 threads.
    catalog_agrees_with_lockstep(
        vec![GpuConfig::tiny(), GpuConfig::h200(), fine, hashed],
        3,
        13,
        4,
    );
}

#[test]
fn blocks_that_read_each_others_stores_agree_on_every_thread_count_and_traced() {
    // Block b stores b + 1 to word b, works through a chain of adds (which
    // drifts the blocks apart by their dispatch cycles), then copies word
    // b - 1 (another block's, stored within the last few hundred cycles)
    // to out[b]: what it reads depends on when stores become visible to
    // other SMs, which must not depend on the thread count or on tracing.
    let mut b = KernelBuilder::new("neighbour");
    let out = b.param("out", ParamType::U64);
    let (id, v, off, a) = (b.reg32(), b.reg32(), b.reg64(), b.reg64());
    b.mov(id, Special::CtaidX);
    b.add(v, id, 1);
    b.cvt_u64_u32(off, id);
    b.shl(off, off, 2);
    b.add(a, out, off);
    b.st_global_b32(a, 0, v);
    for _ in 0..60 {
        b.add(v, v, 1);
    }
    b.ld_global_b32(v, a, -4);
    b.st_global_b32(a, 4096, v);
    b.exit();
    let k = verified(b.build());
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 4;
    let run = |threads: usize, traced: bool| {
        let options = crate::RunOptions {
            threads,
            ..Default::default()
        };
        let mut g = crate::Gpu::new(cfg.clone(), options).unwrap();
        let buf = g.alloc(8192);
        // Block 0 reads the word before its own: keep it in the buffer.
        let base = buf + 4;
        let params = [ParamValue::U64(base)];
        let (grid, block) = (Dim3::x(256), Dim3::x(32));
        let s = if traced {
            let mut sink = crate::VecSink::default();
            g.launch_traced(&k, grid, block, &params, &mut sink)
        } else {
            g.launch(&k, grid, block, &params)
        };
        (s.unwrap(), g.read_u32s(buf, 2048).unwrap())
    };
    let one = run(1, false);
    let seen = one.1[1025..1025 + 256].iter().filter(|&&v| v != 0).count();
    assert!(
        seen > 0 && seen < 256,
        "some blocks see their neighbour's store and some do not: {seen}"
    );
    for (threads, traced) in [(2, false), (3, false), (1, true)] {
        let other = run(threads, traced);
        assert!(
            other == one,
            "{threads} threads, traced {traced}: {:?}\nvs\n{:?}",
            other.0,
            one.0
        );
    }
}

#[test]
fn identical_inputs_give_identical_stats() {
    let k = verified(kernels_ir::kernels::examples::reduce(32));
    let run = || {
        let mut g = gpu(GpuConfig::h200());
        let (src, dst) = (g.alloc(1 << 16), g.alloc(1 << 12));
        let data: Vec<u32> = (0..1 << 14)
            .map(|i: u32| i.wrapping_mul(2_654_435_761))
            .collect();
        g.write_u32s(src, &data).unwrap();
        let params = [
            ParamValue::U64(src),
            ParamValue::U64(dst),
            ParamValue::U32(1 << 14),
        ];
        let a = g.launch(&k, Dim3::x(64), Dim3::x(256), &params).unwrap();
        // The L2 starts empty at every launch, so a relaunch counts the same.
        let b = g.launch(&k, Dim3::x(64), Dim3::x(256), &params).unwrap();
        assert_eq!(a, b);
        (a, g.read_u32s(dst, 64).unwrap())
    };
    assert_eq!(run(), run());
}

#[test]
fn a_busy_sub_partition_shows_not_selected_and_pipe_throttle() {
    let mut b = KernelBuilder::new("alu");
    let out = b.param("out", ParamType::U64);
    let r = b.regs32(4);
    for i in 0..64 {
        b.add(r[i % 4], r[(i + 1) % 4], Special::LaneId);
    }
    let (off, a) = (b.reg64(), b.reg64());
    b.cvt_u64_u32(off, Special::TidX);
    b.shl(off, off, 2);
    b.add(a, out, off);
    b.st_global_b32(a, 0, r[0]);
    b.exit();
    let k = verified(b.build());
    let mut g = gpu(GpuConfig::h200());
    let buf = g.alloc(4 * 1024);
    let s = g
        .launch(&k, Dim3::x(1), Dim3::x(1024), &[ParamValue::U64(buf)])
        .unwrap();
    check_accounting(&s, "alu");
    assert!(s.stall(StallReason::MathPipeThrottle) > s.stall(StallReason::Wait));
    // 32 warps over 4 schedulers, two cycles of ALU per instruction: issue
    // is ALU-bound at half an instruction per cycle per scheduler (stores and
    // exits slip into the gaps).
    // (The launch's fixed cost is not issue time.)
    let busy = s.cycles.0 - crate::gpu::fixed_launch_cycles(&GpuConfig::h200(), &s);
    let ipc = s.inst_executed as f64 / busy as f64;
    assert!((1.9..=2.1).contains(&ipc), "ipc {ipc}");
}

/// Untraced runs charge `not_selected` lazily and skip the scheduling
/// passes that would issue nothing, traced ones charge pass by pass
/// (`scheduler.rs`, `pass_lazy`): both give the same counters, per kernel
/// and per instruction, under either policy.
#[test]
fn lazy_not_selected_charges_equal_the_pass_by_pass_ones() {
    for policy in [SchedulerPolicy::Gto, SchedulerPolicy::Lrr] {
        for base in [GpuConfig::tiny(), GpuConfig::h200()] {
            let mut cfg = base;
            cfg.num_sms = 2;
            cfg.scheduler = policy;
            let warp = cfg.warp_size;
            for named in kernels_ir::kernels::catalog(warp) {
                let name = named.name().to_string();
                let k = verified(named.kernel);
                let run = |sink: Option<&mut crate::VecSink>| {
                    let mut g = gpu(cfg.clone());
                    let (_, params) = catalog_inputs(&mut g, &k, warp);
                    let (grid, block) = (Dim3::x(9), Dim3::x(4 * warp));
                    match sink {
                        Some(sink) => g.launch_traced(&k, grid, block, &params, sink),
                        None => g.launch(&k, grid, block, &params),
                    }
                    .unwrap()
                };
                let lazy = run(None);
                let mut sink = crate::VecSink::default();
                let traced = run(Some(&mut sink));
                assert!(!sink.events.is_empty(), "{name}: traced");
                assert!(
                    lazy == traced,
                    "{name}, {policy:?}: {lazy:?}\nvs\n{traced:?}"
                );
                check_accounting(&lazy, &name);
            }
        }
    }
}

/// Many short blocks, several resident per SM: their slots free up at
/// many cycles of each quantum, and the engine starts the next blocks of
/// several SMs at once where no earlier retirement can come between
/// (`engine::start_retired`). The blocks must start where the lockstep
/// loop starts them, on any thread count.
#[test]
fn short_blocks_start_in_cycle_order_on_any_thread_count() {
    catalog_agrees_with_lockstep(vec![GpuConfig::tiny(), GpuConfig::h200()], 5, 150, 1);
}
