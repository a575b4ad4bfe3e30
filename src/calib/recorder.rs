//! A [`Device`] adaptor that records what a host program does to a device
//! (allocations, host-to-device copies, launches, reads) while passing
//! every call on to the device it wraps. The record is a launch sequence a
//! real GPU can replay ([`super::bundle`]); the wrapped device decides
//! what runs meanwhile: the simulator (its per-launch stats are the
//! simulated side of a calibration), the interpreter, or nothing at all.

use std::cell::RefCell;
use std::convert::Infallible;

use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel};

/// A launch parameter with device addresses turned into buffer references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    /// A pointer into a buffer.
    Ptr {
        /// The buffer's index.
        buf: usize,
        /// Bytes into it.
        offset: u64,
    },
    /// A 32-bit value.
    U32(u32),
    /// A 64-bit value that points into no buffer.
    U64(u64),
}

/// One recorded call.
#[derive(Clone, Debug)]
pub enum Event {
    /// A zeroed buffer.
    Alloc {
        /// The buffer's index.
        buf: usize,
        /// Its size.
        bytes: u64,
    },
    /// Bytes copied from the host into a buffer.
    Write {
        /// The buffer's index.
        buf: usize,
        /// Where in it.
        offset: u64,
        /// What.
        data: Vec<u8>,
    },
    /// A launch.
    Launch {
        /// The kernel: an index into [`Recorder::kernels`].
        kernel: usize,
        /// The grid.
        grid: Dim3,
        /// The block.
        block: Dim3,
        /// The parameters.
        params: Vec<Param>,
    },
    /// Bytes read back from a buffer, and what came back.
    Read {
        /// The buffer's index.
        buf: usize,
        /// Where in it.
        offset: u64,
        /// How many bytes.
        len: u64,
        /// What came back.
        data: Vec<u8>,
    },
}

/// Records every call made through it and forwards it to `inner`.
pub struct Recorder<D: Device> {
    /// The device that runs the calls.
    pub inner: D,
    /// Every buffer: its device address and size.
    buffers: Vec<(u64, u64)>,
    /// The distinct kernels launched, in order of first launch.
    pub kernels: Vec<VerifiedKernel>,
    /// Every call, in order (a cell: reads go through `&self`).
    events: RefCell<Vec<Event>>,
    /// What each launch reported, in launch order.
    pub stats: Vec<D::Stats>,
}

impl<D: Device> Recorder<D> {
    /// A recorder in front of `inner`.
    pub fn new(inner: D) -> Recorder<D> {
        Recorder {
            inner,
            buffers: Vec::new(),
            kernels: Vec::new(),
            events: RefCell::new(Vec::new()),
            stats: Vec::new(),
        }
    }

    /// The buffer holding `addr` and the offset into it. A pointer inside a
    /// buffer belongs to it; only a pointer inside none is taken as one past
    /// the end of a buffer (buffers may be contiguous: the end of one is
    /// the start of the next, and a pointer there is the next one's).
    fn locate(&self, addr: u64) -> Option<(usize, u64)> {
        let within = |inclusive: bool| {
            self.buffers.iter().position(|&(base, bytes)| {
                addr >= base && (addr - base < bytes || (inclusive && addr - base == bytes))
            })
        };
        within(false)
            .or_else(|| within(true))
            .map(|i| (i, addr - self.buffers[i].0))
    }

    fn located(&self, addr: u64, len: u64) -> (usize, u64) {
        match self.locate(addr) {
            Some((buf, offset)) if offset + len <= self.buffers[buf].1 => (buf, offset),
            // The inner device refuses such an access itself; record it
            // against no buffer it could fit (replay then fails loudly).
            _ => (usize::MAX, addr),
        }
    }
}

impl<D: Device> Device for Recorder<D> {
    type Stats = ();
    type Error = D::Error;

    fn warp_size(&self) -> u32 {
        self.inner.warp_size()
    }

    fn alloc(&mut self, bytes: u64) -> u64 {
        let addr = self.inner.alloc(bytes);
        self.record_alloc(addr, bytes);
        addr
    }

    fn try_alloc(&mut self, bytes: u64) -> Result<u64, D::Error> {
        let addr = self.inner.try_alloc(bytes)?;
        self.record_alloc(addr, bytes);
        Ok(addr)
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), D::Error> {
        self.inner.write_bytes(addr, data)?;
        let (buf, offset) = self.located(addr, data.len() as u64);
        self.events.borrow_mut().push(Event::Write {
            buf,
            offset,
            data: data.to_vec(),
        });
        Ok(())
    }

    fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, D::Error> {
        let data = self.inner.read_bytes(addr, len)?;
        let (buf, offset) = self.located(addr, len);
        self.events.borrow_mut().push(Event::Read {
            buf,
            offset,
            len,
            data: data.clone(),
        });
        Ok(data)
    }

    fn label_next_launch(&mut self, label: &str) {
        self.inner.label_next_launch(label);
    }

    fn launch(
        &mut self,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<(), D::Error> {
        let stats = self.inner.launch(kernel, grid, block, params)?;
        self.stats.push(stats);
        let index = match self.kernels.iter().position(|k| same_kernel(k, kernel)) {
            Some(i) => i,
            None => {
                self.kernels.push(kernel.clone());
                self.kernels.len() - 1
            }
        };
        let params = params
            .iter()
            .map(|p| match *p {
                ParamValue::U32(v) => Param::U32(v),
                ParamValue::U64(v) => match self.locate(v) {
                    Some((buf, offset)) => Param::Ptr { buf, offset },
                    None => Param::U64(v),
                },
            })
            .collect();
        self.events.borrow_mut().push(Event::Launch {
            kernel: index,
            grid,
            block,
            params,
        });
        Ok(())
    }
}

impl<D: Device> Recorder<D> {
    fn record_alloc(&mut self, addr: u64, bytes: u64) {
        self.events.borrow_mut().push(Event::Alloc {
            buf: self.buffers.len(),
            bytes,
        });
        self.buffers.push((addr, bytes));
    }

    /// Every call, in order.
    pub fn into_events(self) -> (Vec<VerifiedKernel>, Vec<Event>, Vec<D::Stats>) {
        (self.kernels, self.events.into_inner(), self.stats)
    }

    /// Every buffer's full contents, recorded as reads (what a replay of a
    /// single kernel checks).
    pub fn read_all_buffers(&mut self) -> Result<(), D::Error> {
        for (addr, bytes) in self.buffers.clone() {
            self.read_bytes(addr, bytes)?;
        }
        Ok(())
    }
}

/// Replays a recorded sequence on `dev` as a GPU replays a bundle (the
/// same buffers, writes and launches with their recorded parameters) and
/// returns the index of every read whose bytes differ from the record. A
/// schedule that steered itself by what it read back replays with the
/// choices it made then, so this checks that the record alone sorts.
pub fn replay<D: Device>(
    kernels: &[VerifiedKernel],
    events: &[Event],
    dev: &mut D,
) -> Result<Vec<usize>, String> {
    let mut addrs: Vec<u64> = Vec::new();
    let addr = |addrs: &[u64], buf: usize, offset: u64| {
        addrs
            .get(buf)
            .map(|a| a + offset)
            .ok_or_else(|| format!("buffer {buf} was never allocated"))
    };
    let mut differ = Vec::new();
    for (i, event) in events.iter().enumerate() {
        match event {
            Event::Alloc { bytes, .. } => addrs.push(dev.alloc(*bytes)),
            Event::Write { buf, offset, data } => dev
                .write_bytes(addr(&addrs, *buf, *offset)?, data)
                .map_err(|e| e.to_string())?,
            Event::Launch {
                kernel,
                grid,
                block,
                params,
            } => {
                let params = params
                    .iter()
                    .map(|p| {
                        Ok(match *p {
                            Param::Ptr { buf, offset } => {
                                ParamValue::U64(addr(&addrs, buf, offset)?)
                            }
                            Param::U32(v) => ParamValue::U32(v),
                            Param::U64(v) => ParamValue::U64(v),
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                dev.launch(&kernels[*kernel], *grid, *block, &params)
                    .map_err(|e| e.to_string())?;
            }
            Event::Read {
                buf,
                offset,
                len,
                data,
            } => {
                let got = dev
                    .read_bytes(addr(&addrs, *buf, *offset)?, *len)
                    .map_err(|e| e.to_string())?;
                if &got != data {
                    differ.push(i);
                }
            }
        }
    }
    Ok(differ)
}

/// Two kernels are the same when their names and instructions agree (the
/// generators name each distinct kernel, but a user's file may reuse a
/// name for different code).
fn same_kernel(a: &VerifiedKernel, b: &VerifiedKernel) -> bool {
    a.kernel().name == b.kernel().name && a.kernel() == b.kernel()
}

/// A device that runs nothing: memory is allocated (addresses only) and
/// reads return zeros. For host schedules that never depend on what a
/// kernel computed (HotSort's depends only on the key count), it lists the
/// launches at no cost; the expected result then comes from the reference
/// sort, never from this device.
pub struct DryDevice {
    warp_size: u32,
    next_addr: u64,
}

impl DryDevice {
    /// A dry device of `warp_size` lanes.
    pub fn new(warp_size: u32) -> DryDevice {
        DryDevice {
            warp_size,
            next_addr: 1 << 32,
        }
    }
}

impl Device for DryDevice {
    type Stats = ();
    type Error = Infallible;

    fn warp_size(&self) -> u32 {
        self.warp_size
    }

    fn alloc(&mut self, bytes: u64) -> u64 {
        let addr = self.next_addr;
        self.next_addr += bytes.next_multiple_of(256).max(256);
        addr
    }

    fn write_bytes(&mut self, _addr: u64, _data: &[u8]) -> Result<(), Infallible> {
        Ok(())
    }

    fn read_bytes(&self, _addr: u64, len: u64) -> Result<Vec<u8>, Infallible> {
        Ok(vec![0; len as usize])
    }

    fn launch(
        &mut self,
        _kernel: &VerifiedKernel,
        _grid: Dim3,
        _block: Dim3,
        _params: &[ParamValue],
    ) -> Result<(), Infallible> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_at_the_start_of_a_contiguous_buffer_is_that_buffer_s() {
        let mut rec = Recorder::new(DryDevice::new(32));
        rec.record_alloc(1000, 64);
        rec.record_alloc(1064, 64);
        assert_eq!(rec.locate(1064), Some((1, 0)), "not one past buffer 0");
        assert_eq!(rec.locate(1000), Some((0, 0)));
        assert_eq!(rec.locate(1128), Some((1, 64)), "one past the last buffer");
        assert_eq!(rec.locate(999), None);
    }
}
