//! The sectors an SM takes in from L2 through whole launches
//! ([`crate::l1_fill`]): coalesced loads in flight on one SM arrive a
//! sector a cycle, as `xb_l_c` of `hw/calib/suite_xbar.txt` does on the
//! H200 (8,192 sectors an SM in 9,913 active cycles).

use kernels_ir::ParamValue;

use super::util::launch_ir;
use crate::GpuConfig;

/// Each lane loads eight coalesced 16-byte chunks (a warp's request: 16
/// whole sectors), `k * stride` bytes apart, then stores their sum.
const BURST: &str = "
kernel burst {
    param src: u64
    param dst: u64
    param stride: u32
    regs r1 d12 p1
    shared 0
    mul r0, %ctaid.x, %ntid.x
    add r0, r0, %tid.x
    cvt.u64.u32 d0, r0
    shl d1, d0, 4
    add d1, d1, $src
    cvt.u64.u32 d2, $stride
    ld.global.b128 {d4, d5}, [d1+0]
    add d1, d1, d2
    ld.global.b128 {d6, d7}, [d1+0]
    add d1, d1, d2
    ld.global.b128 {d8, d9}, [d1+0]
    add d1, d1, d2
    ld.global.b128 {d10, d11}, [d1+0]
    add d4, d4, d6
    add d4, d4, d8
    add d4, d4, d10
    shl d3, d0, 3
    add d3, d3, $dst
    st.global.b64 [d3+0], d4
    exit
}
";

/// (sectors loaded, cycles) of `burst` with one block of 1,024 threads
/// on one SM.
fn burst(cfg: GpuConfig) -> (u64, u64) {
    let threads = 1024u32;
    let stride = threads * 16;
    let s = launch_ir(cfg, "burst", BURST, 1, threads, |g| {
        vec![
            ParamValue::U64(g.alloc(u64::from(stride) * 4)),
            ParamValue::U64(g.alloc(u64::from(threads) * 8)),
            ParamValue::U32(stride),
        ]
    });
    (s.gmem_ld_sectors, s.cycles.0)
}

#[test]
fn an_sms_loads_in_flight_arrive_a_sector_a_cycle() {
    let cfg = GpuConfig::h200();
    let fixed = u64::from(cfg.launch_overhead_cycles + cfg.memory_launch_cycles);
    let (sectors, cycles) = burst(cfg.clone());
    assert_eq!(sectors, 32 * 4 * 16, "32 warps, 4 requests of 16 sectors");
    assert!(
        cycles - fixed >= sectors,
        "{sectors} sectors in {} cycles beyond the launch",
        cycles - fixed
    );
    let mut free = cfg;
    free.l1_fill_sectors_per_cycle = 0;
    let (_, unlimited) = burst(free);
    assert!(
        unlimited + sectors / 2 < cycles,
        "without the limit {unlimited} cycles, with it {cycles}"
    );
    assert!(
        unlimited - fixed < sectors,
        "without the limit (the old model) {} cycles beyond the launch",
        unlimited - fixed
    );
}
