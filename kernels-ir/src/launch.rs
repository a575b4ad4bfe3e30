//! What a launch needs besides the kernel: grid and block shapes and
//! parameter values. Shared by the reference interpreter ([`crate::interp`])
//! and the simulator, so a host driver can run on either.

use std::fmt;

use crate::kernel::ParamType;

/// A grid or block shape.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Extent in x.
    pub x: u32,
    /// Extent in y.
    pub y: u32,
    /// Extent in z.
    pub z: u32,
}

impl Dim3 {
    /// A one-dimensional shape.
    pub const fn x(x: u32) -> Dim3 {
        Dim3 { x, y: 1, z: 1 }
    }

    /// The number of elements, `x * y * z`.
    pub const fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.x, self.y, self.z)
    }
}

/// The value of one kernel parameter at launch.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParamValue {
    /// A 32-bit value.
    U32(u32),
    /// A 64-bit value (buffer addresses).
    U64(u64),
}

impl ParamValue {
    /// The parameter type this value fits.
    pub const fn ty(self) -> ParamType {
        match self {
            ParamValue::U32(_) => ParamType::U32,
            ParamValue::U64(_) => ParamType::U64,
        }
    }

    /// The value widened to 64 bits.
    pub const fn bits(self) -> u64 {
        match self {
            ParamValue::U32(v) => v as u64,
            ParamValue::U64(v) => v,
        }
    }
}

/// A machine that runs verified kernels on a byte-addressed device memory:
/// the reference interpreter and the simulator both implement it, so a host
/// driver (the HotSort schedule) runs unchanged on either.
pub trait Device {
    /// What one launch reports.
    type Stats;
    /// Why a launch or a memory access failed.
    type Error: std::error::Error;

    /// The warp width of the machine.
    fn warp_size(&self) -> u32;
    /// Allocates `bytes` of zeroed device memory and returns its address
    /// (256-byte aligned).
    fn alloc(&mut self, bytes: u64) -> u64;
    /// Allocates like [`Device::alloc`], or fails (a device whose memory is
    /// backed by the host refuses what the host cannot hold, instead of
    /// aborting). Sizes that come from users go through this.
    fn try_alloc(&mut self, bytes: u64) -> Result<u64, Self::Error> {
        Ok(self.alloc(bytes))
    }
    /// Copies `data` to device memory at `addr`.
    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), Self::Error>;
    /// Copies `len` bytes of device memory at `addr` out.
    fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, Self::Error>;
    /// Names the next launch for whoever records launches (a trace: `pass
    /// 5: merge 2048 -> 4096`), so launches of one kernel can be told
    /// apart. Devices that record nothing ignore it (the default); the
    /// label never changes what a launch computes.
    fn label_next_launch(&mut self, label: &str) {
        let _ = label;
    }
    /// Runs `kernel` to completion.
    fn launch(
        &mut self,
        kernel: &crate::VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<Self::Stats, Self::Error>;

    /// Writes 32-bit words at `addr` (little endian).
    fn write_u32s(&mut self, addr: u64, words: &[u32]) -> Result<(), Self::Error> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write_bytes(addr, &bytes)
    }

    /// Reads `n` 32-bit words at `addr`.
    fn read_u32s(&self, addr: u64, n: usize) -> Result<Vec<u32>, Self::Error> {
        let bytes = self.read_bytes(addr, n as u64 * 4)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }

    /// Writes 64-bit words at `addr` (little endian).
    fn write_u64s(&mut self, addr: u64, words: &[u64]) -> Result<(), Self::Error> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write_bytes(addr, &bytes)
    }

    /// Reads `n` 64-bit words at `addr`.
    fn read_u64s(&self, addr: u64, n: usize) -> Result<Vec<u64>, Self::Error> {
        let bytes = self.read_bytes(addr, n as u64 * 8)?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }
}

/// What a [`Hooked`] device does for each launch in place of its inner
/// device's plain launch: the one way to add behaviour around launches
/// (tracing, progress) without forwarding a device's memory operations by
/// hand.
pub trait LaunchHook<D: Device> {
    /// Runs `kernel` on `dev`, doing whatever the hook adds.
    fn launch(
        &mut self,
        dev: &mut D,
        kernel: &crate::VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<D::Stats, D::Error>;

    /// Names `dev`'s next launch ([`Device::label_next_launch`]); a hook
    /// that records launches itself takes the label here.
    fn label_next_launch(&mut self, dev: &mut D, label: &str) {
        dev.label_next_launch(label);
    }
}

/// A device that forwards memory operations to `dev` and launches through
/// `hook` (the only forwarding [`Device`] implementation).
pub struct Hooked<'d, D, H> {
    /// The device that does the work.
    pub dev: &'d mut D,
    /// What happens around each launch.
    pub hook: H,
}

impl<D: Device, H: LaunchHook<D>> Device for Hooked<'_, D, H> {
    type Stats = D::Stats;
    type Error = D::Error;

    fn warp_size(&self) -> u32 {
        self.dev.warp_size()
    }

    fn alloc(&mut self, bytes: u64) -> u64 {
        self.dev.alloc(bytes)
    }

    fn try_alloc(&mut self, bytes: u64) -> Result<u64, D::Error> {
        self.dev.try_alloc(bytes)
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), D::Error> {
        self.dev.write_bytes(addr, data)
    }

    fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, D::Error> {
        self.dev.read_bytes(addr, len)
    }

    fn label_next_launch(&mut self, label: &str) {
        self.hook.label_next_launch(self.dev, label);
    }

    fn launch(
        &mut self,
        kernel: &crate::VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<D::Stats, D::Error> {
        self.hook.launch(self.dev, kernel, grid, block, params)
    }
}
