//! The L1 data cache for global loads through whole launches: a warp that
//! reads each 32-byte sector as two 16-byte halves from two back-to-back
//! loads (bitonic's 64-bit `step`) sends each sector to L2 once, as the
//! H200 does (`hw/data/l1probe/`).

use kernels_ir::parser::parse_and_verify;
use kernels_ir::{Dim3, ParamValue};

use super::util::{gpu, launch_ir};
use crate::GpuConfig;

const HALVES: &str = "
kernel halves {
    param src: u64
    param dst: u64
    param n: u32
    regs r1 d8 p1
    shared 0
    mul r0, %ctaid.x, %ntid.x
    add r0, r0, %tid.x
    setp.ge.u p0, r0, $n
    @p0 exit
    cvt.u64.u32 d0, r0
    shl d0, d0, 5
    add d1, $src, d0
    add d2, $dst, d0
    ld.global.b128 {d4, d5}, [d1+0]
    ld.global.b128 {d6, d7}, [d1+16]
    st.global.b128 [d2+0], {d4, d5}
    st.global.b128 [d2+16], {d6, d7}
    exit
}
";

/// (load sectors, L2 lookups of loads, cycles) of `halves` over 65,536
/// threads.
fn halves(cfg: GpuConfig) -> (u64, u64, u64) {
    let n = 65_536u32;
    let s = launch_ir(cfg, "halves", HALVES, n / 256, 256, |g| {
        vec![
            ParamValue::U64(g.alloc(u64::from(n) * 32)),
            ParamValue::U64(g.alloc(u64::from(n) * 32)),
            ParamValue::U32(n),
        ]
    });
    (
        s.gmem_ld_sectors,
        s.l2_sector_hits + s.l2_sector_misses,
        s.cycles.0,
    )
}

#[test]
fn the_second_half_of_a_sector_hits_in_l1_and_skips_l2() {
    let (sectors, l2, cycles) = halves(GpuConfig::h200());
    assert_eq!(sectors, 2 * 65_536, "every load counts its sectors");
    assert_eq!(l2, 65_536, "each sector is read from L2 once");
    let mut off = GpuConfig::h200();
    off.l1_unified_bytes = 0;
    let (sectors_off, l2_off, cycles_off) = halves(off);
    assert_eq!(sectors_off, sectors, "the L1 changes no request counter");
    assert_eq!(l2_off, 2 * 65_536, "without an L1 both halves go to L2");
    assert!(cycles <= cycles_off, "with {cycles}, without {cycles_off}");
}

#[test]
fn blocks_shared_memory_leaves_no_l1_when_it_takes_the_whole() {
    let cfg = GpuConfig::h200();
    assert_eq!(cfg.l1_data_bytes(1, 0), 262_144);
    assert_eq!(cfg.l1_data_bytes(8, 16_384), 131_072);
    assert_eq!(cfg.l1_data_bytes(2, 200_000), 0);
}

/// GPUTeraSort's fused `step` in small: each lane reads the eight 16-byte
/// chunks of its 128-byte line one instruction at a time (a request reads
/// one offset of 32 lines, every lane on the same four banks: 32
/// wavefronts) and writes them to `dst` the same way.
const STEP16: &str = "
kernel step16 {
    param src: u64
    param dst: u64
    regs r1 d20 p1
    shared 0
    mul r0, %ctaid.x, %ntid.x
    add r0, r0, %tid.x
    cvt.u64.u32 d0, r0
    shl d0, d0, 7
    add d1, $src, d0
    add d2, $dst, d0
    ld.global.b128 {d4, d5}, [d1+0]
    ld.global.b128 {d6, d7}, [d1+16]
    ld.global.b128 {d8, d9}, [d1+32]
    ld.global.b128 {d10, d11}, [d1+48]
    ld.global.b128 {d12, d13}, [d1+64]
    ld.global.b128 {d14, d15}, [d1+80]
    ld.global.b128 {d16, d17}, [d1+96]
    ld.global.b128 {d18, d19}, [d1+112]
    st.global.b128 [d2+0], {d4, d5}
    st.global.b128 [d2+16], {d6, d7}
    st.global.b128 [d2+32], {d8, d9}
    st.global.b128 [d2+48], {d10, d11}
    st.global.b128 [d2+64], {d12, d13}
    st.global.b128 [d2+80], {d14, d15}
    st.global.b128 [d2+96], {d16, d17}
    st.global.b128 [d2+112], {d18, d19}
    exit
}
";

/// (cycles with the stores hitting the lines just loaded, cycles with
/// them written to lines the launch never loaded, both in L2): one block
/// of 32 warps on each of 8 SMs, as the ts64k `step` runs.
fn step16_hit_and_miss(cfg: GpuConfig) -> (u64, u64) {
    let (k, _) = parse_and_verify("step16", STEP16).expect("the kernel verifies");
    let (blocks, threads) = (8u32, 1024u32);
    let bytes = u64::from(blocks * threads) * 128;
    let mut g = gpu(cfg);
    let a = g.alloc(bytes);
    let b = g.alloc(bytes);
    let mut run = |src: u64, dst: u64| {
        let params = [ParamValue::U64(src), ParamValue::U64(dst)];
        g.launch(&k, Dim3::x(blocks), Dim3::x(threads), &params)
            .expect("the launch runs")
    };
    // Both buffers in L2 first.
    run(a, a);
    run(b, b);
    let hit = run(a, a);
    let miss = run(a, b);
    assert_eq!(
        (
            hit.gmem_st_sectors,
            hit.l2_sector_hits + hit.l2_sector_misses
        ),
        (
            miss.gmem_st_sectors,
            miss.l2_sector_hits + miss.l2_sector_misses
        ),
        "the same requests and L2 lookups"
    );
    (hit.cycles.0, miss.cycles.0)
}

#[test]
fn stores_to_lines_in_l1_pass_its_data_stage_and_misses_do_not() {
    // ncu on the ts64k `step`: 32 data-stage wavefronts for each store
    // request as for each load (its stores hit L1 100%), 8,206 an SM.
    // The port to L2 (two cycles a half sector, 64 a request) would hide
    // the data stage's 32: it is off here.
    let mut cfg = GpuConfig::h200();
    cfg.l2_port_reads_per_cycle = 0;
    cfg.l2_port_write_cycles = 0;
    cfg.l2_port_partial_write_cycles = 0;
    cfg.l2_store_bytes_per_cycle = 0;
    let (hit, miss) = step16_hit_and_miss(cfg.clone());
    assert!(
        hit > miss + miss / 20,
        "stores hitting L1 take {hit} cycles, missing it {miss}"
    );
    let mut off = cfg;
    off.l1_unified_bytes = 0;
    let (hit_off, miss_off) = step16_hit_and_miss(off);
    assert!(
        hit_off.abs_diff(miss_off) * 20 < miss_off,
        "without an L1 no store is a hit: {hit_off} and {miss_off}"
    );
}

#[test]
fn the_port_to_l2_bounds_half_sector_stores_hit_or_miss() {
    // hw/calib/suite_xbar.txt: a half-sector write holds the SM's port
    // two cycles (32,770 busy cycles for 16,384), more than the data
    // stage's one a sector, so hit or miss the step's stores take the
    // port's time; without the port they are faster.
    let (hit, miss) = step16_hit_and_miss(GpuConfig::h200());
    assert_eq!(hit, miss, "the port, not the data stage, bounds both");
    let mut cfg = GpuConfig::h200();
    cfg.l2_port_partial_write_cycles = 0;
    let (hit_free, _) = step16_hit_and_miss(cfg);
    assert!(
        hit_free * 20 < hit * 19,
        "stores through the port take {hit} cycles, without it {hit_free}"
    );
}

/// Each lane reads the eight 16-byte chunks of its 128-byte line one
/// instruction at a time, as GPUTeraSort's fused `step` does (32
/// wavefronts a request), then stores what it read, folded, to one
/// coalesced word: the odd chunks hit the sectors the even ones fetch,
/// while those are still on their way.
const LOAD16: &str = "
kernel load16 {
    param src: u64
    param dst: u64
    regs r1 d20 p1
    shared 0
    mul r0, %ctaid.x, %ntid.x
    add r0, r0, %tid.x
    cvt.u64.u32 d0, r0
    shl d1, d0, 7
    add d1, $src, d1
    shl d2, d0, 3
    add d2, $dst, d2
    ld.global.b128 {d4, d5}, [d1+0]
    ld.global.b128 {d6, d7}, [d1+16]
    ld.global.b128 {d8, d9}, [d1+32]
    ld.global.b128 {d10, d11}, [d1+48]
    ld.global.b128 {d12, d13}, [d1+64]
    ld.global.b128 {d14, d15}, [d1+80]
    ld.global.b128 {d16, d17}, [d1+96]
    ld.global.b128 {d18, d19}, [d1+112]
    xor d4, d4, d5
    xor d4, d4, d6
    xor d4, d4, d7
    xor d4, d4, d8
    xor d4, d4, d9
    xor d4, d4, d10
    xor d4, d4, d11
    xor d4, d4, d12
    xor d4, d4, d13
    xor d4, d4, d14
    xor d4, d4, d15
    xor d4, d4, d16
    xor d4, d4, d17
    xor d4, d4, d18
    xor d4, d4, d19
    st.global.b64 [d2+0], d4
    exit
}
";

/// The cycles of `load16`'s work beyond the launch's fixed cost: one
/// block of 8 warps (64 loads of 32 wavefronts each) on one SM, the
/// source in L2.
fn load16_busy(cfg: GpuConfig) -> u64 {
    let (k, _) = parse_and_verify("load16", LOAD16).expect("the kernel verifies");
    let mut g = gpu(cfg.clone());
    let threads = 256u32;
    let src = g.alloc(u64::from(threads) * 128);
    let dst = g.alloc(u64::from(threads) * 8);
    let params = [ParamValue::U64(src), ParamValue::U64(dst)];
    let mut run = || {
        g.launch(&k, Dim3::x(1), Dim3::x(threads), &params)
            .expect("the launch runs")
    };
    run();
    let s = run();
    assert_eq!(s.gmem_ld_requests, 64, "8 loads a warp");
    s.cycles.0 - crate::gpu::fixed_launch_cycles(&cfg, &s)
}

#[test]
fn loads_that_hit_a_fetch_in_flight_pass_the_data_stage_after_it() {
    // ncu on the ts64k `step`: 32 data-stage wavefronts for every load
    // request, the half that hit the sectors the other half fetch
    // included. A hit's data pass the stage once the fetch it hit is
    // complete (its 32 lines returned, `load_line_cycles` apart), and the
    // stage serves loads in the order they land: the first warp's second
    // load starts there no earlier than the L2's latency and the first
    // fetch's lines, and the 63 loads after the first all pass after it.
    // Booked from their issue, the hits passed while the fetches were on
    // their way (2,725 cycles of work here, as without an L1).
    let cfg = GpuConfig::h200();
    let with = load16_busy(cfg.clone());
    let floor = u64::from(cfg.l2_latency_cycles) + 31 * u64::from(cfg.load_line_cycles) + 63 * 32;
    assert!(with >= floor, "{with} cycles of work, at least {floor}");
    let mut off = cfg;
    off.l1_unified_bytes = 0;
    let without = load16_busy(off);
    assert!(
        with >= without,
        "{with} cycles with the L1, {without} without: the L1 saves the hits their trip to L2, not the wait"
    );
}
