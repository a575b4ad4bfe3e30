//! The one hardware config struct, its presets and its validation.
//!
//! Every number the timing model uses is a field here; nothing else in the
//! crate hard-codes a warp width, a bank count or a latency. Settings that
//! describe a run rather than the machine live in [`crate::RunOptions`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How a sub-partition's scheduler picks among its eligible warps.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerPolicy {
    /// Loose round robin: the first eligible warp after the one issued last.
    Lrr,
    /// Greedy then oldest: keep issuing from the last warp while it is
    /// eligible, otherwise the oldest eligible warp.
    Gto,
}

impl SchedulerPolicy {
    /// The policy's text name (`lrr` or `gto`).
    pub const fn name(self) -> &'static str {
        match self {
            SchedulerPolicy::Lrr => "lrr",
            SchedulerPolicy::Gto => "gto",
        }
    }
}

impl fmt::Display for SchedulerPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SchedulerPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "lrr" => Ok(SchedulerPolicy::Lrr),
            "gto" => Ok(SchedulerPolicy::Gto),
            _ => Err(format!(
                "unknown scheduler policy `{s}` (expected lrr or gto)"
            )),
        }
    }
}

/// One thing wrong with a [`GpuConfig`] (or with a `name=value` override).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("config field `{field}`: {message}")]
pub struct ConfigError {
    /// The field name, as in [`GpuConfig::field_names`].
    pub field: String,
    /// What is wrong, naming the bad value.
    pub message: String,
}

impl ConfigError {
    fn new(field: &str, message: impl Into<String>) -> ConfigError {
        ConfigError {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

macro_rules! gpu_config {
    ($( $(#[doc = $doc:literal])* $field:ident : $ty:ty, )*) => {
        /// The simulated machine: every hardware parameter, with its unit.
        ///
        /// `Default` is the H200 ([`GpuConfig::h200`]); [`GpuConfig::tiny`]
        /// is a small machine for tests. Fields are public; check a config
        /// built by hand with [`GpuConfig::validate`] ([`crate::Gpu::new`]
        /// does).
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub struct GpuConfig {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        impl GpuConfig {
            /// The name of every field, in declaration order: what
            /// [`GpuConfig::set`] accepts.
            pub const fn field_names() -> &'static [&'static str] {
                &[ $( stringify!($field), )* ]
            }

            /// Sets the field called `name` from its text form (a number, or
            /// `lrr`/`gto` for the scheduler). The result is not validated.
            pub fn set(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
                match name {
                    $( stringify!($field) => {
                        self.$field = value.trim().parse().map_err(|e| {
                            ConfigError::new(name, format!("cannot parse `{value}`: {e}"))
                        })?;
                        Ok(())
                    } )*
                    _ => Err(ConfigError::new(name, "no such field")),
                }
            }

            /// The doc comment of the field called `name` (its meaning, unit
            /// and range), as one line.
            pub fn field_doc(name: &str) -> Option<&'static str> {
                match name {
                    $( stringify!($field) => Some(concat!($($doc,)* "").trim_ascii()), )*
                    _ => None,
                }
            }

            /// The text form of the field called `name`.
            pub fn get(&self, name: &str) -> Option<String> {
                match name {
                    $( stringify!($field) => Some(self.$field.to_string()), )*
                    _ => None,
                }
            }
        }
    };
}

gpu_config! {
    /// SMs (streaming multiprocessors), 1..=65536.
    num_sms: u32,
    /// Lanes per warp: a power of two, 1..=64 (active masks are `u64`).
    warp_size: u32,
    /// Warp schedulers (sub-partitions) per SM, 1..=max_warps_per_sm; each
    /// issues at most one warp instruction per cycle. Warp slot `i` of an SM
    /// belongs to sub-partition `i % num_subpartitions`.
    num_subpartitions: u32,
    /// Resident warps per SM, 1..=65536.
    max_warps_per_sm: u32,
    /// Resident blocks per SM, >= 1.
    max_blocks_per_sm: u32,
    /// Threads per block, >= 1.
    max_threads_per_block: u32,
    /// 32-bit registers per SM, >= 1.
    regs_per_sm: u32,
    /// 32-bit registers one thread may use, >= 1 (a 64-bit register counts two).
    max_regs_per_thread: u32,
    /// Register allocation granularity, in 32-bit registers per warp, >= 1:
    /// a warp's registers are `regs_per_thread * warp_size` rounded up to it.
    reg_alloc_unit: u32,
    /// Registers a thread holds beyond the most 32-bit words its kernel
    /// keeps live at once, >= 0: what the compiler adds (addresses, loop
    /// counters, values it keeps to save recomputing them). Occupancy counts
    /// the live words plus these, at most the kernel's declared words: the
    /// IR names more registers than it keeps alive (HotSort's `bc` at H = 8
    /// declares 41 words, keeps 26 live, and ptxas allocates 28).
    reg_words_beyond_live: u32,
    /// Registers a thread of a kernel that loads or stores 16 bytes a lane
    /// in one access (`.b128`) holds at least beyond its live words, >= 0,
    /// even beyond the kernel's declared words: each such access needs four
    /// consecutive aligned registers, so the allocator packs the live values
    /// less tightly (ptxas gives GPUTeraSort's `step` 84 registers for 68
    /// live words and 74 declared). 0 leaves such kernels to
    /// `reg_words_beyond_live`.
    reg_words_beyond_live_b128: u32,
    /// Shared memory per SM, bytes.
    smem_bytes_per_sm: u32,
    /// Shared memory one block may use, bytes, <= smem_bytes_per_sm.
    smem_bytes_per_block: u32,
    /// Shared memory banks: a power of two, 1..=1024.
    smem_banks: u32,
    /// Bytes each bank delivers per wavefront: a power of two, 1..=64.
    smem_bank_width_bytes: u32,
    /// Whether a shared load wider than a bank word whose lanes read in
    /// pairs (every lane the address of lane `l ^ 1`, or every lane that of
    /// lane `l ^ 2`) is served in phases twice as wide, 0 or 1 (0: in the
    /// phases of its width, as every store is).
    smem_paired_loads: u32,
    /// Scheduling policy of every sub-partition (`lrr` or `gto`).
    scheduler: SchedulerPolicy,
    /// Cycles from issue until an ALU result can be read (fixed latency), >= 1.
    alu_latency_cycles: u32,
    /// Lanes the ALU of one sub-partition processes per cycle, >= 1: a warp
    /// instruction occupies it `ceil(warp_size / alu_lanes_per_cycle)` cycles.
    alu_lanes_per_cycle: u32,
    /// Cycles from the start of a shuffle in the MIO pipe until its result
    /// can be read, >= 1.
    shfl_latency_cycles: u32,
    /// Lanes the SM's shuffle crossbar moves per cycle, >= 1.
    shfl_lanes_per_cycle: u32,
    /// Cycles from the start of a one-wavefront shared load until its
    /// result can be read, >= 1; every extra wavefront adds one.
    smem_latency_cycles: u32,
    /// Cycles from the start of a one-wavefront shared atomic until its old
    /// value can be read, >= 1.
    smem_atom_latency_cycles: u32,
    /// Cycles each wavefront of a shared atomic after the first adds to its
    /// latency, >= 0 (its pipe occupancy is one cycle per wavefront, as for
    /// loads).
    smem_atom_replay_cycles: u32,
    /// MIO instructions (shared memory, shuffles) one sub-partition may have
    /// queued and not yet started, 1..=256; beyond it warps stall in
    /// `mio_throttle`.
    mio_queue_depth: u32,
    /// Cycles from one shared-memory access of a warp (a load, store or
    /// atomic) to its next, >= 1, waited out in `wait`: ptxas's stall counts
    /// space them so.
    smem_issue_interval_cycles: u32,
    /// Cycles from a warp's special-register read (`S2R`, one for each of
    /// `SR_TID.X/Y/Z`, `SR_LANEID` and `SR_CTAID.X/Y/Z` the kernel reads, at
    /// the warp's start) entering the SM's MIO pipe until its result can be
    /// read; 0 leaves the reads out (free, as the IR's operands are).
    s2r_latency_cycles: u32,
    /// Lanes of special-register reads (`S2R`) the SM's MIO pipe serves
    /// per cycle, >= 1: each warp's `S2R` occupies it
    /// `ceil(warp_size / s2r_lanes_per_cycle)` cycles.
    s2r_lanes_per_cycle: u32,
    /// Cycles after a branch before the warp can issue again (`branch_resolving`), >= 1.
    branch_latency_cycles: u32,
    /// Cycles more, >= 0, that the back edge of a loop whose exit waits on
    /// a shared load holds its warp (`branch_resolving`): ptxas puts a
    /// `YIELD` in such a loop (`crate::yield_loop`), and a warp that runs
    /// it waits that long for its next trip.
    yield_cycles: u32,
    /// Cycles from when the SM's barrier unit has taken the last warp's
    /// arrival at `bar.sync` until the block's warps can issue again, >= 1.
    bar_latency_cycles: u32,
    /// Cycles the SM's one barrier unit takes for each warp's arrival at
    /// `bar.sync`, >= 0: it takes one at a time, in the order they came, for
    /// all the SM's blocks, and releases a block's warps together.
    bar_release_cycles_per_warp: u32,
    /// Cycles every launch costs beyond its blocks' work, >= 0: the launch
    /// itself and the drain after the last warp (an empty kernel still
    /// takes this long in `sm__cycles_elapsed.max`).
    launch_overhead_cycles: u32,
    /// Cycles a launch that reads or writes global memory costs beyond one
    /// that does not, >= 0, charged at its end. Where the hardware spends
    /// them (the first accesses' address translation, the wait for the
    /// last stores' acknowledgement) its launch times do not tell apart.
    memory_launch_cycles: u32,
    /// Cycles a launch whose blocks use every SM costs beyond one whose
    /// blocks use one, >= 0, charged at its end: a launch over s of n SMs
    /// pays this times the square root of (s - 1) / (n - 1). Its blocks
    /// start and end together on every SM (%globaltimer), so the time is
    /// the launch's.
    launch_all_sms_cycles: u32,
    /// Cycles each warp of the blocks an SM holds at a launch's start waits
    /// for its first instructions (`no_instruction`), 0..=
    /// launch_overhead_cycles. Part of the launch's fixed cost:
    /// launch_overhead_cycles counts them, so they say where the first
    /// wave's warps spend that time, not how long the launch takes.
    warp_start_fetch_cycles: u32,
    /// Cycles between two block starts on one SM, >= 0: the block
    /// dispatcher hands an SM one block at a time, even into free slots.
    block_dispatch_cycles: u32,
    /// Warps a cycle at which an SM's first blocks of a launch start, >= 0:
    /// a block the SM takes at the launch's start begins ceil(its warps /
    /// this) cycles after the one before where that is within
    /// first_wave_window_cycles of the SM's first block; the rest keep
    /// block_dispatch_cycles. 0: every block keeps block_dispatch_cycles.
    first_wave_warps_per_cycle: u32,
    /// Cycles after an SM's first block of a launch within which its next
    /// ones may start at first_wave_warps_per_cycle, >= 0.
    first_wave_window_cycles: u32,
    /// Global-memory sectors the SM's LSU (L1TEX) accepts per cycle, >= 1.
    lsu_sectors_per_cycle: u32,
    /// Global-memory instructions one sub-partition may have queued and not
    /// yet started in the LSU, 1..=256; beyond it warps stall in `lg_throttle`.
    lsu_queue_depth: u32,
    /// Whether a global store whose data pass the L1's data stage (lanes on
    /// lines the L1 holds, in more wavefronts than its tag-stage cycles)
    /// keeps its place in the sub-partition's LSU queue until the SM's port
    /// to L2 takes it, 0 or 1 (0: until the LSU starts it, as any other
    /// instruction): the warps behind it stall in `lg_throttle`.
    store_port_hold: u32,
    /// Four-register quads ptxas stages 16-byte global stores of computed
    /// data in, 0..=4 (0: none): each such store takes the next quad in turn
    /// and issues only once the store before it on that quad has read its
    /// registers (`long_scoreboard`), which a store held for the port
    /// (`store_port_hold`) does when the port takes it, any other at once.
    store_staging_quads: u32,
    /// Which loads wait until the global stores their SM sent before them
    /// have left the SM, as fast as the L2 took them, 0..=2: 0 none, 1 a
    /// shared load's (or atomic's) data (`short_scoreboard`), 2 those and
    /// a global load's request, which leaves the SM no earlier. Off on the
    /// presets: neither setting brings the sorts' kernels nearer the H200
    /// in every way (docs/calibration.md).
    loads_wait_for_stores: u32,
    /// L2 lines the SM's store-combining buffer holds, 0..=64 (0: none):
    /// stores that write part of a sector of a line it holds merge there
    /// and reach L2 as one write.
    store_combine_lines: u32,
    /// Cycles a line waits in the store-combining buffer for another part
    /// after its last one, >= 0; a later part goes to L2 on its own.
    store_combine_cycles: u32,
    /// Bytes of L1 data cache and shared memory together per SM, >= 0 (0:
    /// no L1): what the launch's resident blocks' shared memory leaves
    /// caches global loads ([`crate::l1`]).
    l1_unified_bytes: u32,
    /// Cycles from a global load's start until its data can be read when
    /// every sector hits in L1, >= 1.
    l1_latency_cycles: u32,
    /// Cycles from a global load's start until its data can be read when
    /// every sector hits in L2, >= 1.
    l2_latency_cycles: u32,
    /// Cycles from a global load's start until its data can be read when a
    /// sector misses in L2, >= 1.
    dram_latency_cycles: u32,
    /// Cycles each L2 line of a global load after its first adds to when
    /// its data can be read, >= 0: the lines of a divergent load return one
    /// after another.
    load_line_cycles: u32,
    /// Read requests (one a line) the SM's port to L2 sends per cycle,
    /// 0..=64 (0: reads pass it without holding it).
    l2_port_reads_per_cycle: u32,
    /// Cycles a store's write of a whole sector holds the SM's port to L2,
    /// >= 0 (0: it passes without holding it).
    l2_port_write_cycles: u32,
    /// Cycles a store's write to a line of which it writes a sector in
    /// part holds the SM's port to L2 at least, >= 0 (a line's write takes
    /// `l2_port_write_cycles` a sector otherwise).
    l2_port_partial_write_cycles: u32,
    /// Bytes of whole sectors the L2 takes from stores per cycle over the
    /// GPU, 0 (no limit) or >= 1: a launch's whole-sector write holds each
    /// SM's port at least its share of them, split among the SMs its grid
    /// keeps busy (`min(num_sms, blocks)`).
    l2_store_bytes_per_cycle: u32,
    /// Sectors of loads that missed L1 the SM takes in from L2 per cycle,
    /// 0..=64 (0: no limit): the data of its loads in flight arrive one
    /// sector after another.
    l1_fill_sectors_per_cycle: u32,
    /// Memory partitions (L2 slices with their DRAM channel), >= 1; each has
    /// its own bandwidth queue.
    mem_partitions: u32,
    /// Bytes of consecutive addresses mapped to one partition: a power of
    /// two, >= sector_bytes.
    partition_interleave_bytes: u32,
    /// How many bits of an interleave chunk's index above its partition
    /// bits are XORed into them (in groups of as many bits as the
    /// partition bits, where `mem_partitions` is a power of two), 0..=64:
    /// power-of-two strides within those bits spread over the partitions
    /// as on NVIDIA GPUs; 0: chunks go to the partitions in turn
    /// (`sim/src/slice_hash.rs`).
    partition_hash: u32,
    /// L2 bandwidth of the whole GPU, bytes per cycle, >= 1 (split evenly
    /// over the partitions).
    l2_bytes_per_cycle: u32,
    /// L2 bandwidth a store that writes part of a sector takes, bytes, >= 1
    /// (a whole sector takes sector_bytes): the slice merges the part into
    /// the sector.
    l2_partial_write_bytes: u32,
    /// L2 bandwidth a partial-sector store takes besides, bytes, >= 0, when
    /// its line is not the line its slice last wrote in part.
    l2_partial_line_bytes: u32,
    /// L2 bandwidth a partial-sector store takes besides, bytes, >= 0, when
    /// its sector is the sector its slice last wrote in part (a part to
    /// another sector of that line takes nothing besides).
    l2_partial_sector_bytes: u32,
    /// DRAM bandwidth of the whole GPU, bytes per cycle, >= 1 (split evenly
    /// over the partitions).
    dram_bytes_per_cycle: u32,
    /// Bytes a load that misses L2 reads from DRAM and fills into L2: the
    /// aligned block around its sector, a power of two,
    /// sector_bytes..=l2_line_bytes. On the H200 it is 64 (two sectors):
    /// loads that use one sector of every 64 bytes read twice their
    /// sectors' bytes from DRAM (`dram__bytes_read`).
    dram_fetch_bytes: u32,
    /// Bytes of a partition's own addresses one DRAM row holds: a power of
    /// two, dram_fetch_bytes..=1048576. A partition's addresses go to its
    /// banks a row at a time, in turn.
    dram_row_bytes: u32,
    /// DRAM banks of each partition, 0..=65536, each with one row open (0:
    /// rows not modelled, every access costs the same).
    dram_banks: u32,
    /// DRAM bandwidth, bytes, >= 0, that an access to a row its bank does
    /// not have open takes from its partition's channel besides its data
    /// (opening the row).
    dram_row_open_bytes: u32,
    /// L2 capacity, bytes, >= l2_line_bytes * l2_ways.
    l2_bytes: u64,
    /// L2 associativity, 1..=256.
    l2_ways: u32,
    /// Lines with sectors written in part (by stores that did not cover
    /// them) that one L2 set holds, 0..=l2_ways (0: no limit, such sectors
    /// are held as whole ones): a store that makes one more such line in
    /// its set fills the set's least recently used such line's sectors in
    /// part from DRAM, a read and a sector of its slice's time each, and
    /// writes its dirty sectors back; the line stays, whole and clean.
    l2_partial_lines_per_set: u32,
    /// L2 line size, bytes: a power of two, sector_bytes..=64*sector_bytes.
    l2_line_bytes: u32,
    /// Global-memory sector size (the unit of coalescing), bytes: a power of two, 4..=4096.
    sector_bytes: u32,
    /// Instruction cache (L0) of each sub-partition, bytes: 0 (no
    /// instruction-cache model: every fetch hits) or a multiple of
    /// icache_line_bytes.
    icache_l0_bytes: u32,
    /// Instruction cache (L1) of each SM, bytes: a multiple of
    /// icache_line_bytes, >= icache_l0_bytes; its sub-partitions' L0 misses
    /// fetch here.
    icache_l1_bytes: u32,
    /// Ways of each sub-partition's L0 instruction cache, 1..=64: line `i`
    /// of the code goes to set `i` mod (its lines / icache_l0_ways), which
    /// keeps its icache_l0_ways most recently used lines; its lines are a
    /// multiple of it (an L0 of fewer lines is one set).
    icache_l0_ways: u32,
    /// Ways of each SM's L1 instruction cache, 1..=64, as icache_l0_ways.
    icache_l1_ways: u32,
    /// Instruction-cache line, bytes: a power of two, 16..=4096 (a SASS
    /// instruction is 16 bytes).
    icache_line_bytes: u32,
    /// Cycles an L0 instruction miss that hits the SM's L1 stalls the warp, >= 0.
    icache_l1_latency_cycles: u32,
    /// Cycles the SM's L1 instruction cache takes per line it delivers, >= 0:
    /// the sub-partitions' L0 misses queue for it.
    icache_l1_line_cycles: u32,
    /// Sub-partitions whose L0 misses for one line one read of the SM's L1
    /// instruction cache serves, 1..=num_subpartitions: a miss for a line
    /// that the L1 is still sending to another sub-partition's L0 takes
    /// that read (arriving with it, without a line time of its own) while
    /// fewer than this many share it; 1, every miss reads on its own.
    icache_l1_shared_reads: u32,
    /// Cycles an L1 instruction miss stalls the warp, >= 0, for a line the SM
    /// fetched before in the launch (from L2).
    icache_l2_latency_cycles: u32,
    /// Cycles the SM's L1 instruction cache takes per line it fetches that no
    /// warp of the SM asked for before in the launch (from DRAM), >= 0; the
    /// first arrives dram_latency_cycles after it is asked for.
    icache_cold_line_cycles: u32,
    /// Lines of code the SM never fetched that its L1 instruction cache has on
    /// their way, 1..=64: a miss there fetches the line asked for and the next
    /// icache_fetch_lines - 1 (a sequential prefetch, kept that far ahead of
    /// the lines the warps ask for).
    icache_fetch_lines: u32,
    /// Bytes of a kernel's code, from its start, that a launch brings into
    /// each SM's L1 instruction cache before the first warp issues, if the
    /// L1 holds the whole kernel: a multiple of icache_line_bytes, <=
    /// icache_l1_bytes. The L1 also holds the first icache_l0_bytes the
    /// launch brings into every L0, of any kernel; lines past both stream
    /// in when first asked for (icache_cold_line_cycles).
    icache_warm_bytes: u32,
    /// SM clock, MHz, >= 1; only converts cycles to time in reports.
    clock_mhz: u32,
}

impl Default for GpuConfig {
    fn default() -> GpuConfig {
        GpuConfig::h200()
    }
}

impl GpuConfig {
    /// The NVIDIA H200 (Hopper, compute capability 9.0), from `hardware.md`.
    pub fn h200() -> GpuConfig {
        GpuConfig {
            num_sms: 132,
            warp_size: 32,
            num_subpartitions: 4,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 32,
            max_threads_per_block: 1024,
            regs_per_sm: 65536,
            max_regs_per_thread: 255,
            // Hopper allocates registers per warp in units of 256.
            reg_alloc_unit: 256,
            // Measured (hw/data/h200/regs/): ptxas (CUDA 13.0, sm_90, -O3)
            // allocates a median of 8 registers beyond the IR's live words
            // over the 125 kernels of the committed suites. 3 is the most
            // that keeps HotSort's `bs` at its occupancy (40 registers at
            // H = 16, 37 live); of the 23 kernels whose grid outlasts a
            // wave it gives 17 ptxas's occupancy, the declared words 1.
            reg_words_beyond_live: 3,
            // Measured (hw/data/h200/regs/): for the 13 kernels of the
            // committed suites that move 16 bytes a lane (bitonic's `head`,
            // `step`, `tail`; GPUTeraSort's `step`, `tail`, `reorder`)
            // ptxas allocates 8 to 29 registers beyond the live words,
            // median 16; live plus 16 gives 9 of the 13 ptxas's allocation
            // to 8 registers (live plus 3, capped at the declared words: 0).
            reg_words_beyond_live_b128: 16,
            smem_bytes_per_sm: 228 * 1024,
            smem_bytes_per_block: 227 * 1024,
            smem_banks: 32,
            smem_bank_width_bytes: 4,
            // Measured (hw/data/h200/smem_patterns/): over 552 lane patterns
            // the H200's 8- and 16-byte shared loads take the whole warp and
            // half-warps as phases when their lanes pair, its stores never
            // (docs/calibration.md, "Wide shared loads read in pairs").
            smem_paired_loads: 1,
            scheduler: SchedulerPolicy::Gto,
            // Measured: a dependent min/max/add chain costs about 4 cycles an op.
            alu_latency_cycles: 4,
            // 64 INT32 lanes per SM (CUDA guide, cc 9.0) over 4 sub-partitions.
            alu_lanes_per_cycle: 16,
            // Measured: shuffle plus dependent add about 30 cycles.
            shfl_latency_cycles: 26,
            // 32 shuffle lanes per SM per cycle (CUDA guide, cc 9.0).
            shfl_lanes_per_cycle: 32,
            // Measured: a dependent shared-load chain about 29 cycles a step.
            smem_latency_cycles: 29,
            // Measured (hw/atomics): a dependent chain of atomics takes 8
            // cycles a step more than the same chain of loads, and 1.8 more
            // for every wavefront after the first.
            smem_atom_latency_cycles: 37,
            smem_atom_replay_cycles: 2,
            mio_queue_depth: 8,
            // The stall counts of sm_90 SASS (docs/calibration.md, "Shared
            // accesses four cycles apart"): of 11,353 successive memory
            // instructions of one warp in hw/data/h200/sass (10,937 shared
            // loads and stores), none is closer than 4 cycles, and ncu's
            // `wait` of sample sort's small sorts is what the stall counts
            // give (2.05 an instruction against 2.06 at 8192 keys).
            smem_issue_interval_cycles: 4,
            // Not measured alone: the shuffle's, whose results also come
            // back through the MIO (8 to 48 move write.kir and reduce.kir
            // over 1024 blocks of 1,024 threads by at most 1.1%).
            s2r_latency_cycles: 26,
            // hw/calib/suite_s2r.txt (docs/calibration.md, "The last
            // launches beyond 25%"): three more S2R a warp cost write.kir
            // 932 cycles over 1024 blocks of 1,024 threads, where blocks
            // reach an SM 160 cycles apart: 32 warps' 5 S2R at 2 cycles
            // each (320) outlast that, write.kir's 2 (128) do not.
            s2r_lanes_per_cycle: 16,
            // With it a dependent chain in a loop costs 12 cycles per 3 ops,
            // as measured (the branch hides behind the chain).
            branch_latency_cycles: 2,
            // hw/calib/suite_branch2.txt: a lower-bound search on shared
            // words costs the H200 about 87 cycles a probe more than the
            // same search on keys it computes, 43 of them
            // `branch_resolving`, where the model's shared load accounts
            // for 39 (docs/calibration.md, "Branches and `wait`").
            yield_cycles: 40,
            // With the loop around it, `bar.sync` costs about 14 cycles for one warp;
            // the unit takes its arrival in 2 (`bar_release_cycles_per_warp`), so 1
            // more releases it (was 4 when the unit released a block's warps one
            // every 2 cycles: docs/calibration.md, "A barrier's warps leave together").
            bar_latency_cycles: 1,
            // Measured: `bar.sync` in a loop costs about 14 cycles with one
            // warp and 76 with 32, about two more per added warp; the loop's
            // own issue pressure explains half of that.
            bar_release_cycles_per_warp: 2,
            // Calibrated over hw/calib/suite.txt (cycle MAPE lowest here):
            // an empty kernel alone takes 2,633-2,962 cycles on the H200;
            // real kernels pay about 500 more that the model does not yet
            // time. Inside their SMs' active time, not around the launch:
            // elapsed less active cycles is about 2,590 for one block of
            // `minmax` or `create_bst` as for one warp; their blocks run
            // about 950 cycles longer than the model's (hw/calib/
            // launch_split.py). Not the first read of the parameters: a kernel
            // that reads one and exits takes no longer than an empty one
            // (hw/calib/suite_launch.txt). With memory_launch_cycles, a
            // kernel that touches global memory costs what it did at 4,000.
            // 350 less since launch_all_sms_cycles: the cost of a launch
            // over one SM, where the fixed cost of 3,460 had carried the
            // SMs' part of every launch. The five H200 sort suites fitted
            // before have their lowest mean cycle MAPE from 350 to 400
            // less; at 350 each is within 6% (docs/calibration.md, "A
            // launch's fixed cost grows with its SMs"). 50 less again
            // since launch_all_sms_cycles took its measured 330 and the
            // sample sort suites were recorded anew (2026-11-30): over 0 to
            // 150 less, 25 apart, the five suites' mean is lowest there
            // (4.998%; the kept-apart suite not used).
            launch_overhead_cycles: 3060,
            // Measured (hw/calib/suite_launch.txt): a store a thread adds
            // -126 to 857 cycles to a launch that reads its parameter and
            // exits, in eight pairs of two recordings; 540 is their median.
            // A load a thread adds 722-1,292 (the model charges the DRAM
            // latency, 640, for the load itself).
            memory_launch_cycles: 540,
            // Measured (hw/calib/suite_launch_sms.txt): the same kernel
            // over 1 to 132 SMs, one block an SM, ends 44-844 cycles later
            // over 99 and 132 SMs than over one (14 launches of eight
            // series, quartiles 277 and 489, median 328; 410 in the first
            // four series, recorded together, which the preset took until
            // 2026-11-30), about 180 over 16; the square root follows that
            // rise closer than a line.
            launch_all_sms_cycles: 330,
            // Measured (hw/data/calib, ncu's no_instruction stall a warp):
            // the median over the 325 launches of one wave (at most 132
            // blocks) of at most 50 instructions a warp, whose code the
            // L0 holds, is 139 cycles a warp (quartiles 128 and 160;
            // docs/calibration.md, "A warp's first instructions").
            warp_start_fetch_cycles: 139,
            // Measured (hw/calib, empty kernels): a grid retires one block
            // per SM every 158-179 cycles, whatever the block's size and
            // however many slots are free.
            block_dispatch_cycles: 160,
            // Measured (hw/burst.cu, hw/data/h200/burst): an SM's first
            // blocks start 2-6 cycles apart for blocks of 4 and 8 warps,
            // 8-10 for 16 and 18 for 32 (about 2 warps a cycle), those
            // starting 17-27 cycles after the first at most (6 blocks of 8
            // warps, 9-11 of 4, 3-4 of 16, 2 of 32); later ones 40-300
            // cycles apart.
            first_wave_warps_per_cycle: 2,
            first_wave_window_cycles: 20,
            // L1TEX: 128 bytes per cycle per SM.
            lsu_sectors_per_cycle: 4,
            lsu_queue_depth: 8,
            // Measured (hw/data/calib/ts*.csv): GPUTeraSort's `tail` waits in
            // `lg_throttle` on the H200 in all 37 launches of its suite, and
            // in `lg_throttle` and `drain` for as long as the port takes its
            // block's 128 stores of half sectors (docs/calibration.md,
            // "Stores that wait for the port").
            store_port_hold: 1,
            // ptxas's SASS of GPUTeraSort's `step`
            // (hw/data/h200/sass/terasort_64k/): 10 of its 16 16-byte stores
            // are built in two quads (`R8`-`R11`, `R20`-`R23`) with
            // `IMAD.MOV`, each rewrite waiting for the store before to read
            // its quad; the H200's top stall there is `long_scoreboard`.
            store_staging_quads: 2,
            // Measured (hw/lds_under_load.cu): an H200 shared load waits
            // behind its SM's stores, but at 1 HotSort's `transpose` and
            // sample sort's `scatter` wait 3-17 times the H200's cycles a
            // shared load, and at 2 the global `step` kernels at 4M keys
            // run 14% long (docs/calibration.md, "A shared load behind the
            // SM's global stores").
            loads_wait_for_stores: 0,
            // Measured (hw/calib/suite_parts.txt, docs/calibration.md): the
            // parts of a sector that warps of one SM store within a few
            // cycles of each other reach L2 as one write (8 warps' parts of
            // 32 sectors in 8 lines do); eight warps' parts of 32 sectors in
            // 32 lines do not, nor parts two loop iterations apart.
            store_combine_lines: 16,
            store_combine_cycles: 16,
            // Hopper: 256 KB of L1 and shared memory per SM; global loads
            // hit in L1 (hw/data/l1probe/). The hit latency is the
            // shared-memory chain's 33 cycles a step
            // (hw/data/h200/latency.csv), which an L1 hit goes through too:
            // a chain of L1 hits costs 47.5 cycles a step with its loop on
            // the H200 and 49.0 in the model (hw/calib/suite_l1.txt).
            l1_unified_bytes: 262_144,
            l1_latency_cycles: 33,
            // Measured dependent chains: L2 about 300-370, DRAM about 660 a step.
            l2_latency_cycles: 300,
            dram_latency_cycles: 640,
            // Measured (hw/calib/suite_chase.txt): a warp whose 32 lanes
            // each follow a chain of loads to random words costs about
            // 1,170 cycles a step when they miss L2 and 790-860 when most
            // hit, against 691 for one lane's chain (DRAM) and the L2's
            // 300: 31 further lines at about 16 cycles each, either way.
            load_line_cycles: 16,
            // Measured (hw/calib/suite_xbar.txt, the port's busy cycles
            // `l1tex__m_l1tex2xbar_req_cycles_active`): 8,194 for 8,192
            // whole sectors written, 32,770 for 16,384 written in half,
            // 4,098 for reads of 8,192 lines ([`crate::l2_port`]).
            l2_port_reads_per_cycle: 2,
            l2_port_write_cycles: 1,
            l2_port_partial_write_cycles: 2,
            // Measured (hw/store_queue.cu, hw/data/h200/store_queue/):
            // whole lines stored back to back on all 132 SMs leave at
            // 2,170 bytes a cycle over the GPU (7.8 cycles a line an SM,
            // against the port's 4.0 on one SM alone).
            l2_store_bytes_per_cycle: 2170,
            // Measured (hw/calib/suite_xbar.txt, `xb_l_c`): 8 warps an SM
            // loading 16 whole sectors a request in rounds take 9,913
            // active cycles for the 8,192 sectors an SM reads, where the
            // loads' latency alone gives about 6,700 ([`crate::l1_fill`]).
            l1_fill_sectors_per_cycle: 1,
            mem_partitions: 32,
            partition_interleave_bytes: 256,
            // Every bit: the H200 spreads every power-of-two stride from
            // 256 B to 64 MB over its slices (hw/data/h200/l2_slices/: 1,024
            // addresses a stride apart put at most 36 on one slice, where an
            // even spread over the slices one SM reaches gives about 24), and
            // every recorded kernel's L2 bytes are within 15% of the mean
            // slice's, the 128 KB-strided scatters included
            // (docs/calibration.md, "Where the H200's L2 slices are").
            partition_hash: 64,
            // About 5.5 TB/s of L2 and 4.8 TB/s of HBM3e at 1.98 GHz.
            l2_bytes_per_cycle: 2816,
            // Measured (hw/calib/suite_parts.txt): a part that reaches L2
            // alone takes about 1.55 sectors' L2 time when its request's
            // parts share lines four to a line (`ps_b8`, `ps_b4`), 2.4 when
            // each has a line of its own (`ps_b8_l`).
            l2_partial_write_bytes: 40,
            l2_partial_line_bytes: 36,
            // Fitted (hw/calib/suite_scatter_lines.txt, docs/calibration.md
            // "A part right after a part of the same sector"): eight warps
            // of a block writing the same 32 sectors in 32 lines take the
            // H200 longer than parts from other blocks (`swl_b32_*`).
            l2_partial_sector_bytes: 48,
            dram_bytes_per_cycle: 2432,
            // keygen reads 67.1 MB from DRAM for 33.6 MB of load sectors
            // (hw/data/calib/ts1m.csv).
            dram_fetch_bytes: 64,
            // Fitted to hw/calib/suite_gather.txt (docs/calibration.md,
            // "Random reads from DRAM"): 16-byte reads scattered over 64 and
            // 256 MB move 1,635 and 1,452 DRAM bytes a cycle on the H200,
            // reads in order 1,991 and 2,282. A row of 1 KB as HBM3's.
            dram_row_bytes: 1024,
            dram_banks: 1024,
            dram_row_open_bytes: 42,
            l2_bytes: 50 * 1024 * 1024,
            l2_ways: 16,
            // Measured (hw/calib/suite_l2parts.txt, docs/calibration.md
            // "Sectors written in part"): kernels that write one part of
            // each sector of 8-64 MB have the H200 write back what a
            // Poisson spread of their lines over the 25,600 sets leaves
            // beyond four a set, and read 1.0-2.3 times as much first.
            l2_partial_lines_per_set: 4,
            l2_line_bytes: 128,
            sector_bytes: 32,
            // Measured (hw/calib/suite_icache.txt, docs/calibration.md "The
            // instruction cache"): one warp an SM looping over straight-line
            // code runs at 1.4-1.5 cycles an instruction up to 16-32 KB,
            // 3.4-4.3 from 48 to 128 KB, 6.4-6.8 from 160 KB: an L0 of 32 KB
            // per sub-partition, an L1 of 128 KB per SM.
            icache_l0_bytes: 32 * 1024,
            icache_l1_bytes: 128 * 1024,
            // Measured (hw/calib/suite_icache_knee.txt, docs/calibration.md
            // "Loops just past a cache"): one warp looping over 32 to 40 KB
            // of code, or 128 to 144 KB, slows by steps as the loop grows
            // a KB at a time, where a cache missing on every line once the
            // loop is larger than it (LRU over all its lines) slows at
            // once; four ways a set follow the steps.
            icache_l0_ways: 4,
            icache_l1_ways: 4,
            icache_line_bytes: 128,
            // Fitted to the same suite: an L0 miss costs one warp about 16
            // cycles more a 128-byte line from 48 to 128 KB, an L1 miss
            // about 42 from 160 KB; a warp on each sub-partition pays about
            // 44 cycles a line from the L1 where one warp pays 27 (the L1
            // delivers a line every 11 cycles).
            icache_l1_latency_cycles: 16,
            icache_l1_line_cycles: 11,
            // Measured (hw/data/h200/icache_warm/; docs/calibration.md "The
            // eighth suite"): two warps a sub-partition once over 48 KB of
            // straight-line code, one block on one SM, wait 550 cycles a
            // warp for code, where four reads a line, one every
            // icache_l1_line_cycles, made the model wait 2,671: the
            // sub-partitions of a block, running the same code at about
            // the same time, share the L1's reads of a line.
            icache_l1_shared_reads: 4,
            icache_l2_latency_cycles: 42,
            // One trip over the last 64 or 96 KB of the body no SM ran
            // (`ic_w*_64k_i1`, `ic_w*_96k_i1`, code read from DRAM) takes
            // about 100-103 cycles a line, with 1 to 16 warps alike, and
            // so do the kernels larger than the L1, which start cold past
            // the L0 (GPUTeraSort's `head` 104-110 over every line, sample
            // sort's `small_sort_8192` 98-104): the lines stream in behind
            // a sequential prefetch, which needs the line asked for and at
            // least dram_latency_cycles / 100 (7) behind it to keep that
            // rate (it keeps 8, as it did at 82 cycles a line); a
            // kernel that spends longer on a line than that does not wait
            // for it.
            icache_cold_line_cycles: 100,
            icache_fetch_lines: 9,
            // Measured (hw/data/h200/icache_warm/): one trip over
            // straight-line kernels of 48 to 127 KB, one block of 8 warps,
            // costs 17 cycles a line more from 48 to 64 KB (the ALU's
            // time) and 119-127 cycles a line past 64 KB, at 80 KB as at
            // 127: its first 64 KB come with the launch, the rest streams.
            icache_warm_bytes: 64 * 1024,
            clock_mhz: 1980,
        }
    }

    /// A small machine for tests: 2 SMs of 2 sub-partitions, warps of 8
    /// lanes, 8 banks, short latencies, so exact cycle counts stay readable.
    pub fn tiny() -> GpuConfig {
        GpuConfig {
            num_sms: 2,
            warp_size: 8,
            num_subpartitions: 2,
            max_warps_per_sm: 8,
            max_blocks_per_sm: 4,
            max_threads_per_block: 64,
            regs_per_sm: 4096,
            max_regs_per_thread: 64,
            reg_alloc_unit: 8,
            // The declared words: the tests' occupancy as written.
            reg_words_beyond_live: 255,
            reg_words_beyond_live_b128: 0,
            smem_bytes_per_sm: 4096,
            smem_bytes_per_block: 2048,
            smem_banks: 8,
            smem_bank_width_bytes: 4,
            smem_paired_loads: 0,
            scheduler: SchedulerPolicy::Gto,
            alu_latency_cycles: 2,
            alu_lanes_per_cycle: 4,
            shfl_latency_cycles: 3,
            shfl_lanes_per_cycle: 8,
            smem_latency_cycles: 4,
            smem_atom_latency_cycles: 5,
            smem_atom_replay_cycles: 1,
            mio_queue_depth: 2,
            // Off (every instruction takes a cycle anyway): the tiny
            // machine keeps its tests' cycle counts.
            smem_issue_interval_cycles: 1,
            // Off: the tiny machine keeps its tests' cycle counts.
            s2r_latency_cycles: 0,
            s2r_lanes_per_cycle: 8,
            branch_latency_cycles: 2,
            // Off: the tiny machine keeps its tests' cycle counts.
            yield_cycles: 0,
            bar_latency_cycles: 2,
            bar_release_cycles_per_warp: 1,
            // Off: the tiny machine keeps exact cycle counts readable.
            launch_overhead_cycles: 0,
            memory_launch_cycles: 0,
            launch_all_sms_cycles: 0,
            warp_start_fetch_cycles: 0,
            block_dispatch_cycles: 0,
            first_wave_warps_per_cycle: 0,
            first_wave_window_cycles: 0,
            lsu_sectors_per_cycle: 2,
            lsu_queue_depth: 2,
            // Off: the tiny machine keeps its tests' cycle counts.
            store_port_hold: 0,
            store_staging_quads: 0,
            loads_wait_for_stores: 0,
            // Off, and partial stores cost what whole ones do: the tiny
            // machine keeps its tests' cycle counts as they were.
            store_combine_lines: 0,
            store_combine_cycles: 0,
            // Off: the tiny machine keeps its tests' cycle counts.
            l1_unified_bytes: 0,
            l1_latency_cycles: 1,
            l2_latency_cycles: 10,
            dram_latency_cycles: 20,
            // Off: the tiny machine keeps its tests' cycle counts.
            load_line_cycles: 0,
            // Off: the tiny machine keeps its tests' cycle counts.
            l2_port_reads_per_cycle: 0,
            l2_port_write_cycles: 0,
            l2_port_partial_write_cycles: 0,
            l2_store_bytes_per_cycle: 0,
            // Off: the tiny machine keeps its tests' cycle counts.
            l1_fill_sectors_per_cycle: 0,
            mem_partitions: 2,
            partition_interleave_bytes: 256,
            // Off: the tiny machine keeps its tests' cycle counts.
            partition_hash: 0,
            l2_bytes_per_cycle: 64,
            l2_partial_write_bytes: 32,
            l2_partial_line_bytes: 0,
            l2_partial_sector_bytes: 0,
            dram_bytes_per_cycle: 32,
            dram_fetch_bytes: 32,
            dram_row_bytes: 1024,
            // Off: the tiny machine keeps its tests' cycle counts.
            dram_banks: 0,
            dram_row_open_bytes: 0,
            l2_bytes: 2048,
            l2_ways: 2,
            // Off: the tiny machine keeps its tests' cycle counts.
            l2_partial_lines_per_set: 0,
            l2_line_bytes: 128,
            sector_bytes: 32,
            // Off: every instruction fetch hits.
            icache_l0_bytes: 0,
            icache_l1_bytes: 0,
            icache_l0_ways: 4,
            icache_l1_ways: 4,
            icache_line_bytes: 128,
            icache_l1_latency_cycles: 0,
            icache_l1_line_cycles: 0,
            icache_l1_shared_reads: 1,
            icache_l2_latency_cycles: 0,
            icache_cold_line_cycles: 0,
            icache_fetch_lines: 1,
            icache_warm_bytes: 0,
            clock_mhz: 1000,
        }
    }

    /// The preset called `name` (`h200` or `tiny`).
    pub fn preset(name: &str) -> Option<GpuConfig> {
        match name {
            "h200" => Some(GpuConfig::h200()),
            "tiny" => Some(GpuConfig::tiny()),
            _ => None,
        }
    }

    /// The names [`GpuConfig::preset`] knows.
    pub const PRESETS: &'static [&'static str] = &["h200", "tiny"];

    /// Checks every field and reports every violation at once.
    pub fn validate(&self) -> Result<(), Vec<ConfigError>> {
        let mut errors = Vec::new();
        fn range(errors: &mut Vec<ConfigError>, field: &str, value: u64, lo: u64, hi: u64) {
            if value < lo || value > hi {
                errors.push(ConfigError::new(
                    field,
                    format!("{value} is outside {lo}..={hi}"),
                ));
            }
        }
        // A field whose own value is wrong makes no further complaints, and
        // a range that depends on a wrong field is not checked: one
        // mistake, one message.
        let bad = |errors: &[ConfigError], field: &str| errors.iter().any(|e| e.field == field);
        let max = u32::MAX as u64;
        range(&mut errors, "num_sms", self.num_sms.into(), 1, 65536);
        range(&mut errors, "warp_size", self.warp_size.into(), 1, 64);
        range(
            &mut errors,
            "max_warps_per_sm",
            self.max_warps_per_sm.into(),
            1,
            65536,
        );
        range(
            &mut errors,
            "num_subpartitions",
            self.num_subpartitions.into(),
            1,
            1024,
        );
        if !bad(&errors, "max_warps_per_sm")
            && !bad(&errors, "num_subpartitions")
            && self.num_subpartitions > self.max_warps_per_sm
        {
            errors.push(ConfigError::new(
                "max_warps_per_sm",
                format!(
                    "{} is fewer than num_subpartitions ({}): every sub-partition needs a warp \
                     slot; give at least {} or fewer sub-partitions",
                    self.max_warps_per_sm, self.num_subpartitions, self.num_subpartitions
                ),
            ));
        }
        range(
            &mut errors,
            "max_blocks_per_sm",
            self.max_blocks_per_sm.into(),
            1,
            65536,
        );
        range(
            &mut errors,
            "max_threads_per_block",
            self.max_threads_per_block.into(),
            1,
            max,
        );
        range(&mut errors, "regs_per_sm", self.regs_per_sm.into(), 1, max);
        range(
            &mut errors,
            "max_regs_per_thread",
            self.max_regs_per_thread.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "reg_alloc_unit",
            self.reg_alloc_unit.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "reg_words_beyond_live",
            self.reg_words_beyond_live.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "reg_words_beyond_live_b128",
            self.reg_words_beyond_live_b128.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "smem_bytes_per_block",
            self.smem_bytes_per_block.into(),
            0,
            self.smem_bytes_per_sm.into(),
        );
        range(&mut errors, "smem_banks", self.smem_banks.into(), 1, 1024);
        // The first fetch is a part of the fixed cost, not added to it.
        range(
            &mut errors,
            "warp_start_fetch_cycles",
            self.warp_start_fetch_cycles.into(),
            0,
            self.launch_overhead_cycles.into(),
        );
        range(
            &mut errors,
            "smem_bank_width_bytes",
            self.smem_bank_width_bytes.into(),
            1,
            64,
        );
        range(
            &mut errors,
            "smem_paired_loads",
            self.smem_paired_loads.into(),
            0,
            1,
        );
        range(
            &mut errors,
            "alu_latency_cycles",
            self.alu_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "alu_lanes_per_cycle",
            self.alu_lanes_per_cycle.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "shfl_latency_cycles",
            self.shfl_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "shfl_lanes_per_cycle",
            self.shfl_lanes_per_cycle.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "smem_latency_cycles",
            self.smem_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "smem_atom_latency_cycles",
            self.smem_atom_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "smem_atom_replay_cycles",
            self.smem_atom_replay_cycles.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "mio_queue_depth",
            self.mio_queue_depth.into(),
            1,
            256,
        );
        range(
            &mut errors,
            "smem_issue_interval_cycles",
            self.smem_issue_interval_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "s2r_latency_cycles",
            self.s2r_latency_cycles.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "s2r_lanes_per_cycle",
            self.s2r_lanes_per_cycle.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "branch_latency_cycles",
            self.branch_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "yield_cycles",
            self.yield_cycles.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "bar_latency_cycles",
            self.bar_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "lsu_sectors_per_cycle",
            self.lsu_sectors_per_cycle.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "lsu_queue_depth",
            self.lsu_queue_depth.into(),
            1,
            256,
        );
        range(
            &mut errors,
            "store_port_hold",
            self.store_port_hold.into(),
            0,
            1,
        );
        range(
            &mut errors,
            "store_staging_quads",
            self.store_staging_quads.into(),
            0,
            crate::store_staging::MAX_QUADS as u64,
        );
        range(
            &mut errors,
            "loads_wait_for_stores",
            self.loads_wait_for_stores.into(),
            0,
            2,
        );
        range(
            &mut errors,
            "store_combine_lines",
            self.store_combine_lines.into(),
            0,
            64,
        );
        range(
            &mut errors,
            "l1_unified_bytes",
            self.l1_unified_bytes.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "l1_latency_cycles",
            self.l1_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "l2_latency_cycles",
            self.l2_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "dram_latency_cycles",
            self.dram_latency_cycles.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "load_line_cycles",
            self.load_line_cycles.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "l2_port_reads_per_cycle",
            self.l2_port_reads_per_cycle.into(),
            0,
            64,
        );
        range(
            &mut errors,
            "l2_port_write_cycles",
            self.l2_port_write_cycles.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "l2_port_partial_write_cycles",
            self.l2_port_partial_write_cycles.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "l2_store_bytes_per_cycle",
            self.l2_store_bytes_per_cycle.into(),
            0,
            max,
        );
        range(
            &mut errors,
            "l1_fill_sectors_per_cycle",
            self.l1_fill_sectors_per_cycle.into(),
            0,
            64,
        );
        range(
            &mut errors,
            "mem_partitions",
            self.mem_partitions.into(),
            1,
            65536,
        );
        range(
            &mut errors,
            "partition_hash",
            self.partition_hash.into(),
            0,
            64,
        );
        range(
            &mut errors,
            "l2_bytes_per_cycle",
            self.l2_bytes_per_cycle.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "l2_partial_write_bytes",
            self.l2_partial_write_bytes.into(),
            1,
            max,
        );
        range(
            &mut errors,
            "dram_bytes_per_cycle",
            self.dram_bytes_per_cycle.into(),
            1,
            max,
        );
        range(&mut errors, "l2_ways", self.l2_ways.into(), 1, 256);
        if !bad(&errors, "l2_ways") {
            range(
                &mut errors,
                "l2_partial_lines_per_set",
                self.l2_partial_lines_per_set.into(),
                0,
                self.l2_ways.into(),
            );
        }
        range(
            &mut errors,
            "sector_bytes",
            self.sector_bytes.into(),
            4,
            4096,
        );
        if !bad(&errors, "sector_bytes") {
            range(
                &mut errors,
                "l2_line_bytes",
                self.l2_line_bytes.into(),
                self.sector_bytes.into(),
                64 * u64::from(self.sector_bytes),
            );
        }
        if !bad(&errors, "l2_line_bytes")
            && !bad(&errors, "l2_ways")
            && !bad(&errors, "sector_bytes")
        {
            range(
                &mut errors,
                "l2_bytes",
                self.l2_bytes,
                u64::from(self.l2_line_bytes) * u64::from(self.l2_ways),
                1 << 40,
            );
        }
        if !bad(&errors, "sector_bytes") && !bad(&errors, "l2_line_bytes") {
            range(
                &mut errors,
                "dram_fetch_bytes",
                self.dram_fetch_bytes.into(),
                self.sector_bytes.into(),
                self.l2_line_bytes.into(),
            );
        }
        if !bad(&errors, "dram_fetch_bytes") {
            range(
                &mut errors,
                "dram_row_bytes",
                self.dram_row_bytes.into(),
                self.dram_fetch_bytes.into(),
                1 << 20,
            );
        }
        range(&mut errors, "dram_banks", self.dram_banks.into(), 0, 65536);
        range(
            &mut errors,
            "dram_row_open_bytes",
            self.dram_row_open_bytes.into(),
            0,
            1 << 20,
        );
        if !bad(&errors, "sector_bytes") {
            range(
                &mut errors,
                "partition_interleave_bytes",
                self.partition_interleave_bytes.into(),
                self.sector_bytes.into(),
                1 << 30,
            );
        }
        range(
            &mut errors,
            "icache_line_bytes",
            self.icache_line_bytes.into(),
            16,
            4096,
        );
        range(
            &mut errors,
            "icache_l0_ways",
            self.icache_l0_ways.into(),
            1,
            64,
        );
        range(
            &mut errors,
            "icache_l1_ways",
            self.icache_l1_ways.into(),
            1,
            64,
        );
        if !bad(&errors, "icache_line_bytes") {
            let line = self.icache_line_bytes;
            for (field, value) in [
                ("icache_l0_bytes", self.icache_l0_bytes),
                ("icache_l1_bytes", self.icache_l1_bytes),
                ("icache_warm_bytes", self.icache_warm_bytes),
            ] {
                if value % line != 0 {
                    errors.push(ConfigError::new(
                        field,
                        format!("{value} is not a multiple of icache_line_bytes ({line})"),
                    ));
                }
            }
            for (field, bytes, ways) in [
                ("icache_l0_ways", self.icache_l0_bytes, self.icache_l0_ways),
                ("icache_l1_ways", self.icache_l1_bytes, self.icache_l1_ways),
            ] {
                let lines = bytes / line;
                if !bad(&errors, field) && lines >= ways && !lines.is_multiple_of(ways) {
                    errors.push(ConfigError::new(
                        field,
                        format!("{ways} does not divide the cache's {lines} lines"),
                    ));
                }
            }
            if !bad(&errors, "icache_l0_bytes")
                && !bad(&errors, "icache_l1_bytes")
                && self.icache_l1_bytes < self.icache_l0_bytes
            {
                errors.push(ConfigError::new(
                    "icache_l1_bytes",
                    format!(
                        "{} is less than icache_l0_bytes ({})",
                        self.icache_l1_bytes, self.icache_l0_bytes
                    ),
                ));
            }
            if !bad(&errors, "icache_l1_bytes")
                && !bad(&errors, "icache_warm_bytes")
                && self.icache_warm_bytes > self.icache_l1_bytes
            {
                errors.push(ConfigError::new(
                    "icache_warm_bytes",
                    format!(
                        "{} is more than icache_l1_bytes ({})",
                        self.icache_warm_bytes, self.icache_l1_bytes
                    ),
                ));
            }
        }
        if !bad(&errors, "num_subpartitions") {
            range(
                &mut errors,
                "icache_l1_shared_reads",
                self.icache_l1_shared_reads.into(),
                1,
                self.num_subpartitions.into(),
            );
        }
        range(
            &mut errors,
            "icache_fetch_lines",
            self.icache_fetch_lines.into(),
            1,
            64,
        );
        range(&mut errors, "clock_mhz", self.clock_mhz.into(), 1, max);
        let pow2 = [
            ("warp_size", self.warp_size),
            ("smem_banks", self.smem_banks),
            ("smem_bank_width_bytes", self.smem_bank_width_bytes),
            ("l2_line_bytes", self.l2_line_bytes),
            ("sector_bytes", self.sector_bytes),
            ("dram_fetch_bytes", self.dram_fetch_bytes),
            ("dram_row_bytes", self.dram_row_bytes),
            ("icache_line_bytes", self.icache_line_bytes),
            (
                "partition_interleave_bytes",
                self.partition_interleave_bytes,
            ),
        ];
        for (field, value) in pow2 {
            if value != 0 && !value.is_power_of_two() && !bad(&errors, field) {
                errors.push(ConfigError::new(
                    field,
                    format!("{value} is not a power of two"),
                ));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Cycles a warp instruction occupies a pipe that processes `lanes` per cycle.
    /// Bytes of L1 left for global data on an SM holding `blocks` blocks
    /// of `shared_per_block` bytes of shared memory each.
    pub(crate) fn l1_data_bytes(&self, blocks: u32, shared_per_block: u64) -> u64 {
        u64::from(self.l1_unified_bytes).saturating_sub(u64::from(blocks) * shared_per_block)
    }

    pub(crate) fn occupancy_cycles(&self, lanes: u32) -> u64 {
        u64::from(self.warp_size.div_ceil(lanes))
    }

    /// `log2` of the sectors in an L2 line (both sizes are powers of two,
    /// [`GpuConfig::validate`]): a sector number shifted right by it is its
    /// line's.
    pub(crate) fn line_sector_shift(&self) -> u32 {
        (self.l2_line_bytes / self.sector_bytes).trailing_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid() {
        assert_eq!(GpuConfig::h200().validate(), Ok(()));
        assert_eq!(GpuConfig::tiny().validate(), Ok(()));
        assert_eq!(GpuConfig::default(), GpuConfig::h200());
    }

    #[test]
    fn validate_reports_every_violation() {
        let mut cfg = GpuConfig::h200();
        cfg.warp_size = 3;
        cfg.smem_banks = 0;
        cfg.num_sms = 0;
        let errors = cfg.validate().unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["num_sms", "smem_banks", "warp_size"]);
        assert!(
            errors[2].to_string().contains("3 is not a power of two"),
            "{}",
            errors[2]
        );
    }

    #[test]
    fn one_mistake_gives_one_message_naming_the_field_changed() {
        let mut cfg = GpuConfig::h200();
        cfg.max_warps_per_sm = 1;
        let errors = cfg.validate().unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].field, "max_warps_per_sm");
        assert!(
            errors[0].message.contains("num_subpartitions (4)"),
            "{errors:?}"
        );
        let mut cfg = GpuConfig::h200();
        cfg.sector_bytes = 1;
        let errors = cfg.validate().unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["sector_bytes"], "l2_line_bytes is not blamed");
        let mut cfg = GpuConfig::h200();
        cfg.warp_size = 1000;
        assert_eq!(
            cfg.validate().unwrap_err().len(),
            1,
            "out of range, not also odd"
        );
        // More lines in part a set than the set has ways.
        let mut cfg = GpuConfig::h200();
        cfg.l2_partial_lines_per_set = 17;
        let error = only_error(&cfg);
        assert_eq!(error.field, "l2_partial_lines_per_set");
        assert_eq!(error.message, "17 is outside 0..=16");
        cfg.l2_ways = 0;
        assert_eq!(
            blamed(&cfg),
            ["l2_ways"],
            "a bad l2_ways is not also blamed on the limit"
        );
        // Instruction-cache ways must divide the level's lines (256 and
        // 1,024 on the H200), and a bad line size blames only itself.
        let mut cfg = GpuConfig::h200();
        cfg.icache_l0_ways = 3;
        let error = only_error(&cfg);
        assert_eq!(error.field, "icache_l0_ways");
        assert_eq!(error.message, "3 does not divide the cache's 256 lines");
        cfg.icache_l0_ways = 64;
        cfg.icache_l1_ways = 65;
        assert_eq!(only_error(&cfg).message, "65 is outside 1..=64");
        cfg.icache_l1_ways = 4;
        cfg.icache_line_bytes = 8;
        assert_eq!(blamed(&cfg), ["icache_line_bytes"]);
    }

    /// `cfg`'s one validation error (failing on none or more).
    fn only_error(cfg: &GpuConfig) -> ConfigError {
        let errors = cfg.validate().unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        errors.into_iter().next().unwrap()
    }

    /// The fields `cfg`'s validation errors name.
    fn blamed(cfg: &GpuConfig) -> Vec<String> {
        cfg.validate()
            .unwrap_err()
            .into_iter()
            .map(|e| e.field)
            .collect()
    }

    #[test]
    fn warps_wider_than_a_mask_are_rejected() {
        let mut cfg = GpuConfig::h200();
        cfg.warp_size = 128;
        let errors = cfg.validate().unwrap_err();
        assert_eq!(errors[0].message, "128 is outside 1..=64");
    }

    #[test]
    fn every_field_has_its_doc_with_a_range_or_values() {
        for name in GpuConfig::field_names() {
            let doc = GpuConfig::field_doc(name).unwrap();
            assert!(!doc.is_empty() && !doc.contains('\n'), "{name}: {doc}");
        }
        assert!(
            GpuConfig::field_doc("num_sms")
                .unwrap()
                .contains("1..=65536")
        );
        assert_eq!(GpuConfig::field_doc("nope"), None);
    }

    #[test]
    fn every_field_can_be_set_by_name() {
        let mut cfg = GpuConfig::h200();
        for name in GpuConfig::field_names() {
            let value = cfg.get(name).unwrap();
            cfg.set(name, &value).unwrap();
        }
        assert_eq!(cfg, GpuConfig::h200());
        cfg.set("num_sms", "7").unwrap();
        cfg.set("scheduler", "lrr").unwrap();
        assert_eq!((cfg.num_sms, cfg.scheduler), (7, SchedulerPolicy::Lrr));
    }

    #[test]
    fn bad_overrides_name_the_field_and_value() {
        let mut cfg = GpuConfig::h200();
        let e = cfg.set("num_sms", "many").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("config field `num_sms`: cannot parse `many`"),
            "{e}"
        );
        let e = cfg.set("warp", "32").unwrap_err();
        assert_eq!(e.to_string(), "config field `warp`: no such field");
        let e = cfg.set("scheduler", "fifo").unwrap_err();
        assert!(
            e.to_string().contains("unknown scheduler policy `fifo`"),
            "{e}"
        );
    }
}
