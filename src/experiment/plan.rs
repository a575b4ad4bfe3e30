//! The launches of a sort before it runs. A host schedule (HotSort's)
//! depends only on the key count and the configuration, never on key values, so a
//! dry run on a device that executes nothing lists every launch. A schedule
//! that depends on key values (GPUTeraSort's refinement re-sorts tied
//! prefixes) runs [`sorts::Algorithm::dry_run`] instead: the dry device
//! reads back zeros, all keys tie, and the plan holds the most launches any
//! input makes (the progress bar's total is then an upper bound; each
//! kernel's block is checked all the same). That list
//! lets a sort be checked against the machine up front (every kernel's block
//! must fit one SM: threads, registers, shared memory) and gives the
//! progress bar its total work.

use std::convert::Infallible;

use crate::calib::recorder::DryDevice;

use kernels_ir::{Device, Dim3, LaunchHook, ParamValue, VerifiedKernel};
use sim::Gpu;
use sorts::SortError;

use super::sort::Sorter;

/// One launch the sort will make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedLaunch {
    /// The kernel's name (`bs`, `fm`, ...).
    pub name: &'static str,
    /// The grid.
    pub grid: Dim3,
    /// The block.
    pub block: Dim3,
    /// Estimated work: warps launched times the kernel's static instruction
    /// count. HotSort's kernels are mostly straight-line sorting networks,
    /// so this tracks simulation time well enough for an ETA.
    pub work: u64,
}

/// A device that records launches and checks each kernel's block against
/// the machine, executing nothing.
struct PlanDevice<'g> {
    gpu: &'g Gpu,
    /// Memory without contents: addresses only.
    dry: DryDevice,
    launches: Vec<(Dim3, Dim3, u64)>,
    problems: Vec<String>,
    checked: Vec<String>,
}

impl Device for PlanDevice<'_> {
    type Stats = ();
    type Error = Infallible;

    fn warp_size(&self) -> u32 {
        self.gpu.config().warp_size
    }

    fn alloc(&mut self, bytes: u64) -> u64 {
        self.dry.alloc(bytes)
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), Infallible> {
        self.dry.write_bytes(addr, data)
    }

    fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, Infallible> {
        self.dry.read_bytes(addr, len)
    }

    fn launch(
        &mut self,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        _params: &[ParamValue],
    ) -> Result<(), Infallible> {
        let k = kernel.kernel();
        let key = format!("{}/{block}", k.name);
        if !self.checked.contains(&key) {
            if let Err(problem) = self.gpu.occupancy(kernel, block) {
                self.problems.push(format!(
                    "kernel `{}` (block {}x{}x{}) does not fit the machine: {problem}",
                    k.name, block.x, block.y, block.z
                ));
            }
            self.checked.push(key);
        }
        let warp = u64::from(self.gpu.config().warp_size.max(1));
        let warps = grid.count() * block.count().div_ceil(warp);
        self.launches
            .push((grid, block, warps * (k.insts.len() as u64).max(1)));
        Ok(())
    }
}

/// Every launch sorting `keys` keys of `key_bits` bits with `sorter` on
/// `gpu` will make, or every reason a launch would be refused.
pub fn plan(
    sorter: &Sorter,
    gpu: &Gpu,
    keys: usize,
    key_bits: u32,
) -> Result<Vec<PlannedLaunch>, Vec<String>> {
    let mut dev = PlanDevice {
        gpu,
        dry: DryDevice::new(gpu.config().warp_size),
        launches: Vec::new(),
        problems: Vec::new(),
        checked: Vec::new(),
    };
    let launches = if sorter.carries_values() {
        sorter
            .sort_pairs(&mut dev, &vec![0u64; keys], &vec![0u32; keys])
            .map(|r| r.launches)
    } else if key_bits == 64 {
        sorter
            .dry_run(&mut dev, &vec![0u64; keys])
            .map(|r| r.launches)
    } else {
        sorter
            .dry_run(&mut dev, &vec![0u32; keys])
            .map(|r| r.launches)
    };
    let launches = match launches {
        Ok(launches) => launches,
        Err(SortError::Device(never)) => match never {},
        Err(other) => return Err(vec![other.to_string()]),
    };
    if !dev.problems.is_empty() {
        return Err(dev.problems);
    }
    Ok(launches
        .iter()
        .zip(&dev.launches)
        .map(|(l, &(grid, block, work))| PlannedLaunch {
            name: l.name,
            grid,
            block,
            work,
        })
        .collect())
}

/// Where a running sort is: reported before each launch and once at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The kernel about to run (`None` once the sort has finished).
    pub kernel: Option<&'static str>,
    /// Launches finished.
    pub launches_done: usize,
    /// Launches in the whole sort.
    pub launches: usize,
    /// Estimated work finished (see [`PlannedLaunch::work`]).
    pub work_done: u64,
    /// Estimated work of the whole sort.
    pub work: u64,
}

/// The launch hook that reports progress against a plan before each launch
/// (around a [`sim::TracedGpu`], so a run can trace too).
pub(crate) struct ProgressHook<'a> {
    pub(crate) plan: &'a [PlannedLaunch],
    pub(crate) report: &'a mut dyn FnMut(Progress),
    pub(crate) done: usize,
    pub(crate) work_done: u64,
}

impl ProgressHook<'_> {
    fn progress(&self) -> Progress {
        Progress {
            kernel: self.plan.get(self.done).map(|l| l.name),
            launches_done: self.done,
            launches: self.plan.len(),
            work_done: self.work_done,
            work: self.plan.iter().map(|l| l.work).sum(),
        }
    }

    /// Reports the end of the sort.
    pub(crate) fn finish(&mut self) {
        let p = self.progress();
        (self.report)(Progress { kernel: None, ..p });
    }
}

impl<D: Device> LaunchHook<D> for ProgressHook<'_> {
    fn launch(
        &mut self,
        dev: &mut D,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<D::Stats, D::Error> {
        let p = self.progress();
        (self.report)(p);
        let stats = dev.launch(kernel, grid, block, params)?;
        self.work_done += self.plan.get(self.done).map_or(0, |l| l.work);
        self.done += 1;
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::{GpuConfig, RunOptions};
    use sorts::hotsort::{HotSort, HotSortConfig};

    fn tiny_gpu() -> Gpu {
        Gpu::new(GpuConfig::tiny(), RunOptions::default()).unwrap()
    }

    #[test]
    fn the_plan_matches_the_real_launches() {
        let cfg = HotSortConfig {
            block_slabs: 4,
            smem_bytes_max: 2048,
            banks: 8,
            ..HotSortConfig::new(8, 4)
        };
        let hs = HotSort::new::<Infallible>(&cfg).unwrap();
        let mut gpu = tiny_gpu();
        let sorter = Sorter::Hotsort(HotSort::new::<Infallible>(&cfg).unwrap());
        let planned = plan(&sorter, &gpu, 1000, 32).unwrap();
        let keys: Vec<u32> = (0..1000u32).rev().collect();
        let run = hs.sort(&mut gpu, &keys).unwrap();
        let real: Vec<_> = run
            .launches
            .iter()
            .map(|l| (l.name, l.grid, l.block))
            .collect();
        let dry: Vec<_> = planned.iter().map(|l| (l.name, l.grid, l.block)).collect();
        assert_eq!(dry, real);
        assert!(planned.iter().all(|l| l.work > 0));
    }

    #[test]
    fn a_samplesort_plan_launches_every_kind_of_kernel() {
        // The dry device reads back zeros: no degenerate sample, and the
        // bucket starts are an even split, so every level's kernels and
        // the small sorts are planned and checked against the machine.
        use sorts::samplesort::{Samplesort, SamplesortConfig};
        let cfg = SamplesortConfig {
            buckets: 8,
            oversample: 4,
            small_size: 64,
            block_threads: 32,
            ..SamplesortConfig::new(8, 32)
        };
        let ss = Samplesort::new::<Infallible>(&cfg).unwrap();
        let planned = plan(&Sorter::Samplesort(ss), &tiny_gpu(), 5000, 32).unwrap();
        let names: Vec<&str> = planned.iter().map(|l| l.name).collect();
        for want in [
            "create_bst",
            "find_buckets",
            "scan",
            "scatter",
            "small_sort",
        ] {
            assert!(names.contains(&want), "{want}: {names:?}");
        }
    }

    #[test]
    fn blocks_that_do_not_fit_are_reported_once_per_kernel() {
        // 8 slabs of 8 lanes with 16 keys each need 4 KiB of shared memory;
        // the tiny machine allows 2 KiB per block.
        let cfg = HotSortConfig {
            block_slabs: 8,
            banks: 8,
            ..HotSortConfig::new(8, 16)
        };
        let hs = HotSort::new::<Infallible>(&cfg).unwrap();
        let problems = plan(&Sorter::Hotsort(hs), &tiny_gpu(), 5000, 32).unwrap_err();
        assert!(problems.iter().any(|p| p.contains("`bs`")), "{problems:?}");
        let bs = problems.iter().filter(|p| p.contains("`bs`")).count();
        assert_eq!(bs, 1, "{problems:?}");
    }
}
