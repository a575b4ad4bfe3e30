//! A launch's fixed costs through the committed microbenchmarks of
//! `hw/calib/suite_launch.txt`: every launch pays `launch_overhead_cycles`,
//! one that reads or writes global memory `memory_launch_cycles` more, and
//! one over several SMs part of `launch_all_sms_cycles`.

use kernels_ir::ParamValue;

use super::util::launch_ir;
use crate::GpuConfig;

/// Cycles of one 32-thread block of the kernel in `text` on `cfg`, its
/// first parameter a 128-byte buffer and its second `n`.
fn one_block(cfg: GpuConfig, name: &str, text: &str, n: u32) -> u64 {
    let s = launch_ir(cfg, name, text, 1, 32, |g| {
        vec![ParamValue::U64(g.alloc(128)), ParamValue::U32(n)]
    });
    s.cycles.0
}

/// `param_exit` with `n` = 4096 reads its parameter and exits: no lane
/// reaches the store.
fn param_exit(cfg: GpuConfig) -> u64 {
    let text = include_str!("../../../hw/calib/kernels/param_exit.kir");
    one_block(cfg, "param_exit.kir", text, 4096)
}

/// `write` stores a word a thread.
fn write(cfg: GpuConfig) -> u64 {
    let text = include_str!("../../../hw/calib/kernels/write.kir");
    one_block(cfg, "write.kir", text, 32)
}

#[test]
fn a_launch_that_touches_global_memory_pays_the_memory_launch_cost() {
    let cfg = GpuConfig::h200();
    let mut without = cfg.clone();
    without.memory_launch_cycles = 0;
    let extra = u64::from(cfg.memory_launch_cycles);
    assert!(extra > 0);
    assert_eq!(write(cfg.clone()), write(without.clone()) + extra);
    // A launch that only reads its parameters does not pay it.
    assert_eq!(param_exit(cfg.clone()), param_exit(without));
    assert!(param_exit(cfg.clone()) >= u64::from(cfg.launch_overhead_cycles));
    assert!(param_exit(cfg.clone()) < u64::from(cfg.launch_overhead_cycles) + extra);
}

/// The stats of `blocks` blocks of 32 threads of `write` (a store a
/// thread, its first parameter a buffer of a word a thread) on `cfg`.
fn write_grid(cfg: GpuConfig, blocks: u32) -> crate::KernelStats {
    let text = include_str!("../../../hw/calib/kernels/write.kir");
    launch_ir(cfg, "write.kir", text, blocks, 32, |g| {
        vec![
            ParamValue::U64(g.alloc(128 * u64::from(blocks))),
            ParamValue::U32(32 * blocks),
        ]
    })
}

#[test]
fn a_first_waves_warps_wait_for_their_first_instructions_within_the_fixed_cost() {
    use crate::StallReason::NoInstruction;
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 2;
    cfg.max_blocks_per_sm = 2;
    let mut without = cfg.clone();
    without.warp_start_fetch_cycles = 0;
    let fetch = u64::from(cfg.warp_start_fetch_cycles);
    assert!(fetch > 0);
    // One wave (2 SMs x 2 blocks), then eight: only the first wave's 4
    // warps wait, each `fetch` cycles, and the launch takes as long as
    // with the wait left in the fixed cost.
    for blocks in [4, 32] {
        let (a, b) = (
            write_grid(cfg.clone(), blocks),
            write_grid(without.clone(), blocks),
        );
        assert_eq!(a.stall(NoInstruction), 4 * fetch, "{blocks} blocks");
        assert_eq!(b.stall(NoInstruction), 0, "{blocks} blocks");
        assert_eq!(a.cycles, b.cycles, "{blocks} blocks");
    }
}

#[test]
fn the_first_fetch_cannot_exceed_the_fixed_cost_it_is_part_of() {
    let mut cfg = GpuConfig::h200();
    cfg.launch_overhead_cycles = 100;
    let errors = cfg.validate().unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].field, "warp_start_fetch_cycles");
}

/// Cycles of `blocks` one-warp blocks of the empty kernel on `cfg`.
fn empty_grid(cfg: GpuConfig, blocks: u32) -> u64 {
    let text = include_str!("../../../hw/calib/kernels/empty.kir");
    launch_ir(cfg, "empty.kir", text, blocks, 32, |_| vec![])
        .cycles
        .0
}

#[test]
fn a_launch_over_more_sms_pays_the_square_root_of_their_share() {
    // One empty block an SM: every SM's work is the same, so the launches
    // differ by the SMs' part of the fixed cost alone.
    let cfg = GpuConfig::h200();
    let (n, all) = (cfg.num_sms, u64::from(cfg.launch_all_sms_cycles));
    assert_eq!((n, all), (132, 330));
    let one = empty_grid(cfg.clone(), 1);
    assert_eq!(empty_grid(cfg.clone(), n) - one, all);
    // 34 SMs: sqrt(33 / 131) = 0.502 of it.
    assert_eq!(empty_grid(cfg.clone(), 34) - one, 166);
    // Two blocks an SM pay what one does over every SM: the second block
    // of each SM starts a cycle after the first (`first_wave_*`).
    assert_eq!(
        empty_grid(cfg.clone(), 2 * n) - empty_grid(cfg.clone(), n),
        1
    );
    let mut off = cfg;
    off.launch_all_sms_cycles = 0;
    assert_eq!(empty_grid(off.clone(), n), empty_grid(off, 1));
}
