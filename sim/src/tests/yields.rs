//! A loop whose exit waits on a shared load pays `yield_cycles` a trip
//! (`crate::yield_loop`): ptxas puts a `YIELD` in it.

use kernels_ir::ParamValue;

use super::util::launch_ir;
use crate::{GpuConfig, KernelStats, StallReason};

use crate::yield_loop::tests::search;

fn run(load: &str, yield_cycles: u32) -> KernelStats {
    let mut cfg = GpuConfig::h200();
    cfg.yield_cycles = yield_cycles;
    launch_ir(cfg, "search", &search(load), 1, 32, |g| {
        vec![ParamValue::U64(g.alloc(4096))]
    })
}

#[test]
fn each_trip_of_a_search_on_shared_words_waits_the_yield() {
    let shared = "ld.shared.b32 r3, [r3+0]";
    let (without, with) = (run(shared, 0), run(shared, 40));
    // 4 searches of 4 trips, each trip's back edge 40 cycles longer; the
    // branch's own 2 cycles already hid one cycle of the next trip's wait
    // on its `selp`.
    assert_eq!(with.cycles.0 - without.cycles.0, 16 * 39);
    // The warp waits on the branch for those 40 and for the cycle it
    // waited on the `selp` before (`wait`).
    assert_eq!(
        with.stall(StallReason::BranchResolving) - without.stall(StallReason::BranchResolving),
        16 * 41
    );
}

#[test]
fn a_search_on_global_words_does_not() {
    let global = "cvt.u64.u32 d0, r3\n    add d0, d0, $out\n    ld.global.b32 r3, [d0+0]";
    assert_eq!(run(global, 0).cycles, run(global, 40).cycles);
}
