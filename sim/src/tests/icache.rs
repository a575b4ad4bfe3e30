//! Instruction fetch ([`crate::icache`]): exact cycles of straight-line
//! code longer than the caches on `tiny` with caches of a line or two, and
//! no change at all for a kernel that fits the L0.

use kernels_ir::{Dim3, KernelBuilder, ParamType, ParamValue};

use super::util::{gpu, verified};
use crate::{Cycle, GpuConfig, KernelStats, StallReason};

/// `tiny` with an L0 of `l0` bytes and an L1 of two 128-byte lines (8 SASS
/// instructions each): an L1 hit costs 10 cycles, a line the SM never
/// fetched 50.
fn with_icache(l0: u32) -> GpuConfig {
    let mut cfg = GpuConfig::tiny();
    cfg.icache_l0_bytes = l0;
    cfg.icache_l1_bytes = 256.max(l0);
    cfg.icache_line_bytes = 128;
    cfg.icache_l1_latency_cycles = 10;
    cfg.icache_l1_line_cycles = 3;
    cfg.icache_l2_latency_cycles = 20;
    cfg.icache_cold_latency_cycles = 50;
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
    // The L0 holds line 0, the L1 lines 0 and 1. Issuing the last move of
    // line 0 at 14 fetches line 1 from the L1 (there at 24); the last of
    // line 1 at 38 fetches line 2, which the SM never fetched (88); and so
    // on: 152, 216, and `exit` (line 5) at 280.
    let on = straight_line(with_icache(128));
    assert_eq!(on.cycles, Cycle(281));
    assert_eq!(on.stall(StallReason::NoInstruction), 9 + 4 * 49);
    assert_eq!(on.inst_executed, off.inst_executed);
}

#[test]
fn a_kernel_that_fits_the_l0_runs_as_without_the_model() {
    assert_eq!(
        straight_line(with_icache(768)),
        straight_line(GpuConfig::tiny())
    );
}
