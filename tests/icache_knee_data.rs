//! The committed H200 recording of `hw/calib/suite_icache_knee.txt`
//! (`hw/data/calib/ik_*.csv`, `th_*.csv`): what docs/calibration.md
//! ("Loops just past a cache") says of it. A loop a KB at a time past the
//! L0's 32 KB or the L1's 128 KB slows by steps, not at once; a warp on
//! each sub-partition runs as one warp does; and GPUTeraSort's `head` over
//! one-thread blocks takes about 7,000 cycles a wave after its first.

use std::collections::BTreeMap;

use crate::util::{calib_cycles, repo_root};

/// The suite's lines: entry name -> the rest of its line.
fn suite() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(repo_root().join("hw/calib/suite_icache_knee.txt"))
        .expect("the suite");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, rest) = l.split_once(' ').expect("a name and a command");
            (name.to_string(), rest.to_string())
        })
        .collect()
}

/// Cycles per instruction of the loop entry `ik_wW_SK` of `suite`: its
/// cycles over its trips times S KB of 16-byte instructions.
fn per_inst(suite: &BTreeMap<String, String>, warps: u32, kb: u32) -> f64 {
    let name = format!("ik_w{warps}_{kb}k");
    let line = &suite[&name];
    let iters: f64 = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("iters="))
        .expect("an iters parameter")
        .parse()
        .unwrap();
    calib_cycles(&name) / (iters * f64::from(kb) * 64.0)
}

#[test]
fn every_entry_is_recorded() {
    for name in suite().keys() {
        assert!(calib_cycles(name) > 0.0, "{name}");
    }
}

#[test]
fn loops_past_the_l0_slow_by_steps() {
    let suite = suite();
    let at = |kb| per_inst(&suite, 1, kb) / per_inst(&suite, 1, 32);
    // Within the L0 the loops run alike; past it each KB adds more.
    assert!((0.9..=1.0).contains(&at(30)), "30 KB: {}", at(30));
    let steps = [at(33), at(34), at(36), at(40)];
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
    assert!(steps[0] < 1.1, "33 KB: a few sets overfilled, {steps:?}");
    assert!((1.15..1.35).contains(&steps[1]), "34 KB: {steps:?}");
    assert!((1.35..1.55).contains(&steps[2]), "36 KB: {steps:?}");
    assert!(steps[3] > 1.7, "40 KB: every line misses, {steps:?}");
}

#[test]
fn loops_past_the_l1_slow_by_steps() {
    let suite = suite();
    let at = |kb| per_inst(&suite, 1, kb) / per_inst(&suite, 1, 130);
    for kb in [120, 124, 127, 128] {
        assert!((0.97..=1.0).contains(&at(kb)), "{kb} KB: {}", at(kb));
    }
    assert!((1.3..1.5).contains(&at(136)), "136 KB: {}", at(136));
    assert!((1.65..1.85).contains(&at(144)), "144 KB: {}", at(144));
}

#[test]
fn a_warp_on_each_sub_partition_runs_as_one_warp_does() {
    let suite = suite();
    for name in suite.keys().filter(|n| n.starts_with("ik_w1_")) {
        let kb: u32 = name["ik_w1_".len()..name.len() - 1].parse().unwrap();
        let ratio = per_inst(&suite, 4, kb) / per_inst(&suite, 1, kb);
        assert!((0.97..1.03).contains(&ratio), "{kb} KB: {ratio}");
    }
}

#[test]
fn the_heads_waves_after_the_first_take_about_7000_cycles() {
    let one = ["th_132", "th_264", "th_396"].map(calib_cycles);
    let two = ["th_528", "th_792"].map(calib_cycles);
    for group in [&one[..], &two[..]] {
        let (lo, hi) = group
            .iter()
            .fold((f64::MAX, 0.0f64), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        assert!(hi / lo < 1.05, "{one:?} {two:?}");
    }
    let wave = two[0] - one[2];
    assert!((6_000.0..8_000.0).contains(&wave), "a second wave: {wave}");
    // 2,000 blocks, three an SM: four waves and a part after the first.
    let later = (calib_cycles("th_2000") - one[2]) / wave;
    assert!((3.8..4.8).contains(&later), "{later} waves after the first");
}
