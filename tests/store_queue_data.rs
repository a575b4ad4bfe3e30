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
fn curve(pattern: &str, region: &str, grid: u32, warps: u32) -> [f64; 9] {
    let rows = &recording()[&(pattern.to_string(), region.to_string(), grid, warps)];
    assert_eq!(rows.len(), (grid * warps) as usize, "a row per warp");
    std::array::from_fn(|k| crate::util::median(rows.iter().map(|t| t[k] as f64).collect()))
}

/// An SM's cycles a store over the whole run: the median warp's last
/// reading over the stores of the block's warps.
fn per_store(pattern: &str, region: &str, grid: u32, warps: u32) -> f64 {
    curve(pattern, region, grid, warps)[8] / f64::from(warps * 256)
}

/// The probe's variants (pattern, region, grid, warps) in the order it
/// runs them (`hw/store_queue.cu`'s loops), which is also the order of the
/// launches under Nsight Compute.
fn variants() -> Vec<(&'static str, &'static str, u32, u32)> {
    let mut out = Vec::new();
    for pattern in ["line", "scat"] {
        for region in ["dram", "l2"] {
            for grid in [1, 132] {
                for warps in [1, 4, 8, 16, 32] {
                    out.push((pattern, region, grid, warps));
                }
            }
        }
    }
    out
}

#[test]
fn every_variant_is_recorded_once() {
    for (pattern, region, grid, warps) in variants() {
        curve(pattern, region, grid, warps);
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
                .filter(|&(_, c)| c < 1_000.0)
                .map(|(&m, _)| m)
                .max()
                .expect("a store within 1,000 cycles");
            assert_eq!(u64::from(warps) * last, 32, "{region} {warps}: {t:?}");
            let next = t[MARKS.iter().position(|&m| m == last).unwrap() + 1];
            assert!(next > 1_300.0, "{region} {warps}: {t:?}");
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

#[test]
fn fewer_storing_warps_an_sm_get_more_of_the_l2() {
    // Whole lines from every SM: 4 or 8 warps an SM store at 2,510-2,550
    // bytes a cycle over the GPU, 16 at 2,300-2,400, 32 at 2,110-2,170
    // (the preset's `l2_store_bytes_per_cycle`), into DRAM or over 8 MB
    // the L2 keeps alike. `suite_xbar.txt`'s `xb_s_c_b132` stores with 8
    // warps an SM: docs/calibration.md, "The L2's share of stores".
    let bytes = |region: &str, warps: u32| 132.0 * 128.0 / per_store("line", region, 132, warps);
    for region in ["dram", "l2"] {
        for warps in [4, 8] {
            let b = bytes(region, warps);
            assert!((2_450.0..2_600.0).contains(&b), "{region} {warps}: {b}");
        }
        let b = bytes(region, 16);
        assert!((2_250.0..2_450.0).contains(&b), "{region} 16: {b}");
        let b = bytes(region, 32);
        assert!((2_080.0..2_200.0).contains(&b), "{region} 32: {b}");
    }
}

/// The measured launch (the second of each variant's two) of `pattern`
/// into `region` on `grid` blocks of `warps` warps, from the run under
/// Nsight Compute (`hw/store_queue_ncu.sh`): its metrics by name, DRAM
/// bytes in MB (the recording's unit).
fn ncu(pattern: &str, region: &str, grid: u32, warps: u32) -> BTreeMap<String, f64> {
    static ROWS: OnceLock<Vec<BTreeMap<String, f64>>> = OnceLock::new();
    let rows = ROWS.get_or_init(|| {
        crate::util::gz_ncu_rows(include_bytes!(
            "../hw/data/h200/store_queue/ncu/store_queue_ncu.csv.gz"
        ))
    });
    assert_eq!(rows.len(), 80, "two launches of each of 40 variants");
    let k = variants()
        .iter()
        .position(|&v| v == (pattern, region, grid, warps))
        .unwrap_or_else(|| panic!("no variant {pattern} {region} {grid} {warps}"));
    rows[2 * k + 1].clone()
}

#[test]
fn scattered_parts_from_every_sm_cost_dram_far_more_than_their_bytes() {
    // 132 SMs of 32 warps store 34.6M parts of 4 bytes (138 MB) over a
    // 1 GB buffer: the H200 reads 556 MB from DRAM and writes 831 MB in
    // 2.73M cycles (about 500 bytes a cycle); whole lines, the same
    // 138 MB once, in 72K cycles.
    let scat = ncu("scat", "dram", 132, 32);
    let line = ncu("line", "dram", 132, 32);
    let m = |r: &BTreeMap<String, f64>, k: &str| r[k];
    assert!((550.0..560.0).contains(&m(&scat, "dram__bytes_read.sum")));
    assert!((825.0..835.0).contains(&m(&scat, "dram__bytes_write.sum")));
    assert!((2.70e6..2.77e6).contains(&m(&scat, "sm__cycles_elapsed.max")));
    assert!((137.0..139.0).contains(&m(&line, "dram__bytes_write.sum")));
    assert!(m(&line, "dram__bytes_read.sum") < 0.1);
    assert!((70e3..74e3).contains(&m(&line, "sm__cycles_elapsed.max")));
    // Over 8 MB the L2 keeps, nothing reaches DRAM, and the parts go 2.4
    // times as fast.
    let l2 = ncu("scat", "l2", 132, 32);
    assert!(m(&l2, "dram__bytes_write.sum") < 1.0);
    let ratio = m(&scat, "sm__cycles_elapsed.max") / m(&l2, "sm__cycles_elapsed.max");
    assert!((2.3..2.5).contains(&ratio), "{ratio}");
}

#[test]
fn the_probe_in_the_ir_stores_what_the_cuda_probe_stores() {
    // 4 warps of 16 stores, every lane its own line: 64 requests of 32
    // sectors on one SM, each a part, as `hw/store_queue.cu`'s `scat`.
    let kir = crate::util::repo_root().join("hw/calib/kernels/store_queue.kir");
    let out = crate::util::simsort(&[
        "run",
        kir.to_str().unwrap(),
        "--grid",
        "1",
        "--block",
        "128",
        "--buffer",
        "dst=1G",
        "--param",
        "stores=16",
        "--param",
        "scat=1",
        "--param",
        "mask=8388607",
        "-q",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let m = &v["metrics"];
    assert_eq!(m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"], 64.0);
    assert_eq!(
        m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"],
        64.0 * 32.0
    );
}
