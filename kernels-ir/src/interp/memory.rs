//! Device memory: separate allocations in one address space, so an access
//! that strays from its buffer faults instead of silently hitting a
//! neighbour.

use super::InterpError;

/// Where the first allocation starts: address 0 stays invalid.
const BASE: u64 = 0x1000_0000;
/// Allocation alignment and the unmapped gap left between allocations.
const ALIGN: u64 = 256;

/// Byte-addressed device memory made of allocations.
#[derive(Debug, Clone, Default)]
pub struct DeviceMemory {
    /// (start address, bytes), sorted by address.
    allocations: Vec<(u64, Vec<u8>)>,
}

impl DeviceMemory {
    /// Allocates `bytes` of zeroed memory, 256-byte aligned.
    pub fn alloc(&mut self, bytes: u64) -> u64 {
        let start = match self.allocations.last() {
            Some((addr, data)) => (addr + data.len() as u64 + ALIGN).next_multiple_of(ALIGN),
            None => BASE,
        };
        self.allocations.push((start, vec![0; bytes as usize]));
        start
    }

    fn find(&self, addr: u64, len: u64) -> Option<(usize, usize)> {
        let i = self
            .allocations
            .partition_point(|(start, _)| *start <= addr)
            .checked_sub(1)?;
        let (start, data) = &self.allocations[i];
        let off = addr - start;
        (off.checked_add(len)? <= data.len() as u64).then_some((i, off as usize))
    }

    /// The bytes `addr..addr+len`, if they lie inside one allocation.
    pub fn slice(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let (i, off) = self.find(addr, len)?;
        Some(&self.allocations[i].1[off..off + len as usize])
    }

    /// The bytes `addr..addr+len`, mutably, if they lie inside one allocation.
    pub fn slice_mut(&mut self, addr: u64, len: u64) -> Option<&mut [u8]> {
        let (i, off) = self.find(addr, len)?;
        Some(&mut self.allocations[i].1[off..off + len as usize])
    }

    /// Host read.
    pub fn read(&self, addr: u64, len: u64) -> Result<&[u8], InterpError> {
        self.slice(addr, len)
            .ok_or(InterpError::HostOutOfBounds { addr, len })
    }

    /// Host write.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), InterpError> {
        let len = data.len() as u64;
        self.slice_mut(addr, len)
            .ok_or(InterpError::HostOutOfBounds { addr, len })?
            .copy_from_slice(data);
        Ok(())
    }
}
