//! The host schedule, generic over any [`Device`]: copy the keys in, run
//! the launches of [`super::schedule::plan`], read the keys back.
//!
//! Padding is count-aware. The network is the bitonic merge sort in its
//! *flip* form (as HotSort's merges): the first step of each stage pairs a
//! key with its mirror in the span instead of reversing the direction of
//! every other run, so every run is ascending and maximum keys appended at
//! the end never move. A compare-exchange whose upper key is such a
//! padding key changes nothing, so the padding past the filled words (see
//! [`super::schedule::filled`]) stays virtual: it is neither stored, loaded
//! nor compared, and blocks made only of it are not launched.

use super::config::BitonicConfig;
use super::schedule::{Planned, filled, plan};
use crate::{KernelMarks, Key, Launch, SortError, SortRun};
use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel, verify_kernel};

/// The verified kernels of one configuration with their marks.
pub struct Bitonic {
    cfg: BitonicConfig,
    /// `fill`, `head`, `step`, `tail` (the plain sort: `fill`, `step`).
    kernels: Vec<(VerifiedKernel, KernelMarks)>,
}

fn verified<E: std::error::Error>(
    (k, marks): (kernels_ir::Kernel, KernelMarks),
) -> Result<(VerifiedKernel, KernelMarks), SortError<E>> {
    let kernel = k.name.clone();
    verify_kernel(k)
        .map(|v| (v, marks))
        .map_err(|errors| SortError::Verify { kernel, errors })
}

impl Bitonic {
    /// Checks the rules of `cfg`, generates and verifies its kernels.
    pub fn new<E: std::error::Error>(cfg: &BitonicConfig) -> Result<Bitonic, SortError<E>> {
        let problems = cfg.check_rules();
        if !problems.is_empty() {
            return Err(SortError::Config(
                problems.into_iter().map(crate::ConfigError).collect(),
            ));
        }
        let kernels = super::generate_marked(cfg)
            .into_iter()
            .map(verified)
            .collect::<Result<_, _>>()?;
        Ok(Bitonic {
            cfg: cfg.clone(),
            kernels,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &BitonicConfig {
        &self.cfg
    }

    /// Every verified kernel with its marks, in launch order.
    pub fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        self.kernels.iter().map(|(k, m)| (k, m)).collect()
    }

    fn kernel(&self, name: &str) -> &VerifiedKernel {
        let found = self.kernels.iter().find(|(k, _)| k.kernel().name == name);
        &found
            .expect("the schedule launches only generated kernels")
            .0
    }

    /// Sorts `keys` on `dev`.
    pub fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        let cfg = &self.cfg;
        crate::check_run(&*dev, keys.len(), K::BITS, cfg.key_bits, cfg.warp)?;
        let n = keys.len() as u64;
        let mut launches = Vec::new();
        if n <= 1 {
            return Ok(SortRun {
                sorted: keys.to_vec(),
                launches,
            });
        }
        let words = filled(cfg, n);
        let buf = dev.alloc(words * u64::from(cfg.key_bytes()));
        K::write(dev, buf, keys).map_err(SortError::Device)?;
        let kp = ParamValue::U64(buf);
        let u = |v: u64| ParamValue::U32(v as u32);
        let nv = words / u64::from(cfg.vector);
        let g = cfg.block_threads;
        for launch in plan(cfg, n) {
            let label = launch.label();
            let (name, grid, block, params) = match launch {
                Planned::Fill { start, end } => {
                    let grid = (end - start).div_ceil(u64::from(g));
                    ("fill", grid, g, vec![kp, u(start), u(end)])
                }
                Planned::Head { tiles, threads } => ("head", tiles, threads, vec![kp]),
                Planned::Step {
                    s,
                    flip,
                    pre,
                    post,
                    blocks,
                    ..
                } => {
                    let mut params = vec![kp, u(nv)];
                    params.extend(super::step::params(s, flip).map(ParamValue::U32));
                    params.extend([flip, pre, post].map(|f| u(u64::from(f))));
                    ("step", blocks, g, params)
                }
                Planned::Tail { tiles, .. } => ("tail", tiles, g, vec![kp]),
            };
            let (grid, block) = (Dim3::x(grid as u32), Dim3::x(block));
            dev.label_next_launch(&label);
            let stats = dev
                .launch(self.kernel(name), grid, block, &params)
                .map_err(SortError::Device)?;
            launches.push(Launch {
                name,
                label,
                grid,
                block,
                stats,
            });
        }
        let sorted = K::read(dev, buf, keys.len()).map_err(SortError::Device)?;
        Ok(SortRun { sorted, launches })
    }
}

/// Sorts `keys` on `dev` with the kernels of `cfg` (generated and verified
/// for this call).
pub fn sort<D: Device, K: Key>(
    dev: &mut D,
    cfg: &BitonicConfig,
    keys: &[K],
) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
    Bitonic::new(cfg)?.sort(dev, keys)
}
