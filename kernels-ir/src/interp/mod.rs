//! The functional reference interpreter: the executable semantics of the IR.
//!
//! It runs a verified kernel warp by warp, in lock step within a warp, with
//! no notion of time. It is deliberately simple and separate from the
//! cycle-level simulator so the two can be checked against each other: for
//! every kernel and input the simulator's memory and registers must end up
//! exactly as here. Blocks run one after another; within a block a warp runs
//! until it exits or waits at `bar.sync`, then the next warp runs.

mod error;
mod memory;
mod values;
mod warp;

pub use error::InterpError;
pub use memory::DeviceMemory;

use crate::launch::{Device, Dim3, ParamValue};
use crate::verify::VerifiedKernel;
use warp::{BlockContext, Step, Warp};

/// What one interpreted launch counts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct InterpStats {
    /// Warp instructions executed (guarded-off instructions included).
    pub warp_instructions: u64,
    /// Blocks run.
    pub blocks: u64,
}

impl std::ops::AddAssign for InterpStats {
    fn add_assign(&mut self, other: InterpStats) {
        self.warp_instructions += other.warp_instructions;
        self.blocks += other.blocks;
    }
}

/// The reference interpreter: a device memory and a warp width.
#[derive(Debug, Clone)]
pub struct Interp {
    warp_size: u32,
    memory: DeviceMemory,
    /// The most warp instructions one launch may execute before it is
    /// stopped as runaway (an infinite loop must not hang the caller).
    pub step_limit: u64,
}

impl Interp {
    /// An interpreter for warps of `warp_size` lanes (1..=64).
    pub fn new(warp_size: u32) -> Result<Interp, InterpError> {
        if !(1..=64).contains(&warp_size) {
            return Err(InterpError::BadWarpSize(warp_size));
        }
        Ok(Interp {
            warp_size,
            memory: DeviceMemory::default(),
            step_limit: 1 << 36,
        })
    }

    /// The device memory.
    pub fn memory(&self) -> &DeviceMemory {
        &self.memory
    }

    fn check_params(kernel: &VerifiedKernel, params: &[ParamValue]) -> Result<(), InterpError> {
        let declared = &kernel.kernel().params;
        if declared.len() != params.len() {
            return Err(InterpError::ParamCount {
                kernel: kernel.kernel().name.clone(),
                expected: declared.len(),
                got: params.len(),
            });
        }
        for (decl, value) in declared.iter().zip(params) {
            if decl.ty != value.ty() {
                return Err(InterpError::ParamType {
                    kernel: kernel.kernel().name.clone(),
                    param: decl.name.clone(),
                    expected: decl.ty.name(),
                });
            }
        }
        Ok(())
    }

    fn run_block(
        &mut self,
        kernel: &VerifiedKernel,
        ctx: &BlockContext<'_>,
        steps: &mut u64,
    ) -> Result<(), InterpError> {
        let threads = ctx.block.count() as u32;
        let nwarps = threads.div_ceil(self.warp_size);
        let mut warps: Vec<Warp> = (0..nwarps).map(|w| Warp::new(kernel, ctx, w)).collect();
        let mut shared = vec![0u8; kernel.kernel().shared_bytes as usize];
        loop {
            let mut progressed = false;
            for warp in warps.iter_mut() {
                while warp.runnable() {
                    let step = warp.step(kernel, ctx, &mut self.memory, &mut shared)?;
                    if let Step::Done = step {
                        break;
                    }
                    progressed = true;
                    *steps += 1;
                    if *steps > self.step_limit {
                        return Err(InterpError::StepLimit {
                            kernel: kernel.kernel().name.clone(),
                            limit: self.step_limit,
                        });
                    }
                    if let Step::Barrier = step {
                        break;
                    }
                }
            }
            if !progressed || warps.iter().all(Warp::finished) {
                return Ok(());
            }
            // Every live warp waits at a barrier (exited warps count as
            // arrived, as on hardware): release them all. A barrier can only
            // fail to complete through a warp that never stops, which the
            // step limit catches.
            warps.iter_mut().for_each(Warp::release_barrier);
        }
    }
}

impl Device for Interp {
    type Stats = InterpStats;
    type Error = InterpError;

    fn warp_size(&self) -> u32 {
        self.warp_size
    }

    fn alloc(&mut self, bytes: u64) -> u64 {
        self.memory.alloc(bytes)
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), InterpError> {
        self.memory.write(addr, data)
    }

    fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, InterpError> {
        self.memory.read(addr, len).map(<[u8]>::to_vec)
    }

    fn launch(
        &mut self,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<InterpStats, InterpError> {
        Self::check_params(kernel, params)?;
        if grid.count() == 0 || block.count() == 0 {
            return Err(InterpError::EmptyLaunch {
                kernel: kernel.kernel().name.clone(),
            });
        }
        for inst in &kernel.kernel().insts {
            if let crate::InstData::Shfl { width, .. } = inst.data
                && width > self.warp_size
            {
                return Err(InterpError::ShflWidth {
                    kernel: kernel.kernel().name.clone(),
                    width,
                    warp_size: self.warp_size,
                });
            }
        }
        let mut steps = 0;
        let mut stats = InterpStats::default();
        for z in 0..grid.z {
            for y in 0..grid.y {
                for x in 0..grid.x {
                    let ctx = BlockContext {
                        grid,
                        block,
                        block_id: [x, y, z],
                        block_index: (z as u64 * grid.y as u64 + y as u64) * grid.x as u64
                            + x as u64,
                        warp_size: self.warp_size,
                        params,
                    };
                    self.run_block(kernel, &ctx, &mut steps)?;
                    stats.blocks += 1;
                }
            }
        }
        stats.warp_instructions = steps;
        Ok(stats)
    }
}

#[cfg(test)]
mod tests;
