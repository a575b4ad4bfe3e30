//! Global loads issue early within their block ([`crate::load_sched`]):
//! a tile that stores each load into shared memory right after it runs in
//! the cycles of the same loads issued back to back, as on the H200
//! (`hw/calib/suite_loads.txt`), computes the same values, and keeps every
//! counter on its own pc.

use kernels_ir::{Dim3, parse_kernel};

use super::util::{run_both, verified};
use crate::{GpuConfig, KernelStats, StallReason};

/// Four loads of `src` (strided by the grid's threads), each stored into
/// the block's shared tile; then each thread sums its column into `dst`.
/// `interleaved`: each store right after its load (load_chain's order),
/// else the loads first (load_burst's).
fn tile(interleaved: bool) -> String {
    let mut body = String::new();
    let mut stores = String::new();
    for k in 0..4 {
        body += &format!("    ld.global.b32 r{}, [d1+0]\n", k + 1);
        let store = format!("    st.shared.b32 [r9+{}], r{}\n", k * 256, k + 1);
        if interleaved {
            body += &store;
        } else {
            stores += &store;
        }
        if k < 3 {
            body += "    add d1, d1, d2\n";
        }
    }
    format!(
        "kernel tile {{
    param src: u64
    param dst: u64
    param n: u32
    regs r16 d3 p1
    shared 1024
    mul r0, %ctaid.x, %ntid.x
    add r0, r0, %tid.x
    cvt.u64.u32 d0, r0
    shl d0, d0, 2
    add d1, $src, d0
    mov r10, %nctaid.x
    mul r10, r10, %ntid.x
    cvt.u64.u32 d2, r10
    shl d2, d2, 2
    shl r9, %tid.x, 2
{body}{stores}    bar.sync
    ld.shared.b32 r11, [r9+0]
    ld.shared.b32 r12, [r9+256]
    add r11, r11, r12
    ld.shared.b32 r12, [r9+512]
    add r11, r11, r12
    ld.shared.b32 r12, [r9+768]
    add r11, r11, r12
    add d0, $dst, d0
    st.global.b32 [d0+0], r11
}}"
    )
}

fn run(interleaved: bool) -> KernelStats {
    let (k, _) = parse_kernel(&tile(interleaved)).expect("parses");
    let k = verified(k);
    let cfg = GpuConfig::h200();
    let (stats, sim, interp) = run_both(&cfg, &k, Dim3::x(4), Dim3::x(64), 4096, 0, 7);
    assert_eq!(
        sim, interp,
        "the simulator computes the interpreter's values"
    );
    stats
}

#[test]
fn interleaved_loads_run_as_loads_issued_back_to_back() {
    // Before the loads moved: 6,723 cycles against 4,797.
    let (chain, burst) = (run(true), run(false));
    assert_eq!(chain.cycles, burst.cycles);
    assert_eq!(
        chain.stall(StallReason::LongScoreboard),
        burst.stall(StallReason::LongScoreboard)
    );
    let metrics = (chain.metrics(), burst.metrics());
    assert_eq!(metrics.0, metrics.1, "every counter as loads-first");
}

#[test]
fn moved_instructions_keep_their_own_pc() {
    // 8 warps, each issuing every instruction once: every pc counts 8,
    // the moved loads (and the stores they passed) included, but the two
    // `cvt.u64.u32`, register renames that issue nothing (`crate::rename`).
    let s = run(true);
    let renames = [2, 7];
    assert!(
        (s.per_pc.iter().enumerate())
            .all(|(pc, p)| p.inst_executed == if renames.contains(&pc) { 0 } else { 8 }),
        "{:?}",
        s.per_pc
    );
    let (first_load, first_store) = (10, 11);
    assert_eq!(s.per_pc[first_load].gmem_requests, 8, "the load's line");
    assert_eq!(s.per_pc[first_store].gmem_requests, 0);
    assert_eq!(s.per_pc[first_store].smem_wavefronts, 8);
}
