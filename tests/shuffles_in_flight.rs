//! The committed SASS of HotSort's `bc` at every slab height
//! (`hw/data/h200/sass/hotsort_bc/`) against the shuffles the generator
//! keeps in flight there (`sorts::hotsort::bc::shuffle_batch`):
//! docs/calibration.md, "Shuffles in flight: the registers ptxas gives
//! `bc`". Run with `-- --nocapture` to print the table.

use std::collections::HashSet;

use sorts::hotsort::bc::register_budget as budget;
use sorts::hotsort::{HotSortConfig, bc};

/// What one SASS listing shows.
struct Listing {
    /// `SHFL` instructions.
    shuffles: usize,
    /// Shuffle results not yet read when a `SHFL` issues, averaged over
    /// the `SHFL`s (in program order: the SASS is straight-line code).
    waiting: f64,
    /// Registers used: the highest `R` index plus one.
    regs: u32,
}

fn listing(name: &str, gz: &[u8]) -> Listing {
    let insts = crate::util::sass_instructions(&crate::util::gunzip(gz));
    let regs = crate::util::sass_registers(&insts);
    let mut pending: HashSet<u32> = HashSet::new();
    let (mut shuffles, mut waited) = (0usize, 0usize);
    for (op, args) in insts {
        let writes = !args.is_empty()
            && !["ST", "BAR", "BRA", "EXIT", "ISETP", "RED", "ATOM"]
                .iter()
                .any(|p| op.starts_with(p));
        let reads = if writes { &args[1..] } else { &args[..] };
        for r in reads {
            pending.remove(r);
        }
        if op.starts_with("SHFL") {
            shuffles += 1;
            waited += pending.len();
            pending.insert(args[0]);
        } else if writes {
            pending.remove(&args[0]);
        }
    }
    assert!(regs > 0, "{name}: no SASS instruction read");
    Listing {
        shuffles,
        waiting: waited as f64 / shuffles.max(1) as f64,
        regs,
    }
}

/// (slab height, the gzipped SASS of its `bc`), 32-bit keys, W = 32.
const BY_HEIGHT: [(u32, &[u8]); 8] = [
    (
        4,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/h4.sass.gz"),
    ),
    (
        8,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/h8.sass.gz"),
    ),
    (
        12,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/h12.sass.gz"),
    ),
    (
        16,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/h16.sass.gz"),
    ),
    (
        20,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/h20.sass.gz"),
    ),
    (
        24,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/h24.sass.gz"),
    ),
    (
        28,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/h28.sass.gz"),
    ),
    (
        32,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/h32.sass.gz"),
    ),
];

#[test]
fn bc_keeps_in_flight_the_shuffles_its_registers_leave_room_for() {
    println!("H  shuffles  waiting at a SHFL  registers  budget  model batch");
    for (h, gz) in BY_HEIGHT {
        let l = listing(&format!("h{h}"), gz);
        let batch = bc::shuffle_batch(&HotSortConfig::new(32, h));
        println!(
            "{h:<2} {:>8}  {:>17.2}  {:>9}  {:>6}  {batch:>11}",
            l.shuffles,
            l.waiting,
            l.regs,
            budget(h)
        );
        // Every half step of the clean shuffles every key once: W = 32
        // has five.
        assert_eq!(l.shuffles, 5 * h as usize, "H = {h}");
        // ptxas stays within the budget's multiple of eight.
        assert!(
            l.regs <= budget(h) && l.regs > budget(h) - 8,
            "H = {h}: {} registers, budget {}",
            l.regs,
            budget(h)
        );
        // Where the budget leaves two registers, the SASS shuffles one or
        // two at a time; elsewhere it keeps several waiting, as a batch of
        // six or eight does.
        if batch == 2 {
            assert!(l.waiting < 1.5, "H = {h}: {:.2} waiting", l.waiting);
        } else {
            assert!(l.waiting >= 2.0, "H = {h}: {:.2} waiting", l.waiting);
        }
    }
}

#[test]
fn the_other_listings_keep_several_in_flight() {
    let dir = |f: &str| format!("hw/data/h200/sass/hotsort_bc/{f}");
    // W = 16 at H = 32: the same budget, the same one at a time.
    let w16 = listing(
        &dir("w16_h32"),
        include_bytes!("../hw/data/h200/sass/hotsort_bc/w16_h32.sass.gz"),
    );
    assert!(w16.regs <= budget(32) && w16.waiting < 1.5);
    assert_eq!(bc::shuffle_batch(&HotSortConfig::new(16, 32)), 2);
    // The block sort at H = 32 gets 62 registers and keeps about eight
    // waiting: its batch stays eight.
    let bs = listing(
        &dir("bs_h32"),
        include_bytes!("../hw/data/h200/sass/hotsort_bc/bs_h32.sass.gz"),
    );
    assert!(
        bs.regs > 56 && bs.waiting > 6.0,
        "{} {}",
        bs.regs,
        bs.waiting
    );
    // 64-bit keys: several waiting at H = 16 and 32, the batch unchanged.
    for (name, h, gz) in [
        (
            "k64_h16",
            16,
            &include_bytes!("../hw/data/h200/sass/hotsort_bc/k64_h16.sass.gz")[..],
        ),
        (
            "k64_h32",
            32,
            &include_bytes!("../hw/data/h200/sass/hotsort_bc/k64_h32.sass.gz")[..],
        ),
    ] {
        let l = listing(&dir(name), gz);
        assert!(l.waiting >= 2.0, "{name}: {:.2}", l.waiting);
        let mut cfg = HotSortConfig::new(32, h);
        cfg.key_bits = 64;
        assert_eq!(bc::shuffle_batch(&cfg), sorts::hotsort::emit::SHUFFLE_BATCH);
    }
}
