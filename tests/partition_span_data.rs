//! The committed H200 recordings of `hw/calib/suite_partition.txt`
//! (`hw/data/h200/partition/run1/` to `run5/`; what the suite reads,
//! `hw/data/calib/NAME.csv`, is each entry's median recording), and what
//! docs/calibration.md ("Mergesort's `partition`: two loads a probe")
//! says of them: the H200's extra time in mergesort's `partition` at 1M
//! keys is in its probes, not in the launch, and it comes with a large
//! array even on one SM.

use simsort::calib::ncu::NcuLaunch;

use crate::util::{calib_cycles, median, ncu_launches, suite_names};

const CYCLES: &str = "sm__cycles_elapsed.max";

/// The one launch of each recording of entry `name`: three, or five for
/// the probe series.
fn recorded(name: &str) -> Vec<NcuLaunch> {
    let runs = if name.starts_with("pp1m_") { 5 } else { 3 };
    (1..=runs)
        .map(|r| {
            let mut l = ncu_launches(&format!("hw/data/h200/partition/run{r}/{name}.csv"));
            assert_eq!(l.len(), 1, "{name} run{r}: one launch");
            assert!(l[0].kernel.starts_with("partition_"), "{name}");
            l.remove(0)
        })
        .collect()
}

/// The cycles of every recording of the entries named.
fn cycles<S: AsRef<str>>(names: &[S]) -> Vec<f64> {
    (names.iter())
        .flat_map(|n| recorded(n.as_ref()))
        .map(|l| l.metrics[CYCLES])
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn every_entry_reads_its_median_recording() {
    let entries = suite_names("suite_partition");
    assert_eq!(entries.len(), 51);
    for name in &entries {
        let runs = recorded(name);
        let cycles: Vec<f64> = runs.iter().map(|l| l.metrics[CYCLES]).collect();
        assert_eq!(
            calib_cycles(name),
            median(cycles.clone()),
            "{name}: {cycles:?}"
        );
        // Every recording ran the same code.
        let insts: Vec<f64> = runs
            .iter()
            .map(|l| l.metrics["smsp__inst_executed.sum"])
            .collect();
        assert!(insts.iter().all(|&i| i == insts[0]), "{name}: {insts:?}");
    }
}

#[test]
fn one_sm_searching_a_large_array_is_slower_than_one_searching_a_small_one() {
    // One block of two warps, 32 searches of 11 probes each, in all of
    // these. A 256 KB array, or the first 360 KB of a 4 MB one:
    let small = mean(&cycles(&["p64k_b1", "p1m_b1"]));
    // The same 360 KB at 16 places of a 16 MB array:
    let at: Vec<String> = (0..16).map(|k| format!("p4m_b1_at{k}m")).collect();
    let all = cycles(&at);
    let placed = mean(&all);
    let (lo, hi) = (
        all.iter().cloned().fold(f64::MAX, f64::min),
        all.iter().cloned().fold(0.0, f64::max),
    );
    // Boundaries spread over the whole 4 MB or 16 MB array:
    let spread = mean(&cycles(&[
        "p1m_b1_s11",
        "p4m_b1_s3",
        "p4m_b1_s5",
        "p4m_b1_s23",
        "p4m_b1_s47",
    ]));
    assert_eq!(small.round(), 11_228.0);
    assert_eq!(placed.round(), 12_032.0);
    assert_eq!((lo, hi), (11_017.0, 13_071.0));
    assert_eq!(spread.round(), 12_593.0);
    // More SMs add less than the array does: 12 SMs over 4 MB, 12 over
    // 16 MB, 47 over 16 MB, and all 24 warps of a 1M-key launch on one SM.
    let many = [
        ("p1m_b12", 12_967.0),
        ("p4m_b12_s3", 13_243.0),
        ("p4m_b47", 13_331.0),
        ("p1m_t768", 13_749.0),
    ];
    for (name, expected) in many {
        assert_eq!(mean(&cycles(&[name])).round(), expected, "{name}");
    }
    assert!(spread - small > 1_300.0);
    assert!(mean(&cycles(&["p1m_b12"])) - spread < 400.0);
}

#[test]
fn each_probe_of_the_search_costs_about_twelve_hundred_cycles() {
    // Medians of five recordings, 0 to 11 probes (99: all), for one SM
    // over 360 KB, one SM over 4 MB and 12 SMs over 4 MB.
    let at = |c: &str, k: u32| calib_cycles(&format!("pp1m_{c}_k{k}"));
    let expect = [
        ("b1", [2_967.0, 4_493.0, 9_999.0, 11_493.0, 11_503.0]),
        ("s11", [2_989.0, 4_499.0, 10_362.0, 12_268.0, 12_028.0]),
        ("b12", [3_369.0, 4_717.0, 10_880.0, 12_364.0, 13_162.0]),
    ];
    for (c, cycles) in expect {
        let got = [at(c, 0), at(c, 1), at(c, 6), at(c, 8), at(c, 99)];
        assert_eq!(got, cycles, "{c}");
        // The first six probes, each to lines of its own: 1,172 to 1,252
        // cycles a probe.
        let per_probe = (got[2] - got[0]) / 6.0;
        assert!((1_170.0..1_255.0).contains(&per_probe), "{c}: {per_probe}");
    }
}
