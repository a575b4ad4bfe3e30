//! The committed H200 recording of `hw/smem_under_load.cu`
//! (`hw/data/h200/smem_under_load/`): what docs/calibration.md ("Shared
//! wavefronts where the hardware counts more") says of it. One warp a
//! block issues conflict-free shared loads or stores while the block's
//! other warps stream global loads (past the L1, into it, or hitting it),
//! store, shuffle or idle. The H200 counts extra wavefronts on the shared
//! *stores* while global accesses share the SM, and none on the loads in
//! any of these variants, nor on stores beside shuffles alone. A block's
//! only load right after its barrier (`reduce`'s shape) takes more the more
//! waves of blocks start on the SM, without any global traffic.

use std::collections::BTreeMap;

const NCU: &[u8] = include_bytes!("../hw/data/h200/smem_under_load/ncu.csv.gz");
const VARIANTS: &str = include_str!("../hw/data/h200/smem_under_load/variants.csv");

/// (variant, its shared accesses' kind, its global traffic) -> ncu row.
fn launches() -> Vec<(String, String, String, BTreeMap<String, f64>)> {
    (crate::util::named_ncu_rows(NCU, VARIANTS, "variant,shared,global").into_iter())
        .map(|(n, r)| (n[0].clone(), n[1].clone(), n[2].clone(), r))
        .collect()
}

/// (instructions, wavefronts, bank conflicts) of shared `op` (ld or st).
fn shared(row: &BTreeMap<String, f64>, op: &str) -> (f64, f64, f64) {
    (
        row[&format!("smsp__sass_inst_executed_op_shared_{op}.sum")],
        row[&format!("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")],
        row[&format!("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum")],
    )
}

#[test]
fn streamed_shared_loads_take_the_wavefronts_their_addresses_need_whatever_else_the_sm_does() {
    let all = launches();
    assert_eq!(all.len(), 27);
    for (name, _, _, row) in all.iter().filter(|(n, ..)| !n.starts_with("once")) {
        let (inst, wf, conflicts) = shared(row, "ld");
        assert_eq!((wf, conflicts), (inst, 0.0), "{name}");
    }
}

/// The excess of each `once` variant's shared-load wavefronts over its
/// loads, by name.
fn once() -> BTreeMap<String, f64> {
    (launches().into_iter())
        .filter(|(n, ..)| n.starts_with("once"))
        .map(|(n, _, _, row)| {
            let (inst, wf, _) = shared(&row, "ld");
            (n, (wf - inst) / inst)
        })
        .collect()
}

#[test]
fn a_blocks_only_shared_load_takes_more_while_later_waves_of_blocks_start() {
    // `reduce`'s shape (one load a block, right after the barrier, no
    // global traffic at all), 1,024-thread blocks, 2 an SM at a time: in
    // one wave (1 or 2 blocks an SM in all) exact; over 4 waves (8 an SM)
    // 10.9% more wavefronts than loads, over 16 (32 an SM) 47.2%, as
    // `reduce` over its 4 waves (+49%).
    let once = once();
    assert_eq!(once.len(), 11);
    let at = |n: &str| once[n];
    assert_eq!(at("once_t1024_lane0_wait_g1"), 0.0);
    assert_eq!(at("once_t1024_lane0_wait_g2"), 0.0);
    let four = at("once_t1024_lane0_wait");
    let sixteen = at("once_t1024_lane0_wait_g32");
    assert!((0.05..0.2).contains(&four), "{four}");
    assert!((0.3..0.6).contains(&sixteen), "{sixteen}");
    // The other variants of 8 blocks an SM: at most 15% more.
    assert!(
        (once.iter())
            .filter(|(n, _)| !n.ends_with("_g32"))
            .all(|(_, x)| (0.0..0.15).contains(x)),
        "{once:?}"
    );
}

#[test]
fn shared_stores_pick_up_wavefronts_while_global_accesses_share_the_sm() {
    let mut loaded = 0;
    for (name, kind, global, row) in launches() {
        let (inst, wf, conflicts) = shared(&row, "st");
        if kind != "st" || global == "none" || global == "shfl" {
            // Stores beside idle warps, shuffles, or before the loads of
            // the `after_stores` variants: exact.
            if kind == "st" || name.starts_with("after_stores") {
                assert_eq!((wf, conflicts), (inst, 0.0), "{name}");
            }
            continue;
        }
        // Global loads past or into the L1, hitting it, or global stores:
        // 1-15% more wavefronts than instructions (5.6-11.2% in this recording,
        // 3-5% in earlier ones: a run's timing moves it), counted as bank
        // conflicts.
        let excess = (wf - inst) / inst;
        assert!((0.01..0.15).contains(&excess), "{name}: {excess:.3}");
        assert!(conflicts > 0.0, "{name}");
        loaded += 1;
    }
    assert_eq!(loaded, 4, "miss, fill, hit and store");
}
