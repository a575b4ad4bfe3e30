//! A [`Gpu`] as a [`kernels_ir::Device`] that reports every launch to a trace sink,
//! when one is given: what a host driver (a sort, a test) runs on to record
//! a trace, without writing its own device.

use kernels_ir::{Dim3, Hooked, LaunchHook, ParamValue, VerifiedKernel};

use crate::error::SimError;
use crate::gpu::Gpu;
use crate::stats::KernelStats;
use crate::trace::TraceSink;

/// The launch hook of a [`TracedGpu`]: launches go to the sink when there
/// is one, and run plainly otherwise.
pub struct TraceHook<'g, 's>(Option<&'g mut (dyn TraceSink + 's)>);

impl LaunchHook<Gpu> for TraceHook<'_, '_> {
    fn launch(
        &mut self,
        gpu: &mut Gpu,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<KernelStats, SimError> {
        match self.0.as_deref_mut() {
            Some(sink) => gpu.launch_traced(kernel, grid, block, params, sink),
            None => gpu.launch(kernel, grid, block, params),
        }
    }

    fn label_next_launch(&mut self, _gpu: &mut Gpu, label: &str) {
        if let Some(sink) = self.0.as_deref_mut() {
            sink.label_next_launch(label);
        }
    }
}

/// A borrowed [`Gpu`] whose launches go to a trace sink (plain launches
/// without one).
pub type TracedGpu<'g, 's> = Hooked<'g, Gpu, TraceHook<'g, 's>>;

/// `gpu`, recording into `sink` if given.
pub fn traced<'g, 's>(
    gpu: &'g mut Gpu,
    sink: Option<&'g mut (dyn TraceSink + 's)>,
) -> TracedGpu<'g, 's> {
    Hooked {
        dev: gpu,
        hook: TraceHook(sink),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::VecSink;
    use crate::{GpuConfig, RunOptions};
    use kernels_ir::Device;

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
        let mut dev = traced(&mut gpu, Some(&mut sink));
        dev.write_bytes(src, &[7; 64]).unwrap();
        let recorded = dev.launch(&vk, Dim3::x(1), Dim3::x(16), &params).unwrap();
        assert_eq!(dev.read_bytes(dst, 64).unwrap(), vec![7; 64]);
        assert_eq!(sink.launches, 1);
        let plain = traced(&mut gpu, None)
            .launch(&vk, Dim3::x(1), Dim3::x(16), &params)
            .unwrap();
        assert_eq!(recorded, plain, "tracing changes nothing simulated");
    }
}
