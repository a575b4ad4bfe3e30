//! How fast an SM's first blocks of a launch start (`first_wave_warps_per_cycle`,
//! `first_wave_window_cycles`): on the H200 (`hw/burst.cu`) a block of W
//! warps starts about W / 2 cycles after the one before, for about 20
//! cycles, where later blocks come `block_dispatch_cycles` apart.

use super::util::launch_ir;
use crate::GpuConfig;

/// Cycles of `blocks` empty blocks of `threads` threads on one SM.
fn empty_grid(cfg: &GpuConfig, blocks: u32, threads: u32) -> u64 {
    let text = include_str!("../../../hw/calib/kernels/empty.kir");
    let s = launch_ir(cfg.clone(), "empty.kir", text, blocks, threads, |_| vec![]);
    s.cycles.0
}

fn one_sm() -> GpuConfig {
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 1;
    cfg
}

#[test]
fn a_first_waves_blocks_start_their_warps_over_the_rate_apart() {
    let cfg = one_sm();
    assert_eq!(
        (cfg.first_wave_warps_per_cycle, cfg.first_wave_window_cycles),
        (2, 20)
    );
    let one = empty_grid(&cfg, 1, 256);
    // Blocks of 8 warps, 4 cycles apart: the last of four starts 12 later.
    assert_eq!(empty_grid(&cfg, 4, 256) - one, 3 * 4);
    // Blocks of 4 warps, 2 cycles apart.
    assert_eq!(empty_grid(&cfg, 4, 128) - empty_grid(&cfg, 1, 128), 3 * 2);
    // Blocks of 32 warps, 16 cycles apart: two in the window.
    assert_eq!(empty_grid(&cfg, 2, 1024) - empty_grid(&cfg, 1, 1024), 16);
}

#[test]
fn blocks_beyond_the_first_waves_warps_keep_the_dispatchers_pace() {
    let cfg = one_sm();
    let dispatch = u64::from(cfg.block_dispatch_cycles);
    let one = empty_grid(&cfg, 1, 256);
    // Eight blocks of 8 warps fit the SM at once: six start 4 cycles apart
    // (the sixth 20 cycles after the first), the seventh and eighth
    // `block_dispatch_cycles` apart.
    assert_eq!(empty_grid(&cfg, 8, 256) - one, 5 * 4 + 2 * dispatch);
}

#[test]
fn without_a_first_wave_rate_every_block_keeps_the_dispatchers_pace() {
    let mut cfg = one_sm();
    cfg.first_wave_warps_per_cycle = 0;
    let dispatch = u64::from(cfg.block_dispatch_cycles);
    assert_eq!(
        empty_grid(&cfg, 4, 256) - empty_grid(&cfg, 1, 256),
        3 * dispatch
    );
}
