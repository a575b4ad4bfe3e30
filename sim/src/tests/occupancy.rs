//! Occupancy counts the registers a kernel keeps live, not the ones it
//! declares ([`crate::Gpu::occupancy`], `reg_words_beyond_live`).

use kernels_ir::Dim3;

use super::util::gpu;
use crate::GpuConfig;

/// Declares 64 register words a thread and keeps three live at once.
const DECLARES_MANY: &str = include_str!("../../../tests/kernels/declares_many.kir");

fn blocks_per_sm(cfg: GpuConfig, threads: u32) -> (u32, &'static str) {
    let (k, _) =
        kernels_ir::parser::parse_and_verify("declares_many", DECLARES_MANY).expect("verifies");
    let occ = gpu(cfg).occupancy(&k, Dim3::x(threads)).expect("fits");
    (occ.blocks_per_sm, occ.limited_by)
}

#[test]
fn occupancy_follows_live_registers_not_declared_ones() {
    let cfg = GpuConfig::h200();
    // Blocks of 256 threads (8 warps). Declared: 64 words, 2,048 registers
    // a warp, 4 blocks fill the SM's 65,536. Live: 3 words (d0 twice, one
    // 32-bit value, with r3 beside it at the store: 3), plus 3, rounds to
    // 256 a warp: the warps (64 an SM) allow 8 blocks first.
    assert_eq!(k_live(), 3);
    assert_eq!(blocks_per_sm(cfg.clone(), 256), (8, "warps"));
    let mut declared = cfg;
    declared.reg_words_beyond_live = 255;
    assert_eq!(blocks_per_sm(declared, 256), (4, "registers"));
}

fn k_live() -> u32 {
    let (k, _) =
        kernels_ir::parser::parse_and_verify("declares_many", DECLARES_MANY).expect("verifies");
    k.live_words()
}

/// Copies 16 bytes a lane with one load and one store: declares 13 words,
/// keeps 6 live.
const VCOPY4: &str = include_str!("../../../tests/kernels/vcopy4.kir");

#[test]
fn a_kernel_moving_16_bytes_a_lane_holds_more_than_it_declares() {
    let (k, _) = kernels_ir::parser::parse_and_verify("vcopy4", VCOPY4).expect("verifies");
    assert_eq!((k.live_words(), k.moves_16_bytes()), (6, true));
    // A register file of 16,384 so that registers decide. Blocks of 256
    // threads (8 warps). 6 live words plus 16 is 22, beyond the 13
    // declared: 704 registers a warp, rounded to 768, 6,144 a block, 2
    // blocks. Without the floor, 6 plus 3 is 9: 288, rounded to 512, 4,096
    // a block, 4 blocks.
    let mut cfg = GpuConfig::h200();
    cfg.regs_per_sm = 16384;
    assert_eq!(cfg.reg_words_beyond_live_b128, 16);
    let occ = gpu(cfg.clone()).occupancy(&k, Dim3::x(256)).expect("fits");
    assert_eq!((occ.blocks_per_sm, occ.limited_by), (2, "registers"));
    cfg.reg_words_beyond_live_b128 = 0;
    let occ = gpu(cfg).occupancy(&k, Dim3::x(256)).expect("fits");
    assert_eq!((occ.blocks_per_sm, occ.limited_by), (4, "registers"));
}
