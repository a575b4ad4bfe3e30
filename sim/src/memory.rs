//! Device memory: separate allocations in one address space, and the
//! functional side of global loads and stores.
//!
//! Addresses are assigned exactly as `kernels_ir::interp` assigns them
//! (first allocation at `0x1000_0000`, 256-byte aligned, at least 256
//! unmapped bytes between allocations), so a host driver sees the same
//! addresses on both. An access that strays outside its allocation faults.

use kernels_ir::Space;

use crate::decode::MemOp;
use crate::error::FaultKind;
use crate::regfile::{RegFile, lane_mask};
use crate::store_log::StoreLog;

/// Where the first allocation starts: address 0 stays invalid.
const BASE: u64 = 0x1000_0000;
/// Allocation alignment and the unmapped gap left between allocations.
const ALIGN: u64 = 256;

/// `len` zero bytes, or `None` when the allocator refuses (no abort).
///
/// This is how device memory is lazy: a zeroed allocation of more than a
/// few pages is fresh anonymous memory from the operating system (`calloc`
/// maps it and does not write it), so a page costs host memory only when a
/// kernel or a host copy first touches it. A 16 GiB buffer of which a
/// kernel reads 128 bytes costs a page.
fn zeroed(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(len).ok()?;
    // SAFETY: the layout has a non-zero size. The pointer, when not null,
    // comes from the global allocator with exactly this layout (u8: size
    // `len`, align 1), and all `len` bytes are initialised (zero), which is
    // what `Vec::from_raw_parts` requires for length = capacity = `len`.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout);
        if ptr.is_null() {
            return None;
        }
        Some(Vec::from_raw_parts(ptr, len, len))
    }
}

/// Byte-addressed device memory made of allocations.
#[derive(Clone, Debug, Default)]
pub(crate) struct GlobalMem {
    /// (start address, bytes), sorted by address.
    allocs: Vec<(u64, Vec<u8>)>,
}

impl GlobalMem {
    /// Allocates `bytes` of zeroed memory, 256-byte aligned; `None` when
    /// the host cannot provide it. The memory is lazy: see [`zeroed`].
    pub fn try_alloc(&mut self, bytes: u64) -> Option<u64> {
        let start = match self.allocs.last() {
            Some((addr, data)) => (addr + data.len() as u64 + ALIGN).next_multiple_of(ALIGN),
            None => BASE,
        };
        self.allocs.try_reserve(1).ok()?;
        self.allocs
            .push((start, zeroed(usize::try_from(bytes).ok()?)?));
        Some(start)
    }

    /// The allocation holding `addr..addr+len`, and the offset of `addr` in it.
    fn find(&self, addr: u64, len: u64) -> Option<(usize, usize)> {
        let i = self
            .allocs
            .partition_point(|(start, _)| *start <= addr)
            .checked_sub(1)?;
        let (start, data) = &self.allocs[i];
        let off = addr - start;
        (off.checked_add(len)? <= data.len() as u64).then_some((i, off as usize))
    }

    /// The allocation holding `addr..addr+len`: its start address and
    /// its bytes.
    pub fn allocation_at(&mut self, addr: u64, len: u64) -> Option<(u64, &mut [u8])> {
        let (i, _) = self.find(addr, len)?;
        let (start, data) = &mut self.allocs[i];
        Some((*start, data.as_mut_slice()))
    }

    /// The allocations' bytes cut at the ascending addresses `cuts`: per
    /// slice `cuts[k]..cuts[k + 1]`, the pieces of allocations inside it
    /// as (start address, bytes), so several threads can write disjoint
    /// slices at once ([`crate::store_log::apply_all`]).
    pub fn slices(&mut self, cuts: &[u64]) -> Vec<Vec<(u64, &mut [u8])>> {
        let n = cuts.len().saturating_sub(1);
        let mut out: Vec<Vec<(u64, &mut [u8])>> = (0..n).map(|_| Vec::new()).collect();
        for (start, data) in &mut self.allocs {
            let (mut at, mut rest) = (*start, data.as_mut_slice());
            for (k, piece) in out.iter_mut().enumerate() {
                let (a, b) = (cuts[k], cuts[k + 1]);
                if at < a {
                    let skip = (a - at).min(rest.len() as u64) as usize;
                    rest = &mut std::mem::take(&mut rest)[skip..];
                    at += skip as u64;
                }
                let take = b.saturating_sub(at).min(rest.len() as u64) as usize;
                if take > 0 {
                    let (head, tail) = std::mem::take(&mut rest).split_at_mut(take);
                    piece.push((at, head));
                    (rest, at) = (tail, at + take as u64);
                }
            }
        }
        out
    }

    /// Host read of `len` bytes at `addr`, if inside one allocation.
    pub fn read(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let (i, off) = self.find(addr, len)?;
        Some(&self.allocs[i].1[off..off + len as usize])
    }

    /// Host write of `data` at `addr`; `None` if outside every allocation.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Option<()> {
        let (i, off) = self.find(addr, data.len() as u64)?;
        self.allocs[i].1[off..off + data.len()].copy_from_slice(data);
        Some(())
    }

    /// Checks every active lane's access: the first faulting lane (lowest)
    /// and why, as the reference interpreter reports it.
    fn check(&self, addrs: &[u64], exec: u64, bytes: u32) -> Result<usize, (u32, FaultKind)> {
        let first = exec.trailing_zeros() as usize;
        let mut lo = u64::MAX;
        let mut hi = 0;
        let mut misaligned = 0;
        for (l, &a) in addrs.iter().enumerate() {
            if (exec >> l) & 1 != 0 {
                lo = lo.min(a);
                hi = hi.max(a);
                misaligned |= a;
            }
        }
        if aligned(misaligned, bytes)
            && let Some((i, off)) = self.find(lo, hi - lo + u64::from(bytes))
        {
            debug_assert_eq!(self.allocs[i].0 + off as u64, lo);
            return Ok(i);
        }
        for (l, &a) in addrs.iter().enumerate().skip(first) {
            if (exec >> l) & 1 == 0 {
                continue;
            }
            if a % u64::from(bytes) != 0 {
                let kind = FaultKind::Misaligned {
                    space: Space::Global,
                    addr: a,
                    bytes,
                };
                return Err((l as u32, kind));
            }
            if self.find(a, bytes.into()).is_none() {
                return Err((l as u32, FaultKind::GlobalOutOfBounds { addr: a, bytes }));
            }
        }
        // Every lane is inside some allocation, but not all inside one.
        let (i, _) = self
            .find(addrs[first], bytes.into())
            .expect("checked above");
        Ok(i | SPLIT)
    }

    /// Performs a global load or store for the lanes of `exec` at `addrs`:
    /// a store goes to `log` (written at the quantum boundary), a load reads
    /// memory as the quantum found it plus the stores in `log`.
    // Out of line: a memory instruction's work dwarfs a call, and the
    // issue path that calls it stays small enough to inline.
    #[inline(never)]
    pub fn access(
        &self,
        op: &MemOp,
        rf: &mut RegFile,
        addrs: &[u64],
        exec: u64,
        log: &mut StoreLog,
    ) -> Result<(), (u32, FaultKind)> {
        if exec == 0 {
            return Ok(());
        }
        if let Some(s) = Strided::of(addrs, exec, op.bytes)
            && aligned(addrs[0], op.bytes)
            && let Some((i, off)) = self.find(addrs[0], s.span)
        {
            // Every lane aligned, inside one allocation: move the span
            // through scratch.
            let span = s.span as usize;
            if op.store && s.contiguous(op.bytes) {
                // Lanes back to back: the registers go straight into the log.
                let (off, buf) = log.append(span);
                strided_access(op, rf, buf, s.stride);
                log.record(addrs[0], off, span as u32);
            } else if op.store {
                pack_lanes(op, rf, addrs, exec, log);
            } else if !log.overlaps(addrs[0], s.span) {
                // The usual load: nothing of its span stored this quantum.
                strided_load(op, rf, &self.allocs[i].1[off..off + span], s.stride);
            } else {
                let mut buf = std::mem::take(&mut log.scratch);
                buf.clear();
                buf.extend_from_slice(&self.allocs[i].1[off..off + span]);
                log.patch(addrs[0], &mut buf);
                strided_access(op, rf, &mut buf, s.stride);
                log.scratch = buf;
            }
            return Ok(());
        }
        let found = self.check(addrs, exec, op.bytes)?;
        if op.store {
            pack_lanes(op, rf, addrs, exec, log);
            return Ok(());
        }
        let bytes = op.bytes as usize;
        if found & SPLIT == 0 {
            let (start, data) = &self.allocs[found];
            let mut m = exec;
            let mut clean = true;
            while m != 0 {
                clean &= !log.overlaps(addrs[m.trailing_zeros() as usize], bytes as u64);
                m &= m - 1;
            }
            if clean {
                // Scattered lanes in one allocation, none of them stored
                // this quantum: straight from memory.
                lanes_load(op, rf, addrs, exec, data, |a| (a - start) as usize);
                return Ok(());
            }
        }
        let mut lane_bytes = [0u8; MAX_ACCESS_BYTES];
        let buf = &mut lane_bytes[..bytes];
        for (l, &a) in addrs.iter().enumerate() {
            if (exec >> l) & 1 == 0 {
                continue;
            }
            let i = if found & SPLIT == 0 {
                found
            } else {
                self.find(a, 1).expect("checked").0
            };
            let (start, data) = &self.allocs[i];
            let off = (a - *start) as usize;
            buf.copy_from_slice(&data[off..off + bytes]);
            log.patch(a, buf);
            lane_access(op, rf, l, buf);
        }
        Ok(())
    }
}

/// Whether `a` is a multiple of `bytes`: a mask for the usual widths (4, 8,
/// 16; an access's width is at most [`MAX_ACCESS_BYTES`]), where a
/// division took a visible share of a coalesced access.
#[inline(always)]
fn aligned(a: u64, bytes: u32) -> bool {
    if bytes.is_power_of_two() {
        a & u64::from(bytes - 1) == 0
    } else {
        a.is_multiple_of(u64::from(bytes))
    }
}

/// Logs a store whose lanes are not back to back (checked): every lane's
/// bytes packed into the log at once, lane `l`'s at `l * bytes`, and one
/// entry per active lane, in lane order (so for two lanes storing the same
/// bytes the highest wins, as lane by lane).
fn pack_lanes(op: &MemOp, rf: &mut RegFile, addrs: &[u64], exec: u64, log: &mut StoreLog) {
    let bytes = op.bytes;
    let (off, buf) = log.append(addrs.len() * bytes as usize);
    strided_access(op, rf, buf, bytes.into());
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros();
        log.record(addrs[l as usize], off + l * bytes, bytes);
        m &= m - 1;
    }
}

/// The widest access of one lane: four 64-bit registers.
const MAX_ACCESS_BYTES: usize = 32;

/// Marks an allocation index whose access spans several allocations.
const SPLIT: usize = 1 << (usize::BITS - 1);

/// Each lane's address of `op` into `addrs` (`warp_size` lanes): global
/// `base + offset` modulo 2^64 from a 64-bit base, shared modulo 2^32 from
/// a 32-bit base or none.
pub(crate) fn addresses(op: &MemOp, rf: &RegFile, addrs: &mut [u64]) {
    let offset = op.offset as u64;
    match (op.space, op.base) {
        (Space::Global, Some(b)) => {
            for (a, &v) in addrs.iter_mut().zip(rf.r64(b)) {
                *a = v.wrapping_add(offset);
            }
        }
        (Space::Shared, Some(b)) => {
            for (a, &v) in addrs.iter_mut().zip(rf.r32(b)) {
                *a = v.wrapping_add(offset as u32).into();
            }
        }
        (Space::Global, None) => addrs.fill(offset),
        (Space::Shared, None) => addrs.fill(offset & 0xFFFF_FFFF),
    }
}

/// A warp access where every lane is active and lane `l` accesses
/// `addrs[0] + l * stride`, lanes apart (`stride >= bytes`, a multiple of
/// it): the usual coalesced or strided access, checked and moved without
/// looking at each lane's address.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Strided {
    /// Bytes from one lane's access to the next one's.
    pub stride: u64,
    /// Bytes from the first lane's access to the end of the last one's.
    pub span: u64,
}

impl Strided {
    /// The pattern of an access of `bytes` per lane at `addrs` by the lanes
    /// of `exec`, if it is one.
    #[inline]
    pub fn of(addrs: &[u64], exec: u64, bytes: u32) -> Option<Strided> {
        let (&first, rest) = addrs.split_first()?;
        if exec != lane_mask(addrs.len()) {
            return None;
        }
        let bytes = u64::from(bytes);
        let stride = rest.first().map_or(bytes, |&a| a.wrapping_sub(first));
        if stride < bytes || !aligned(stride, bytes as u32) {
            return None;
        }
        let mut at = first;
        let mut apart = 0;
        for &a in addrs {
            apart |= a ^ at;
            at = at.wrapping_add(stride);
        }
        let span = stride.checked_mul(rest.len() as u64)?.checked_add(bytes)?;
        (apart == 0).then_some(Strided { stride, span })
    }

    /// Lanes back to back (`stride` the access width).
    pub fn contiguous(&self, bytes: u32) -> bool {
        self.stride == u64::from(bytes)
    }
}

/// Moves the data of a strided access (see [`Strided`]) between the
/// registers and `mem`, the access's span: lane `l`'s bytes at
/// `l * stride`.
#[inline]
pub(crate) fn strided_access(op: &MemOp, rf: &mut RegFile, mem: &mut [u8], stride: u64) {
    let stride = stride as usize;
    if let [(slot, n)] = op.regs[..op.nregs as usize]
        && stride == n as usize
    {
        // One register, lanes back to back: a plain copy.
        if n == 4 {
            copy_lanes(
                rf.r32_mut(slot),
                mem,
                op.store,
                u32::to_le_bytes,
                u32::from_le_bytes,
            );
        } else {
            copy_lanes(
                rf.r64_mut(slot),
                mem,
                op.store,
                u64::to_le_bytes,
                u64::from_le_bytes,
            );
        }
        return;
    }
    let mut off = 0;
    for &(slot, n) in &op.regs[..op.nregs as usize] {
        let lanes = mem.chunks_mut(stride);
        if n == 4 {
            let vals = rf.r32_mut(slot);
            for (v, m) in vals.iter_mut().zip(lanes) {
                let bytes: &mut [u8; 4] = (&mut m[off..off + 4]).try_into().expect("4 bytes");
                if op.store {
                    *bytes = v.to_le_bytes();
                } else {
                    *v = u32::from_le_bytes(*bytes);
                }
            }
        } else {
            let vals = rf.r64_mut(slot);
            for (v, m) in vals.iter_mut().zip(lanes) {
                let bytes: &mut [u8; 8] = (&mut m[off..off + 8]).try_into().expect("8 bytes");
                if op.store {
                    *bytes = v.to_le_bytes();
                } else {
                    *v = u64::from_le_bytes(*bytes);
                }
            }
        }
        off += n as usize;
    }
}

/// The load half of [`strided_access`], from memory it only reads.
#[inline]
fn strided_load(op: &MemOp, rf: &mut RegFile, mem: &[u8], stride: u64) {
    let stride = stride as usize;
    if let [(slot, n)] = op.regs[..op.nregs as usize]
        && stride == n as usize
    {
        // One register, lanes back to back: a plain copy (vector loads,
        // where the general loop below took a bounds check per lane).
        if n == 4 {
            load_lanes(rf.r32_mut(slot), mem, u32::from_le_bytes);
        } else {
            load_lanes(rf.r64_mut(slot), mem, u64::from_le_bytes);
        }
        return;
    }
    let mut off = 0;
    for &(slot, n) in &op.regs[..op.nregs as usize] {
        if n == 4 {
            let vals = rf.r32_mut(slot);
            for (v, m) in vals.iter_mut().zip(mem.chunks(stride)) {
                *v = u32::from_le_bytes(m[off..off + 4].try_into().expect("4 bytes"));
            }
        } else {
            let vals = rf.r64_mut(slot);
            for (v, m) in vals.iter_mut().zip(mem.chunks(stride)) {
                *v = u64::from_le_bytes(m[off..off + 8].try_into().expect("8 bytes"));
            }
        }
        off += n as usize;
    }
}

/// Copies `vals` to `mem` (`store`) or back, lane `l` at `l * N` bytes.
#[inline(always)]
fn copy_lanes<T: Copy, const N: usize>(
    vals: &mut [T],
    mem: &mut [u8],
    store: bool,
    to: impl Fn(T) -> [u8; N],
    from: impl Fn([u8; N]) -> T,
) {
    let lanes = mem.chunks_exact_mut(N);
    if store {
        for (v, m) in vals.iter().zip(lanes) {
            m.copy_from_slice(&to(*v));
        }
    } else {
        for (v, m) in vals.iter_mut().zip(lanes) {
            *v = from(m.try_into().expect("N bytes"));
        }
    }
}

/// Loads `vals` from `mem`, lane `l` from `l * N` bytes. The usual warp
/// widths get a loop of constant length, which the compiler turns into a
/// few vector moves; any other width a loop of run-time length, which it
/// turned into a `memcpy` call (as costly as the bounds-checked lane loop
/// it replaced, on the bench's memory kernel).
#[inline(always)]
fn load_lanes<T: Copy, const N: usize>(vals: &mut [T], mem: &[u8], from: impl Fn([u8; N]) -> T) {
    match vals.len() {
        8 => load_fixed::<T, N, 8>(vals, mem, from),
        16 => load_fixed::<T, N, 16>(vals, mem, from),
        32 => load_fixed::<T, N, 32>(vals, mem, from),
        64 => load_fixed::<T, N, 64>(vals, mem, from),
        _ => {
            for (v, m) in vals.iter_mut().zip(mem.chunks_exact(N)) {
                *v = from(m.try_into().expect("N bytes"));
            }
        }
    }
}

/// [`load_lanes`] of exactly `L` lanes.
#[inline(always)]
fn load_fixed<T: Copy, const N: usize, const L: usize>(
    vals: &mut [T],
    mem: &[u8],
    from: impl Fn([u8; N]) -> T,
) {
    let vals: &mut [T; L] = vals.try_into().expect("L lanes");
    let mem = &mem[..L * N];
    for (l, v) in vals.iter_mut().enumerate() {
        *v = from(mem[l * N..][..N].try_into().expect("N bytes"));
    }
}

/// Moves the data of the lanes of `exec` between their registers and
/// `mem`, lane `l`'s at `at(addrs[l])` (every access checked, inside `mem`),
/// register by register. The same as [`lane_access`] lane by lane: accesses
/// are aligned to their width, so two lanes' bytes are the same or disjoint
/// and a store's highest lane still wins.
#[inline]
pub(crate) fn lanes_access(
    op: &MemOp,
    rf: &mut RegFile,
    addrs: &[u64],
    exec: u64,
    mem: &mut [u8],
    at: impl Fn(u64) -> usize,
) {
    if !op.store {
        return lanes_load(op, rf, addrs, exec, mem, at);
    }
    let mut off = 0;
    for &(slot, n) in &op.regs[..op.nregs as usize] {
        if n == 4 {
            let vals = rf.r32(slot);
            for (l, (v, &a)) in vals.iter().zip(addrs).enumerate() {
                if (exec >> l) & 1 != 0 {
                    let p = at(a) + off;
                    mem[p..p + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
        } else {
            let vals = rf.r64(slot);
            for (l, (v, &a)) in vals.iter().zip(addrs).enumerate() {
                if (exec >> l) & 1 != 0 {
                    let p = at(a) + off;
                    mem[p..p + 8].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
        off += n as usize;
    }
}

/// The load half of [`lanes_access`], from memory it only reads (so a
/// load of device memory needs no mutable borrow).
#[inline]
fn lanes_load(
    op: &MemOp,
    rf: &mut RegFile,
    addrs: &[u64],
    exec: u64,
    mem: &[u8],
    at: impl Fn(u64) -> usize,
) {
    let mut off = 0;
    for &(slot, n) in &op.regs[..op.nregs as usize] {
        let mut m = exec;
        if n == 4 {
            let vals = rf.r32_mut(slot);
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                let p = at(addrs[l]) + off;
                vals[l] = u32::from_le_bytes(mem[p..p + 4].try_into().expect("4 bytes"));
                m &= m - 1;
            }
        } else {
            let vals = rf.r64_mut(slot);
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                let p = at(addrs[l]) + off;
                vals[l] = u64::from_le_bytes(mem[p..p + 8].try_into().expect("8 bytes"));
                m &= m - 1;
            }
        }
        off += n as usize;
    }
}

/// Moves one lane's data between its registers and `mem` (little endian,
/// the first register at the lowest address).
#[inline]
pub(crate) fn lane_access(op: &MemOp, rf: &mut RegFile, lane: usize, mem: &mut [u8]) {
    let mut off = 0;
    for &(slot, n) in &op.regs[..op.nregs as usize] {
        // Fixed-size copies: a register is 4 or 8 bytes.
        if n == 4 {
            let v = &mut rf.r32_mut(slot)[lane];
            let bytes: &mut [u8; 4] = (&mut mem[off..off + 4]).try_into().expect("4 bytes");
            if op.store {
                *bytes = v.to_le_bytes();
            } else {
                *v = u32::from_le_bytes(*bytes);
            }
        } else {
            let v = &mut rf.r64_mut(slot)[lane];
            let bytes: &mut [u8; 8] = (&mut mem[off..off + 8]).try_into().expect("8 bytes");
            if op.store {
                *bytes = v.to_le_bytes();
            } else {
                *v = u64::from_le_bytes(*bytes);
            }
        }
        off += n as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_match_the_interpreter_addresses() {
        let mut m = GlobalMem::default();
        let mut i = kernels_ir::interp::DeviceMemory::default();
        for bytes in [4, 256, 1000, 0, 7] {
            assert_eq!(m.try_alloc(bytes).unwrap(), i.alloc(bytes));
        }
    }

    #[test]
    fn host_copies_stay_inside_allocations() {
        let mut m = GlobalMem::default();
        let a = m.try_alloc(8).unwrap();
        assert!(m.write(a, &[1, 2, 3, 4, 5, 6, 7, 8]).is_some());
        assert_eq!(m.read(a + 4, 4), Some(&[5, 6, 7, 8][..]));
        assert!(m.read(a + 4, 5).is_none());
        assert!(m.write(a - 1, &[0]).is_none());
    }

    /// A register file of 8 lanes: 32-bit slots 0..4 and 64-bit slots 0..2
    /// holding distinct values.
    fn regfile() -> RegFile {
        let slots = crate::regfile::Slots {
            b32: 4,
            b64: 2,
            specials: 0,
        };
        let mut rf = RegFile::default();
        rf.reset(slots, 0, 0, 8, &Default::default());
        for s in 0..4 {
            for (l, v) in rf.r32_mut(s).iter_mut().enumerate() {
                *v = 0x0101_0101 * (s + 1) + l as u32;
            }
        }
        for s in 0..2 {
            for (l, v) in rf.r64_mut(s).iter_mut().enumerate() {
                *v = 0x1111_2222_3333_4444 * u64::from(s + 1) + l as u64;
            }
        }
        rf
    }

    fn op(store: bool, bytes: u32, regs: &[(u32, u32)]) -> MemOp {
        let mut op = MemOp {
            space: Space::Global,
            bytes,
            store,
            base: None,
            offset: 0,
            regs: [(0, 0); 4],
            nregs: regs.len() as u8,
            atom: None,
        };
        op.regs[..regs.len()].copy_from_slice(regs);
        op
    }

    #[test]
    fn strided_accesses_are_full_warps_at_even_spacing() {
        let addrs: Vec<u64> = (0..8).map(|l| 0x100 + 8 * l).collect();
        let s = |stride, span| Some(Strided { stride, span });
        assert_eq!(Strided::of(&addrs, 0xFF, 8), s(8, 64));
        assert!(Strided::of(&addrs, 0xFF, 8).unwrap().contiguous(8));
        assert_eq!(Strided::of(&addrs, 0xFF, 4), s(8, 60), "gaps between lanes");
        assert_eq!(Strided::of(&addrs, 0x7F, 8), None, "a lane off");
        assert_eq!(Strided::of(&addrs, 0xFF, 16), None, "lanes overlap");
        let mut swapped = addrs.clone();
        swapped.swap(2, 3);
        assert_eq!(Strided::of(&swapped, 0xFF, 8), None);
        assert_eq!(Strided::of(&[0, 12, 24], 0b111, 8), None, "not a multiple");
        assert_eq!(Strided::of(&[7, 7], 0b11, 4), None, "one address");
        assert_eq!(Strided::of(&[0x40], 1, 16), s(16, 16), "one lane");
        assert_eq!(
            Strided::of(&[0, 1 << 63, 0], 0b111, 4),
            None,
            "span overflows"
        );
        let wraps: Vec<u64> = (0..8)
            .map(|l| (u64::MAX - 15).wrapping_add(4 * l))
            .collect();
        assert_eq!(
            Strided::of(&wraps, 0xFF, 4),
            s(4, 32),
            "found in no allocation later"
        );
        assert_eq!(Strided::of(&[], 0, 4), None);
    }

    #[test]
    fn strided_copies_and_loads_move_what_lane_by_lane_copies_move() {
        let layouts: [(u32, &[(u32, u32)]); 5] = [
            (4, &[(2, 4)]),
            (8, &[(1, 8)]),
            (8, &[(3, 4), (0, 4)]),
            (16, &[(1, 4), (0, 4), (3, 4), (2, 4)]),
            (16, &[(1, 8), (0, 8)]),
        ];
        for (bytes, regs) in layouts {
            for stride in [1, 2, 4].map(|k| k * u64::from(bytes)) {
                let addrs: Vec<u64> = (0..8).map(|l| l * stride).collect();
                let s = Strided::of(&addrs, 0xFF, bytes).expect("strided");
                let mem: Vec<u8> = (0..s.span as usize).map(|i| (i * 7) as u8).collect();
                for store in [false, true] {
                    let op = op(store, bytes, regs);
                    let (mut rf1, mut mem1) = (regfile(), mem.clone());
                    strided_access(&op, &mut rf1, &mut mem1, s.stride);
                    let (mut rf2, mut mem2) = (regfile(), mem.clone());
                    lanes_access(&op, &mut rf2, &addrs, 0xFF, &mut mem2, |a| a as usize);
                    let what = (bytes, regs, stride, store);
                    assert_eq!(mem1, mem2, "{what:?}");
                    for s in 0..4 {
                        assert_eq!(rf1.r32(s), rf2.r32(s), "{what:?}");
                    }
                    for s in 0..2 {
                        assert_eq!(rf1.r64(s), rf2.r64(s), "{what:?}");
                    }
                    if !store {
                        let mut rf3 = regfile();
                        strided_load(&op, &mut rf3, &mem, s.stride);
                        for s in 0..4 {
                            assert_eq!(rf1.r32(s), rf3.r32(s), "{what:?}");
                        }
                        for s in 0..2 {
                            assert_eq!(rf1.r64(s), rf3.r64(s), "{what:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn scattered_stores_and_loads_match_lane_by_lane() {
        let mut m = GlobalMem::default();
        let a = m.try_alloc(256).unwrap();
        let b = m.try_alloc(64).unwrap();
        let mut log = StoreLog::default();
        // 8 lanes, two allocations, lanes 1 and 5 on the same word: the
        // higher lane wins; lane 3 is off.
        let addrs = [a + 64, a + 8, b + 16, a, a + 200, a + 8, b, a + 128];
        let mut rf = regfile();
        let store = op(true, 8, &[(2, 4), (1, 4)]);
        m.access(&store, &mut rf, &addrs, 0b1111_0111, &mut log)
            .unwrap();
        // Loads of this quantum see the stores (patched lane by lane)...
        let load = op(false, 8, &[(0, 8)]);
        let mut seen = regfile();
        m.access(&load, &mut seen, &addrs, 0xFF, &mut log).unwrap();
        log.apply(&mut m);
        // ...and after the boundary read them from memory (one allocation:
        // straight from memory).
        let mut after = regfile();
        let (lo, _) = addrs.split_at(2);
        m.access(&load, &mut after, lo, 0b11, &mut log).unwrap();
        let word = |l: usize| u64::from(rf.r32(2)[l]) | u64::from(rf.r32(1)[l]) << 32;
        for l in [0, 1, 2, 4, 5, 6, 7] {
            let want = if l == 1 { word(5) } else { word(l) };
            assert_eq!(seen.r64(0)[l], want, "lane {l}");
            assert_eq!(
                m.read(addrs[l], 8),
                Some(&want.to_le_bytes()[..]),
                "lane {l}"
            );
        }
        assert_eq!(seen.r64(0)[3], 0, "lane 3 stored nothing");
        assert_eq!(after.r64(0)[..2], [word(0), word(5)]);
    }

    #[test]
    fn first_faulting_lane_is_reported() {
        let mut m = GlobalMem::default();
        let a = m.try_alloc(16).unwrap();
        let addrs = [a, a + 4, a + 6, a + 16];
        assert_eq!(
            m.check(&addrs, 0b1111, 4),
            Err((
                2,
                FaultKind::Misaligned {
                    space: Space::Global,
                    addr: a + 6,
                    bytes: 4
                }
            ))
        );
        assert_eq!(
            m.check(&addrs, 0b1011, 4),
            Err((
                3,
                FaultKind::GlobalOutOfBounds {
                    addr: a + 16,
                    bytes: 4
                }
            ))
        );
        assert_eq!(m.check(&addrs, 0b0011, 4), Ok(0));
        let b = m.try_alloc(16).unwrap();
        assert_eq!(m.check(&[a, b], 0b11, 4), Ok(SPLIT));
    }
}
