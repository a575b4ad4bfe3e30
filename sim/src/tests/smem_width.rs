//! The shared pipe's cost per wavefront, whatever the access's width and
//! direction: `hw/calib/suite_smemw.txt` measured loops of conflict-free
//! shared loads only, stores only, and 16-byte stores and loads in turn, at
//! 4, 8 and 16 bytes a lane, and with four blocks of 256 threads an SM
//! every one took 1.000-1.003 cycles a wavefront on the H200 (a 16-byte
//! access is four wavefronts, and costs four cycles, as a 4-byte one costs
//! one). So no width or direction pays the pipe more than its wavefronts
//! (docs/calibration.md, "16-byte shared accesses: what the pipe charges").

use kernels_ir::ParamValue;

use super::util::launch_ir;
use crate::{GpuConfig, KernelStats};

/// `kernel` (IR text) at four blocks of 256 threads on a one-SM H200,
/// `iters` trips.
fn four_blocks(name: &str, text: &str, iters: u32) -> KernelStats {
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 1;
    launch_ir(cfg, name, text, 4, 256, |g| {
        vec![ParamValue::U64(g.alloc(4)), ParamValue::U32(iters)]
    })
}

/// Cycles a shared wavefront over the 300 trips between a 100- and a
/// 400-trip launch, as the suite's figures are taken (the launch's fixed
/// costs cancel).
fn cycles_a_wavefront(name: &str, text: &str) -> f64 {
    let (a, b) = (four_blocks(name, text, 100), four_blocks(name, text, 400));
    let wf = |s: &KernelStats| s.smem_ld_wavefronts + s.smem_st_wavefronts;
    (b.cycles.0 - a.cycles.0) as f64 / (wf(&b) - wf(&a)) as f64
}

#[test]
fn every_width_and_direction_costs_the_pipe_a_cycle_a_wavefront() {
    let kernels = [
        (
            "smem_ld128",
            include_str!("../../../hw/calib/kernels/smem_ld128.kir"),
        ),
        (
            "smem_st128",
            include_str!("../../../hw/calib/kernels/smem_st128.kir"),
        ),
        (
            "smem_mix128",
            include_str!("../../../hw/calib/kernels/smem_mix128.kir"),
        ),
        (
            "smem_ld64",
            include_str!("../../../hw/calib/kernels/smem_ld64.kir"),
        ),
        (
            "smem_st64",
            include_str!("../../../hw/calib/kernels/smem_st64.kir"),
        ),
        (
            "smem_ld32",
            include_str!("../../../hw/calib/kernels/smem_ld32.kir"),
        ),
        (
            "smem_st32",
            include_str!("../../../hw/calib/kernels/smem_st32.kir"),
        ),
    ];
    for (name, text) in kernels {
        let got = cycles_a_wavefront(name, text);
        assert!(
            (0.97..=1.05).contains(&got),
            "{name}: {got:.3} cycles a shared wavefront, the H200 1.000-1.003"
        );
    }
}
