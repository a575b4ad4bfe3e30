//! The committed H200 recording of `hw/store_queue.cu`
//! (`hw/data/h200/store_queue/`): what docs/calibration.md ("How many
//! stores an SM holds") says of it. Every warp issues 256 back-to-back
//! global stores and reads the SM's clock after its 1st, 2nd, 4th, ...
//! 256th. An SM takes 32 stores, then its warps wait for its port to L2
//! (one cycle a whole sector, two a part), and on every SM at once for
//! what the L2 and DRAM take.

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The stores after which a warp reads the clock.
const MARKS: [u64; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// (pattern, region, grid, warps) -> each warp's clock after each mark.
type Recording = BTreeMap<(String, String, u32, u32), Vec<[u64; 9]>>;

fn recording() -> &'static Recording {
    static REC: OnceLock<Recording> = OnceLock::new();
    REC.get_or_init(|| {
        let mut names = vec!["pattern", "region", "grid", "warps"];
        let marks: Vec<String> = MARKS.iter().map(|m| format!("t{m}")).collect();
        names.extend(marks.iter().map(String::as_str));
        let gz = include_bytes!("../hw/data/h200/store_queue/store_queue.csv.gz");
        let mut out = Recording::new();
        for f in crate::util::gz_csv(gz, &names) {
            let num = |i: usize| f[i].parse::<u64>().expect("a number");
            let mut t = [0; 9];
            for (k, v) in t.iter_mut().enumerate() {
                *v = num(4 + k);
            }
            out.entry((f[0].clone(), f[1].clone(), num(2) as u32, num(3) as u32))
                .or_default()
                .push(t);
        }
        out
    })
}

/// The median over a variant's warps of the clock after each mark.
fn curve(pattern: &str, region: &str, grid: u32, warps: u32) -> [u64; 9] {
    let rows = &recording()[&(pattern.to_string(), region.to_string(), grid, warps)];
    assert_eq!(rows.len(), (grid * warps) as usize, "a row per warp");
    let mut out = [0; 9];
    for (k, v) in out.iter_mut().enumerate() {
        let mut col: Vec<u64> = rows.iter().map(|t| t[k]).collect();
        col.sort_unstable();
        *v = col[col.len() / 2];
    }
    out
}

/// An SM's cycles a store over the whole run: the median warp's last
/// reading over the stores of the block's warps.
fn per_store(pattern: &str, region: &str, grid: u32, warps: u32) -> f64 {
    curve(pattern, region, grid, warps)[8] as f64 / f64::from(warps * 256)
}

#[test]
fn every_variant_is_recorded_once() {
    for pattern in ["line", "scat"] {
        for region in ["dram", "l2"] {
            for grid in [1, 132] {
                for warps in [1, 4, 8, 16, 32] {
                    curve(pattern, region, grid, warps);
                }
            }
        }
    }
    assert_eq!(recording().len(), 40);
}

#[test]
fn one_sm_sends_a_whole_line_every_four_cycles_and_a_scattered_store_every_64() {
    // The port's cycle a whole sector and two a part (`l2_port_write_cycles`,
    // `l2_port_partial_write_cycles`): 4 a line, 64 for 32 parts.
    for region in ["dram", "l2"] {
        for warps in [8, 16, 32] {
            let c = per_store("line", region, 1, warps);
            assert!((3.95..4.15).contains(&c), "line {region} {warps}: {c}");
        }
        for warps in [4, 8, 16, 32] {
            let c = per_store("scat", region, 1, warps);
            assert!((62.0..64.0).contains(&c), "scat {region} {warps}: {c}");
        }
    }
    // One warp issues its own stores slower than the port sends lines
    // (about 9 instructions a store).
    let c = per_store("line", "dram", 1, 1);
    assert!((25.0..26.0).contains(&c), "{c}");
}

#[test]
fn an_sm_takes_32_stores_before_its_warps_wait_whatever_its_warps() {
    // However many warps share them, an SM's first 32 scattered stores
    // issue within 1,000 cycles (the 32nd at 206-725, when its port, at
    // 64 cycles a store, has sent 3 to 11), and its 33rd waits for the
    // port.
    for region in ["dram", "l2"] {
        for warps in [1u32, 4, 8, 16, 32] {
            let t = curve("scat", region, 1, warps);
            let last = MARKS
                .iter()
                .zip(t)
                .filter(|&(_, c)| c < 1_000)
                .map(|(&m, _)| m)
                .max()
                .expect("a store within 1,000 cycles");
            assert_eq!(u64::from(warps) * last, 32, "{region} {warps}: {t:?}");
            let next = t[MARKS.iter().position(|&m| m == last).unwrap() + 1];
            assert!(next > 1_300, "{region} {warps}: {t:?}");
        }
    }
}

#[test]
fn on_every_sm_the_stores_go_at_what_the_l2_takes_not_the_port() {
    // Whole lines from 32 warps on each of 132 SMs: 7.8 cycles a line an
    // SM into DRAM (2,170 bytes a cycle over the GPU), 8.0 over 8 MB the
    // L2 keeps, against 4.0 on one SM; scattered into DRAM 5 times the
    // port's 64 cycles a store.
    let dram = per_store("line", "dram", 132, 32);
    let l2 = per_store("line", "l2", 132, 32);
    assert!((7.5..8.1).contains(&dram), "{dram}");
    assert!((7.7..8.3).contains(&l2), "{l2}");
    let bytes = 132.0 * 128.0 / dram;
    assert!((2_100.0..2_260.0).contains(&bytes), "{bytes}");
    for warps in [4, 8, 16, 32] {
        let c = per_store("scat", "dram", 132, warps);
        assert!((290.0..360.0).contains(&c), "{warps}: {c}");
    }
}
