//! The committed H200 recordings of where addresses land in the L2
//! (`hw/data/h200/l2_slices/` and `hw/calib/suite_scatter_lines.txt`): what
//! docs/calibration.md ("Where the H200's L2 slices are") says of them. The
//! H200 spreads every power-of-two stride over its slices, and every
//! recorded kernel's L2 traffic is even over them; the time of a scatter
//! of partial stores follows how many lines a block writes, not whether
//! their stride is a power of two. The presets fold every bit of the chunk
//! index into the partition (`partition_hash` 64) since; with three bits,
//! as before, 64 KB strides and more stayed on one partition.

use std::collections::BTreeMap;

const NCU: &[u8] = include_bytes!("../hw/data/h200/l2_slices/probe/ncu.csv.gz");
const PATTERNS: &str = include_str!("../hw/data/h200/l2_slices/probe/patterns.csv");
const SECTORS: &str = "lts__t_sectors_srcunit_tex_op_read";

/// Pattern name -> (sectors read at the slices in all, at the busiest one).
fn patterns() -> BTreeMap<String, (f64, f64)> {
    (crate::util::named_ncu_rows(NCU, PATTERNS, "pattern,offset,stride,count").into_iter())
        .map(|(n, r)| {
            let sum = r[&format!("{SECTORS}.sum")];
            (n[0].clone(), (sum, r[&format!("{SECTORS}.max")]))
        })
        .collect()
}

#[test]
fn each_address_is_one_sector_at_one_slice_and_the_launch_itself_reads_none() {
    let all = patterns();
    assert_eq!(all["base"], (0.0, 0.0));
    let singles: Vec<_> = (all.iter())
        .filter(|(n, _)| {
            ["sector_", "chunk_", "bit_"]
                .iter()
                .any(|p| n.starts_with(p))
        })
        .collect();
    assert_eq!(singles.len(), 128 + 1024 + 22);
    for (name, &(sum, max)) in singles {
        assert_eq!((sum, max), (1.0, 1.0), "{name}");
    }
}

#[test]
fn one_sms_reads_reach_chunk_zeros_slice_from_one_chunk_in_about_43() {
    let all = patterns();
    let same: Vec<u32> = (1..2048)
        .filter(|c| {
            let (sum, max) = all[&format!("pair_{c}")];
            assert_eq!(sum, 2.0, "pair_{c}");
            max == 2.0
        })
        .collect();
    // 47 of the 2,047 chunks after chunk 0 (the first 512 KB), in pairs
    // 512 bytes apart: chunk index bit 1 (address bit 9) does not move the
    // slice an SM sends its read to.
    assert_eq!(same.len(), 47, "{same:?}");
    assert!(same.iter().all(|&c| c == 2 || same.contains(&(c ^ 2))));
    let bits: Vec<u32> = (5..30)
        .filter(|b| all[&format!("pairbit_{b}")].1 == 2.0)
        .collect();
    assert_eq!(bits, [5, 6, 7, 9, 20]);
}

#[test]
fn no_power_of_two_stride_from_256_bytes_to_64_mb_camps_on_a_slice() {
    // 32 or 1,024 addresses (fewer past 1 GB) a stride apart: the busiest
    // slice holds at most 3.5% of them plus 3 (1,024 addresses: at most
    // 36, where the 43 or so slices one SM reaches would hold 24 each).
    // Three bits folded put all 1,024 on one of 32 partitions from 64 KB
    // on; the presets fold every bit.
    let all = patterns();
    let strides: Vec<_> = all
        .iter()
        .filter(|(n, _)| n.starts_with("stride_"))
        .collect();
    // 19 strides at two counts; at 32 and 64 MB both counts are capped to
    // the same (the buffer's 1 GB), so those two patterns ran twice.
    assert_eq!(strides.len(), 36);
    for (name, &(sum, max)) in strides {
        let count: f64 = name.rsplit('_').next().unwrap().parse().unwrap();
        assert_eq!(sum, count, "{name}");
        assert!(
            max <= 0.035 * count + 3.0,
            "{name}: {max} of {count} on one slice"
        );
    }
}

#[test]
fn every_recorded_kernels_l2_traffic_is_even_over_the_slices() {
    // bitonic's 64-bit sort, HotSort at 1M keys, and every entry of
    // suite_stores.txt, the 128 KB-strided scatters included: in every
    // launch the busiest slice moves at most 15% more bytes than the mean.
    let dir = "hw/data/h200/l2_slices/kernels";
    let names = crate::util::suite_file_names("hw/data/h200/l2_slices/suite.txt");
    assert_eq!(names.len(), 17);
    for name in names {
        let launches = crate::util::ncu_launches(&format!("{dir}/{name}.csv"));
        assert!(!launches.is_empty(), "{name}");
        for l in launches {
            let m = &l.metrics;
            let spread = m["lts__t_bytes.max"] / m["lts__t_bytes.avg"];
            assert!(
                (1.0..1.15).contains(&spread),
                "{name} {}: {spread}",
                l.kernel
            );
        }
    }
}

#[test]
fn a_partial_store_scatters_time_follows_its_lines_not_its_strides_power_of_two() {
    let c = crate::util::calib_cycles;
    // 32 buckets 128 KB apart, one sector and 1 KB further apart.
    let b32 = c("swl_b32_s32768");
    for other in ["swl_b32_s32776", "swl_b32_s33024"] {
        assert!((c(other) / b32 - 1.0).abs() < 0.03, "{other}");
    }
    for (pow2, past) in [
        ("swl_b64_s16384", "swl_b64_s16392"),
        ("swl_b128_s8192", "swl_b128_s8200"),
    ] {
        assert!((c(past) / c(pow2) - 1.0).abs() < 0.05, "{past}");
    }
    // 32 and 64 buckets (a block's warps on 32 or 64 lines) cost more than
    // 1,024 (256 lines), whose sectors' words come from eight blocks.
    let b1024 = c("swl_b1024_s1024");
    assert!(b32 > 1.1 * b1024 && c("swl_b64_s16384") > 1.1 * b1024);
}
