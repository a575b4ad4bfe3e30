//! A launch's fixed costs through the committed microbenchmarks of
//! `hw/calib/suite_launch.txt`: every launch pays `launch_overhead_cycles`,
//! one that reads or writes global memory `memory_launch_cycles` more.

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
