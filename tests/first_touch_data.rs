//! The committed H200 recording of `hw/first_touch.cu`
//! (`hw/data/h200/first_touch/`): what docs/calibration.md ("Chains of
//! loads on a dozen SMs") says of it. A load that finds its line in L2
//! costs the same whether or not the launch touched its 2 MB region
//! before, up to a 1 GB span: no first-touch cost the model lacks. From
//! DRAM a lone chain pays the model's DRAM latency.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// (variant, L2 state, grid) -> block -> each load's latency in order
/// (row `step` = k + 1 is load k's: the file's header says why).
type Recording = BTreeMap<(String, String, u32), BTreeMap<u32, Vec<u64>>>;

fn recording() -> &'static Recording {
    static REC: OnceLock<Recording> = OnceLock::new();
    REC.get_or_init(parse)
}

fn parse() -> Recording {
    let gz = include_bytes!("../hw/data/h200/first_touch/first_touch.csv.gz");
    let names = ["variant", "l2", "grid", "block", "step", "cycles"];
    let mut out = Recording::new();
    for f in crate::util::gz_csv(gz, &names) {
        let num = |i: usize| f[i].parse::<u64>().expect("a number");
        let loads = out
            .entry((f[0].clone(), f[1].clone(), num(2) as u32))
            .or_default()
            .entry(num(3) as u32)
            .or_default();
        // Rows come in step order; row 0 is the chain's start.
        let step = num(4) as usize;
        if step > 0 {
            assert_eq!(step, loads.len() + 1, "steps in order: {f:?}");
            loads.push(num(5));
        }
    }
    out
}

fn median(mut xs: Vec<u64>) -> u64 {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

/// The median over a run's chains of load `k`'s latency.
fn load(variant: &str, l2: &str, grid: u32, k: usize) -> u64 {
    let run = &recording()[&(variant.to_string(), l2.to_string(), grid)];
    median(run.values().map(|loads| loads[k]).collect())
}

const VARIANTS: [&str; 5] = [
    "s256k_same",
    "s4m_pages",
    "s64m_same",
    "s64m_pages",
    "s1g_pages",
];

#[test]
fn the_recording_holds_every_run() {
    let rec = recording();
    for v in VARIANTS {
        for l2 in ["cold", "warm", "warm2"] {
            assert_eq!(rec[&(v.into(), l2.into(), 132)].len(), 132, "{v} {l2}");
            assert_eq!(rec[&(v.into(), l2.into(), 1)].len(), 1, "{v} {l2}");
            for loads in rec[&(v.into(), l2.into(), 132)].values() {
                assert_eq!(loads.len(), 31, "{v} {l2}");
            }
        }
    }
}

#[test]
fn an_l2_hit_costs_the_same_in_a_region_touched_first() {
    // Every load of a warm run, the first of the launch and the first in
    // each 2 MB region included, within 260-350 cycles (the model's L2
    // latency is 300), on one SM and on all.
    for v in VARIANTS {
        for l2 in ["warm", "warm2"] {
            for grid in [1, 132] {
                let all: Vec<u64> = (0..31).map(|k| load(v, l2, grid, k)).collect();
                let (lo, hi) = (all.iter().min().unwrap(), all.iter().max().unwrap());
                assert!(
                    *lo >= 260 && *hi <= 350,
                    "{v} {l2} grid {grid}: {lo}..{hi} cycles"
                );
                // The launch's first load is at most 40 cycles dearer than
                // the rest (24-30 at one block, 2-8 on every SM).
                let rest = median(all[1..].to_vec());
                assert!(all[0] <= rest + 40, "{v} {l2} grid {grid}: {all:?}");
            }
        }
    }
}

#[test]
fn a_lone_chain_from_dram_pays_the_dram_latency() {
    // One block, the L2 emptied first: 500-800 cycles a load (the
    // model's DRAM latency is 640), whatever the span.
    for v in VARIANTS {
        let m = median((0..31).map(|k| load(v, "cold", 1, k)).collect());
        assert!((500..=800).contains(&m), "{v}: {m} cycles");
    }
    // Every SM's chain into the same 2 MB region at each step, regions
    // 32 MB apart over 1 GB, takes about twice as long a load as the same
    // chains over 64 MB (not modelled; docs/calibration.md).
    let spread = median((0..31).map(|k| load("s1g_pages", "cold", 132, k)).collect());
    let near = median(
        (0..31)
            .map(|k| load("s64m_pages", "cold", 132, k))
            .collect(),
    );
    assert!(spread > near * 3 / 2, "{spread} against {near}");
}
