//! Instruction fetch: an L0 instruction cache per sub-partition, an L1 per
//! SM behind them, L2 beyond, over the kernel's static SASS layout
//! ([`crate::decode::Program::sass_at`]: each IR instruction as many
//! 16-byte SASS instructions as ptxas emits for it, [`crate::sass_size`]).
//!
//! **Why.** The kernels whose whole sorting network is unrolled in
//! registers (GPUTeraSort's fused `head`, HotSort's `bs` at H = 32, about
//! 88 KB of SASS) run once through more code than the H200's instruction
//! caches hold, and their top stall there is `no_instruction`.
//! `hw/calib/suite_icache.txt` (docs/calibration.md, "The instruction
//! cache") measured it: one warp an SM looping over straight-line code
//! runs at 1.4-1.5 cycles an instruction up to 16-32 KB of SASS, 3.4-4.3
//! from 48 to 128 KB (an L0 miss that hits the SM's L1), 6.4-6.8 beyond
//! (from L2); one warp on each sub-partition pays more per line (their
//! misses queue for the SM's L1), and four warps of one sub-partition
//! share the lines the first of them fetched.
//!
//! **The model.** A warp asks for a line when its next instruction is in
//! another line than the one it issued (a line crossing or a branch): a
//! hit in its sub-partition's L0 costs nothing (or waits for the line if
//! another warp's miss is still bringing it); an L0 miss queues for the
//! SM's L1 (one line every `icache_l1_line_cycles`), unless the L1 is
//! still sending the same line to another sub-partition's L0, whose read
//! it then shares (up to `icache_l1_shared_reads` sub-partitions a read,
//! below): a hit there stalls
//! the warp until `icache_l1_latency_cycles` after the L1 has the line; a
//! miss for a line the SM fetched before in the launch costs
//! `icache_l2_latency_cycles` (from L2). Code the SM never fetched streams
//! in: a miss there starts a sequential prefetch that keeps the next
//! `icache_fetch_lines` - 1 such lines on their way, each arriving
//! `dram_latency_cycles` after it was asked for and at least
//! `icache_cold_line_cycles` after the one before it. The warp's wait is
//! charged to `no_instruction`. Both levels replace the line filled
//! longest ago (FIFO, which for straight-line code and loops behaves as
//! LRU does).
//!
//! **Why a stream.** One trip over code no SM ran costs the H200 the same
//! with 1, 4, 8 or 16 warps an SM (`ic_w*_i1`: 55-58 K cycles for 64 KB,
//! 171-181 K for 256 KB, about 82 cycles a line over the whole body): the
//! lines come at a rate, not a latency each warp waits, and far faster
//! than a DRAM latency (640 cycles) a line. So a kernel that spends longer
//! on each line than the stream's line time waits only for the first of a
//! stream (sample sort's unrolled small sorts), and one that spends less
//! runs at the stream's rate (GPUTeraSort's fused `head`, 307 KB of SASS,
//! top stall `no_instruction`). Charging a first fetch as a stall of 94
//! cycles a line instead made `head` closer and the small sorts 42% slow
//! (docs/calibration.md, "The eighth suite").
//!
//! **Shared reads.** The four sub-partitions of a block run the same code
//! at about the same time, and the H200 does not read a line from its L1
//! once for each: two warps a sub-partition over 48 KB of straight-line
//! code wait 550 cycles a warp for code (`hw/data/h200/icache_warm/`,
//! `io_48k_g1_b256`), where one read a sub-partition, one line every 11
//! cycles, made the model wait 2,671; HotSort's `bs` with 8 slabs a
//! block (41 KB, the same shape) waits 179 on the H200, 1,775 in the
//! model before. A miss for a line already on its way from the L1 to
//! another sub-partition takes that read, arriving with it.
//!
//! **Cold start.** Each launch starts with the kernel's first
//! `icache_l0_bytes` in every L0 and, for a kernel the SM's L1 holds
//! (at most `icache_l1_bytes`), its first `icache_warm_bytes` (64 KB on
//! the H200) in the L1: the fixed
//! launch cost (`launch_overhead_cycles`, fitted over kernels that fit the
//! caches) already pays their first fetch, so a kernel that fits the L0
//! runs exactly as it did without this model, and its lookups are skipped
//! altogether. The rest streams in at the cold rate when first asked for,
//! and a larger kernel's from its first line past the L0 (GPUTeraSort's
//! `head`, 307 KB, about 110 cycles a line over every line on the H200,
//! and its launch over only its first 36 KB as a cold start gives).
//! Measured (`hw/data/h200/icache_warm/`): one trip over straight-line
//! kernels of 48 to 127 KB (one block of 8 warps, or 8 blocks, or a warp
//! on each of the 132 SMs) costs the ALU's 17 cycles a line up to 64 KB
//! and 119-127 a line past it, at 80 KB as at 127, though every one of
//! them is read from DRAM (`dram__bytes_read` is the code's size). The
//! start this replaced (all of a kernel the L1 holds warm in it) ran
//! those trips 13-55% fast from 88 KB on, and sample sort's `create_bst`
//! over 64-bit keys (126 KB) 37% fast.

use crate::config::GpuConfig;
#[cfg(doc)]
use crate::decode::Program;

/// Bytes of one SASS instruction (Volta and later encode every one in 16).
pub(crate) const SASS_INST_BYTES: u32 = 16;

/// A stamp of a line never filled.
const ABSENT: u32 = u32::MAX;

/// One cache level over the kernel's lines: per line, the fill it came in
/// with (its FIFO position) and when it arrives.
#[derive(Clone, Debug, Default)]
struct Level {
    stamp: Vec<u32>,
    ready: Vec<u64>,
    /// Fills so far: a line is held while it is one of the last `cap`.
    fills: u32,
    cap: u32,
}

impl Level {
    /// Empties the level of `cap` lines for a kernel of `lines` lines,
    /// holding its first `warm` (the cold start).
    fn reset(&mut self, lines: usize, cap: u32, warm: u32) {
        self.cap = cap;
        self.stamp.clear();
        self.stamp.resize(lines, ABSENT);
        self.ready.clear();
        self.ready.resize(lines, 0);
        let warm = (warm.min(cap) as usize).min(lines);
        for (l, s) in self.stamp[..warm].iter_mut().enumerate() {
            *s = l as u32;
        }
        self.fills = warm as u32;
    }

    #[inline]
    fn holds(&self, line: usize) -> bool {
        let s = self.stamp[line];
        s != ABSENT && self.fills - s <= self.cap
    }

    #[inline]
    fn fill(&mut self, line: usize, ready: u64) {
        self.stamp[line] = self.fills;
        self.fills += 1;
        self.ready[line] = ready;
    }
}

/// One SM's instruction caches for the running launch.
#[derive(Clone, Debug, Default)]
pub(crate) struct ICache {
    /// Whether the kernel is larger than an L0: otherwise every fetch hits
    /// and none is looked up.
    pub on: bool,
    /// log2 of the SASS instructions in a line.
    pub shift: u32,
    l0: Vec<Level>,
    l1: Level,
    /// The next cycle the SM's L1 can start delivering a line.
    l1_free_at: u64,
    l1_latency: u64,
    l1_line: u64,
    /// The cycle the L1's last line of code never fetched before arrives
    /// (its stream).
    fill_free_at: u64,
    l2_latency: u64,
    dram_latency: u64,
    cold_line: u64,
    /// Lines the SM's L1 fetches ahead of the one a warp asks for
    /// (`icache_fetch_lines` - 1).
    ahead: usize,
    /// The line after the last one the prefetch covered.
    pf_next: usize,
    /// Per line, when the L1's last read of it for an L0 reaches that L0,
    /// and how many sub-partitions' misses it serves.
    out_ready: Vec<u64>,
    out_sharers: Vec<u32>,
    /// Sub-partitions one such read can serve (`icache_l1_shared_reads`).
    sharers: u32,
}

impl ICache {
    /// Prepares for a launch of a kernel of `sass` SASS instructions
    /// ([`Program::sass_at`]'s last entry) on an SM of `cfg`.
    pub fn reset(&mut self, sass: u32, cfg: &GpuConfig) {
        let per_line = (cfg.icache_line_bytes / SASS_INST_BYTES).max(1);
        self.shift = per_line.trailing_zeros();
        let lines = sass.div_ceil(per_line) as usize;
        let l0_cap = cfg.icache_l0_bytes / cfg.icache_line_bytes;
        self.on = cfg.icache_l0_bytes > 0 && lines > l0_cap as usize;
        if !self.on {
            return;
        }
        let l1_cap = cfg.icache_l1_bytes / cfg.icache_line_bytes;
        // The launch brings the first `icache_warm_bytes` of a kernel the
        // L1 holds; a larger one starts with the L0's lines only.
        let l1_warm = if lines <= l1_cap as usize {
            cfg.icache_warm_bytes / cfg.icache_line_bytes
        } else {
            0
        };
        let nsp = cfg.num_subpartitions as usize;
        self.l0.resize_with(nsp, Level::default);
        for l0 in &mut self.l0 {
            l0.reset(lines, l0_cap, l0_cap);
        }
        self.l1.reset(lines, l1_cap, l1_warm);
        self.out_ready.clear();
        self.out_ready.resize(lines, 0);
        self.out_sharers.clear();
        self.out_sharers.resize(lines, 0);
        self.sharers = cfg.icache_l1_shared_reads;
        self.ahead = cfg.icache_fetch_lines.saturating_sub(1) as usize;
        self.l1_free_at = 0;
        self.l1_latency = cfg.icache_l1_latency_cycles.into();
        self.l1_line = cfg.icache_l1_line_cycles.into();
        self.fill_free_at = 0;
        self.pf_next = 0;
        self.l2_latency = cfg.icache_l2_latency_cycles.into();
        self.dram_latency = cfg.dram_latency_cycles.into();
        self.cold_line = cfg.icache_cold_line_cycles.into();
    }

    /// Sub-partition `sp` needs `line` at cycle `t`: the cycle the line is
    /// there (at most `t` on a hit).
    #[inline]
    pub fn fetch(&mut self, sp: usize, line: u32, t: u64) -> u64 {
        let line = line as usize;
        let l0 = &mut self.l0[sp];
        if l0.holds(line) {
            return l0.ready[line];
        }
        if t < self.out_ready[line] && self.out_sharers[line] < self.sharers {
            // Another sub-partition's read of the line is on its way: this
            // miss takes the same one.
            self.out_sharers[line] += 1;
            let ready = self.out_ready[line];
            self.l0[sp].fill(line, ready);
            return ready;
        }
        let start = t.max(self.l1_free_at);
        self.l1_free_at = start + self.l1_line;
        let ready = if self.l1.holds(line) {
            start.max(self.l1.ready[line]) + self.l1_latency
        } else if self.l1.stamp[line] == ABSENT {
            self.stream(line, start)
        } else {
            let ready = start + self.l2_latency;
            self.l1.fill(line, ready);
            ready
        };
        self.l0[sp].fill(line, ready);
        self.out_ready[line] = ready;
        self.out_sharers[line] = 1;
        // The L1 keeps the code after it that the SM never fetched coming
        // (a sequential prefetch): behind this line, one after another.
        let end = (line + 1 + self.ahead).min(self.l1.stamp.len());
        let mut next = if self.pf_next > line && self.pf_next <= end {
            self.pf_next
        } else {
            line + 1
        };
        while next < end {
            if self.l1.stamp[next] == ABSENT {
                self.stream(next, start);
            }
            next += 1;
        }
        self.pf_next = end;
        ready
    }

    /// The L1 fetches `line`, which the SM never fetched, asked for at
    /// `start`: it arrives the DRAM's latency after `start`, and at least a
    /// line time after the line streamed before it.
    #[inline]
    fn stream(&mut self, line: usize, start: u64) -> u64 {
        let ready = (start + self.dram_latency).max(self.fill_free_at + self.cold_line);
        self.fill_free_at = ready;
        self.l1.fill(line, ready);
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(lines: usize, cap: u32) -> Level {
        let mut l = Level::default();
        l.reset(lines, cap, cap);
        l
    }

    #[test]
    fn a_level_starts_with_the_kernels_first_lines_and_evicts_the_oldest() {
        let mut l = level(10, 4);
        assert!((0..4).all(|i| l.holds(i)));
        assert!(!l.holds(4));
        l.fill(4, 7);
        assert!(!l.holds(0), "the line filled longest ago goes");
        assert!(l.holds(1) && l.holds(4));
        assert_eq!(l.ready[4], 7);
    }

    /// An L0 of `l0` bytes and an L1 of `l1` (all of it warm), 128-byte
    /// lines, round latencies, `fetch_lines` on their way, each L1 read
    /// for one sub-partition.
    fn config(l0: u32, l1: u32, fetch_lines: u32) -> GpuConfig {
        let mut cfg = GpuConfig::h200();
        cfg.icache_l0_bytes = l0;
        cfg.icache_l1_bytes = l1;
        cfg.icache_line_bytes = 128;
        cfg.icache_l1_latency_cycles = 10;
        cfg.icache_l1_line_cycles = 3;
        cfg.icache_l2_latency_cycles = 40;
        cfg.icache_cold_line_cycles = 9;
        cfg.icache_fetch_lines = fetch_lines;
        cfg.l2_latency_cycles = 40;
        cfg.dram_latency_cycles = 90;
        cfg.icache_warm_bytes = l1;
        cfg.icache_l1_shared_reads = 1;
        cfg
    }

    fn cache(l0: u32, l1: u32, insts: u32, fetch_lines: u32) -> ICache {
        let mut ic = ICache::default();
        ic.reset(insts, &config(l0, l1, fetch_lines));
        ic
    }

    #[test]
    fn a_kernel_that_fits_the_l0_is_never_looked_up() {
        assert!(!cache(256, 512, 16, 1).on, "two lines in two");
        assert!(cache(256, 512, 17, 1).on, "three lines in two");
        assert!(!cache(0, 0, 1000, 1).on, "no cache model");
    }

    #[test]
    fn a_launch_brings_the_first_warm_bytes_of_a_kernel_the_l1_holds() {
        // L0 one line, L1 four, the first two warm; no prefetch; the L1
        // delivers a line at once.
        let mut cfg = config(128, 512, 1);
        cfg.icache_l1_line_cycles = 0;
        cfg.icache_warm_bytes = 256;
        let mut ic = ICache::default();
        ic.reset(32, &cfg); // four lines
        assert!(ic.fetch(0, 0, 100) <= 100, "warm in L0");
        assert_eq!(ic.fetch(0, 1, 100), 110, "warm in L1");
        assert_eq!(ic.fetch(0, 3, 100), 190, "past them: first fetch");
        // Larger than the L1: only the L0's line.
        ic.reset(128, &cfg);
        assert_eq!(ic.fetch(0, 1, 100), 190, "not in L1: first fetch");
    }

    #[test]
    fn misses_cost_the_level_that_holds_the_line() {
        // L0 two lines, L1 four; a kernel of four lines starts with its
        // first two in every L0 and all of it in the L1; no prefetch.
        let mut ic = cache(256, 512, 32, 1);
        assert_eq!(ic.shift, 3);
        assert!(ic.fetch(0, 1, 100) <= 100, "warm in L0");
        assert_eq!(ic.fetch(1, 1, 100), 0, "every L0 starts warm");
        assert_eq!(ic.fetch(0, 3, 100), 110, "warm in L1");
        assert_eq!(ic.fetch(1, 3, 100), 113, "the L1 delivers a line every 3");
        assert_eq!(ic.fetch(0, 3, 105), 110, "a line in flight is waited for");
        // A kernel of 16 lines: nothing in the L1.
        let mut ic = cache(256, 512, 128, 1);
        assert_eq!(ic.fetch(0, 4, 200), 290, "first fetch: the DRAM's latency");
        assert_eq!(ic.fetch(1, 4, 200), 300, "in flight, then the L1's latency");
        assert_eq!(ic.fetch(2, 5, 200), 299, "the stream: a line time after 4");
        for line in 6..10 {
            ic.fetch(0, line, 300);
        }
        assert_eq!(ic.fetch(0, 4, 1000), 1040, "fetched before: L2");
    }

    #[test]
    fn a_miss_streams_the_next_lines_into_the_l1() {
        // Three lines a fetch; L1 eight lines, 16 lines of code (none of
        // it in the L1 at the start).
        let mut ic = cache(256, 1024, 128, 3);
        assert_eq!(ic.fetch(0, 8, 100), 190);
        // Lines 9 and 10 came behind line 8, 9 cycles apart.
        assert_eq!(ic.fetch(0, 9, 300), 310, "an L1 hit");
        assert_eq!(ic.fetch(0, 10, 300), 313, "an L1 hit, behind the last");
        // Asking for 9 and 10 kept the stream going: 11, asked for at 300,
        // is there at 390, and 12 (asked for at 303) a line time after it.
        assert_eq!(ic.fetch(0, 11, 400), 410, "there at 390, then the L1");
        assert_eq!(ic.fetch(1, 12, 400), 413, "there at 399, then the L1");
    }

    #[test]
    fn sub_partitions_share_a_read_of_a_line_on_its_way() {
        // L0 two lines, L1 four (all warm); a read takes 3 cycles of the
        // L1 and arrives 10 after it starts; two sub-partitions a read.
        let mut cfg = config(256, 512, 1);
        cfg.icache_l1_shared_reads = 2;
        let mut ic = ICache::default();
        ic.reset(32, &cfg);
        assert_eq!(ic.fetch(0, 3, 100), 110);
        assert_eq!(ic.fetch(1, 3, 105), 110, "on its way to sub-partition 0");
        assert_eq!(ic.fetch(2, 3, 105), 115, "two share it: a read of its own");
        assert_eq!(ic.fetch(3, 3, 120), 130, "arrived: read again");
        // One a read (the old model): the second miss queues behind the first.
        cfg.icache_l1_shared_reads = 1;
        ic.reset(32, &cfg);
        assert_eq!(ic.fetch(0, 3, 100), 110);
        assert_eq!(ic.fetch(1, 3, 105), 115);
    }
}
