//! Shared atomics against the H200 (`hw/atomics/`): the simulator runs IR
//! versions of the measured CUDA kernels (`hw/atomics/atomics.cu`) and its
//! atomic counters equal the committed Nsight Compute CSV for every
//! one-instruction case; the throughput of the loops and the latency of the
//! dependent chains stay within the tolerances `docs/hardware.md` quotes.

use std::collections::BTreeMap;

use kernels_ir::{Dim3, Kernel, KernelBuilder, ParamType, ParamValue, Special, verify_kernel};
use sim::{Gpu, GpuConfig, KernelStats, RunOptions};
use simsort::calib::ncu;

use crate::util::{read, tests_dir};

/// The measured launches by kernel name (`atom_copies<32, 1>`).
fn measured() -> BTreeMap<String, BTreeMap<String, f64>> {
    let path = tests_dir().join("../hw/atomics/data/atomics_ncu.csv");
    ncu::parse(&read(&path))
        .expect("the committed ncu CSV parses")
        .into_iter()
        .map(|l| {
            let name = l.kernel.trim_start_matches("void ").to_string();
            (name, l.metrics)
        })
        .collect()
}

/// The atomic metrics both sides report.
const ATOM_METRICS: [&str; 4] = [
    "smsp__inst_executed_op_shared_atom.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
];

/// Shared words of the measured kernels' buffer (`32 * 64 + 64`).
const BUF_WORDS: u32 = 32 * 64 + 64;

/// The kernel's IR name for the CUDA name `name` (`atom_copies<32, 1>`
/// becomes `atom_copies_32_1`: IR names are identifiers).
fn ir_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        match c {
            '<' | ',' => out.push('_'),
            ' ' | '>' => {}
            c => out.push(c),
        }
    }
    out
}

/// One warp's atomic `atom.shared.add.u32 old, [word * 4], 1` where lane
/// `l`'s word is `word(l)` built by `address`, guarded by `l < active`.
fn one_atomic(
    name: &str,
    active: u32,
    address: impl FnOnce(&mut KernelBuilder, kernels_ir::Reg),
) -> Kernel {
    let mut b = KernelBuilder::new(ir_name(name));
    b.shared(4 * BUF_WORDS, 4);
    let (at, old, p) = (b.reg32(), b.reg32(), b.pred());
    address(&mut b, at);
    b.shl(at, at, 2);
    b.setp_lt_u(p, Special::LaneId, active);
    b.when(p).atom_shared_add_u32(old, Some(at), 0, 1);
    b.exit();
    b.build()
}

/// `atom_copies<C, S>`: lane `l` on word `(l % C) * S`.
fn copies(c: u32, s: u32) -> (String, Kernel) {
    let name = format!("atom_copies<{c}, {s}>");
    let k = one_atomic(&name, 32, |b, at| {
        b.and(at, Special::LaneId, i64::from(c - 1));
        b.mul(at, at, i64::from(s));
    });
    (name, k)
}

/// `atom_part<H, C>`: lanes below `H` on word `l % C`.
fn part(h: u32, c: u32) -> (String, Kernel) {
    let name = format!("atom_part<{h}, {c}>");
    let k = one_atomic(&name, h, |b, at| {
        b.and(at, Special::LaneId, i64::from(c - 1));
    });
    (name, k)
}

/// `atom_pairs_one_bank`: lane `l` on word `(l / 2) * 32`.
fn pairs() -> (String, Kernel) {
    let name = "atom_pairs_one_bank".to_string();
    let k = one_atomic(&name, 32, |b, at| {
        b.shr(at, Special::LaneId, 1);
        b.shl(at, at, 5);
    });
    (name, k)
}

fn h200() -> Gpu {
    Gpu::new(GpuConfig::h200(), RunOptions::default()).expect("h200 is valid")
}

fn launch(gpu: &mut Gpu, k: Kernel, grid: u32, block: u32, params: &[ParamValue]) -> KernelStats {
    let name = k.name.clone();
    let k = verify_kernel(k).unwrap_or_else(|e| panic!("{name}: {e}"));
    gpu.launch(&k, Dim3::x(grid), Dim3::x(block), params)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn atomic_counters_equal_the_h200s() {
    let hw = measured();
    let mut kernels: Vec<(String, Kernel)> = [(32, 1), (16, 1), (8, 1), (4, 1), (2, 1), (1, 1)]
        .into_iter()
        .chain([
            (32, 2),
            (32, 4),
            (32, 32),
            (32, 33),
            (16, 2),
            (4, 32),
            (4, 33),
        ])
        .map(|(c, s)| copies(c, s))
        .collect();
    kernels.extend([part(16, 16), part(16, 1), part(1, 1), pairs()]);
    assert_eq!(kernels.len(), 17, "every one-instruction row of the CSV");
    for (name, k) in kernels {
        let want = hw
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is not in the CSV"));
        let got = launch(&mut h200(), k, 1, 32, &[]).metrics();
        for m in ATOM_METRICS {
            assert_eq!(got.get(m), want.get(m), "{name}: {m}");
        }
    }
}

/// `loop_atom<C, S>` (`atomic`) or `loop_ld<C, S>`: 256 threads; zero the
/// buffer; then each thread makes 256 atomics (or loads) on word
/// `(l % C) * S`, four per loop trip as nvcc unrolls it, and adds up the
/// results into `out[gid]`.
fn hot_loop(c: u32, s: u32, atomic: bool) -> Kernel {
    let what = if atomic { "atom" } else { "ld" };
    let mut b = KernelBuilder::new(ir_name(&format!("loop_{what}<{c}, {s}>")));
    let out = b.param("out", ParamType::U64);
    b.shared(4 * BUF_WORDS, 4);
    let (i, at, acc, p) = (b.reg32(), b.reg32(), b.reg32(), b.pred());
    let vals = b.regs32(4);
    let (zero, zeroed, top) = (b.label("zero"), b.label("zeroed"), b.label("top"));
    b.mov(i, Special::TidX);
    b.mov(acc, 0);
    b.bind(zero);
    b.setp_ge_u(p, i, BUF_WORDS);
    b.when(p).bra(zeroed);
    b.shl(at, i, 2);
    b.st_shared_b32(Some(at), 0, acc);
    b.add(i, i, Special::NtidX);
    b.bra(zero);
    b.bind(zeroed);
    b.bar_sync();
    b.and(at, Special::LaneId, i64::from(c - 1));
    b.mul(at, at, i64::from(4 * s));
    b.mov(i, 0);
    b.bind(top);
    for &v in &vals {
        if atomic {
            b.atom_shared_add_u32(v, Some(at), 0, 1);
        } else {
            b.ld_shared_b32(v, Some(at), 0);
        }
    }
    for &v in &vals {
        b.add(acc, acc, v);
    }
    b.add(i, i, 4);
    b.setp_lt_u(p, i, 256);
    b.when(p).bra(top);
    let (gid, off, addr) = (b.reg32(), b.reg64(), b.reg64());
    b.mul(gid, Special::CtaidX, Special::NtidX);
    b.add(gid, gid, Special::TidX);
    b.cvt_u64_u32(off, gid);
    b.shl(off, off, 2);
    b.add(addr, out, off);
    b.st_global_b32(addr, 0, acc);
    b.exit();
    b.build()
}

/// Simulated `sm__cycles_elapsed.max` of one SM's share of the measured
/// grid: the H200 ran 1056 blocks on 132 SMs, 8 per SM in one wave.
fn one_sm_cycles(k: Kernel) -> f64 {
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 1;
    let mut gpu = Gpu::new(cfg, RunOptions::default()).expect("valid");
    let out = gpu.alloc(8 * 256 * 4);
    let s = launch(&mut gpu, k, 8, 256, &[ParamValue::U64(out)]);
    s.metrics()["sm__cycles_elapsed.max"]
}

#[test]
fn atomic_throughput_is_one_wavefront_per_cycle_as_measured() {
    let hw = measured();
    for (c, s) in [(32, 1), (8, 1), (4, 1), (1, 1), (32, 2)] {
        let k = hot_loop(c, s, true);
        let name = format!("loop_atom<{c}, {s}>");
        let measured = hw[&name]["sm__cycles_elapsed.max"];
        let sim = one_sm_cycles(k);
        let err = (sim - measured).abs() / measured;
        println!("{name}: simulated {sim} cycles, H200 {measured}");
        assert!(err < 0.05, "{name}: simulated {sim}, measured {measured}");
    }
}

/// `chain_atom<C>` (`Some(C)`) or `chain_ld` (`None`): one warp, `steps`
/// dependent steps, each address `l % C + (v & pad)` from the previous value
/// `v` (`pad` is 0, so only the dependence matters).
fn chain(copies: Option<u32>, steps: u32) -> Kernel {
    let name = match copies {
        Some(c) => format!("chain_atom_{c}"),
        None => "chain_ld".to_string(),
    };
    let mut b = KernelBuilder::new(name);
    b.shared(4 * 64, 4);
    let (base, v, at, i, pad, p) = (
        b.reg32(),
        b.reg32(),
        b.reg32(),
        b.reg32(),
        b.reg32(),
        b.pred(),
    );
    let top = b.label("top");
    b.and(base, Special::LaneId, i64::from(copies.unwrap_or(32) - 1));
    b.mov(pad, 0);
    b.mov(v, 0);
    b.mov(i, 0);
    b.bind(top);
    b.and(at, v, pad);
    b.add(at, at, base);
    b.shl(at, at, 2);
    if copies.is_some() {
        b.atom_shared_add_u32(v, Some(at), 0, 1);
    } else {
        b.ld_shared_b32(v, Some(at), 0);
    }
    b.add(i, i, 1);
    b.setp_lt_u(p, i, steps);
    b.when(p).bra(top);
    b.exit();
    b.build()
}

/// Simulated cycles per step of a chain (the difference of two lengths, so
/// the launch and the set-up cancel).
fn cycles_per_step(copies: Option<u32>) -> f64 {
    let cycles = |steps| {
        launch(&mut h200(), chain(copies, steps), 1, 32, &[])
            .cycles
            .0 as f64
    };
    (cycles(1024) - cycles(512)) / 512.0
}

/// The measured chain's cycles per step from `latency.txt`.
fn measured_step(name: &str) -> f64 {
    let text = read(&tests_dir().join("../hw/atomics/data/latency.txt"));
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{name},")))
        .unwrap_or_else(|| panic!("{name} is not in latency.txt"));
    line.rsplit(',').next().unwrap().parse().unwrap()
}

#[test]
fn atomic_latency_beyond_a_loads_matches_the_chains() {
    // The chains' address arithmetic differs from the compiled SASS, so the
    // atomic's latency is checked as its excess over the same chain of loads.
    let ld = cycles_per_step(None);
    let hw_ld = measured_step("chain_ld");
    for (c, name) in [(32, "chain_atom_c32"), (1, "chain_atom_c1")] {
        let sim = cycles_per_step(Some(c)) - ld;
        let hw = measured_step(name) - hw_ld;
        let err = (sim - hw).abs() / hw;
        println!("{name}: {sim:.1} cycles a step beyond a load, H200 {hw:.1}");
        assert!(
            err < 0.15,
            "{name}: {sim} cycles beyond a load, measured {hw}"
        );
    }
}
