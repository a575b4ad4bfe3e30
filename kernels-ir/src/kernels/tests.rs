//! The example kernels verify, round-trip through text, and compute what
//! their doc comments say on the reference interpreter, at several warp
//! widths.

use super::*;
use crate::interp::Interp;
use crate::launch::{Device, Dim3, ParamValue};
use crate::parser::parse_kernel;
use crate::printer::print_kernel;
use crate::verify::{VerifiedKernel, verify_kernel};

const WARPS: [u32; 5] = [4, 8, 16, 32, 64];

fn verified(name: &str, warp: u32) -> VerifiedKernel {
    let k = find(name, warp).unwrap_or_else(|| panic!("no kernel {name}"));
    verify_kernel(k.kernel).unwrap_or_else(|e| panic!("{name} (warp {warp}):\n{e}"))
}

#[test]
fn every_kernel_verifies_and_round_trips_at_every_warp_width() {
    for warp in WARPS {
        for k in catalog(warp) {
            let text = print_kernel(&k.kernel);
            let (parsed, _) = parse_kernel(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(parsed, k.kernel, "{}", k.name());
            assert_eq!(print_kernel(&parsed), text);
            if let Err(e) = verify_kernel(k.kernel) {
                panic!(
                    "{} (warp {warp}) does not verify:\n{e}\n{text}",
                    parsed.name
                );
            }
        }
    }
}

#[test]
fn names_are_unique_and_found() {
    let names: Vec<String> = catalog(32).iter().map(|k| k.name().to_string()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
    for name in &names {
        assert_eq!(find(name, 32).map(|k| k.kernel.name), Some(name.clone()));
    }
    assert_eq!(
        find("smem_stride_7", 32).map(|k| k.kernel.name).as_deref(),
        Some("smem_stride_7")
    );
    assert!(find("smem_stride_07", 32).is_none());
    assert!(find("smem_stride_0", 32).is_none());
    assert!(find("gmem_stride_129", 32).is_none());
    assert!(find("nope", 32).is_none());
    assert_eq!(all().len(), names.len());
}

#[test]
fn vcopy_copies_exactly_n_words() {
    for name in ["vcopy", "vcopy4"] {
        let k = verified(name, 8);
        let words = if name == "vcopy" { 1 } else { 4 };
        let mut dev = Interp::new(8).unwrap();
        let n = 37u32;
        let total = n as usize * words;
        let (src, dst) = (
            dev.alloc(4 * total as u64 + 64),
            dev.alloc(4 * total as u64 + 64),
        );
        let input: Vec<u32> = (0..total as u32 + 16).map(|i| i * 7 + 1).collect();
        dev.write_u32s(src, &input).unwrap();
        let params = [
            ParamValue::U64(src),
            ParamValue::U64(dst),
            ParamValue::U32(n),
        ];
        dev.launch(&k, Dim3::x(3), Dim3::x(16), &params).unwrap();
        let out = dev.read_u32s(dst, total + 16).unwrap();
        assert_eq!(&out[..total], &input[..total], "{name}");
        assert!(out[total..].iter().all(|&w| w == 0), "{name} wrote past n");
    }
}

#[test]
fn reduce_sums_each_block() {
    for warp in WARPS {
        let k = verified("reduce", warp);
        let mut dev = Interp::new(warp).unwrap();
        let (blocks, threads, n) = (3u32, 4 * warp, 3 * 4 * warp - 5);
        let src = dev.alloc(4 * u64::from(blocks * threads));
        let dst = dev.alloc(4 * u64::from(blocks));
        let input: Vec<u32> = (0..n).map(|i| i * i + 3).collect();
        dev.write_u32s(src, &input).unwrap();
        let params = [
            ParamValue::U64(src),
            ParamValue::U64(dst),
            ParamValue::U32(n),
        ];
        dev.launch(&k, Dim3::x(blocks), Dim3::x(threads), &params)
            .unwrap();
        let expected: Vec<u32> = input
            .chunks(threads as usize)
            .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
            .collect();
        assert_eq!(
            dev.read_u32s(dst, blocks as usize).unwrap(),
            expected,
            "warp {warp}"
        );
    }
}

#[test]
fn smem_stride_returns_each_lanes_value() {
    for (warp, stride) in [(4, 1), (32, 33), (64, 2), (16, 32)] {
        let k = verified(&format!("smem_stride_{stride}"), warp);
        let mut dev = Interp::new(warp).unwrap();
        let threads = 2 * warp;
        let out = dev.alloc(4 * u64::from(threads));
        dev.launch(&k, Dim3::x(1), Dim3::x(threads), &[ParamValue::U64(out)])
            .unwrap();
        let expected: Vec<u32> = (0..threads).map(|t| t % warp + 1).collect();
        assert_eq!(dev.read_u32s(out, threads as usize).unwrap(), expected);
    }
}

#[test]
fn gmem_stride_gathers_every_strided_word() {
    let k = verified("gmem_stride_3", 8);
    let mut dev = Interp::new(8).unwrap();
    let n = 20u32;
    let (src, dst) = (dev.alloc(4 * 3 * u64::from(n)), dev.alloc(4 * u64::from(n)));
    let input: Vec<u32> = (0..3 * n).collect();
    dev.write_u32s(src, &input).unwrap();
    let params = [
        ParamValue::U64(src),
        ParamValue::U64(dst),
        ParamValue::U32(n),
    ];
    dev.launch(&k, Dim3::x(2), Dim3::x(16), &params).unwrap();
    let expected: Vec<u32> = (0..n).map(|i| 3 * i).collect();
    assert_eq!(dev.read_u32s(dst, n as usize).unwrap(), expected);
}

#[test]
fn diverge_computes_per_lane_results() {
    for warp in [4, 32] {
        let k = verified("diverge", warp);
        let mut dev = Interp::new(warp).unwrap();
        let threads = 2 * warp;
        let out = dev.alloc(4 * u64::from(threads));
        dev.launch(&k, Dim3::x(1), Dim3::x(threads), &[ParamValue::U64(out)])
            .unwrap();
        let expected: Vec<u32> = (0..threads)
            .map(|t| t % warp)
            .map(|l| [10, 20][l as usize % 2] + l % 4)
            .collect();
        assert_eq!(dev.read_u32s(out, threads as usize).unwrap(), expected);
    }
}

#[test]
fn histogram_counts_each_blocks_keys() {
    let bins = examples::HISTOGRAM_BINS as usize;
    for (warp, threads) in [(4, 24), (32, 96), (64, 128)] {
        let k = verified("histogram", warp);
        let mut dev = Interp::new(warp).unwrap();
        let (blocks, n) = (3u32, 3 * threads - 7);
        let src = dev.alloc(4 * u64::from(blocks * threads));
        let dst = dev.alloc(4 * (u64::from(blocks) * bins as u64 + 1));
        // Skewed keys: bin 5 gets every third key.
        let input: Vec<u32> = (0..n)
            .map(|i| if i % 3 == 0 { 5 + 64 * i } else { i * i + 7 })
            .collect();
        dev.write_u32s(src, &input).unwrap();
        let params = [
            ParamValue::U64(src),
            ParamValue::U64(dst),
            ParamValue::U32(n),
        ];
        dev.launch(&k, Dim3::x(blocks), Dim3::x(threads), &params)
            .unwrap();
        let mut expected = vec![0u32; blocks as usize * bins + 1];
        for (i, &key) in input.iter().enumerate() {
            let block = i / threads as usize;
            expected[block * bins + key as usize % bins] += 1;
        }
        let got = dev.read_u32s(dst, expected.len()).unwrap();
        assert_eq!(got, expected, "warp {warp}");
    }
}
