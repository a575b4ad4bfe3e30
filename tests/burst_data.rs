//! The committed H200 recording of `hw/burst.cu` (`hw/data/h200/burst/`)
//! against the `h200` preset's first-wave dispatch: an SM's first blocks
//! start `first_wave_warps_per_cycle` warps a cycle apart within
//! `first_wave_window_cycles`, later ones much later.

use std::collections::BTreeMap;

use sim::GpuConfig;

/// Per variant, L2 state and SM of the second run: its blocks' start cycles,
/// sorted, relative to the first.
fn starts() -> BTreeMap<(String, String), Vec<Vec<u64>>> {
    let text = include_str!("../hw/data/h200/burst/burst.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (variant, l2, run, sm, start) = (
        col("variant"),
        col("l2"),
        col("run"),
        col("sm"),
        col("start"),
    );
    let mut by_sm: BTreeMap<(String, String, u64), Vec<u64>> = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        if f[run] != "1" {
            continue;
        }
        let key = (
            f[variant].to_string(),
            f[l2].to_string(),
            f[sm].parse().expect("an SM"),
        );
        by_sm
            .entry(key)
            .or_default()
            .push(f[start].parse().expect("a cycle"));
    }
    let mut out: BTreeMap<(String, String), Vec<Vec<u64>>> = BTreeMap::new();
    for ((v, l, _), mut s) in by_sm {
        s.sort_unstable();
        let first = s[0];
        out.entry((v, l))
            .or_default()
            .push(s.iter().map(|t| t - first).collect());
    }
    out
}

fn median(mut xs: Vec<u64>) -> u64 {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

/// (variant, warps a block) of the recording.
const VARIANTS: &[(&str, u32)] = &[
    ("tile8k_b4", 8),
    ("tile16k_b4", 8),
    ("tile8k_b8", 8),
    ("tile4k_b8", 4),
    ("tile4k_b16", 4),
    ("tile16k_b4x512", 16),
    ("tile32k_b2x1024", 32),
];

/// The blocks of `warps` warps an SM starts at first-wave pace under
/// `cfg`, and the cycle each starts after the first (as `sim`'s dispatcher
/// gives them: `ceil(warps / rate)` apart within the window).
fn preset_fast_starts(cfg: &GpuConfig, warps: u32, blocks: usize) -> Vec<u64> {
    let gap = u64::from(warps.div_ceil(cfg.first_wave_warps_per_cycle));
    (0..blocks as u64)
        .map(|k| k * gap)
        .take_while(|t| *t <= u64::from(cfg.first_wave_window_cycles))
        .collect()
}

#[test]
fn the_h200s_first_blocks_start_as_the_preset_starts_them() {
    let cfg = GpuConfig::h200();
    assert!(cfg.first_wave_warps_per_cycle > 0);
    let recorded = starts();
    for &(variant, warps) in VARIANTS {
        for l2 in ["cold", "warm"] {
            let sms = &recorded[&(variant.to_string(), l2.to_string())];
            assert_eq!(sms.len(), 132, "{variant} {l2}");
            let blocks = sms.iter().map(Vec::len).min().unwrap();
            let hw: Vec<u64> = (0..blocks)
                .map(|k| median(sms.iter().map(|s| s[k]).collect()))
                .collect();
            let preset = preset_fast_starts(&cfg, warps, blocks);
            // The H200's fast blocks: those starting within 30 cycles of
            // the first; after them the next comes 40 or more later.
            let fast = hw.iter().take_while(|t| **t <= 30).count();
            assert!(
                fast.abs_diff(preset.len()) <= 2,
                "{variant} {l2}: {fast} blocks start at first-wave pace ({hw:?}), the preset {}",
                preset.len()
            );
            if let Some(next) = hw.get(fast) {
                assert!(*next >= 40, "{variant} {l2}: {hw:?}");
            }
            // Their pace, over the fast blocks both have: within a cycle and
            // a sixth a block of the preset's.
            let k = fast.min(preset.len()) - 1;
            if k > 0 {
                let (h, p) = (hw[k] as f64 / k as f64, preset[k] as f64 / k as f64);
                assert!(
                    (h - p).abs() <= 1.0 + p / 6.0,
                    "{variant} {l2}: block {k} at {} cycles, the preset {}",
                    hw[k],
                    preset[k]
                );
            }
        }
    }
}
