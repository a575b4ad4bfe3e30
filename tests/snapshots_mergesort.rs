//! Mergesort on the simulated `h200`: the counter matrix (one insta
//! snapshot per configuration: NT x VT for 32-bit keys, 64-bit keys
//! (`_k64`) and key-value pairs (`_kv`)), and the checks the seed invites:
//! conflict-free register/shared transposes for odd VT and
//! gcd(VT, banks)-way ones for even VT, `1 + 2*ceil(lg P)` launches, and
//! `merge` instruction counts that depend on the data only through the
//! merge-path probes.
//!
//! Each configuration sorts two and a half tiles plus one key (uniform,
//! seed 1): a partial last tile, two merge passes, a frame with a short B.

use std::fmt::Write as _;

use rayon::prelude::*;
use sim::{Gpu, KernelStats, RunOptions};
use simsort::experiment::sort::{algo_config, machine_config};
use simsort::experiment::{Distribution, SortOptions, run_sort};
use sorts::mergesort::{Mergesort, MergesortConfig};

use crate::snapshot_files::leftovers;
use crate::snapshots_hotsort::{check_snapshot, counter_lines};

/// (NT, VT) pairs of the matrix: moderngpu's default 128 x 11, the seed's
/// 256 x 7, and an even VT.
const SHAPES: [(u32, u32); 6] = [(128, 7), (128, 8), (128, 11), (256, 7), (256, 8), (256, 11)];

/// 32-bit keys, 64-bit keys, key-value pairs: (suffix, key bits, values).
const WORDS: [(&str, u32, bool); 3] = [("", 32, false), ("_k64", 64, false), ("_kv", 32, true)];

fn options(nt: u32, vt: u32, key_bits: u32, values: bool) -> SortOptions {
    SortOptions {
        algo: simsort::experiment::sort::Algo::Mergesort,
        block_threads: Some(nt),
        items_per_thread: Some(vt),
        key_bits,
        values,
        keys: u64::from(nt * vt) * 5 / 2 + 1,
        dist: Distribution::Uniform,
        seed: 1,
        ..SortOptions::default()
    }
}

fn snapshot(opts: &SortOptions) -> Result<String, String> {
    let outcome = run_sort(opts).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# h200, mergesort NT={} VT={}, {} uniform {}-bit keys{} (seed 1)",
        opts.block_threads.unwrap_or(0),
        opts.items_per_thread.unwrap_or(0),
        opts.keys,
        opts.key_bits,
        if opts.values {
            " with 32-bit values"
        } else {
            ""
        }
    );
    for row in &outcome.report.kernels {
        let _ = writeln!(out, "\n[{}]", row.name);
        for line in counter_lines(&row.stats) {
            let _ = writeln!(out, "{line}");
        }
    }
    Ok(out)
}

#[test]
fn mergesort_counter_matrix() {
    let mut cases = Vec::new();
    for (suffix, bits, values) in WORDS {
        for (nt, vt) in SHAPES {
            cases.push((
                format!("nt{nt}_vt{vt}{suffix}"),
                options(nt, vt, bits, values),
            ));
        }
    }
    let texts: Vec<Result<String, String>> =
        cases.par_iter().map(|(_, opts)| snapshot(opts)).collect();
    let mut failed = Vec::new();
    for ((name, _), text) in cases.iter().zip(texts) {
        match text {
            Ok(text) => failed.extend(check_snapshot!(name, &text)),
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    let produced: Vec<String> = cases.into_iter().map(|(name, _)| name).collect();
    failed.extend(leftovers("snapshots_mergesort", |_| true, &produced));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Runs mergesort on the simulated `h200` directly (per-launch stats).
fn launches(opts: &SortOptions) -> (MergesortConfig, Vec<sorts::Launch<KernelStats>>) {
    let gpu_cfg = machine_config(opts).expect("machine");
    let cfg = algo_config::<Mergesort>(opts, &gpu_cfg).expect("config");
    let ms = Mergesort::new::<std::convert::Infallible>(&cfg).expect("kernels");
    let mut gpu = Gpu::new(gpu_cfg, RunOptions::default()).expect("gpu");
    let keys: Vec<u64> = (0..opts.keys)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let launches = if cfg.key_bits == 64 {
        ms.sort(&mut gpu, &keys).expect("sorts").launches
    } else {
        let keys: Vec<u32> = keys.iter().map(|&k| (k >> 32) as u32).collect();
        ms.sort(&mut gpu, &keys).expect("sorts").launches
    };
    (cfg, launches)
}

/// The pcs of `blocksort`'s register/shared transposes: the shared
/// accesses based on the thread-order address `VT * tid * key_bytes`.
fn transpose_pcs(ms: &Mergesort, cfg: &MergesortConfig) -> Vec<usize> {
    use kernels_ir::{InstData, Operand};
    let k = ms.marked_kernels()[0].0.kernel();
    let stride = i64::from(cfg.items_per_thread * cfg.key_bytes());
    let base = k.insts.iter().find_map(|i| match &i.data {
        InstData::Binary {
            dst,
            args: [_, Operand::Imm(m)],
            opcode,
        } if *m == stride && opcode.name() == "mul" => Some(*dst),
        _ => None,
    });
    let base = base.expect("the thread-order base");
    k.insts
        .iter()
        .enumerate()
        .filter(|(_, i)| match &i.data {
            InstData::Load { opcode, addr, .. } | InstData::Store { opcode, addr, .. } => {
                opcode.name().contains("shared") && addr.base == Some(base)
            }
            _ => false,
        })
        .map(|(pc, _)| pc)
        .collect()
}

#[test]
fn transposes_are_conflict_free_for_odd_vt_and_gcd_way_for_even() {
    for (bits, vt) in [(32, 7), (32, 11), (32, 8), (32, 12), (64, 7), (64, 11)] {
        let opts = SortOptions {
            keys: 4000,
            ..options(128, vt, bits, false)
        };
        let (cfg, runs) = launches(&opts);
        let ms = Mergesort::new::<std::convert::Infallible>(&cfg).expect("kernels");
        let pcs = transpose_pcs(&ms, &cfg);
        assert_eq!(
            pcs.len() as u32,
            vt * (2 + 7),
            "VT={vt}: load + store + 7 rounds"
        );
        let bs = &runs[0].stats;
        let (insts, wavefronts, conflicts) = pcs.iter().fold((0, 0, 0), |(i, w, c), &pc| {
            let p = &bs.per_pc[pc];
            (
                i + p.inst_executed,
                w + p.smem_wavefronts,
                c + p.smem_bank_conflicts,
            )
        });
        // The ideal: one wavefront per 32-bit access, two per 64-bit one
        // (half-warp phases); the transposes reach it for odd VT, and for
        // even VT hit gcd(VT, 32) lanes per bank.
        let ideal = u64::from(bits / 32);
        let ways = if vt % 2 == 1 {
            ideal
        } else {
            u64::from(gcd(vt, 32)) * ideal
        };
        assert_eq!(wavefronts, insts * ways, "{bits}-bit VT={vt}");
        assert_eq!(conflicts, insts * (ways - ideal), "{bits}-bit VT={vt}");
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[test]
fn launches_are_one_plus_two_per_merge_pass() {
    for (tiles, passes) in [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3)] {
        let opts = SortOptions {
            keys: 128 * 7 * tiles - 3,
            ..options(128, 7, 32, false)
        };
        let (_, runs) = launches(&opts);
        let names: Vec<&str> = runs.iter().map(|l| l.name).collect();
        assert_eq!(names.len(), 1 + 2 * passes, "{tiles} tiles: {names:?}");
    }
}

/// The seed's load balance: every `merge` thread does the same work
/// whatever the data, except the merge-path search, whose probe count
/// depends on how a block's tile splits between A and B (none when one
/// list supplies every key, as for sorted input).
#[test]
fn merge_instructions_outside_the_search_do_not_depend_on_the_distribution() {
    let opts = options(128, 11, 32, false);
    let gpu_cfg = machine_config(&opts).expect("machine");
    let cfg = algo_config::<Mergesort>(&opts, &gpu_cfg).expect("config");
    let ms = Mergesort::new::<std::convert::Infallible>(&cfg).expect("kernels");
    let marks = ms.marked_kernels()[2].1.clone();
    let pc_of = |name: &str| marks.stages.iter().find(|(_, s)| s == name).expect(name).0 as usize;
    let search = pc_of("merge path")..pc_of("merge serial");
    let mut outside = Vec::new();
    let mut totals = Vec::new();
    for dist in Distribution::ALL {
        let opts = SortOptions {
            keys: 20_000,
            dist,
            ..opts.clone()
        };
        let outcome = run_sort(&opts).expect("sorts");
        let merge = outcome
            .report
            .kernels
            .iter()
            .find(|k| k.name == "merge")
            .expect("merge");
        let per_pc = &merge.stats.per_pc;
        let rest: u64 = (0..per_pc.len())
            .filter(|pc| !search.contains(pc))
            .map(|pc| per_pc[pc].inst_executed)
            .sum();
        outside.push(rest);
        totals.push((dist, merge.stats.inst_executed));
    }
    assert!(
        outside.windows(2).all(|w| w[0] == w[1]),
        "{outside:?} {totals:?}"
    );
    // The search is the only difference, and a minor share of the work.
    let min = totals.iter().map(|t| t.1).min().unwrap_or(0);
    assert!(
        totals.iter().all(|t| t.1 - min < outside[0] / 2),
        "{totals:?}"
    );
}
