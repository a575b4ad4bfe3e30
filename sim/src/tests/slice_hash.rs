//! Which L2 slice owns an address, through whole launches
//! (`partition_hash`, `sim/src/slice_hash.rs`): stores 8 KB apart, one
//! interleave round of the H200's 32 partitions, camp on one partition
//! when chunks go to the partitions in turn, and spread when hashed, as
//! the `h200` preset does (every bit: over all 32 partitions).

use kernels_ir::ParamValue;

use super::util::{launch_ir, without_launch_costs};
use crate::GpuConfig;

/// Warp `w` of the grid writes one line at `w * 8 KB`, then 15 more,
/// each 4 MB (the grid's 512 lines of 8 KB) further.
const CAMP: &str = "kernel camp {
    param out: u64
    regs r4 d1 p0
    shared 0
    mov r0, %ctaid.x
    shl r0, r0, 16
    mov r1, %tid.x
    and r2, r1, 31
    shl r2, r2, 2
    and r3, r1, 4294967264
    shl r3, r3, 8
    add r0, r0, r2
    add r0, r0, r3
    cvt.u64.u32 d0, r0
    add d0, d0, $out
    st.global.b32 [d0+0], r1
    st.global.b32 [d0+4194304], r1
    st.global.b32 [d0+8388608], r1
    st.global.b32 [d0+12582912], r1
    st.global.b32 [d0+16777216], r1
    st.global.b32 [d0+20971520], r1
    st.global.b32 [d0+25165824], r1
    st.global.b32 [d0+29360128], r1
    st.global.b32 [d0+33554432], r1
    st.global.b32 [d0+37748736], r1
    st.global.b32 [d0+41943040], r1
    st.global.b32 [d0+46137344], r1
    st.global.b32 [d0+50331648], r1
    st.global.b32 [d0+54525952], r1
    st.global.b32 [d0+58720256], r1
    st.global.b32 [d0+62914560], r1
    exit
}";

/// Cycles of [`CAMP`] over 64 blocks of 256 threads on `h200` with
/// `partition_hash` bits folded (`None`: the preset's) and no fixed
/// launch cost.
fn camp(hash: Option<u32>) -> (u64, crate::KernelStats) {
    let mut cfg = without_launch_costs(GpuConfig::h200());
    if let Some(bits) = hash {
        cfg.partition_hash = bits;
    }
    let s = launch_ir(cfg, "camp.kir", CAMP, 64, 256, |g| {
        vec![ParamValue::U64(g.alloc(64 << 20))]
    });
    (s.cycles.0, s)
}

#[test]
fn stores_a_round_of_partitions_apart_spread_over_the_slices_when_hashed() {
    let ((plain, a), (hashed, b)) = (camp(Some(0)), camp(Some(64)));
    // 32,768 whole sectors: on one partition's share of the L2 (88 bytes
    // a cycle) about 11,900 cycles, spread over 32 a few hundred.
    assert!(plain > 10_000, "in turn: {plain} cycles");
    assert!(
        hashed * 4 < plain,
        "hashed {hashed} cycles, in turn {plain}"
    );
    // Only the timing moves.
    assert_eq!(a.gmem_st_sectors, b.gmem_st_sectors);
    assert_eq!(a.gmem_st_sectors, 32_768);
}

#[test]
fn the_h200_preset_spreads_stores_a_round_of_partitions_apart() {
    // The preset folds every bit, as the H200 spreads every power-of-two
    // stride (hw/data/h200/l2_slices/): the warps' lines 8 KB apart fall
    // on all 32 partitions (553 cycles; three bits folded, 1,601), where
    // chunks in turn put them all on one (11,960).
    let ((plain, _), (preset, _), (three, _)) = (camp(Some(0)), camp(None), camp(Some(3)));
    assert_eq!(GpuConfig::h200().partition_hash, 64);
    assert!(
        preset * 2 < three && three * 3 < plain,
        "preset {preset} cycles, three bits {three}, in turn {plain}"
    );
}
