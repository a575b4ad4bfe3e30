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
//! charged to `no_instruction`.
//!
//! **Sets.** Both levels are set-associative (`icache_l0_ways`,
//! `icache_l1_ways`: line `i` of the code in set `i` mod the level's sets),
//! each set replacing its least recently used line. A loop a few lines
//! larger than a level then misses in the few sets it overfills and hits in
//! the rest, as on the H200: one warp looping over 33, 34, 36 and 40 KB
//! (`hw/calib/suite_icache_knee.txt`) takes 6%, 24%, 43% and 79% more
//! cycles an instruction than over 32 KB, and over 136 and 144 KB 38% and
//! 75% more than over 130 KB. LRU over all of a level's lines (or FIFO, the model before)
//! misses on every line of any loop larger than it, and ran those loops at
//! the full miss cost from 32 KB and from 128 KB on (+121%); four ways
//! follow the H200's steps.
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
//! `icache_l0_bytes` in every L0 and in the L1 (they came through it)
//! and, for a kernel the SM's L1 holds (at most `icache_l1_bytes`), its
//! first `icache_warm_bytes` (64 KB on the H200) in the L1: the fixed
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

/// A slot that holds no line.
const ABSENT: u32 = u32::MAX;

/// One cache level over the kernel's lines: set-associative, each set
/// keeping its most recently used lines, and per line when it arrives.
#[derive(Clone, Debug, Default)]
struct Level {
    /// Per set, its `ways` slots, the most recently used line first
    /// (`ABSENT` where none).
    slots: Vec<u32>,
    ways: usize,
    sets: usize,
    ready: Vec<u64>,
}

impl Level {
    /// Empties the level of `cap` lines in sets of `ways` (one set when it
    /// has fewer lines) for a kernel of `lines` lines, holding its first
    /// `warm` (the cold start).
    fn reset(&mut self, lines: usize, cap: u32, ways: u32, warm: u32) {
        let cap = cap.max(1) as usize;
        self.ways = (ways.max(1) as usize).min(cap);
        self.sets = cap / self.ways;
        self.slots.clear();
        self.slots.resize(self.sets * self.ways, ABSENT);
        self.ready.clear();
        self.ready.resize(lines, 0);
        for line in 0..(warm as usize).min(cap).min(lines) {
            self.fill(line, 0);
        }
    }

    /// The slots of `line`'s set.
    #[inline]
    fn set(&mut self, line: usize) -> &mut [u32] {
        let first = (line % self.sets) * self.ways;
        &mut self.slots[first..first + self.ways]
    }

    /// Whether the level holds `line`, which then becomes its set's most
    /// recently used.
    #[inline]
    fn touch(&mut self, line: usize) -> bool {
        let set = self.set(line);
        match set.iter().position(|&l| l == line as u32) {
            Some(i) => {
                set[..=i].rotate_right(1);
                true
            }
            None => false,
        }
    }

    /// Brings `line` in, arriving at `ready`, in place of its set's least
    /// recently used line.
    #[inline]
    fn fill(&mut self, line: usize, ready: u64) {
        let set = self.set(line);
        set.rotate_right(1);
        set[0] = line as u32;
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
    /// Per line, whether the SM's L1 fetched it before in the launch (its
    /// cold start counts): a miss for it then reads L2, else it streams.
    fetched: Vec<bool>,
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
        // L1 holds; a larger one starts with the L0's lines, which came
        // through the L1 (without them, the second wave of GPUTeraSort's
        // one-thread `head` blocks streamed the code's first lines from
        // DRAM again: docs/calibration.md, "Loops just past a cache").
        let l1_warm = if lines <= l1_cap as usize {
            (cfg.icache_warm_bytes / cfg.icache_line_bytes).max(l0_cap)
        } else {
            l0_cap
        };
        let nsp = cfg.num_subpartitions as usize;
        self.l0.resize_with(nsp, Level::default);
        for l0 in &mut self.l0 {
            l0.reset(lines, l0_cap, cfg.icache_l0_ways, l0_cap);
        }
        self.l1.reset(lines, l1_cap, cfg.icache_l1_ways, l1_warm);
        self.fetched.clear();
        self.fetched.resize(lines, false);
        self.fetched[..(l1_warm as usize).min(lines)].fill(true);
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
        if l0.touch(line) {
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
        let ready = if self.l1.touch(line) {
            start.max(self.l1.ready[line]) + self.l1_latency
        } else if !self.fetched[line] {
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
        let end = (line + 1 + self.ahead).min(self.fetched.len());
        let mut next = if self.pf_next > line && self.pf_next <= end {
            self.pf_next
        } else {
            line + 1
        };
        while next < end {
            if !self.fetched[next] {
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
        self.fetched[line] = true;
        self.l1.fill(line, ready);
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A level of `cap` lines in sets of `ways` for a kernel of `lines`,
    /// holding its first `cap`.
    fn level(lines: usize, cap: u32, ways: u32) -> Level {
        let mut l = Level::default();
        l.reset(lines, cap, ways, cap);
        l
    }

    /// Whether `l` holds `line`, without making it the most recently used.
    fn holds(l: &Level, line: usize) -> bool {
        l.slots.contains(&(line as u32))
    }

    #[test]
    fn a_level_starts_with_the_kernels_first_lines_and_evicts_its_sets_least_recent() {
        // Four lines in two sets of two: lines 0, 2, 4 go to set 0.
        let mut l = level(10, 4, 2);
        assert!((0..4).all(|i| holds(&l, i)));
        assert!(!holds(&l, 4));
        assert!(l.touch(0), "a hit; 0 is now set 0's most recent");
        l.fill(4, 7);
        assert!(!holds(&l, 2), "set 0's least recently used goes");
        assert!(holds(&l, 0) && holds(&l, 4) && holds(&l, 1) && holds(&l, 3));
        assert_eq!(l.ready[4], 7);
        // Fewer lines than ways: one set of all of them.
        let l = level(10, 2, 4);
        assert_eq!((l.sets, l.ways), (1, 2));
    }

    /// Misses a loop over lines `0..n` makes in one trip, after a first.
    fn loop_misses(l: &mut Level, n: usize) -> usize {
        let mut trip = || {
            (0..n)
                .filter(|&line| {
                    let hit = l.touch(line);
                    if !hit {
                        l.fill(line, 0);
                    }
                    !hit
                })
                .count()
        };
        trip();
        trip()
    }

    #[test]
    fn a_loop_a_set_larger_than_the_level_misses_in_that_set_only() {
        // Eight lines in four sets of two; a loop of ten lines puts three
        // in sets 0 and 1 (which then miss on each) and two in sets 2 and
        // 3 (which keep theirs).
        assert_eq!(loop_misses(&mut level(10, 8, 2), 10), 6);
        // One set of eight (LRU over all of it) misses on every line.
        assert_eq!(loop_misses(&mut level(10, 8, 8), 10), 10);
        // A loop the level holds misses on none.
        assert_eq!(loop_misses(&mut level(10, 8, 2), 8), 0);
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
