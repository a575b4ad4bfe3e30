//! The committed H200 recording of `hw/step_l1.sh`
//! (`hw/data/h200/step_l1/`): what docs/calibration.md ("GPUTeraSort at 4M
//! records") says of it. GPUTeraSort's `step` over the 4M sort's 32 MB
//! array takes the same time on the H200 however far apart a thread's two
//! 128-byte vectors lie, mirrored or not, its stores hit the lines its
//! loads brought into L1, and ptxas's registers hold it to two blocks an SM.

use std::collections::BTreeMap;

use simsort::calib::ncu;

/// Variant name -> metric -> value: the raw ncu CSV (one row a variant,
/// all of ID 0, kept in file order) named by the variant list written
/// beside it.
fn recording() -> BTreeMap<String, BTreeMap<String, f64>> {
    let csv = include_str!("../hw/data/h200/step_l1/step_l1.csv");
    let names = include_str!("../hw/data/h200/step_l1/variants.txt");
    let launches = ncu::parse(csv).expect("the recording parses");
    assert_eq!(launches.len(), names.lines().count(), "a row a variant");
    names
        .lines()
        .zip(launches)
        .map(|(variant, launch)| {
            let name = variant.split_whitespace().next().expect("a name");
            (name.to_string(), launch.metrics)
        })
        .collect()
}

fn metric(rec: &BTreeMap<String, BTreeMap<String, f64>>, variant: &str, name: &str) -> f64 {
    rec[variant][name]
}

#[test]
fn every_variant_is_recorded() {
    let rec = recording();
    let names: Vec<&str> = rec.keys().map(String::as_str).collect();
    assert_eq!(names, ["f256", "f512", "n256", "n512", "n8192"]);
}

#[test]
fn the_partners_distance_and_mirroring_do_not_change_the_time() {
    let rec = recording();
    let cycles: Vec<f64> = rec
        .keys()
        .map(|v| metric(&rec, v, "sm__cycles_elapsed.max"))
        .collect();
    let (lo, hi) = cycles
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    assert!(hi / lo < 1.06, "cycles {cycles:?}");
    // The whole array comes from DRAM once in every variant.
    for v in rec.keys() {
        let read = metric(&rec, v, "dram__bytes_read.sum");
        assert!(
            (read - 33_554_432.0).abs() < 0.01 * 33_554_432.0,
            "{v}: {read}"
        );
    }
}

#[test]
fn the_stores_hit_the_lines_the_loads_brought_into_l1() {
    let rec = recording();
    for v in rec.keys() {
        let hit = metric(
            &rec,
            v,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum",
        );
        let miss = metric(
            &rec,
            v,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_miss.sum",
        );
        assert!(hit / (hit + miss) > 0.98, "{v}: {hit} hits, {miss} misses");
        // Half of the 16-byte load chunks hit the sector the other half fetched.
        let ld_hit = metric(
            &rec,
            v,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
        );
        let ld_miss = metric(
            &rec,
            v,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
        );
        assert_eq!((ld_hit, ld_miss), (1_048_576.0, 1_048_576.0), "{v}");
    }
}

#[test]
fn ptxas_registers_allow_two_blocks_an_sm() {
    let rec = recording();
    for v in rec.keys() {
        assert_eq!(metric(&rec, v, "launch__registers_per_thread"), 84.0, "{v}");
        assert_eq!(
            metric(&rec, v, "launch__occupancy_limit_registers"),
            2.0,
            "{v}"
        );
    }
}
