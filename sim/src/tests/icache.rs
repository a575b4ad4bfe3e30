//! Instruction fetch ([`crate::icache`]): exact cycles of straight-line
//! code longer than the caches on `tiny` with caches of a line or two, and
//! no change at all for a kernel that fits the L0.

use kernels_ir::{Dim3, KernelBuilder, ParamType, ParamValue};

use super::util::{gpu, verified};
use crate::{Cycle, GpuConfig, KernelStats, StallReason};

/// `tiny` with an L0 of `l0` bytes, an L1 of one 128-byte line (8 SASS
/// instructions) or the L0's size, and no prefetch: an L1 hit costs 10
/// cycles; a line the SM never fetched arrives 60 cycles after it is asked
/// for (the DRAM's latency), and a stream of them 50 cycles apart.
fn with_icache(l0: u32) -> GpuConfig {
    let mut cfg = GpuConfig::tiny();
    cfg.icache_l0_bytes = l0;
    cfg.icache_l1_bytes = 128.max(l0);
    cfg.icache_line_bytes = 128;
    // One line a set, so that any size is valid: straight-line code asks
    // for each line once, which no replacement changes.
    cfg.icache_l0_ways = 1;
    cfg.icache_l1_ways = 1;
    cfg.icache_l1_latency_cycles = 10;
    cfg.icache_l1_line_cycles = 3;
    cfg.icache_l2_latency_cycles = 20;
    cfg.icache_cold_line_cycles = 50;
    cfg.icache_fetch_lines = 1;
    cfg.l2_latency_cycles = 30;
    cfg.dram_latency_cycles = 60;
    cfg
}

/// 40 independent 32-bit moves, then `exit`: 41 SASS instructions, six
/// lines, one warp.
fn straight_line(cfg: GpuConfig) -> KernelStats {
    let mut b = KernelBuilder::new("t");
    let _ = b.param("buf", ParamType::U64);
    let r = b.reg32();
    for i in 0..40 {
        b.mov(r, i);
    }
    b.exit();
    let k = verified(b.build());
    let mut g = gpu(cfg);
    let a = g.alloc(64);
    g.launch(&k, Dim3::x(1), Dim3::x(8), &[ParamValue::U64(a)])
        .unwrap()
}

#[test]
fn code_beyond_the_l0_waits_for_its_lines() {
    // Without the model: a move every 2 cycles (the ALU), the last at 78,
    // `exit` at 79.
    let off = straight_line(GpuConfig::tiny());
    assert_eq!(off.cycles, Cycle(80));
    assert_eq!(off.stall(StallReason::NoInstruction), 0);
    // The L0 and the L1 start with line 0. Issuing its last move at 14
    // asks for line 1, which the SM never fetched: there at 14 + 60 = 74.
    // Line 1's last at 88 asks for line 2 (148), and so on: 222, 296, and
    // `exit` (line 5) at 370. Five waits of 59 cycles.
    let on = straight_line(with_icache(128));
    assert_eq!(on.cycles, Cycle(371));
    assert_eq!(on.stall(StallReason::NoInstruction), 5 * 59);
    assert_eq!(on.inst_executed, off.inst_executed);
}

#[test]
fn a_prefetch_streams_the_lines_after_a_miss() {
    // An L1 of two lines, smaller than the kernel: it starts empty, so
    // without a prefetch the lines cost what they do with an L1 of one.
    let mut cfg = with_icache(128);
    cfg.icache_l1_bytes = 256;
    assert_eq!(straight_line(cfg.clone()).cycles, Cycle(371));
    // Two lines a fetch: asking for line 1 at 14 gets it at 74 and starts
    // 2 (behind 1: 124); asking for 2 at 88 gets it at 134 (the L1) and
    // starts 3 (174); 3 at 184 (starting 4: 224), 4 at 234 (5: 274),
    // `exit` at 284.
    cfg.icache_fetch_lines = 2;
    let on = straight_line(cfg);
    assert_eq!(on.cycles, Cycle(285));
    assert_eq!(on.stall(StallReason::NoInstruction), 59 + 45 + 3 * 35);
}

#[test]
fn a_launch_starts_with_the_kernels_first_warm_bytes_in_the_l1() {
    // The whole kernel (six lines) warm: past line 0 (the L0) each line
    // costs the L1's 10 cycles, not the DRAM's 60.
    let mut cfg = with_icache(128);
    cfg.icache_l1_bytes = 768;
    cfg.icache_warm_bytes = 768;
    let on = straight_line(cfg.clone());
    assert_eq!(on.stall(StallReason::NoInstruction), 5 * 9);
    // Its first three lines warm: lines 1 and 2 from the L1, 3 to 5 from
    // DRAM.
    cfg.icache_warm_bytes = 384;
    let on = straight_line(cfg);
    assert_eq!(on.stall(StallReason::NoInstruction), 2 * 9 + 3 * 59);
}

#[test]
fn a_kernel_that_fits_the_l0_runs_as_without_the_model() {
    assert_eq!(
        straight_line(with_icache(768)),
        straight_line(GpuConfig::tiny())
    );
}
