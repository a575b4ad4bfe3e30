//! A sort's check of an explicit block follows the simulator's register
//! allocation ([`Limits::kernel_block_fits`]), not the IR's declared words.

use crate::Limits;

/// Declares 64 register words a thread and keeps three live at once.
const DECLARES_MANY: &str = include_str!("../../tests/kernels/declares_many.kir");

fn limits(reg_words_beyond_live: u32) -> Limits {
    Limits {
        warp_size: 32,
        smem_banks: 32,
        smem_bytes_per_block: 48 * 1024,
        max_threads_per_block: 1024,
        max_warps_per_sm: 64,
        regs_per_sm: 32768,
        reg_alloc_unit: 256,
        max_regs_per_thread: 255,
        reg_words_beyond_live,
        reg_words_beyond_live_b128: 0,
    }
}

#[test]
fn a_block_fits_on_the_words_the_simulator_allocates() {
    let (k, _) = kernels_ir::parse_kernel(DECLARES_MANY).expect("parses");
    // 1,024 threads: 64 declared words need 65,536 registers, twice the
    // SM's 32,768; 3 live + 3 need 6,144 (a warp's 192 round up to 256,
    // times 32 warps: 8,192).
    assert_eq!(limits(3).allocated_words(&k), 6);
    assert!(limits(3).kernel_block_fits(1024, &k));
    // A machine that allocates the declared words refuses the block.
    assert_eq!(limits(255).allocated_words(&k), 64);
    assert!(!limits(255).kernel_block_fits(1024, &k));
}

#[test]
fn a_kernel_moving_16_bytes_a_lane_is_allocated_its_floor_beyond_the_declared_words() {
    let (k, _) =
        kernels_ir::parse_kernel(include_str!("../../tests/kernels/vcopy4.kir")).expect("parses");
    // 13 declared words, 6 live: 9 with 3 beyond the live ones; with a
    // floor of 16 for its 16-byte accesses, 22.
    assert_eq!(limits(3).allocated_words(&k), 9);
    let mut wide = limits(3);
    wide.reg_words_beyond_live_b128 = 16;
    assert_eq!(wide.allocated_words(&k), 22);
    // A kernel without such accesses keeps its cap at the declared words.
    let (many, _) = kernels_ir::parse_kernel(DECLARES_MANY).expect("parses");
    assert_eq!(wide.allocated_words(&many), 6);
}
