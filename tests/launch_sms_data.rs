//! The committed H200 recording of `hw/calib/suite_launch_sms.txt`
//! (`hw/data/calib/lsm_*.csv`) against the `h200` preset's
//! `launch_all_sms_cycles`: the same kernel, one block an SM, ends later
//! the more SMs it uses, by the preset's field over all of them within the
//! recordings' quartiles, rising as the square root of the SMs used
//! (docs/calibration.md, "A launch's fixed cost grows with its SMs").
//! `hw/launch_spread.cu`'s recording (`hw/data/h200/launch_spread/`) shows
//! that time is not its blocks': they start and end together on every SM.

use std::collections::BTreeMap;

use sim::GpuConfig;

use crate::util::{calib_cycles, suite_names};

/// The series of one-warp launches over 1 to 132 SMs: entry names with `{}`
/// for the grid.
const SERIES: [&str; 5] = [
    "lsm_empty_{}",
    "lsm_param_{}_a",
    "lsm_param_{}_b",
    "lsm_param_{}_c",
    "lsm_store_{}",
];

/// The series of larger blocks, over fewer grids: entry names with `{}`
/// for the grid, and the grids.
const BLOCK_SERIES: [(&str, &[u32]); 3] = [
    ("lsm_param256_{}", &[1, 16, 66, 132]),
    ("lsm_param1024_{}", &[1, 2, 4, 8, 16, 33, 66, 99, 132]),
    ("lsm_param1024_{}_b", &[1, 33, 66, 132]),
];

/// The grids of every series.
const GRIDS: [u32; 9] = [1, 2, 4, 8, 16, 33, 66, 99, 132];

/// Per series, its launch over `grid` SMs less its launch over one.
fn growth(grid: u32) -> Vec<f64> {
    SERIES
        .iter()
        .map(|s| {
            calib_cycles(&s.replace("{}", &grid.to_string())) - calib_cycles(&s.replace("{}", "1"))
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (v[(n - 1) / 2] + v[n / 2]) / 2.0
}

#[test]
fn every_entry_is_recorded_once() {
    let names = suite_names("suite_launch_sms");
    assert_eq!(names.len(), 64);
    for series in SERIES {
        for grid in GRIDS {
            let name = series.replace("{}", &grid.to_string());
            assert!(names.contains(&name), "{name} is in the suite");
        }
    }
    for name in names {
        assert!(calib_cycles(&name) > 2000.0, "{name}");
    }
}

#[test]
fn a_launch_over_every_sm_ends_about_the_presets_cost_later() {
    // Every series' launches over 99 and 132 SMs against its launch over
    // one: 14 of them, from 44 to 844 cycles more, as launches this short
    // vary by a few hundred cycles (median 328). The preset lies between
    // their quartiles (277 and 489) and within 25% of their median.
    let mut all: Vec<f64> = growth(99).into_iter().chain(growth(132)).collect();
    for (series, grids) in BLOCK_SERIES {
        let at = |g: u32| calib_cycles(&series.replace("{}", &g.to_string()));
        for g in [99, 132].into_iter().filter(|g| grids.contains(g)) {
            all.push(at(g) - at(1));
        }
    }
    assert_eq!(all.len(), 14);
    all.sort_by(f64::total_cmp);
    let cost = f64::from(GpuConfig::h200().launch_all_sms_cycles);
    let (q1, q3) = (all[all.len() / 4], all[3 * all.len() / 4]);
    let m = median(all.clone());
    assert!(
        q1 <= cost && cost <= q3,
        "quartiles {q1}-{q3}, preset {cost}"
    );
    assert!(
        (m - cost).abs() <= 0.25 * cost,
        "median growth {m} cycles, preset {cost}"
    );
}

#[test]
fn the_growth_follows_a_square_root_closer_than_a_line() {
    // The medians over the four series at every grid, against the
    // preset's field times each shape of (s - 1) / 131: the square root
    // the model charges, and a line.
    let cost = f64::from(GpuConfig::h200().launch_all_sms_cycles);
    let residual = |shape: fn(f64) -> f64| -> f64 {
        GRIDS
            .iter()
            .map(|&g| {
                let share = f64::from(g - 1) / 131.0;
                (median(growth(g)) - cost * shape(share)).powi(2)
            })
            .sum()
    };
    let (root, line) = (residual(f64::sqrt), residual(|x| x));
    assert!(root < 0.5 * line, "square root {root}, line {line}");
}

#[test]
fn the_growth_rises_with_the_sms_used() {
    // Launches this short vary by a few hundred cycles, so the test holds
    // medians over the one-warp series, a step of several grids apart.
    let (few, some, all) = (median(growth(4)), median(growth(16)), median(growth(132)));
    assert!(few < some && some < all, "{few} {some} {all}");
    assert!(few < 100.0, "{few}");
}

/// A launch of `hw/launch_spread.cu`: its grid, spin loop and index.
type LaunchId = (u32, u32, u32);

/// A block of such a launch: its SM, start and end (%globaltimer, ns).
type Block = (u32, u64, u64);

/// Every launch of `hw/launch_spread.cu`'s recording, with its blocks.
fn spread_recording() -> BTreeMap<LaunchId, Vec<Block>> {
    let gz = include_bytes!("../hw/data/h200/launch_spread/launch_spread.csv.gz");
    let names = ["grid", "spin", "launch", "sm", "start_ns", "end_ns"];
    let mut out: BTreeMap<LaunchId, Vec<Block>> = BTreeMap::new();
    for f in crate::util::gz_csv(gz, &names) {
        let n = |i: usize| f[i].parse::<u64>().expect("a number");
        out.entry((n(0) as u32, n(1) as u32, n(2) as u32))
            .or_default()
            .push((n(3) as u32, n(4), n(5)));
    }
    out
}

#[test]
fn the_blocks_of_a_launch_over_every_sm_start_and_end_together() {
    // At 1,980 MHz the preset's 330 cycles are 167 ns; the timer steps by
    // 32 ns. Over every SM, a launch's blocks start within two steps of
    // each other and end within four (their spin loops differ a little),
    // so the cycles a launch over more SMs costs are outside its blocks.
    let cost_ns = f64::from(GpuConfig::h200().launch_all_sms_cycles) / 1.98;
    let rec = spread_recording();
    let mut launches = 0;
    for ((grid, spin, launch), blocks) in &rec {
        let sms: std::collections::BTreeSet<u32> = blocks.iter().map(|b| b.0).collect();
        assert_eq!(
            sms.len(),
            (*grid).min(132) as usize,
            "{grid} {spin} {launch}"
        );
        if *grid < 132 {
            continue;
        }
        launches += 1;
        let spread = |v: Vec<u64>| v.iter().max().unwrap() - v.iter().min().unwrap();
        let starts = spread(blocks.iter().map(|b| b.1).collect());
        let ends = spread(blocks.iter().map(|b| b.2).collect());
        assert!(
            starts <= 64,
            "{grid} {spin} {launch}: starts over {starts} ns"
        );
        assert!(ends <= 128, "{grid} {spin} {launch}: ends over {ends} ns");
        // Under half the field's time: its start spread cannot be it.
        assert!(
            (starts as f64) < cost_ns / 2.0,
            "{starts} ns against {cost_ns}"
        );
    }
    assert_eq!(launches, 80);
}
