//! Simulator speed: simulated warp instructions and cycles per host second
//! on a compute-heavy and a memory-heavy kernel, on the full H200 preset.
//!
//! Run with `cargo bench -p sim --bench speed` (one host thread, the
//! `RunOptions` default: the single-thread rate). Prints one line per
//! kernel: each is launched [`LAUNCHES`] times (every launch simulates the
//! same, checked) and the median rate is reported, with the fastest, the
//! slowest and the first. Rates are per second of CPU time the process got (from
//! `/proc/self/schedstat`, so a loaded machine distorts them less), or of
//! wall time where that is missing.

use std::time::Instant;

use kernels_ir::{
    Dim3, KernelBuilder, Opcode, ParamType, ParamValue, RegList, Special, verify_kernel,
};
use sim::{Gpu, GpuConfig, KernelStats, RunOptions};

/// Each thread loads 16 keys, sorts them with an odd-even transposition
/// network of `cmpx` (120 compare-exchanges), merges across lanes with
/// shuffles, and stores them back: the shape of HotSort's block sort.
fn compute_kernel() -> kernels_ir::Kernel {
    let mut b = KernelBuilder::new("sort16");
    let buf = b.param("buf", ParamType::U64);
    let keys = b.regs32(16);
    let (tid, off, addr, tmp, p) = (b.reg32(), b.reg64(), b.reg64(), b.reg32(), b.pred());
    b.mul(tid, Special::CtaidX, Special::NtidX);
    b.add(tid, tid, Special::TidX);
    b.cvt_u64_u32(off, tid);
    b.shl(off, off, 6);
    b.add(addr, buf, off);
    for i in 0..4 {
        b.load(
            Opcode::LdGlobalB128,
            RegList::new(&keys[4 * i..4 * i + 4]),
            Some(addr),
            16 * i as i32,
        );
    }
    for round in 0..16 {
        for i in (round % 2..15).step_by(2) {
            b.cmpx_u(keys[i], keys[i + 1]);
        }
    }
    for mask in [1, 2, 4, 8, 16] {
        b.and(tmp, Special::LaneId, mask);
        b.setp_ne(p, tmp, 0);
        for &k in &keys {
            b.shfl(Opcode::ShflXor, tmp, k, i64::from(mask), 32);
            b.when(p).max_u(k, k, tmp);
            b.unless(p).min_u(k, k, tmp);
        }
    }
    for i in 0..4 {
        b.store(
            Opcode::StGlobalB128,
            Some(addr),
            16 * i as i32,
            RegList::new(&keys[4 * i..4 * i + 4]),
        );
    }
    b.exit();
    b.build()
}

/// CPU time this process has used, in seconds, if the OS says.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Launches per kernel: the median rate is reported (the first launch
/// also pays one-time costs such as faulting in the L2's and the output's
/// pages, and a busy host slows single launches).
const LAUNCHES: usize = 5;

fn run(
    name: &str,
    gpu: &mut Gpu,
    k: &kernels_ir::VerifiedKernel,
    grid: u32,
    block: u32,
    params: &[ParamValue],
) -> KernelStats {
    let mut times = Vec::new();
    let mut first: Option<KernelStats> = None;
    for _ in 0..LAUNCHES {
        let (wall, cpu) = (Instant::now(), cpu_seconds());
        let s = gpu
            .launch(k, Dim3::x(grid), Dim3::x(block), params)
            .expect("launch");
        times.push(match (cpu, cpu_seconds()) {
            (Some(a), Some(b)) => b - a,
            _ => wall.elapsed().as_secs_f64(),
        });
        let same = first.as_ref().is_none_or(|f| {
            (f.inst_executed, f.cycles, f.stall_map()) == (s.inst_executed, s.cycles, s.stall_map())
        });
        assert!(same, "{name}: every launch simulates the same");
        first.get_or_insert(s);
    }
    let s = first.expect("at least one launch");
    let rate = |secs: f64| s.inst_executed as f64 / secs / 1e6;
    let first_secs = times[0];
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "{name:>8}: {:>10} warp instructions, {:>6} cycles, IPC {:.1}; median of {LAUNCHES} launches {median:.3} s: {:.2} M warp instructions/s, {:.3} M cycles/s (fastest {:.2}, slowest {:.2}, first {:.2})",
        s.inst_executed,
        s.cycles.0,
        s.inst_executed as f64 / s.cycles.0 as f64,
        rate(median),
        s.cycles.0 as f64 / median / 1e6,
        rate(times[0]),
        rate(times[times.len() - 1]),
        rate(first_secs),
    );
    s
}

fn main() {
    // `cargo bench -p sim --bench speed -- compute` runs only the kernels
    // whose names contain an argument (cargo's own `--bench` is ignored).
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let mut gpu = Gpu::new(GpuConfig::h200(), RunOptions::default()).expect("h200");

    let k = verify_kernel(compute_kernel()).expect("verifies");
    let (grid, block) = (132 * 8, 256);
    let buf = gpu.alloc(u64::from(grid * block) * 64);
    wanted("compute").then(|| {
        run(
            "compute",
            &mut gpu,
            &k,
            grid,
            block,
            &[ParamValue::U64(buf)],
        )
    });

    let k = verify_kernel(kernels_ir::kernels::examples::vcopy()).expect("verifies");
    let n: u32 = 1 << 23;
    let (src, dst) = (gpu.alloc(u64::from(n) * 4), gpu.alloc(u64::from(n) * 4));
    // The host fills the input before a launch, as a real run does (the
    // first touch of its pages is not the simulator's work); the output's
    // pages are first touched by the kernel, and counted.
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    gpu.write_u32s(src, &input).expect("input fits");
    let params = [
        ParamValue::U64(src),
        ParamValue::U64(dst),
        ParamValue::U32(n),
    ];
    wanted("memory").then(|| run("memory", &mut gpu, &k, n / 256, 256, &params));

    let k = verify_kernel(kernels_ir::kernels::examples::reduce(32)).expect("verifies");
    let params = [
        ParamValue::U64(src),
        ParamValue::U64(dst),
        ParamValue::U32(n),
    ];
    wanted("reduce").then(|| run("reduce", &mut gpu, &k, n / 1024, 1024, &params));
}
