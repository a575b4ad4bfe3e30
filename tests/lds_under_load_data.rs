//! The committed H200 recording of `hw/lds_under_load.cu`
//! (`hw/data/h200/lds_under_load/`): what docs/calibration.md ("A shared
//! load behind the SM's global stores") says of it. Warp 0 of each block
//! times a chain of dependent shared loads while the block's other seven
//! warps idle, load, store, shuffle or issue shared loads of their own.
//! A shared load takes about what it takes alone beside global loads,
//! shuffles and 4-byte shared loads, but waits behind the SM's queued
//! global stores: several times longer beside whole-line stores, and
//! thousands of cycles beside stores scattered over 32 lines; but
//! beside warps copying (each storing what it just loaded) only what
//! global loads add.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// (chain, other warps' work, blocks an SM) -> each block's (SM, cycles a
/// step, trips of the other warps).
type Recording = BTreeMap<(String, String, u32), Vec<(u32, f64, u64)>>;

/// Every variant but `walkst` and `walkscat`.
fn recording() -> &'static Recording {
    static REC: OnceLock<Recording> = OnceLock::new();
    REC.get_or_init(|| {
        parse(include_bytes!(
            "../hw/data/h200/lds_under_load/lds_under_load.csv.gz"
        ))
    })
}

/// The later run of `idle`, `gstore`, `gscat`, `walkst` and `walkscat`.
fn walk() -> &'static Recording {
    static REC: OnceLock<Recording> = OnceLock::new();
    REC.get_or_init(|| parse(include_bytes!("../hw/data/h200/lds_under_load/walk.csv.gz")))
}

/// The run of `idle`, `gstore`, `gstl2`, `gcopy`, `gcopyl2` and `gmiss`.
fn copy() -> &'static Recording {
    static REC: OnceLock<Recording> = OnceLock::new();
    REC.get_or_init(|| parse(include_bytes!("../hw/data/h200/lds_under_load/copy.csv.gz")))
}

/// Checks that a later run `rec` holds `variants` variants of both chains
/// at one and four blocks an SM, and that its `idle` repeats the first
/// recording's (within half a cycle a load at four blocks).
fn check_later_run(rec: &Recording, variants: usize) {
    assert_eq!(rec.len(), 2 * variants * 2);
    for chain in CHAINS {
        let d = step(chain, "idle", 4) - step_in(rec, chain, "idle", 4);
        assert!(d.abs() < 0.5, "{chain}: {d}");
    }
}

/// A recording's rows, by variant.
fn parse(gz: &[u8]) -> Recording {
    let names = [
        "chain",
        "other",
        "blocks_per_sm",
        "sm",
        "cycles",
        "steps",
        "trips",
    ];
    let mut out = Recording::new();
    for f in crate::util::gz_csv(gz, &names) {
        let num = |i: usize| f[i].parse::<u64>().expect("a number");
        out.entry((f[0].clone(), f[1].clone(), num(2) as u32))
            .or_default()
            .push((num(3) as u32, num(4) as f64 / num(5) as f64, num(6)));
    }
    out
}

/// The median over the blocks of warp 0's cycles a dependent load.
fn step(chain: &str, other: &str, per_sm: u32) -> f64 {
    step_in(recording(), chain, other, per_sm)
}

/// [`step`] in `rec`.
fn step_in(rec: &Recording, chain: &str, other: &str, per_sm: u32) -> f64 {
    let blocks = &rec[&(chain.to_string(), other.to_string(), per_sm)];
    crate::util::median(blocks.iter().map(|b| b.1).collect())
}

const CHAINS: [&str; 2] = ["c32", "c128"];
const LOADS: [&str; 4] = ["gmiss", "gfill", "gl2", "ghit"];

#[test]
fn every_variant_ran_its_blocks_evenly_over_the_sms() {
    let rec = recording();
    assert_eq!(rec.len(), 2 * 14 * 2);
    for ((chain, other, per_sm), blocks) in rec {
        assert_eq!(blocks.len() as u32, 132 * per_sm, "{chain} {other}");
        let mut on = BTreeMap::<u32, u32>::new();
        for b in blocks {
            *on.entry(b.0).or_default() += 1;
        }
        assert_eq!(on.len(), 132, "{chain} {other} {per_sm}");
        assert!(on.values().all(|&n| n == *per_sm), "{chain} {other}");
        // The other warps worked all along the chain (but where they idle).
        if other != "idle" {
            assert!(blocks.iter().all(|b| b.2 > 0), "{chain} {other}");
        }
    }
}

#[test]
fn alone_a_dependent_shared_load_takes_the_same_at_one_block_an_sm_and_four() {
    // 4-byte loads one wavefront, 16-byte loads four: the chain's step
    // (the load, and an IMAD for the next address) 37.5 and 44.6 cycles.
    for (chain, lo, hi) in [("c32", 37.0, 38.0), ("c128", 44.0, 45.5)] {
        for per_sm in [1, 4] {
            let s = step(chain, "idle", per_sm);
            assert!((lo..hi).contains(&s), "{chain} {per_sm}: {s}");
        }
    }
}

#[test]
fn global_loads_in_flight_barely_delay_a_shared_load() {
    for chain in CHAINS {
        let alone = step(chain, "idle", 1);
        for other in LOADS {
            // One block an SM: within 3 cycles; four: at most 30 more, the
            // most beside L1 hits (the L1 data stage they share).
            assert!(step(chain, other, 1) - alone < 3.0, "{chain} {other}");
            let four = step(chain, other, 4) - step(chain, "idle", 4);
            assert!((0.0..32.0).contains(&four), "{chain} {other}: {four}");
        }
        for other in ["spin", "shfl", "lds32", "chain"] {
            assert!(step(chain, other, 1) - alone < 3.5, "{chain} {other}");
        }
    }
}

#[test]
fn a_shared_load_waits_behind_the_sms_queued_global_stores() {
    for chain in CHAINS {
        let alone = step(chain, "idle", 4);
        for other in ["gstore", "gstl2"] {
            // Whole-line stores into DRAM or into the L2 alike: 2.2 to 2.6
            // times the load alone with 7 storing warps an SM, 8.5 to 10.3
            // times with 28.
            let one = step(chain, other, 1) / step(chain, "idle", 1);
            let four = step(chain, other, 4) / alone;
            assert!((2.0..2.8).contains(&one), "{chain} {other}: {one}");
            assert!((8.0..11.0).contains(&four), "{chain} {other}: {four}");
        }
        // Stores of 32 lines a request: thousands of cycles a load.
        assert!(step(chain, "gscat", 1) > 5_000.0, "{chain}");
        assert!(step(chain, "gscat", 4) > 15_000.0, "{chain}");
        // One store a trip, the trip waiting on the flag's shared load:
        // about what global loads add.
        assert!(step(chain, "gst1", 4) - alone < 10.0, "{chain}");
    }
}

#[test]
fn a_search_then_a_scattered_store_slows_every_shared_load_of_the_sm() {
    // Warps 1-7 walk 8 steps of a chain of their own, then store: one
    // whole line (`walkst`), or 32 lines (`walkscat`, sample sort's
    // `scatter`: a tree walk, then a scattered store).
    let rec = walk();
    check_later_run(rec, 5);
    for chain in CHAINS {
        let alone = |per_sm| step_in(rec, chain, "idle", per_sm);
        let scat = |per_sm| step_in(rec, chain, "walkscat", per_sm) / alone(per_sm);
        assert!(scat(1) > 4.5, "{chain}: {}", scat(1));
        assert!(scat(4) > 20.0, "{chain}: {}", scat(4));
    }
    // With whole-line stores the walk's own loads are what the chain
    // waits for (4-byte loads: within 40% of alone at four blocks).
    let st = step_in(rec, "c32", "walkst", 4) / step_in(rec, "c32", "idle", 4);
    assert!(st < 1.4, "{st}");
}

#[test]
fn stores_that_wait_for_their_own_loads_barely_delay_a_shared_load() {
    // Warps 1-7 copy: 8 whole lines loaded past the L1, then stored, over
    // 1 GB (`gcopy`) or 8 MB the L2 keeps (`gcopyl2`), against stores
    // issued back to back (`gstore`, `gstl2`) in the same run.
    let rec = copy();
    check_later_run(rec, 6);
    for chain in CHAINS {
        let alone = |per_sm| step_in(rec, chain, "idle", per_sm);
        // Stores back to back: 8 to 12 times alone at four blocks an SM.
        for other in ["gstore", "gstl2"] {
            let four = step_in(rec, chain, other, 4) / alone(4);
            assert!((8.0..12.0).contains(&four), "{chain} {other}: {four}");
        }
        // Copies: what loads alone add (under 2 cycles at one block, under
        // 25 at four, within 10 of `gmiss`): each store waits for its
        // warp's loads, so no queue of stores builds.
        for other in ["gcopy", "gcopyl2"] {
            let one = step_in(rec, chain, other, 1) - alone(1);
            let four = step_in(rec, chain, other, 4) - alone(4);
            assert!((0.0..2.0).contains(&one), "{chain} {other}: {one}");
            assert!((0.0..25.0).contains(&four), "{chain} {other}: {four}");
            let loads = step_in(rec, chain, "gmiss", 4) - alone(4);
            assert!(four - loads < 10.0, "{chain} {other}: {four} {loads}");
        }
    }
    // Bytes a cycle over the GPU at four blocks an SM, loads and stores
    // together (trips of 8 lines of 128 bytes over the median block's
    // chain): the copies move 2,010 (the L2) and 2,190 (DRAM), the stores
    // alone 2,300-2,360: the copies' stores, half their bytes, leave at
    // under half the pace at which stores issued back to back queue.
    let bytes = |other: &str, moved: f64| {
        let blocks = &rec[&("c32".to_string(), other.to_string(), 4)];
        let trips: u64 = blocks.iter().map(|b| b.2).sum();
        let cycles = crate::util::median(blocks.iter().map(|b| b.1 * 2048.0).collect());
        trips as f64 * 8.0 * 128.0 * moved / cycles
    };
    for (other, moved, lo, hi) in [
        ("gcopy", 2.0, 2_100.0, 2_300.0),
        ("gcopyl2", 2.0, 1_950.0, 2_100.0),
        ("gstore", 1.0, 2_250.0, 2_400.0),
        ("gstl2", 1.0, 2_250.0, 2_400.0),
    ] {
        let b = bytes(other, moved);
        assert!((lo..hi).contains(&b), "{other}: {b}");
    }
}
