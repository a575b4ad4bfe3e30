//! The committed H200 recording of `hw/burst_order.cu`
//! (`hw/data/h200/burst_order/`): what docs/calibration.md ("In what order
//! a loaded burst lands") says of it. An SM issues its blocks' loads in the order
//! the blocks started; under a loaded memory system each block's warps get
//! their data spread over most of the burst, the blocks' landings
//! overlapping, wherever the bytes lie.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::util::median;

/// One warp's record: when its block started, when it issued its first
/// load and when its loads had landed (SM clock cycles).
#[derive(Clone, Copy)]
struct Warp {
    start: u64,
    issued: u64,
    landed: u64,
}

/// (variant, L2 state) -> SM -> block -> its warps.
type Recording = BTreeMap<(String, String), BTreeMap<u32, BTreeMap<u32, Vec<Warp>>>>;

/// The recording, decompressed and parsed once for every test.
fn recording() -> &'static Recording {
    static REC: OnceLock<Recording> = OnceLock::new();
    REC.get_or_init(parse)
}

fn parse() -> Recording {
    let gz = include_bytes!("../hw/data/h200/burst_order/burst_order.csv.gz");
    let names = ["variant", "l2", "block", "sm", "start", "issued", "landed"];
    let mut out = Recording::new();
    for f in crate::util::gz_csv(gz, &names) {
        let num = |i: usize| f[i].parse::<u64>().expect("a number");
        out.entry((f[0].clone(), f[1].clone()))
            .or_default()
            .entry(num(3) as u32)
            .or_default()
            .entry(num(2) as u32)
            .or_default()
            .push(Warp {
                start: num(4),
                issued: num(5),
                landed: num(6),
            });
    }
    out
}

/// Per SM that loaded (SM 0 alone in the `_sm0` variants), its blocks in
/// the order they started.
fn sms<'a>(rec: &'a Recording, variant: &str, l2: &str) -> Vec<Vec<&'a Vec<Warp>>> {
    let by_sm = &rec[&(variant.to_string(), l2.to_string())];
    by_sm
        .iter()
        .filter(|(sm, _)| !variant.ends_with("_sm0") || **sm == 0)
        .map(|(_, blocks)| {
            let mut b: Vec<&Vec<Warp>> = blocks.values().collect();
            b.sort_by_key(|ws| ws.iter().map(|w| w.start).min());
            b
        })
        .collect()
}

#[test]
fn every_warp_of_every_variant_is_recorded() {
    let rec = recording();
    let variants = [
        ("c_b4", 4),
        ("i_b4", 4),
        ("s_b4", 4),
        ("c_b4_sm0", 4),
        ("c_b1", 1),
        ("c_b1_sm0", 1),
        ("c_b8", 8),
        ("i_b8", 8),
        ("c_b8_sm0", 8),
    ];
    assert_eq!(rec.len(), 2 * variants.len());
    for (variant, per_sm) in variants {
        for l2 in ["cold", "warm"] {
            let by_sm = &rec[&(variant.to_string(), l2.to_string())];
            assert_eq!(by_sm.len(), 132, "{variant} {l2}");
            for (sm, blocks) in by_sm {
                assert_eq!(blocks.len(), per_sm, "{variant} {l2} SM {sm}");
                for ws in blocks.values() {
                    assert_eq!(ws.len(), 8);
                    for w in ws {
                        assert!(w.start <= w.issued && w.issued < w.landed);
                    }
                }
            }
        }
    }
}

#[test]
fn an_sm_issues_its_blocks_loads_in_the_order_the_blocks_started() {
    let rec = recording();
    for l2 in ["cold", "warm"] {
        let sms = sms(rec, "c_b4", l2);
        let first: Vec<f64> = (0..4)
            .map(|k| {
                median(
                    sms.iter()
                        .map(|b| b[k].iter().map(|w| w.issued).min().unwrap() as f64)
                        .collect(),
                )
            })
            .collect();
        assert!(first.windows(2).all(|w| w[0] < w[1]), "{l2}: {first:?}");
        // Over a few hundred cycles, as the simulator's do (docs: 246 to
        // 487 after the SM's first block starts).
        let span = first[3] - first[0];
        assert!((100.0..=400.0).contains(&span), "{l2}: {first:?}");
    }
}

/// Per block rank, the median over SMs of when its warps landed (first,
/// median, last), after the SM's first load issued.
fn landings(rec: &Recording, variant: &str, l2: &str) -> Vec<[f64; 3]> {
    let sms = sms(rec, variant, l2);
    let per_sm: Vec<Vec<[f64; 3]>> = sms
        .iter()
        .map(|blocks| {
            let t = blocks
                .iter()
                .flat_map(|ws| ws.iter().map(|w| w.issued))
                .min()
                .unwrap();
            blocks
                .iter()
                .map(|ws| {
                    let l: Vec<f64> = ws.iter().map(|w| (w.landed - t) as f64).collect();
                    let lo = l.iter().copied().fold(f64::MAX, f64::min);
                    let hi = l.iter().copied().fold(0.0, f64::max);
                    [lo, median(l), hi]
                })
                .collect()
        })
        .collect();
    (0..per_sm[0].len())
        .map(|k| [0, 1, 2].map(|j| median(per_sm.iter().map(|s| s[k][j]).collect())))
        .collect()
}

#[test]
fn where_the_tiles_lie_does_not_change_when_they_land() {
    // Whole tiles, the blocks' 512-byte pieces interleaved, or scattered:
    // each block's median landing within 10% of the whole tiles'.
    let rec = recording();
    for l2 in ["cold", "warm"] {
        let whole = landings(rec, "c_b4", l2);
        for other in ["i_b4", "s_b4"] {
            let o = landings(rec, other, l2);
            for (k, (a, b)) in whole.iter().zip(&o).enumerate() {
                assert!(
                    (a[1] - b[1]).abs() <= 0.1 * a[1],
                    "{other} {l2} block {k}: {} against {}",
                    b[1],
                    a[1]
                );
            }
        }
    }
}

#[test]
fn under_load_a_blocks_warps_land_over_most_of_the_burst() {
    let rec = recording();
    let l = landings(rec, "c_b4", "cold");
    let burst = l[3][2] - l[0][0];
    // The first block's warps land over more than half the burst, and its
    // last after the last block's first: the blocks overlap.
    assert!(l[0][2] - l[0][0] > 0.5 * burst, "{l:?}");
    assert!(l[0][2] > l[3][0], "{l:?}");
    // Alone on the memory system, the same four blocks take under half
    // that long.
    let alone = landings(rec, "c_b4_sm0", "cold");
    assert!(
        alone[3][2] - alone[0][0] < 0.5 * burst,
        "{alone:?} against {l:?}"
    );
}
