//! Counter figures from whole launches, against `hardware.md`'s measured
//! H200 values and the wavefront and sector rules.

use kernels_ir::kernels::examples;
use kernels_ir::{Dim3, KernelBuilder, Opcode, ParamValue, RegList, Special};

use super::util::{gpu, launch_ir, metric, verified};
use crate::{GpuConfig, KernelStats};

fn one_warp(
    cfg: &GpuConfig,
    k: kernels_ir::Kernel,
    params: impl FnOnce(&mut crate::Gpu) -> Vec<ParamValue>,
) -> KernelStats {
    let k = verified(k);
    let mut g = gpu(cfg.clone());
    let params = params(&mut g);
    g.launch(&k, Dim3::x(1), Dim3::x(cfg.warp_size), &params)
        .unwrap()
}

fn smem_stride(cfg: &GpuConfig, stride: u32) -> KernelStats {
    one_warp(cfg, examples::smem_stride(stride, cfg.warp_size), |g| {
        vec![ParamValue::U64(g.alloc(4096))]
    })
}

#[test]
fn shared_strides_give_the_measured_wavefronts() {
    let cfg = GpuConfig::h200();
    let expect = [
        (1, 1),
        (2, 2),
        (3, 1),
        (4, 4),
        (8, 8),
        (16, 16),
        (32, 32),
        (33, 1),
        (64, 32),
    ];
    for (stride, wavefronts) in expect {
        let s = smem_stride(&cfg, stride);
        assert_eq!((s.smem_ld_inst, s.smem_st_inst), (1, 1), "stride {stride}");
        assert_eq!(s.smem_ld_wavefronts, wavefronts, "loads, stride {stride}");
        assert_eq!(s.smem_st_wavefronts, wavefronts, "stores, stride {stride}");
        assert_eq!(s.smem_ld_bank_conflicts, wavefronts - 1, "stride {stride}");
        assert_eq!(s.smem_st_bank_conflicts, wavefronts - 1, "stride {stride}");
        let ld = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
        assert_eq!(metric(&s, ld), wavefronts as f64);
        let conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
        assert_eq!(metric(&s, conflicts), (wavefronts - 1) as f64);
    }
}

#[test]
fn bank_count_and_warp_width_come_from_the_config() {
    let mut cfg = GpuConfig::h200();
    cfg.warp_size = 16;
    cfg.smem_banks = 16;
    for (stride, wavefronts) in [(1, 1), (2, 2), (16, 16), (17, 1), (32, 16)] {
        assert_eq!(
            smem_stride(&cfg, stride).smem_ld_wavefronts,
            wavefronts,
            "stride {stride}"
        );
    }
    // Warps of 64 on 32 banks: the 256 bytes of a unit-stride access take two wavefronts.
    cfg.warp_size = 64;
    cfg.smem_banks = 32;
    let s = smem_stride(&cfg, 1);
    assert_eq!((s.smem_ld_wavefronts, s.smem_ld_bank_conflicts), (2, 0));
}

/// One warp: lane `l` loads `bytes` at shared byte `l * stride_bytes`
/// (modulo 4096) or, with `same`, all lanes at byte 64.
fn shared_load(bytes: u32, stride_bytes: u32, same: bool) -> KernelStats {
    shared_load_on(&GpuConfig::h200(), bytes, stride_bytes, same)
}

/// [`shared_load`] on machine `cfg`.
fn shared_load_on(cfg: &GpuConfig, bytes: u32, stride_bytes: u32, same: bool) -> KernelStats {
    let mut b = KernelBuilder::new("ld");
    let sh = b.shared(4096 + 64, 16);
    let (a, dst) = (b.reg32(), b.regs32(4));
    if same {
        b.mov(a, 64);
    } else {
        b.mul(a, Special::LaneId, i64::from(stride_bytes));
        b.and(a, a, 4095);
    }
    let (op, regs) = match bytes {
        4 => (Opcode::LdSharedB32, &dst[..1]),
        8 => (Opcode::LdSharedB64, &dst[..2]),
        _ => (Opcode::LdSharedB128, &dst[..4]),
    };
    b.load(op, RegList::new(regs), Some(a), sh as i32);
    b.exit();
    one_warp(cfg, b.build(), |_| vec![])
}

#[test]
fn without_paired_loads_a_wide_broadcast_keeps_the_phases_of_its_width() {
    // `smem_paired_loads` 0: half-warps for 64-bit, quarter-warps for
    // 128-bit, one wavefront each, as for a store.
    let mut cfg = GpuConfig::h200();
    cfg.smem_paired_loads = 0;
    for (bytes, wavefronts) in [(4, 1), (8, 2), (16, 4)] {
        let s = shared_load_on(&cfg, bytes, 0, true);
        assert_eq!(
            (s.smem_ld_wavefronts, s.smem_ld_bank_conflicts),
            (wavefronts, 0),
            "{bytes} bytes"
        );
    }
}

#[test]
fn broadcasts_cost_one_wavefront_per_phase() {
    // 32-bit: the whole warp is one phase. 64- and 128-bit phases are
    // half- and quarter-warps, but a broadcast load pairs every lane with
    // its neighbour, which doubles them (crate::shared_pairs): the whole
    // warp and half-warps, as the H200 counts it
    // (hw/data/h200/smem_patterns/, pattern `same`).
    for (bytes, wavefronts) in [(4, 1), (8, 1), (16, 2)] {
        let s = shared_load(bytes, 0, true);
        assert_eq!(
            (s.smem_ld_wavefronts, s.smem_ld_bank_conflicts),
            (wavefronts, 0),
            "{bytes} bytes"
        );
    }
}

#[test]
fn wide_shared_accesses_follow_their_phases() {
    // (bytes, stride in bytes) -> (wavefronts, conflicts)
    let expect = [
        ((8, 8), (2, 0)),
        ((8, 16), (4, 2)),
        ((8, 256), (32, 30)),
        ((16, 16), (4, 0)),
        ((16, 32), (8, 4)),
        ((16, 128), (32, 28)),
    ];
    for ((bytes, stride), (wavefronts, conflicts)) in expect {
        let s = shared_load(bytes, stride, false);
        assert_eq!(
            (s.smem_ld_wavefronts, s.smem_ld_bank_conflicts),
            (wavefronts, conflicts),
            "{bytes}-byte loads at stride {stride}"
        );
    }
}

#[test]
fn global_strides_give_the_measured_sectors_per_request() {
    let cfg = GpuConfig::h200();
    for (stride, sectors) in [(1, 4), (2, 8), (8, 32), (32, 32)] {
        let s = one_warp(&cfg, examples::gmem_stride(stride), |g| {
            let (src, dst) = (g.alloc(32 * 4 * u64::from(stride)), g.alloc(128));
            vec![
                ParamValue::U64(src),
                ParamValue::U64(dst),
                ParamValue::U32(32),
            ]
        });
        assert_eq!(
            (s.gmem_ld_requests, s.gmem_ld_sectors),
            (1, sectors),
            "stride {stride}"
        );
        assert_eq!(
            (s.gmem_st_requests, s.gmem_st_sectors),
            (1, 4),
            "stride {stride}"
        );
        let per_request = metric(&s, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
            / metric(&s, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
        assert_eq!(per_request, sectors as f64);
    }
}

#[test]
fn wide_global_accesses_touch_their_sectors() {
    let cfg = GpuConfig::h200();
    let s = one_warp(&cfg, examples::vcopy4(), |g| {
        let (src, dst) = (g.alloc(512), g.alloc(512));
        vec![
            ParamValue::U64(src),
            ParamValue::U64(dst),
            ParamValue::U32(32),
        ]
    });
    assert_eq!((s.gmem_ld_sectors, s.gmem_st_sectors), (16, 16));
    // A warp whose lanes are partly guarded off requests only their sectors.
    let s = one_warp(&cfg, examples::vcopy(), |g| {
        let (src, dst) = (g.alloc(512), g.alloc(512));
        vec![
            ParamValue::U64(src),
            ParamValue::U64(dst),
            ParamValue::U32(9),
        ]
    });
    assert_eq!((s.gmem_ld_requests, s.gmem_ld_sectors), (1, 2));
}

#[test]
fn instruction_counts_and_cmpx_counting() {
    let mut b = KernelBuilder::new("k");
    let (x, y) = (b.reg32(), b.reg32());
    b.mov(x, Special::LaneId);
    b.mov(y, 3);
    b.cmpx_u(x, y);
    b.exit();
    let s = one_warp(&GpuConfig::h200(), b.build(), |_| vec![]);
    // mov, mov, cmpx (two SASS min/max instructions), exit
    assert_eq!(s.inst_executed, 5);
    assert_eq!(s.issue_active, 5);
    assert_eq!(s.thread_inst_executed, 5 * 32);
    assert_eq!(
        s.per_pc.iter().map(|p| p.inst_executed).collect::<Vec<_>>(),
        [1, 1, 2, 1]
    );
    assert_eq!(metric(&s, "smsp__inst_executed.sum"), 5.0);
}

/// One block of `hw/calib/kernels/guard_shared.kir` (`block` threads):
/// `steps` dependent shared loads a thread, guarded by
/// `i + 2^20 * warp < on`.
fn guard_shared(block: u32, steps: u32, on: u32) -> KernelStats {
    let text = include_str!("../../../hw/calib/kernels/guard_shared.kir");
    launch_ir(GpuConfig::h200(), "guard_shared.kir", text, 1, block, |g| {
        vec![
            ParamValue::U32(steps),
            ParamValue::U32(on),
            ParamValue::U64(g.alloc(4)),
        ]
    })
}

#[test]
fn a_shared_load_guarded_off_in_every_lane_is_timed_but_not_counted() {
    // hw/calib/suite_guard.txt on the H200: `gs_off_w1` issues 100 `LDS`
    // guarded off in every lane and counts 0 shared loads, `gs_on_w1` 100;
    // both take the same cycles (7,608 and 7,714), the guarded-off load
    // costing the warp what a real one does.
    let (off, on) = (guard_shared(32, 100, 0), guard_shared(32, 100, 100));
    assert_eq!((off.smem_ld_inst, on.smem_ld_inst), (0, 100));
    assert_eq!(off.inst_executed, on.inst_executed);
    assert_eq!(off.cycles, on.cycles);
    // `gs_mix_b1`: warp 0 of 8 loads, the others are guarded off: 100.
    assert_eq!(guard_shared(256, 100, 100).smem_ld_inst, 100);
}
