//! Shared atomics on whole launches: the old values equal the reference
//! interpreter's (lanes in ascending order), the counters follow the
//! no-broadcast rule, the old value is ready after the atomic latency plus
//! the replays, and bad addresses fault like shared loads.

use kernels_ir::{Dim3, Kernel, KernelBuilder, ParamType, Special};

use super::util::{gpu, metric, run_both, verified};
use crate::{FaultKind, GpuConfig, SimError};

/// `rank(out)`: one warp per block; lane `l` adds `l + 1` to word
/// `l % copies` (lanes whose `l % 3 == 2` are guarded off) and writes the
/// old value to `out[gid]`; then lane 0 writes the totals after them. Old
/// values depend only on the lane order within the warp.
fn rank(copies: u32, warp: u32) -> Kernel {
    let mut b = KernelBuilder::new(format!("rank_{copies}"));
    let out = b.param("out", ParamType::U64);
    let words = b.shared(4 * copies, 4);
    let (at, inc, old, gid, p) = (b.reg32(), b.reg32(), b.reg32(), b.reg32(), b.pred());
    let (off, addr) = (b.reg64(), b.reg64());
    assert!(copies.is_power_of_two());
    b.and(at, Special::LaneId, i64::from(copies - 1));
    b.shl(at, at, 2);
    b.add(inc, Special::LaneId, 1);
    b.mov(old, 0xDEAD);
    b.and(gid, Special::LaneId, 3);
    b.setp_eq(p, gid, 2);
    b.unless(p)
        .atom_shared_add_u32(old, Some(at), words as i32, inc);
    // The same word again, from an immediate: the second pass sees the first.
    b.atom_shared_add_u32(inc, Some(at), words as i32, 1000);
    b.mul(gid, Special::CtaidX, i64::from(2 * warp));
    b.add(gid, gid, Special::LaneId);
    b.cvt_u64_u32(off, gid);
    b.shl(off, off, 2);
    b.add(addr, out, off);
    b.st_global_b32(addr, 0, old);
    b.st_global_b32(addr, 4 * warp as i32, inc);
    b.exit();
    b.build()
}

#[test]
fn old_values_match_the_interpreter_at_every_width() {
    for warp in [4, 8, 32, 64] {
        let mut cfg = GpuConfig::tiny();
        cfg.warp_size = warp;
        cfg.smem_banks = 8.min(warp);
        for copies in [1, 2, 4] {
            let k = verified(rank(copies, warp));
            let bytes = 4 * 2 * u64::from(warp) * 3;
            let (stats, sim, interp) = run_both(&cfg, &k, Dim3::x(3), Dim3::x(warp), bytes, 0, 5);
            assert!(
                sim == interp,
                "warp {warp}, {copies} copies: memory differs"
            );
            assert_eq!(stats.smem_atom_inst, 6, "warp {warp}");
            // Lane 1 (never guarded off) saw lane 0's addition when they share a word.
            let out: Vec<u32> = sim[0]
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let want = if copies == 1 { 1 } else { 0 };
            assert_eq!(out[1], want, "warp {warp}, {copies} copies");
        }
    }
}

/// One atomic by a full warp of the H200 on word `(l % copies) * stride`,
/// lanes below `active` only.
fn one_atomic(copies: u64, stride: u64, active: u32) -> crate::KernelStats {
    let cfg = GpuConfig::h200();
    let mut b = KernelBuilder::new("atom");
    b.shared(4 * 33 * 32, 4);
    let (at, old, p) = (b.reg32(), b.reg32(), b.pred());
    b.and(at, Special::LaneId, (copies - 1) as i64);
    b.mul(at, at, (4 * stride) as i64);
    b.setp_lt_u(p, Special::LaneId, active);
    b.when(p).atom_shared_add_u32(old, Some(at), 0, 1);
    let k = verified(b.build());
    let mut g = gpu(cfg);
    g.launch(&k, Dim3::x(1), Dim3::x(32), &[]).unwrap()
}

#[test]
fn wavefronts_count_every_lane_request() {
    for (copies, stride, active, wavefronts) in [
        (32, 1, 32, 1),
        (1, 1, 32, 32),
        (4, 1, 32, 8),
        (32, 2, 32, 2),
        (4, 32, 32, 32),
        (1, 1, 16, 16),
        (1, 1, 1, 1),
    ] {
        let s = one_atomic(copies, stride, active);
        let what = format!("{copies} copies, stride {stride}, {active} lanes");
        assert_eq!(s.smem_atom_inst, 1, "{what}");
        assert_eq!(
            (s.smem_atom_wavefronts, s.smem_atom_bank_conflicts),
            (wavefronts, wavefronts - 1),
            "{what}"
        );
        let m = |name: &str| metric(&s, name);
        assert_eq!(m("smsp__inst_executed_op_shared_atom.sum"), 1.0);
        assert_eq!(
            m("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
            wavefronts as f64
        );
        assert_eq!(
            m("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"),
            wavefronts as f64,
            "the total includes atomics"
        );
        assert_eq!(
            m("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"),
            (wavefronts - 1) as f64
        );
    }
}

#[test]
fn kernels_without_atomics_report_no_atomic_metrics() {
    let mut b = KernelBuilder::new("plain");
    b.exit();
    let k = verified(b.build());
    let s = gpu(GpuConfig::h200())
        .launch(&k, Dim3::x(1), Dim3::x(32), &[])
        .unwrap();
    assert!(
        s.metrics()
            .keys()
            .all(|k| !k.contains("atom") && !k.ends_with("mem_shared.sum")),
        "{:?}",
        s.metrics().keys()
    );
}

/// Cycles of one warp of `tiny` running `n` dependent atomics on word
/// `(l % copies) * 4`, each address taken from the previous old value.
fn chain_cycles(copies: u32, n: usize) -> u64 {
    let mut b = KernelBuilder::new("chain");
    b.shared(4 * 8, 4);
    let (at, old) = (b.reg32(), b.reg32());
    b.and(at, Special::LaneId, i64::from(copies - 1));
    b.shl(at, at, 2);
    for _ in 0..n {
        b.atom_shared_add_u32(old, Some(at), 0, 0);
        b.add(at, at, old); // old stays 0: the chain's dependence only
    }
    let k = verified(b.build());
    let cfg = GpuConfig::tiny();
    let mut g = gpu(cfg.clone());
    g.launch(&k, Dim3::x(1), Dim3::x(cfg.warp_size), &[])
        .unwrap()
        .cycles
        .0
}

#[test]
fn the_old_value_waits_for_the_atomic_latency_and_its_replays() {
    let cfg = GpuConfig::tiny();
    let (lat, replay, alu) = (
        u64::from(cfg.smem_atom_latency_cycles),
        u64::from(cfg.smem_atom_replay_cycles),
        u64::from(cfg.alu_latency_cycles),
    );
    // Each further step of the chain adds the atomic's latency (plus its
    // replays: `warp_size / copies` wavefronts) and the add's.
    let warp = u64::from(cfg.warp_size);
    for copies in [8, 1] {
        let step = chain_cycles(copies, 5) - chain_cycles(copies, 4);
        let replays = warp / u64::from(copies) - 1;
        assert_eq!(step, lat + replays * replay + alu, "{copies} copies");
    }
}

#[test]
fn misaligned_and_out_of_bounds_atomics_fault_like_loads() {
    for (offset, misaligned) in [(2, true), (64, false)] {
        let mut b = KernelBuilder::new("bad");
        b.shared(64, 4);
        let (at, old) = (b.reg32(), b.reg32());
        b.mov(at, 0);
        b.atom_shared_add_u32(old, Some(at), offset, 1);
        let k = verified(b.build());
        let err = gpu(GpuConfig::tiny())
            .launch(&k, Dim3::x(1), Dim3::x(8), &[])
            .unwrap_err();
        let msg = err.to_string();
        let SimError::Fault(f) = err else {
            panic!("expected a fault: {msg}")
        };
        match f.kind {
            FaultKind::Misaligned { bytes: 4, .. } => assert!(misaligned, "{msg}"),
            FaultKind::SharedOutOfBounds { bytes: 4, .. } => assert!(!misaligned, "{msg}"),
            other => panic!("{other:?}: {msg}"),
        }
        assert_eq!((f.lane, f.pc), (0, 1), "{msg}");
        assert!(msg.contains("atom.shared.add.u32"), "{msg}");
    }
}

#[test]
fn an_atomic_with_no_active_lane_does_nothing() {
    let s = one_atomic(1, 1, 0);
    assert_eq!((s.smem_atom_inst, s.smem_atom_wavefronts), (1, 0));
}

#[test]
fn traces_mark_atomics_as_their_own_kind_of_shared_access() {
    use traces::{AccessKind, Event};
    let k = verified(kernels_ir::kernels::examples::histogram());
    let mut g = gpu(GpuConfig::tiny());
    let (src, dst) = (g.alloc(4 * 64), g.alloc(4 * 2 * 64));
    g.write_u32s(src, &(0..64).map(|i| i % 3).collect::<Vec<u32>>())
        .unwrap();
    let params = [
        kernels_ir::ParamValue::U64(src),
        kernels_ir::ParamValue::U64(dst),
        kernels_ir::ParamValue::U32(64),
    ];
    let mut sink = crate::VecSink {
        focus: Some((1, 0)),
        ..crate::VecSink::default()
    };
    let s = g
        .launch_traced(&k, Dim3::x(2), Dim3::x(32), &params, &mut sink)
        .unwrap();
    let atomics: Vec<(u32, u32)> = sink
        .events
        .iter()
        .filter_map(|e| match e {
            Event::SharedAccess {
                kind: AccessKind::Atomic,
                block: 1,
                wavefronts,
                conflicts,
                ..
            } => Some((*wavefronts, *conflicts)),
            _ => None,
        })
        .collect();
    // Block 1's four warps of 8 lanes: keys 32..64 % 3 put 2 or 3 lanes on
    // each of three words of three banks.
    assert_eq!(atomics.len(), 4, "{atomics:?}");
    let traced: u64 = atomics.iter().map(|&(w, _)| u64::from(w)).sum();
    assert_eq!(2 * traced, s.smem_atom_wavefronts, "both blocks alike");
    assert!(
        atomics.iter().all(|&(w, c)| w == 3 && c == 2),
        "{atomics:?}"
    );
}
