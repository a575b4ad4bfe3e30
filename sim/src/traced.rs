//! A [`Gpu`] as a [`Device`] that reports every launch to a trace sink,
//! when one is given: what a host driver (a sort, a test) runs on to record
//! a trace, without writing its own device.

use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel};

use crate::error::SimError;
use crate::gpu::Gpu;
use crate::stats::KernelStats;
use crate::trace::TraceSink;

/// A borrowed [`Gpu`] whose launches go to `sink` (plain launches without).
pub struct TracedGpu<'g, 's> {
    gpu: &'g mut Gpu,
    sink: Option<&'g mut (dyn TraceSink + 's)>,
}

impl<'g, 's> TracedGpu<'g, 's> {
    /// `gpu`, recording into `sink` if given.
    pub fn new(gpu: &'g mut Gpu, sink: Option<&'g mut (dyn TraceSink + 's)>) -> Self {
        TracedGpu { gpu, sink }
    }
}

impl Device for TracedGpu<'_, '_> {
    type Stats = KernelStats;
    type Error = SimError;

    fn warp_size(&self) -> u32 {
        self.gpu.config().warp_size
    }

    fn alloc(&mut self, bytes: u64) -> u64 {
        self.gpu.alloc(bytes)
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        self.gpu.write_bytes(addr, data)
    }

    fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, SimError> {
        self.gpu.read_bytes(addr, len)
    }

    fn launch(
        &mut self,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<KernelStats, SimError> {
        match self.sink.as_deref_mut() {
            Some(sink) => self.gpu.launch_traced(kernel, grid, block, params, sink),
            None => self.gpu.launch(kernel, grid, block, params),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::VecSink;
    use crate::{GpuConfig, RunOptions};

    #[test]
    fn launches_are_recorded_only_with_a_sink() {
        let vk = kernels_ir::verify_kernel(kernels_ir::kernels::examples::vcopy()).unwrap();
        let mut gpu = Gpu::new(GpuConfig::tiny(), RunOptions::default()).unwrap();
        let (src, dst) = (gpu.alloc(64), gpu.alloc(64));
        let params = [
            ParamValue::U64(src),
            ParamValue::U64(dst),
            ParamValue::U32(16),
        ];
        let mut sink = VecSink::default();
        let mut dev = TracedGpu::new(&mut gpu, Some(&mut sink));
        dev.write_bytes(src, &[7; 64]).unwrap();
        let traced = dev.launch(&vk, Dim3::x(1), Dim3::x(16), &params).unwrap();
        assert_eq!(dev.read_bytes(dst, 64).unwrap(), vec![7; 64]);
        assert_eq!(sink.launches, 1);
        let plain = TracedGpu::new(&mut gpu, None)
            .launch(&vk, Dim3::x(1), Dim3::x(16), &params)
            .unwrap();
        assert_eq!(traced, plain, "tracing changes nothing simulated");
    }
}
