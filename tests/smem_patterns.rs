//! One warp's shared load or store against the H200, pattern by pattern
//! (`hw/data/h200/smem_patterns/`, recorded with `hw/smem_patterns.sh`):
//! the simulator runs each of the 1,104 recorded launches (552 lane
//! patterns, each a 4-, 8- and 16-byte load and store) and its shared
//! wavefronts, bank conflicts and shared instructions equal Nsight
//! Compute's in every one. The 8- and 16-byte loads whose lanes read in
//! pairs are the ones `sim/src/shared_pairs.rs` serves in wider phases.

use kernels_ir::{Dim3, Kernel, KernelBuilder, Opcode, ParamType, ParamValue, RegList, Special};
use sim::{Gpu, GpuConfig, RunOptions};

use crate::util::gunzip;

const PATTERNS: &[u8] = include_bytes!("../hw/data/h200/smem_patterns/patterns.csv.gz");
const NCU: &[u8] = include_bytes!("../hw/data/h200/smem_patterns/ncu.csv.gz");

/// Bytes of the probe's shared table.
const TABLE_BYTES: u32 = 16384;

/// A lane the pattern leaves out (`-` in the recording).
const OFF: u32 = u32::MAX;

/// One warp: lane `l` reads its word index from `idx[l]` and, unless it is
/// [`OFF`], loads or stores `width` bytes at that word of the table.
fn probe(store: bool, width: u32) -> Kernel {
    let mut b = KernelBuilder::new(if store { "store" } else { "load" });
    let idx = b.param("idx", ParamType::U64);
    b.shared(TABLE_BYTES, 16);
    let (lane, word, p) = (b.reg32(), b.reg32(), b.pred());
    let a = b.reg64();
    b.mov(lane, Special::LaneId);
    b.cvt_u64_u32(a, lane);
    b.shl(a, a, 2);
    b.add(a, a, idx);
    b.ld_global_b32(word, a, 0);
    b.setp_ne(p, word, OFF);
    b.mul(word, word, width);
    let data = b.regs32((width / 4) as usize);
    let op = match (store, width) {
        (false, 4) => Opcode::LdSharedB32,
        (false, 8) => Opcode::LdSharedB64,
        (false, _) => Opcode::LdSharedB128,
        (true, 4) => Opcode::StSharedB32,
        (true, 8) => Opcode::StSharedB64,
        (true, _) => Opcode::StSharedB128,
    };
    if store {
        b.when(p).store(op, Some(word), 0, RegList::new(&data));
    } else {
        b.when(p).load(op, RegList::new(&data), Some(word), 0);
    }
    b.exit();
    b.build()
}

/// The recorded launches: (op, width, pattern name, the lanes' words).
fn patterns() -> Vec<(String, u32, String, Vec<u32>)> {
    let text = gunzip(PATTERNS);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("op,width,pattern,idx"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let idx = f[3]
                .split(';')
                .map(|w| {
                    if w == "-" {
                        OFF
                    } else {
                        w.parse().expect("a word")
                    }
                })
                .collect();
            (
                f[0].to_string(),
                f[1].parse().expect("a width"),
                f[2].to_string(),
                idx,
            )
        })
        .collect()
}

#[test]
fn shared_wavefronts_equal_the_h200s_for_every_recorded_lane_pattern() {
    let launches = crate::util::gz_ncu_rows(NCU);
    let patterns = patterns();
    assert_eq!(
        launches.len(),
        patterns.len(),
        "a profiled launch a pattern"
    );
    assert_eq!(patterns.len(), 1104);
    let mut kernels = std::collections::BTreeMap::new();
    let mut paired = 0;
    for ((op, width, name, idx), hw) in patterns.iter().zip(&launches) {
        let store = op == "st";
        let k = kernels.entry((store, *width)).or_insert_with(|| {
            kernels_ir::verify_kernel(probe(store, *width)).expect("the probe verifies")
        });
        let mut gpu = Gpu::new(GpuConfig::h200(), RunOptions::default()).expect("h200 is valid");
        let buf = gpu.alloc(32 * 4);
        gpu.write_u32s(buf, idx).expect("the index buffer");
        let stats = gpu
            .launch(k, Dim3::x(1), Dim3::x(32), &[ParamValue::U64(buf)])
            .expect("the probe runs");
        let sim = stats.metrics();
        for m in [
            format!("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"),
            format!("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"),
            format!("smsp__sass_inst_executed_op_shared_{op}.sum"),
        ] {
            assert_eq!(
                sim.get(m.as_str()),
                hw.get(&m),
                "{op} of {width} bytes, pattern {name}: {m}"
            );
        }
        let wf = hw[&format!("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")];
        // Count the loads the pairing rule changes, so that the test
        // fails if the recording stops exercising it.
        if !store && *width > 4 && wf < half_warp_phases(idx, *width) {
            paired += 1;
        }
    }
    assert!(paired >= 60, "{paired} loads served in wider phases");
}

/// The wavefronts a phase of `128 / width` lanes each (at least one a
/// phase with an active lane) would give at the least: a lower bound that
/// a load the pairing rule serves goes under.
fn half_warp_phases(idx: &[u32], width: u32) -> f64 {
    let per = (128 / width) as usize;
    idx.chunks(per)
        .filter(|c| c.iter().any(|&w| w != OFF))
        .count() as f64
}
