//! Helpers shared by the launch tests.

use kernels_ir::interp::Interp;
use kernels_ir::{Device, Dim3, Kernel, ParamType, ParamValue, VerifiedKernel, verify_kernel};

use crate::{Gpu, GpuConfig, KernelStats, RunOptions, StallReason};

/// Verifies `k` or panics with every error.
pub fn verified(k: Kernel) -> VerifiedKernel {
    let name = k.name.clone();
    verify_kernel(k).unwrap_or_else(|e| panic!("{name} does not verify:\n{e}"))
}

/// A GPU of `cfg` with default run options.
pub fn gpu(cfg: GpuConfig) -> Gpu {
    Gpu::new(cfg, RunOptions::default()).expect("valid config")
}

/// `cfg` without the launch's fixed costs (`launch_overhead_cycles`,
/// `memory_launch_cycles`, `launch_all_sms_cycles`, and the first fetch
/// they hold, `warp_start_fetch_cycles`), so a launch's cycles are its
/// blocks' work alone.
pub fn without_launch_costs(mut cfg: GpuConfig) -> GpuConfig {
    cfg.launch_overhead_cycles = 0;
    cfg.memory_launch_cycles = 0;
    cfg.launch_all_sms_cycles = 0;
    cfg.warp_start_fetch_cycles = 0;
    cfg
}

/// Parses and verifies the IR `text` (`name` in its errors) and launches
/// it once on a fresh GPU of `cfg` over `grid` blocks of `block` threads,
/// with the parameters `params` makes (allocating their buffers on that
/// GPU).
pub fn launch_ir(
    cfg: GpuConfig,
    name: &str,
    text: &str,
    grid: u32,
    block: u32,
    params: impl FnOnce(&mut Gpu) -> Vec<ParamValue>,
) -> KernelStats {
    let (k, _) = kernels_ir::parser::parse_and_verify(name, text)
        .unwrap_or_else(|e| panic!("{name} does not verify: {e:?}"));
    let mut g = gpu(cfg);
    let params = params(&mut g);
    g.launch(&k, Dim3::x(grid), Dim3::x(block), &params)
        .expect("the launch runs")
}

/// A small deterministic generator (xorshift), so tests need no crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Launches `k` on the simulator and the interpreter with the same
/// buffers: every `u64` parameter gets a buffer of `buf_bytes` random bytes,
/// every `u32` parameter the value `n`. Returns the simulator's stats and
/// both devices' final buffer contents.
pub fn run_both(
    cfg: &GpuConfig,
    k: &VerifiedKernel,
    grid: Dim3,
    block: Dim3,
    buf_bytes: u64,
    n: u32,
    seed: u64,
) -> (KernelStats, Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut sim = gpu(cfg.clone());
    let mut interp = Interp::new(cfg.warp_size).unwrap();
    let mut rng = Rng(seed | 1);
    let mut params = Vec::new();
    let mut bufs = Vec::new();
    for p in &k.kernel().params {
        match p.ty {
            ParamType::U64 => {
                let data: Vec<u8> = (0..buf_bytes).map(|_| rng.next() as u8).collect();
                let a = sim.alloc(buf_bytes);
                assert_eq!(interp.alloc(buf_bytes), a, "same addresses on both");
                sim.write_bytes(a, &data).unwrap();
                interp.write_bytes(a, &data).unwrap();
                params.push(ParamValue::U64(a));
                bufs.push(a);
            }
            ParamType::U32 => params.push(ParamValue::U32(n)),
        }
    }
    let stats = sim
        .launch(k, grid, block, &params)
        .unwrap_or_else(|e| panic!("{}: simulator: {e}", k.kernel().name));
    interp
        .launch(k, grid, block, &params)
        .unwrap_or_else(|e| panic!("{}: interpreter: {e}", k.kernel().name));
    let read = |d: &dyn Fn(u64) -> Vec<u8>| bufs.iter().map(|&a| d(a)).collect::<Vec<_>>();
    let s = read(&|a| sim.read_bytes(a, buf_bytes).unwrap());
    let i = read(&|a| interp.read_bytes(a, buf_bytes).unwrap());
    (stats, s, i)
}

/// The metric `name` of `stats`.
pub fn metric(stats: &KernelStats, name: &str) -> f64 {
    *stats
        .metrics()
        .get(name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// The warp-cycles the loads (shared and global) of the kernel in `text`
/// (called `name`) waited in `reason` over a launch that gave `stats`.
pub fn at_loads(name: &str, text: &str, stats: &KernelStats, reason: StallReason) -> u64 {
    let (k, _) = kernels_ir::parser::parse_and_verify(name, text).expect("verifies");
    (k.kernel().insts.iter().enumerate())
        .filter(|(_, i)| matches!(i.data, kernels_ir::InstData::Load { .. }))
        .map(|(pc, _)| stats.per_pc[pc].stalls[reason.index()])
        .sum()
}
