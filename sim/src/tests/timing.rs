//! Exact cycle counts of small kernels on `tiny`, worked out by hand from
//! the model in the crate docs, so any timing change fails a test.
//!
//! `tiny`: warps of 8 lanes, 2 sub-partitions per SM, ALU latency 2 and 2
//! cycles per warp instruction (4 lanes per cycle), shared-memory latency 4,
//! branch latency 2, barrier latency 2, L2 latency 10, DRAM latency 20.

use kernels_ir::{Dim3, KernelBuilder, ParamType, ParamValue, Special};

use super::util::{gpu, verified};
use crate::{Cycle, GpuConfig, KernelStats, StallReason};

fn run(threads: u32, build: impl FnOnce(&mut KernelBuilder)) -> KernelStats {
    run_on(GpuConfig::tiny(), threads, build)
}

fn run_on(cfg: GpuConfig, threads: u32, build: impl FnOnce(&mut KernelBuilder)) -> KernelStats {
    let mut b = KernelBuilder::new("t");
    let buf = b.param("buf", ParamType::U64);
    let base = b.reg64();
    let _ = (buf, base);
    build(&mut b);
    let k = verified(b.build());
    let mut g = gpu(cfg);
    let a = g.alloc(256);
    let stats = g
        .launch(&k, Dim3::x(1), Dim3::x(threads), &[ParamValue::U64(a)])
        .unwrap();
    let sum: u64 = stats.stalls.iter().sum();
    assert_eq!(sum, stats.warp_cycles, "stall reasons sum to warp-cycles");
    stats
}

fn stall(s: &KernelStats, r: StallReason) -> u64 {
    s.stall(r)
}

#[test]
fn a_lone_exit_takes_one_cycle() {
    let s = run(8, |b| {
        b.exit();
    });
    assert_eq!(s.cycles, Cycle(1));
    assert_eq!((s.warp_cycles, stall(&s, StallReason::Selected)), (1, 1));
}

#[test]
fn dependent_alu_ops_wait_for_their_latency() {
    let s = run(8, |b| {
        let r = b.reg32();
        b.mov(r, 1); // t0, ready at 2
        b.add(r, r, 1); // t2
        // Not a second add: two adds are one IADD3 (`crate::three_input`).
        b.xor(r, r, 1); // t4
        b.exit(); // t5
    });
    assert_eq!(s.cycles, Cycle(6));
    assert_eq!(
        (
            stall(&s, StallReason::Selected),
            stall(&s, StallReason::Wait)
        ),
        (4, 2)
    );
}

#[test]
fn independent_alu_ops_of_one_warp_are_spaced_in_wait() {
    // The warp's own instruction holds the ALU: ptxas's stall count spaces
    // the next one (`wait`), not the pipe's throttle.
    let s = run(8, |b| {
        let (x, y) = (b.reg32(), b.reg32());
        b.mov(x, 1); // t0: the ALU is busy until 2
        b.mov(y, 2); // t2
        b.exit(); // t3
    });
    assert_eq!(s.cycles, Cycle(4));
    assert_eq!(stall(&s, StallReason::Wait), 1);
    assert_eq!(stall(&s, StallReason::MathPipeThrottle), 0);
}

#[test]
fn two_warps_of_a_sub_partition_share_its_alu() {
    // 4 warps, 2 per sub-partition; greedy-then-oldest keeps the older one
    // going: A issues at 0, 2, 3 (exit); B at 4, 6, 7. B waits for A's ALU
    // at 1 and 3 (`math_pipe_throttle`), each for its own at 1 and 5
    // (`wait`).
    let s = run(32, |b| {
        let (x, y) = (b.reg32(), b.reg32());
        b.mov(x, 1);
        b.mov(y, 2);
        b.exit();
    });
    assert_eq!(s.cycles, Cycle(8));
    assert_eq!(s.inst_executed, 12);
    assert_eq!(s.warp_cycles, 2 * (4 + 8));
    assert_eq!(stall(&s, StallReason::NotSelected), 2 * 2);
    assert_eq!(stall(&s, StallReason::MathPipeThrottle), 2 * 2);
    assert_eq!(stall(&s, StallReason::Wait), 2 * 2);
}

#[test]
fn a_shared_load_waits_on_the_short_scoreboard() {
    let s = run(8, |b| {
        let (a, v) = (b.reg32(), b.reg32());
        b.shared(64, 4);
        b.shl(a, Special::LaneId, 2); // t0
        b.st_shared_b32(Some(a), 0, a); // t2, starts at 2
        b.ld_shared_b32(v, Some(a), 0); // t3, starts at 3, ready at 7
        b.add(v, v, 1); // t7
        b.exit(); // t8
    });
    assert_eq!(s.cycles, Cycle(9));
    assert_eq!(stall(&s, StallReason::ShortScoreboard), 3);
}

#[test]
fn a_warps_shared_accesses_wait_out_their_spacing() {
    // With the H200's spacing of 4 (`smem_issue_interval_cycles`), a warp's
    // shared store and shared loads issue 4 cycles apart, waiting in
    // `wait`, and an ALU op between two of them fills part of the gap; a
    // shuffle is not spaced. `tiny`'s 1 lets them go a cycle apart.
    let kernel = |b: &mut KernelBuilder| {
        let (a, v, w, x) = (b.reg32(), b.reg32(), b.reg32(), b.reg32());
        b.shared(64, 4);
        b.shl(a, Special::LaneId, 2); // t0, ready at 2
        b.st_shared_b32(Some(a), 0, a); // t2
        b.ld_shared_b32(v, Some(a), 0); // t6 (t3 without the spacing)
        b.mov(x, 1); // t7 (t4)
        b.ld_shared_b32(w, Some(a), 0); // t10 (t5)
        b.shfl_xor(x, a, 1, 8); // t11 (t6)
        b.exit(); // t12 (t7)
    };
    let s = run(8, kernel);
    assert_eq!((s.cycles, stall(&s, StallReason::Wait)), (Cycle(8), 1));
    let spaced = GpuConfig {
        smem_issue_interval_cycles: 4,
        ..GpuConfig::tiny()
    };
    let s = run_on(spaced, 8, kernel);
    assert_eq!(
        (s.cycles, stall(&s, StallReason::Wait)),
        (Cycle(13), 1 + 3 + 2)
    );
}

#[test]
fn a_global_load_misses_to_dram() {
    let s = run(8, |b| {
        let (base, v) = (kernels_ir::Reg::d(0), b.reg32());
        b.mov(base, kernels_ir::Param(0)); // t0
        b.ld_global_b32(v, base, 0); // t2: L2 slot at 2, DRAM slot at 3, ready at 23
        b.add(v, v, 1); // t23
        b.exit(); // t24
    });
    assert_eq!(s.cycles, Cycle(25));
    assert_eq!(stall(&s, StallReason::LongScoreboard), 20);
    assert_eq!((s.l2_sector_misses, s.dram_sectors_read), (1, 1));
}

#[test]
fn a_barrier_releases_after_the_last_arrival() {
    let s = run(16, |b| {
        // Both warps issue it at 0 and wait from 1; the unit takes their
        // arrivals at 1-2 and 2-3 (one a cycle on `tiny`) and releases
        // both together 2 cycles after the last (barrier latency 2).
        b.bar_sync();
        b.exit(); // both at 5
    });
    assert_eq!(s.cycles, Cycle(6));
    assert_eq!(stall(&s, StallReason::Barrier), 4 + 4);
    assert_eq!(s.barriers, 1);
}

#[test]
fn a_divergent_branch_runs_both_sides() {
    let s = run(8, |b| {
        let (p, r, join) = (b.pred(), b.reg32(), b.label("join"));
        b.setp_lt_u(p, Special::LaneId, 4); // t0
        b.when(p).bra(join); // t2: lanes 0-3 jump to the reconvergence point
        b.mov(r, 1); // t4 (branch latency 2), lanes 4-7
        b.bind(join);
        b.exit(); // t5, all lanes
    });
    assert_eq!(s.cycles, Cycle(6));
    assert_eq!(stall(&s, StallReason::BranchResolving), 1);
    assert_eq!(s.thread_inst_executed, 8 + 8 + 4 + 8);
}

#[test]
fn cmpx_takes_two_issue_slots_and_twice_the_alu() {
    let s = run(8, |b| {
        let (x, y) = (b.reg32(), b.reg32());
        b.mov(x, Special::LaneId); // t0
        b.mov(y, 3); // t2 (its ALU at 1)
        b.cmpx_u(x, y); // t4-5, ALU until 8, results at 8
        b.add(x, x, y); // t8
        b.exit(); // t9
    });
    assert_eq!(s.cycles, Cycle(10));
    assert_eq!(s.inst_executed, 6);
    assert_eq!(stall(&s, StallReason::Selected), 6);
    assert_eq!(stall(&s, StallReason::Wait), 1 + 1 + 2);
}

#[test]
fn a_cmpx_that_keeps_one_side_is_a_compare_and_a_select() {
    // The cross-lane step of a sorting network: each lane keeps the
    // minimum or the maximum, and the other result is dead. Charged as
    // SASS runs it, one compare and one select (`crate::select_fold`).
    let s = run(8, |b| {
        let (x, y, p) = (b.reg32(), b.reg32(), b.pred());
        b.mov(x, Special::LaneId); // t0, ALU until 2
        b.mov(y, 3); // t2 (its ALU at 1), ready at 4
        b.setp_lt_u(p, x, y); // t4 (y at 3), ALU until 6
        b.cmpx_u(x, y); // t6 (its ALU at 5), one slot: results at 8
        b.when(p).mov(x, y); // t8 (its ALU at 7), ALU until 10
        b.mov(y, 0); // t10 (its ALU at 9): y was dead after the select
        b.exit(); // t11
    });
    // Two slots for the cmpx would take 14 cycles and 8 instructions.
    assert_eq!(s.cycles, Cycle(12));
    assert_eq!(s.inst_executed, 7, "the cmpx is one instruction");
    assert_eq!(stall(&s, StallReason::MathPipeThrottle), 0);
    assert_eq!(stall(&s, StallReason::Wait), 5);
}

#[test]
fn the_select_of_a_folded_pair_does_not_wait_for_the_compare() {
    // ptxas makes the pair a minimum and a predicated maximum of the same
    // two registers (`crate::select_fold`): the select waits for the ALU,
    // not for the compare's results. With a latency of 6 they would hold it
    // until 16 (18 cycles).
    let mut cfg = GpuConfig::tiny();
    cfg.alu_latency_cycles = 6;
    let s = run_on(cfg, 8, |b| {
        let (x, y, p) = (b.reg32(), b.reg32(), b.pred());
        b.setp_lt_u(p, Special::LaneId, 4); // t0, ALU until 2, ready at 6
        b.mov(x, Special::LaneId); // t2, ready at 8
        b.mov(y, 3); // t4, ready at 10
        b.cmpx_u(x, y); // t10, ALU until 12, results at 16
        b.when(p).mov(x, y); // t12 (its ALU at 11)
        b.exit(); // t13
    });
    assert_eq!(s.cycles, Cycle(14));
    assert_eq!(s.inst_executed, 6);
}

#[test]
fn the_barrier_unit_takes_one_arrival_at_a_time_across_blocks() {
    // One SM, two blocks of two warps: block 0's warps wait from 1, block
    // 1's from 2. The SM's one barrier unit takes block 0's arrivals until
    // 3 and releases its warps at 5; it takes block 1's from 3, not 2,
    // until 5, and releases them at 7, not 6.
    let mut b = KernelBuilder::new("t");
    b.bar_sync();
    b.exit();
    let k = verified(b.build());
    let cfg = GpuConfig {
        num_sms: 1,
        ..GpuConfig::tiny()
    };
    let s = gpu(cfg).launch(&k, Dim3::x(2), Dim3::x(16), &[]).unwrap();
    assert_eq!(s.cycles, Cycle(8));
    assert_eq!(stall(&s, StallReason::Barrier), (4 + 4) + (5 + 5));
    assert_eq!(s.barriers, 2);
}
