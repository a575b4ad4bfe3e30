//! The committed SASS of HotSort's `transpose` (`hw/data/h200/sass/
//! hotsort_bc/transpose_*.sass.gz`): ptxas keeps it at 30 registers
//! whatever the slab height, so past about 20 words of keys it loads the
//! slab's first rows, stores some to shared memory and only then loads the
//! rest into the registers those stores freed: two rounds of global
//! latency where the IR (and the simulator's load scheduler) has one.
//! Not modelled yet: docs/calibration.md, "Shuffles in flight: the
//! registers ptxas gives `bc`", says what it would take.

/// (listing, slab height, words a key, the listing gzipped).
const LISTINGS: [(&str, u32, u32, &[u8]); 4] = [
    (
        "transpose_h16",
        16,
        1,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/transpose_h16.sass.gz"),
    ),
    (
        "transpose_h24",
        24,
        1,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/transpose_h24.sass.gz"),
    ),
    (
        "transpose_h32",
        32,
        1,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/transpose_h32.sass.gz"),
    ),
    (
        "transpose_k64_h16",
        16,
        2,
        include_bytes!("../hw/data/h200/sass/hotsort_bc/transpose_k64_h16.sass.gz"),
    ),
];

#[test]
fn transpose_loads_only_the_rows_its_registers_hold_before_it_stores() {
    println!("listing            H  words  rows loaded before the first store  registers");
    for (name, h, words, gz) in LISTINGS {
        let insts = crate::util::sass_instructions(&crate::util::gunzip(gz));
        let regs = crate::util::sass_registers(&insts);
        let loads = insts.iter().filter(|(op, _)| op.starts_with("LDG")).count();
        let first = insts
            .iter()
            .take_while(|(op, _)| !op.starts_with("STS"))
            .filter(|(op, _)| op.starts_with("LDG"))
            .count();
        println!("{name:<18} {h:>2}  {words:>5}  {first:>34}  {regs:>9}");
        // One load a row, 30 registers at every height.
        assert_eq!(loads, h as usize, "{name}");
        assert_eq!(regs, 30, "{name}");
        // 16 words of keys all load at once; past 20 words only 20-24 do.
        if h * words <= 16 {
            assert_eq!(first, h as usize, "{name}");
        } else {
            let w = first as u32 * words;
            assert!(
                (20..=24).contains(&w) && first < h as usize,
                "{name}: {first} rows first"
            );
        }
    }
}
