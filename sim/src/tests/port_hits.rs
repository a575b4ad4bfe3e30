//! Loads that hit in L1 and stores through the SM's port to L2 in rounds
//! ([`crate::l2_port`], `Port::hits`): `xb_ls_p_r0` of
//! `hw/data/h200/ncu/xbar_mix/` (the fused `step`'s loads and stores on the
//! same lines every round, so that from the second round on every load
//! hits L1 in 32 wavefronts) runs 51,483 active cycles an SM on the H200
//! while its port is busy 33,570: the hits' wavefronts and the stores'
//! sends add up. Without that the model ran it 30.5% fast. The hits pass
//! when the fetch they hit has landed, so they hold back the stores sent
//! after them, not the port from the load's issue, which in a kernel that
//! loads everything before it stores (the fused `step`, one round) waits
//! idle for DRAM meanwhile.

use kernels_ir::ParamValue;

use super::util::{launch_ir, without_launch_costs};
use crate::GpuConfig;

/// Cycles of `hw/calib/kernels/xbar.kir` on one SM (a block of 256
/// threads) with its parameters `istride`, `iters` (rounds) and `st`
/// (whether the stores run); `s` 7, `kstride` 16 and `ld` 1 as the fused
/// `step` has them.
fn xbar_on_one_sm(cfg: GpuConfig, istride: u32, iters: u32, st: u32) -> u64 {
    let text = include_str!("../../../hw/calib/kernels/xbar.kir");
    let s = launch_ir(cfg, "xbar.kir", text, 1, 256, |g| {
        vec![
            ParamValue::U64(g.alloc(256 * 128)),
            ParamValue::U32(7),
            ParamValue::U32(16),
            ParamValue::U32(istride),
            ParamValue::U32(iters),
            ParamValue::U32(1),
            ParamValue::U32(st),
        ]
    });
    s.cycles.0
}

/// 8 rounds of the fused `step`'s 8 loads and 8 stores a lane, each round
/// on the lines of the one before (`istride` 0); `st`: whether the stores
/// run.
fn rounds_in_place(cfg: GpuConfig, st: u32) -> u64 {
    xbar_on_one_sm(cfg, 0, 8, st)
}

#[test]
fn loads_that_hit_l1_hold_the_port_their_stores_need() {
    // 512 stores of 32 half sectors: 64 port cycles each. From the second
    // round every one of the 64 loads a round hits L1 in 32 wavefronts.
    let stores = 512 * 64;
    let hits = 7 * 64 * 32;
    let both = rounds_in_place(GpuConfig::h200(), 1);
    assert!(
        both >= stores + hits,
        "{both} cycles, not the stores' {stores} and the hits' {hits} in turn"
    );
    // Loads alone do not wait for the port.
    let loads = rounds_in_place(GpuConfig::h200(), 0);
    assert!(loads < hits, "loads alone take {loads} cycles");
}

/// Cycles, beyond the launch's fixed cost, of one round of
/// The fused `step`'s 8 loads a lane, then its 8 stores, on lines no
/// launch touched before: one round of [`xbar_on_one_sm`].
fn one_round(cfg: GpuConfig) -> u64 {
    xbar_on_one_sm(cfg, 32768, 1, 1)
}

#[test]
fn hits_hold_back_the_stores_after_them_not_the_idle_port() {
    let cfg = without_launch_costs(GpuConfig::h200());
    // 64 stores of 32 half sectors (64 port cycles each); 32 of the 64
    // loads hit the sector the load before fetches, in 32 wavefronts each.
    let stores = 64 * 64;
    let hits = 32 * 32;
    let dram = u64::from(cfg.dram_latency_cycles);
    let t = one_round(cfg);
    // The stores wait for the loads' data from DRAM, then for the hits,
    // then send: held from the loads' issue instead, the hits passed
    // while the port waited for DRAM (5,634 cycles).
    assert!(
        t >= dram + hits + stores,
        "{t} cycles, not a DRAM latency ({dram}), the hits' {hits} and the stores' {stores} in turn"
    );
}
