//! The special-register reads (`S2R`) at a warp's start ([`crate::s2r`]),
//! through the kernels of `hw/calib/suite_s2r.txt`.

use kernels_ir::ParamValue;

use super::util::launch_ir;
use crate::{GpuConfig, KernelStats, StallReason};

const WRITE: &str = include_str!("../../../hw/calib/kernels/write.kir");
const WRITE_SR: &str = include_str!("../../../hw/calib/kernels/write_sr.kir");

/// One block of `threads` threads of `text` (write.kir's parameters).
fn one_block(cfg: GpuConfig, name: &str, text: &str, threads: u32) -> KernelStats {
    launch_ir(cfg, name, text, 1, threads, |g| {
        vec![
            ParamValue::U64(g.alloc(4 * u64::from(threads))),
            ParamValue::U32(threads),
        ]
    })
}

/// Reads `%tid.x` and `%ctaid.x` in its first instruction (two `S2R`).
const FIRST_READS_BOTH: &str = "kernel first_reads_both {
    param out: u64
    param n: u32
    regs r1 d2 p0
    shared 0
    add r0, %tid.x, %ctaid.x
    cvt.u64.u32 d0, r0
    shl d0, d0, 2
    add d1, $out, d0
    st.global.b32 [d1+0], r0
    exit
}
";

#[test]
fn a_lone_warp_waits_for_its_special_register_reads() {
    let cfg = GpuConfig::h200();
    // Two S2R, each taking its sub-partition's share of the SM's rate; the
    // first instruction waits until the second's result is there. Nothing
    // else in the kernel waits on a short scoreboard.
    let per_s2r = u64::from(cfg.warp_size.div_ceil(cfg.s2r_lanes_per_cycle))
        * u64::from(cfg.num_subpartitions);
    let wait = 2 * per_s2r - 1 + u64::from(cfg.s2r_latency_cycles);
    let s = one_block(cfg.clone(), "first_reads_both", FIRST_READS_BOTH, 32);
    assert_eq!(s.stall(StallReason::ShortScoreboard), wait);
    let mut off = cfg;
    off.s2r_latency_cycles = 0;
    let s_off = one_block(off, "first_reads_both", FIRST_READS_BOTH, 32);
    assert_eq!(s_off.stall(StallReason::ShortScoreboard), 0);
    assert_eq!(s.cycles.0, s_off.cycles.0 + wait);
}

#[test]
fn a_full_block_pays_for_each_further_special_register() {
    // 32 warps, 8 a sub-partition: write_sr.kir's three further S2R a warp
    // (%laneid, and %tid.y and %tid.z for %warpid) queue behind the other
    // warps' (hw/calib/suite_s2r.txt: 5,575 against 6,507 cycles on the
    // H200 over 1024 such blocks).
    let cfg = GpuConfig::h200();
    let per_s2r = u64::from(cfg.warp_size.div_ceil(cfg.s2r_lanes_per_cycle))
        * u64::from(cfg.num_subpartitions);
    let on = one_block(cfg.clone(), "write_sr.kir", WRITE_SR, 1024)
        .cycles
        .0
        - one_block(cfg.clone(), "write.kir", WRITE, 1024).cycles.0;
    // Without the reads the two differ by their two further adds only.
    let mut off = cfg;
    off.s2r_latency_cycles = 0;
    let off = one_block(off.clone(), "write_sr.kir", WRITE_SR, 1024)
        .cycles
        .0
        - one_block(off, "write.kir", WRITE, 1024).cycles.0;
    // The last warp of a sub-partition starts its reads 8 * 3 further
    // reads later; the adds alone cost a fraction of that.
    assert!(on >= 8 * 3 * per_s2r - 8, "{on} against {off}");
    assert!(off * 4 < 8 * 3 * per_s2r, "{on} against {off}");
}

#[test]
fn the_tiny_machine_leaves_them_out() {
    let cfg = GpuConfig::tiny();
    assert_eq!(cfg.s2r_latency_cycles, 0);
    let s = one_block(cfg, "write.kir", WRITE, 32);
    assert_eq!(s.stall(StallReason::ShortScoreboard), 0);
}
