//! The global stores of one SM during one quantum, held back until the
//! quantum boundary.
//!
//! **Why.** SMs run a quantum on several host threads at once, so device
//! memory cannot change under them: what an SM stores goes to its own log,
//! and every log is written to memory at the boundary, in SM order (for the
//! same byte stored by two SMs in one quantum, the higher SM wins). An SM
//! reads device memory as it was at the quantum's start plus its own
//! stores so far (a load looks its log up), so what every load returns is
//! the same for any number of threads. Blocks on different SMs see each
//! other's stores from the next quantum on, as a real GPU gives no
//! ordering between blocks without fences or atomics (which the IR does
//! not have).

use crate::memory::GlobalMem;

/// Stores waiting for the quantum boundary, in issue order.
#[derive(Debug, Default)]
pub(crate) struct StoreLog {
    /// (address, offset in `bytes`, length) of each store.
    entries: Vec<(u64, u32, u32)>,
    bytes: Vec<u8>,
    /// The lowest address stored and one past the highest (`lo >= hi`:
    /// empty): most loads miss the range and skip the lookup.
    lo: u64,
    hi: u64,
    /// A filter of the granules stored (see [`Granules`]): a load inside
    /// `lo..hi` that touches no marked granule skips the entries.
    stored: Granules,
    /// Scratch for one access's bytes (see `GlobalMem::access`).
    pub scratch: Vec<u8>,
}

impl StoreLog {
    /// Records that `data` is stored at `addr` (inside an allocation).
    #[cfg(test)]
    pub fn push(&mut self, addr: u64, data: &[u8]) {
        let off = self.append(data.len()).0;
        self.bytes[off as usize..].copy_from_slice(data);
        self.record(addr, off, data.len() as u32);
    }

    /// Appends `len` bytes to the log's data for the caller to fill (a
    /// warp's store is written here once, not built elsewhere and copied);
    /// returns their offset and the bytes. [`Self::record`] says where
    /// they go.
    #[inline]
    pub fn append(&mut self, len: usize) -> (u32, &mut [u8]) {
        let off = self.bytes.len();
        self.bytes.resize(off + len, 0);
        (off as u32, &mut self.bytes[off..])
    }

    /// Records that the `len` appended bytes at offset `off` are stored at
    /// `addr` (inside an allocation).
    #[inline]
    pub fn record(&mut self, addr: u64, off: u32, len: u32) {
        let end = addr + u64::from(len);
        if self.entries.is_empty() {
            (self.lo, self.hi) = (addr, end);
        } else {
            self.lo = self.lo.min(addr);
            self.hi = self.hi.max(end);
        }
        self.stored.mark(addr, end);
        self.entries.push((addr, off, len));
    }

    /// Whether a store of this quantum may overlap `len` bytes at `addr`:
    /// never when they are outside the range of every store so far or
    /// touch no granule a store marked (a superset of the stored bytes, so
    /// `false` is exact; `true` may be wrong, and the caller then looks
    /// at the entries).
    #[inline]
    pub fn overlaps(&self, addr: u64, len: u64) -> bool {
        self.in_range(addr, len) && self.stored.any(addr, addr + len)
    }

    /// Whether `len` bytes at `addr` meet the range of every store so far.
    #[inline]
    fn in_range(&self, addr: u64, len: u64) -> bool {
        !self.entries.is_empty() && addr < self.hi && addr + len > self.lo
    }

    /// Overwrites `buf`, device memory at `addr`, with the logged stores
    /// that overlap it, oldest first (so the latest wins).
    #[inline]
    pub fn patch(&self, addr: u64, buf: &mut [u8]) {
        let end = addr + buf.len() as u64;
        if !self.overlaps(addr, buf.len() as u64) {
            return;
        }
        for &(a, off, len) in &self.entries {
            let e = a + u64::from(len);
            if e <= addr || a >= end {
                continue;
            }
            let (from, to) = (a.max(addr), e.min(end));
            let src = off as usize + (from - a) as usize;
            let dst = (from - addr) as usize;
            let n = (to - from) as usize;
            buf[dst..dst + n].copy_from_slice(&self.bytes[src..src + n]);
        }
    }

    /// Writes the parts of the logged stores inside `a..b` to `pieces`
    /// (the allocations' bytes there, from [`GlobalMem::slices`]), in
    /// order; the log stays as it is.
    fn write_range(&self, a: u64, b: u64, pieces: &mut [(u64, &mut [u8])]) {
        if !self.in_range(a, b - a) {
            return;
        }
        let mut at = 0;
        for &(addr, off, len) in &self.entries {
            let end = addr + u64::from(len);
            if end <= a || addr >= b {
                continue;
            }
            let (from, to) = (addr.max(a), end.min(b));
            let inside =
                |(start, dst): &(u64, &mut [u8])| from >= *start && to - start <= dst.len() as u64;
            if !pieces.get(at).is_some_and(inside) {
                at = pieces.partition_point(|(start, _)| *start <= from) - 1;
            }
            let (start, dst) = &mut pieces[at];
            debug_assert!(from >= *start && to - *start <= dst.len() as u64);
            let n = (to - from) as usize;
            let dst = &mut dst[(from - *start) as usize..][..n];
            let src = &self.bytes[off as usize + (from - addr) as usize..][..n];
            copy(dst, src);
        }
    }

    /// Empties the log.
    pub fn clear(&mut self) {
        if !self.entries.is_empty() {
            self.stored.clear();
        }
        self.entries.clear();
        self.bytes.clear();
    }

    /// Writes the logged stores to `mem` in order and empties the log.
    pub fn apply(&mut self, mem: &mut GlobalMem) {
        // Most stores of a quantum go to one allocation: look it up again
        // only when a store leaves it.
        let mut at: Option<(u64, &mut [u8])> = None;
        for &(a, off, len) in &self.entries {
            let data = &self.bytes[off as usize..(off + len) as usize];
            let inside = |(start, dst): &(u64, &mut [u8])| {
                a >= *start && a - start + u64::from(len) <= dst.len() as u64
            };
            if !at.as_ref().is_some_and(inside) {
                at = Some(
                    mem.allocation_at(a, len.into())
                        .expect("a logged store was checked against the allocations"),
                );
            }
            let (start, dst) = at.as_mut().expect("found above");
            copy(&mut dst[(a - *start) as usize..][..len as usize], data);
        }
        self.clear();
    }
}

/// Bytes per granule of [`Granules`]: a sector, the unit a scattered
/// lane's load touches.
const GRANULE_SHIFT: u32 = 5;
/// Bits in [`Granules`]: 256 bytes, cleared when a log with stores is
/// emptied (every quantum boundary), and a few hundred granules stored per
/// SM and quantum leave most bits clear.
const GRANULE_BITS: usize = 2048;
/// A load spanning more granules than this is not looked up bit by bit
/// ([`Granules::any`] says `true`): the entries decide.
const GRANULE_LOOKUPS: u64 = 16;

/// A Bloom filter (one hash) of the `GRANULE_SHIFT`-aligned granules a
/// log's stores touch.
///
/// **Why.** At 16M keys an SM's stores in a quantum lie far apart in one
/// 64 MB buffer, so its loads often fell inside the range `lo..hi` of its
/// stores, and a load of scattered lanes then scanned every entry for
/// every lane (more than half of `GlobalMem::access`'s time in `perf
/// annotate`). Granules hashed into bits answer "stored nothing here" at
/// a bit test per granule.
#[derive(Debug)]
struct Granules([u64; GRANULE_BITS / 64]);

impl Default for Granules {
    fn default() -> Granules {
        Granules([0; GRANULE_BITS / 64])
    }
}

impl Granules {
    /// The bit of granule `g` (Fibonacci hashing, so strided rows at a
    /// power-of-two distance do not share bits).
    #[inline(always)]
    fn bit(g: u64) -> usize {
        (g.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - GRANULE_BITS.trailing_zeros())) as usize
    }

    /// Marks every granule of the bytes `a..b`.
    #[inline]
    fn mark(&mut self, a: u64, b: u64) {
        if b <= a {
            return;
        }
        let (first, last) = (a >> GRANULE_SHIFT, (b - 1) >> GRANULE_SHIFT);
        if last - first >= GRANULE_BITS as u64 {
            self.0 = [u64::MAX; GRANULE_BITS / 64];
            return;
        }
        for g in first..=last {
            let i = Self::bit(g);
            self.0[i / 64] |= 1 << (i % 64);
        }
    }

    /// Whether any granule of the bytes `a..b` may be marked.
    #[inline]
    fn any(&self, a: u64, b: u64) -> bool {
        if b <= a {
            return false;
        }
        let (first, last) = (a >> GRANULE_SHIFT, (b - 1) >> GRANULE_SHIFT);
        if last - first >= GRANULE_LOOKUPS {
            return true;
        }
        (first..=last).any(|g| {
            let i = Self::bit(g);
            self.0[i / 64] >> (i % 64) & 1 != 0
        })
    }

    fn clear(&mut self) {
        self.0 = [0; GRANULE_BITS / 64];
    }
}

/// Copies `src` to `dst` (the same length), the usual widths of a lane's
/// or a coalesced warp's store as fixed-size copies, not a call each.
#[inline]
fn copy(dst: &mut [u8], src: &[u8]) {
    match src.len() {
        4 => dst.copy_from_slice(&src[..4]),
        8 => dst.copy_from_slice(&src[..8]),
        16 => dst.copy_from_slice(&src[..16]),
        128 => dst.copy_from_slice(&src[..128]),
        _ => dst.copy_from_slice(src),
    }
}

/// Logs holding fewer bytes than this are written by one thread: a team
/// job costs more than copying them.
const PARALLEL_BYTES: usize = 32 << 10;

/// Where to cut the address range the logged stores cover so that `parts`
/// threads can write them at once, one slice each, or `None` when one
/// thread should write them (one part, nothing logged, or fewer than
/// [`PARALLEL_BYTES`]). Cuts fall at host cache lines, so two threads
/// never write one line.
pub(crate) fn cuts(logs: &[StoreLog], parts: usize) -> Option<Vec<u64>> {
    let bytes: usize = logs.iter().map(|l| l.bytes.len()).sum();
    if parts < 2 || bytes < PARALLEL_BYTES {
        return None;
    }
    let used = logs.iter().filter(|l| !l.entries.is_empty());
    let lo = used.clone().map(|l| l.lo).min()?;
    let hi = used.map(|l| l.hi).max()?;
    let mut cuts: Vec<u64> = (0..=parts as u64)
        .map(|k| lo + (u128::from(hi - lo) * u128::from(k) / parts as u128) as u64)
        .map(|c| if c == hi { hi } else { c & !63 })
        .collect();
    cuts[0] = lo;
    cuts.dedup();
    Some(cuts)
}

/// Writes every log's stores inside slice `k` of `cuts` (device memory's
/// `pieces` there, from [`GlobalMem::slices`]), in SM order: with the
/// other slices written likewise, the same bytes as one thread writes.
/// The logs are emptied afterwards by the caller.
pub(crate) fn write_slice(
    logs: &[StoreLog],
    cuts: &[u64],
    k: usize,
    mut pieces: Vec<(u64, &mut [u8])>,
) {
    for log in logs {
        log.write_range(cuts[k], cuts[k + 1], &mut pieces);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::{Team, exclusive, take};

    /// Writes every SM's logged stores to `mem` and empties the logs, SM by
    /// SM (for a byte stored by two SMs the higher one wins): on `team`'s
    /// members at once where [`cuts`] says so, else on this thread (the
    /// engine does the same inside its boundary job).
    fn apply_all(logs: &mut [StoreLog], mem: &mut GlobalMem, team: &Team) {
        let Some(cuts) = cuts(logs, team.threads()) else {
            logs.iter_mut().for_each(|l| l.apply(mem));
            return;
        };
        let slices = exclusive(mem.slices(&cuts).into_iter());
        let shared: &[StoreLog] = logs;
        team.run(&|m| {
            if let Some(slot) = slices.get(m) {
                write_slice(shared, &cuts, m, take(slot));
            }
        });
        logs.iter_mut().for_each(StoreLog::clear);
    }

    #[test]
    fn loads_see_the_latest_own_store_and_memory_elsewhere() {
        let mut log = StoreLog::default();
        log.push(100, &[1, 2, 3, 4]);
        log.push(102, &[9, 9]);
        let mut buf = [7u8; 8];
        log.patch(98, &mut buf);
        assert_eq!(buf, [7, 7, 1, 2, 9, 9, 7, 7]);
        let mut far = [7u8; 2];
        log.patch(200, &mut far);
        assert_eq!(far, [7, 7]);
    }

    /// Three allocations and four SMs' logs of random stores (overlapping
    /// ones, of every width, across any cut).
    fn random_stores() -> (GlobalMem, Vec<(u64, u64)>, Vec<StoreLog>) {
        let mut mem = GlobalMem::default();
        let allocs: Vec<(u64, u64)> = [5000u64, 300, 70_000]
            .iter()
            .map(|&n| (mem.try_alloc(n).unwrap(), n))
            .collect();
        let mut rng = crate::tests::util::Rng(0x853c_49e6_748f_ea9b_u64);
        let mut next = |n: u64| rng.next() % n;
        let logs = (0..4u64)
            .map(|sm| {
                let mut log = StoreLog::default();
                for _ in 0..3000 {
                    let (start, size) = allocs[next(3) as usize];
                    let len = [4u64, 8, 16, 128, 12][next(5) as usize];
                    let addr = start + next(size - len + 1);
                    let data: Vec<u8> = (0..len).map(|i| (sm * 31 + i + next(7)) as u8).collect();
                    log.push(addr, &data);
                }
                log
            })
            .collect();
        (mem, allocs, logs)
    }

    #[test]
    fn logs_written_on_several_threads_give_the_bytes_of_one() {
        let (mut want, allocs, mut logs) = random_stores();
        for log in &mut logs {
            log.apply(&mut want);
        }
        for threads in [1, 2, 3] {
            let team = Team::new(threads, "test").unwrap();
            let (mut mem, _, mut logs) = random_stores();
            assert!(logs.iter().map(|l| l.bytes.len()).sum::<usize>() >= PARALLEL_BYTES);
            apply_all(&mut logs, &mut mem, &team);
            for &(a, n) in &allocs {
                assert_eq!(
                    mem.read(a, n),
                    want.read(a, n),
                    "{threads} threads at {a:#x}"
                );
            }
            assert!(
                logs.iter()
                    .all(|l| l.entries.is_empty() && l.bytes.is_empty())
            );
        }
    }

    #[test]
    fn the_granule_filter_never_misses_a_stored_byte() {
        // Stores of every width, including ones crossing granules, then
        // loads of every width around them: `overlaps` must say `true`
        // whenever a stored byte is inside, and mostly `false` elsewhere.
        let mut rng = crate::tests::util::Rng(0x2545_f491_4f6c_dd1d_u64);
        let mut next = |n: u64| rng.next() % n;
        let mut log = StoreLog::default();
        let mut stored = Vec::new();
        for _ in 0..200 {
            let (addr, len) = (
                0x1000_0000 + next(1 << 20),
                [4, 8, 16, 128, 12][next(5) as usize],
            );
            log.push(addr, &vec![1; len as usize]);
            stored.push((addr, addr + len));
        }
        let (mut said_yes, mut loads) = (0, 0);
        for _ in 0..20_000 {
            let (addr, len) = (
                0x1000_0000 + next(1 << 20),
                [1, 4, 8, 16, 512, 4096][next(6) as usize],
            );
            let truth = stored.iter().any(|&(a, b)| a < addr + len && addr < b);
            let got = log.overlaps(addr, len);
            assert!(got || !truth, "{len} bytes at {addr:#x} were stored");
            said_yes += u64::from(got && !truth && len <= 16);
            loads += u64::from(len <= 16);
        }
        assert!(
            said_yes * 5 < loads,
            "{said_yes} of {loads} narrow loads misjudged"
        );
        assert!(!log.overlaps(0x1000_0000, 0), "no bytes overlap nothing");
        let mut mem = GlobalMem::default();
        mem.try_alloc(2 << 20).unwrap();
        log.apply(&mut mem);
        let (a, b) = stored[0];
        assert!(!log.overlaps(a, b - a), "an emptied log overlaps nothing");
    }

    #[test]
    fn the_boundary_writes_stores_in_issue_order() {
        let mut mem = GlobalMem::default();
        let a = mem.try_alloc(8).unwrap();
        let mut log = StoreLog::default();
        log.push(a, &[1, 1, 1, 1]);
        log.push(a + 2, &[2, 2]);
        assert_eq!(mem.read(a, 4), Some(&[0, 0, 0, 0][..]));
        log.apply(&mut mem);
        assert_eq!(mem.read(a, 4), Some(&[1, 1, 2, 2][..]));
        let mut buf = [0u8; 4];
        log.patch(a, &mut buf);
        assert_eq!(buf, [0; 4], "an applied log is empty");
    }
}
