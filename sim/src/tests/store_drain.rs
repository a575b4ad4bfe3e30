//! Loads behind their SM's global stores ([`crate::store_drain`],
//! `loads_wait_for_stores`).

use kernels_ir::ParamValue;

use super::util::{at_loads, launch_ir};
use crate::{GpuConfig, StallReason};

/// `hw/calib/kernels/lds_under_load.kir` on 4 SMs of the H200, 4 blocks
/// an SM, the field set to `wait`: warp 0 of each block walks 512
/// dependent shared loads while warps 1-7 store whole lines (`other` 3)
/// or exit at once (`other` 0). Returns the cycles warp 0 waits a load
/// in `short_scoreboard`.
fn shared_wait(wait: u32, other: u32) -> f64 {
    let text = include_str!("../../../hw/calib/kernels/lds_under_load.kir");
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 4;
    cfg.loads_wait_for_stores = wait;
    let (blocks, steps) = (16, 512);
    let s = launch_ir(cfg, "lds_under_load.kir", text, blocks, 256, |g| {
        vec![
            ParamValue::U64(g.alloc(128 << 20)),
            ParamValue::U32(other),
            ParamValue::U32(steps),
            ParamValue::U32(64),
        ]
    });
    s.stalls[StallReason::ShortScoreboard.index()] as f64 / f64::from(blocks * steps)
}

#[test]
fn a_shared_load_waits_for_the_stores_before_it_to_leave() {
    assert_eq!(GpuConfig::h200().loads_wait_for_stores, 0);
    let (alone, beside) = (shared_wait(1, 0), shared_wait(1, 3));
    // Alone, a load waits its latency; beside 28 warps storing, for the
    // stores to leave (the H200: 38 and 370 cycles a load).
    assert!(alone < 25.0, "alone {alone}");
    assert!(
        beside > 5.0 * alone,
        "beside stores {beside}, alone {alone}"
    );
    // Off, it waits about its latency beside them too; at 2 as at 1.
    let not = shared_wait(0, 3);
    assert!(not < 2.0 * alone, "not waiting {not}, alone {alone}");
    assert_eq!(shared_wait(2, 3), beside);
}

/// The warp-cycles the loads of `hw/calib/kernels/xbar.kir` wait in
/// `long_scoreboard` over four rounds of 8 16-byte loads, then 8 stores
/// of what they loaded (16 bytes of a line a lane: 32 sectors written in
/// part a request, which keep the L2's slices busy), a block on each of
/// the H200's SMs, the field set to `wait`.
fn global_wait(wait: u32) -> u64 {
    let text = include_str!("../../../hw/calib/kernels/xbar.kir");
    let mut cfg = GpuConfig::h200();
    cfg.loads_wait_for_stores = wait;
    let sms = cfg.num_sms;
    let s = launch_ir(cfg, "xbar.kir", text, sms, 256, |g| {
        // buf, s, kstride, istride, iters, ld, st: new lines each round.
        let bytes = sms * 256 * 128;
        let mut p = vec![ParamValue::U64(g.alloc(u64::from(bytes) * 5))];
        p.extend([7, 16, bytes, 4, 1, 1].map(ParamValue::U32));
        p
    });
    at_loads("xbar.kir", text, &s, StallReason::LongScoreboard)
}

#[test]
fn at_2_a_global_load_leaves_after_the_stores_before_it() {
    let (none, shared, global) = (global_wait(0), global_wait(1), global_wait(2));
    // A shared load's wait leaves global loads alone; at 2 each round's
    // loads leave behind the stores of the round before.
    assert_eq!(none, shared);
    assert!(global > none + none / 50, "at 2: {global}, at 0: {none}");
}
