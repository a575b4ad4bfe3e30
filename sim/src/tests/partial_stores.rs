//! Partial-sector stores through whole launches of the committed
//! microbenchmark `hw/calib/kernels/part_store.kir` (docs/calibration.md,
//! "The sixth suite"): parts that warps of one SM write together merge
//! before L2, parts from several SMs each cost L2 time of their own.

use kernels_ir::ParamValue;

use super::util::{launch_ir, without_launch_costs};
use crate::GpuConfig;

/// `h200` with an L2 of 8 sectors a cycle and no fixed launch or dispatch
/// cost, so that a launch's cycles are its L2 time.
fn l2_bound() -> GpuConfig {
    let mut cfg = without_launch_costs(GpuConfig::h200());
    cfg.l2_bytes_per_cycle = 256;
    cfg.block_dispatch_cycles = 0;
    // Nor the warps' special-register reads at their start.
    cfg.s2r_latency_cycles = 0;
    cfg
}

/// Cycles of `part_store` over 65,536 threads in 256-thread blocks: 2^lp
/// groups of 2^u threads (u = 5: warps of one block; u = 8: blocks, on
/// other SMs) each write one part (2^k words, lp + k = 3) of every sector
/// of a set, the suite's `ps_*` entries at a sixteenth of their size.
fn part_store(cfg: GpuConfig, u: u32, lp: u32) -> u64 {
    part_store_stats(cfg, u, lp).cycles.0
}

/// [`part_store`]'s launch statistics.
fn part_store_stats(cfg: GpuConfig, u: u32, lp: u32) -> crate::KernelStats {
    let text = include_str!("../../../hw/calib/kernels/part_store.kir");
    let n = 65_536u32;
    let kbits = 3 - lp;
    let s = launch_ir(cfg, "part_store.kir", text, n / 256, 256, |g| {
        vec![
            ParamValue::U64(g.alloc(u64::from(n) * 4)),
            ParamValue::U32(n),
            ParamValue::U32(u),
            ParamValue::U32(lp),
            ParamValue::U32(kbits),
            ParamValue::U32(u - kbits),
            ParamValue::U32((1 << lp) - 1),
            ParamValue::U32((1 << u) - 1),
            ParamValue::U32((1 << kbits) - 1),
            ParamValue::U32(8),
            ParamValue::U32(0),
        ]
    });
    assert_eq!(
        s.gmem_st_sectors,
        u64::from(n) >> kbits,
        "one sector a part"
    );
    s
}

#[test]
fn two_sms_writing_halves_of_a_sector_cost_more_than_one_sm_writing_both() {
    let one_sm = part_store(l2_bound(), 5, 1);
    let two_sms = part_store(l2_bound(), 8, 1);
    // One SM's two warps: one L2 write a sector; two SMs': two, each
    // partial. Charged one sector a part, both took the same time.
    assert!(
        two_sms * 10 > one_sm * 18,
        "two SMs {two_sms} cycles, one SM {one_sm}"
    );
    // Without the SM's combining, the one-SM halves cost what two SMs' do.
    let mut off = l2_bound();
    off.store_combine_lines = 0;
    let one_sm_uncombined = part_store(off, 5, 1);
    assert!(
        one_sm_uncombined * 10 > one_sm * 18,
        "uncombined {one_sm_uncombined}, combined {one_sm}"
    );
}

#[test]
fn a_part_that_reaches_l2_alone_costs_about_one_and_a_half_sectors() {
    // Eight blocks' parts of each sector against one block's whole
    // sectors: eight times the writes, each dearer than a sector. On the
    // H200 a part of `ps_b8` takes about 1.55 sectors' L2 time.
    let whole = part_store(l2_bound(), 8, 0);
    let parts = part_store(l2_bound(), 8, 3);
    let per_part = parts as f64 / whole as f64 / 8.0;
    assert!(
        (1.4..1.7).contains(&per_part),
        "parts {parts} cycles, whole sectors {whole}: {per_part:.2} sectors a part"
    );
}

#[test]
fn the_sectors_written_to_l2_count_a_merged_sector_once() {
    // `ps_w2` at a sixteenth: two warps of one block write the two halves
    // of 8,192 sectors at once. The H200 counts one L2 write sector a
    // sector in `l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st` where
    // they merge, one a part where they do not (`ps_b2`: other SMs).
    let (parts, sectors) = (16_384, 8_192);
    let merged = part_store_stats(GpuConfig::h200(), 5, 1);
    assert_eq!(merged.gmem_st_sectors, parts);
    assert_eq!(merged.gmem_st_l2_sectors, sectors);
    let metric = merged.metrics()["l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum"];
    assert_eq!(metric, sectors as f64);
    let blocks = part_store_stats(GpuConfig::h200(), 8, 1);
    assert_eq!(blocks.gmem_st_l2_sectors, parts);
    let mut off = GpuConfig::h200();
    off.store_combine_lines = 0;
    assert_eq!(part_store_stats(off, 5, 1).gmem_st_l2_sectors, parts);
}
