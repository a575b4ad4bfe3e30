//! What a launch counts: plain `u64` counters, merged with `+=`.
//!
//! Counters follow Nsight Compute's definitions (`hardware.md`);
//! [`KernelStats::metrics`] names them as Nsight Compute does. Counting never
//! affects timing.

use std::collections::BTreeMap;
use std::ops::AddAssign;

use kernels_ir::Dim3;
use serde::Serialize;

use crate::time::Cycle;

/// Why a resident warp did not issue in a cycle (or `Selected`: it did),
/// named as Nsight Compute names it; the `traces` crate's type, so events
/// and counters agree. Every resident warp is charged exactly one reason
/// every cycle. `dispatch_stall` and `membar` are not modelled (the IR has
/// no fences) and stay 0; `no_instruction` is instruction fetch
/// ([`crate::icache`]).
pub use traces::StallReason;

/// The number of stall reasons.
pub const NUM_STALL_REASONS: usize = StallReason::ALL.len();

/// Warp-cycles per stall reason, indexed by [`StallReason::index`].
pub type Stalls = [u64; NUM_STALL_REASONS];

/// The counters of one instruction (one `pc`), summed over every warp.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PcStats {
    /// Warp instructions issued at this pc (a `cmpx` counts 2).
    pub inst_executed: u64,
    /// Warp-cycles warps spent waiting with this pc next, per reason.
    pub stalls: Stalls,
    /// Shared-memory wavefronts.
    pub smem_wavefronts: u64,
    /// Shared-memory bank conflicts (wavefronts beyond the minimum).
    pub smem_bank_conflicts: u64,
    /// Global-memory requests (warp instructions with at least one active lane).
    pub gmem_requests: u64,
    /// Global-memory sectors.
    pub gmem_sectors: u64,
}

impl AddAssign<&PcStats> for PcStats {
    fn add_assign(&mut self, o: &PcStats) {
        self.inst_executed += o.inst_executed;
        for (a, b) in self.stalls.iter_mut().zip(o.stalls) {
            *a += b;
        }
        self.smem_wavefronts += o.smem_wavefronts;
        self.smem_bank_conflicts += o.smem_bank_conflicts;
        self.gmem_requests += o.gmem_requests;
        self.gmem_sectors += o.gmem_sectors;
    }
}

/// What one launch (or, after `+=`, several) counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelStats {
    /// The kernel's name (empty after adding stats of different kernels).
    pub name: String,
    /// Launches counted.
    pub launches: u64,
    /// Grid of the (first) launch.
    pub grid: [u32; 3],
    /// Block of the (first) launch.
    pub block: [u32; 3],
    /// Cycles from launch until the last warp exited and the last store
    /// drained; summed over launches.
    pub cycles: Cycle,
    /// Cycles times SMs: the denominator of per-SM averages.
    pub sm_cycles_elapsed: u64,
    /// Cycles SMs had at least one resident warp, summed over SMs.
    pub sm_cycles_active: u64,
    /// Warp instructions issued (`smsp__inst_executed.sum`; a `cmpx` counts 2).
    pub inst_executed: u64,
    /// Thread instructions: active lanes (whatever their guard) summed over
    /// issued instructions (`smsp__thread_inst_executed.sum`).
    pub thread_inst_executed: u64,
    /// Sub-partition cycles with an issue (`smsp__issue_active.sum`).
    pub issue_active: u64,
    /// Warp-cycles warps were resident: the sum of `stalls` over reasons.
    pub warp_cycles: u64,
    /// Warp-cycles per stall reason (`smsp__warps_issue_stalled_*`).
    pub stalls: Stalls,
    /// Shared-memory load instructions with a lane's guard on (Nsight's
    /// count: one guarded off in every lane is issued and timed, not
    /// counted here).
    pub smem_ld_inst: u64,
    /// Shared-memory store instructions with a lane's guard on.
    pub smem_st_inst: u64,
    /// Shared-memory load wavefronts.
    pub smem_ld_wavefronts: u64,
    /// Shared-memory store wavefronts.
    pub smem_st_wavefronts: u64,
    /// Shared-memory load bank conflicts.
    pub smem_ld_bank_conflicts: u64,
    /// Shared-memory store bank conflicts.
    pub smem_st_bank_conflicts: u64,
    /// Shared-memory atomic instructions.
    pub smem_atom_inst: u64,
    /// Shared-memory atomic wavefronts.
    pub smem_atom_wavefronts: u64,
    /// Shared-memory atomic bank conflicts.
    pub smem_atom_bank_conflicts: u64,
    /// Shuffle instructions.
    pub shfl_inst: u64,
    /// Global load requests.
    pub gmem_ld_requests: u64,
    /// Global store requests.
    pub gmem_st_requests: u64,
    /// Global load sectors.
    pub gmem_ld_sectors: u64,
    /// Global store sectors.
    pub gmem_st_sectors: u64,
    /// Global store sectors the SMs send to L2, after the store-combining
    /// buffer merged parts ([`crate::store_combine`]): Nsight's
    /// `l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st`.
    pub gmem_st_l2_sectors: u64,
    /// Global sectors that hit in L2.
    pub l2_sector_hits: u64,
    /// Global sectors that missed in L2.
    pub l2_sector_misses: u64,
    /// Sectors read from DRAM.
    pub dram_sectors_read: u64,
    /// Sectors written back to DRAM (dirty L2 evictions).
    pub dram_sectors_write: u64,
    /// Barriers completed (per block).
    pub barriers: u64,
    /// Blocks run.
    pub blocks: u64,
    /// Per instruction, indexed by pc (empty after adding stats of different kernels).
    pub per_pc: Vec<PcStats>,
}

impl KernelStats {
    pub(crate) fn new(name: &str, grid: Dim3, block: Dim3, insts: usize) -> KernelStats {
        KernelStats {
            name: name.to_string(),
            launches: 1,
            grid: [grid.x, grid.y, grid.z],
            block: [block.x, block.y, block.z],
            per_pc: vec![PcStats::default(); insts],
            ..KernelStats::default()
        }
    }

    /// Fills in the issue counts from the `selected` charges: a warp is
    /// `selected` exactly for the issue slots of its instructions, so the
    /// hot path counts each issue once, as a charge.
    pub(crate) fn count_issues(&mut self) {
        let selected = StallReason::Selected.index();
        self.inst_executed = self.stalls[selected];
        self.issue_active = self.stalls[selected];
        for p in &mut self.per_pc {
            p.inst_executed = p.stalls[selected];
        }
    }

    /// Warp-cycles charged to `reason`.
    pub fn stall(&self, reason: StallReason) -> u64 {
        self.stalls[reason.index()]
    }

    /// Warp-cycles per reason, keyed by the reason's Nsight name.
    pub fn stall_map(&self) -> BTreeMap<&'static str, u64> {
        StallReason::ALL
            .iter()
            .map(|r| (r.name(), self.stall(*r)))
            .collect()
    }

    /// The counters under Nsight Compute's metric names (`cli.md`). Every
    /// value is an `f64`; those whose name [`metric_is_count`] are whole
    /// numbers (exact below 2^53) and reports print them as integers.
    pub fn metrics(&self) -> BTreeMap<&'static str, f64> {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let mut m = BTreeMap::new();
        let mut put = |k: &'static str, v: f64| {
            m.insert(k, v);
        };
        put("sm__cycles_elapsed.max", self.cycles.0 as f64);
        put("smsp__inst_executed.sum", self.inst_executed as f64);
        put(
            "smsp__thread_inst_executed.sum",
            self.thread_inst_executed as f64,
        );
        put("smsp__issue_active.sum", self.issue_active as f64);
        put(
            "sm__inst_executed.avg.per_cycle_elapsed",
            ratio(self.inst_executed, self.sm_cycles_elapsed),
        );
        put(
            "sm__inst_executed.avg.per_cycle_active",
            ratio(self.inst_executed, self.sm_cycles_active),
        );
        put(
            "smsp__sass_inst_executed_op_shared_ld.sum",
            self.smem_ld_inst as f64,
        );
        put(
            "smsp__sass_inst_executed_op_shared_st.sum",
            self.smem_st_inst as f64,
        );
        put(
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            self.smem_ld_wavefronts as f64,
        );
        put(
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            self.smem_st_wavefronts as f64,
        );
        put(
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            self.smem_ld_bank_conflicts as f64,
        );
        put(
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
            self.smem_st_bank_conflicts as f64,
        );
        if self.smem_atom_inst > 0 {
            // Only for kernels that ran shared atomics, so the reports of
            // all others keep their metrics (`report.md`).
            let atom = self.smem_atom_inst as f64;
            put("smsp__sass_inst_executed_op_shared_atom.sum", atom);
            put("smsp__inst_executed_op_shared_atom.sum", atom);
            put(
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
                self.smem_atom_wavefronts as f64,
            );
            put(
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
                self.smem_atom_bank_conflicts as f64,
            );
            let wavefronts =
                self.smem_ld_wavefronts + self.smem_st_wavefronts + self.smem_atom_wavefronts;
            let conflicts = self.smem_ld_bank_conflicts
                + self.smem_st_bank_conflicts
                + self.smem_atom_bank_conflicts;
            put(
                "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
                wavefronts as f64,
            );
            put(
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
                conflicts as f64,
            );
        }
        put(
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
            self.gmem_ld_requests as f64,
        );
        put(
            "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
            self.gmem_st_requests as f64,
        );
        put(
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            self.gmem_ld_sectors as f64,
        );
        put(
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
            self.gmem_st_sectors as f64,
        );
        put(
            "l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum",
            self.gmem_st_l2_sectors as f64,
        );
        put("lts__t_sectors_lookup_hit.sum", self.l2_sector_hits as f64);
        put(
            "lts__t_sectors_lookup_miss.sum",
            self.l2_sector_misses as f64,
        );
        put("dram__sectors_read.sum", self.dram_sectors_read as f64);
        put("dram__sectors_write.sum", self.dram_sectors_write as f64);
        put(
            "sm__warps_active.avg.per_cycle_active",
            ratio(self.warp_cycles, self.sm_cycles_active),
        );
        for (reason, name) in STALL_METRICS {
            put(name, ratio(self.stall(*reason), self.issue_active));
        }
        m
    }

    /// Charges `cycles` warp-cycles of `reason` to the instruction at `pc`.
    #[inline]
    pub(crate) fn charge(&mut self, pc: u32, reason: StallReason, cycles: u64) {
        self.stalls[reason.index()] += cycles;
        if let Some(p) = self.per_pc.get_mut(pc as usize) {
            p.stalls[reason.index()] += cycles;
        }
    }
}

/// Whether the metric `name` of [`Stats::metrics`] is a count (a whole
/// number: Nsight Compute's `.sum` and `.max` roll-ups of counters) rather
/// than a ratio or an average (`.ratio`, `.avg.per_cycle_*`).
pub fn metric_is_count(name: &str) -> bool {
    name.ends_with(".sum") || name.ends_with(".max")
}

/// The `smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio`
/// metric name of every reason.
pub const STALL_METRICS: &[(StallReason, &str)] = &[
    (
        StallReason::Selected,
        "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",
    ),
    (
        StallReason::NotSelected,
        "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
    ),
    (
        StallReason::LongScoreboard,
        "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    ),
    (
        StallReason::ShortScoreboard,
        "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    ),
    (
        StallReason::Wait,
        "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    ),
    (
        StallReason::MioThrottle,
        "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
    ),
    (
        StallReason::LgThrottle,
        "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    ),
    (
        StallReason::Barrier,
        "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    ),
    (
        StallReason::MathPipeThrottle,
        "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
    ),
    (
        StallReason::DispatchStall,
        "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
    ),
    (
        StallReason::NoInstruction,
        "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio",
    ),
    (
        StallReason::BranchResolving,
        "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio",
    ),
    (
        StallReason::Membar,
        "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
    ),
];

impl AddAssign<&KernelStats> for KernelStats {
    /// Adds another launch's counts. The name and per-pc counters survive
    /// only if both sides are the same kernel (or `self` is empty).
    fn add_assign(&mut self, o: &KernelStats) {
        if self.launches == 0 {
            *self = o.clone();
            return;
        }
        if self.name != o.name || self.per_pc.len() != o.per_pc.len() {
            self.name.clear();
            self.per_pc.clear();
        } else {
            for (a, b) in self.per_pc.iter_mut().zip(&o.per_pc) {
                *a += b;
            }
        }
        self.launches += o.launches;
        self.cycles += o.cycles;
        self.add_counts(o);
    }
}

impl KernelStats {
    /// Adds what one host thread counted of the same launch (every counter
    /// and the per-pc counts, not the name, launches or cycles). The
    /// counters are integers, so any grouping and order gives the same sum.
    pub(crate) fn add_part(&mut self, o: &KernelStats) {
        for (a, b) in self.per_pc.iter_mut().zip(&o.per_pc) {
            *a += b;
        }
        self.add_counts(o);
    }

    /// Adds `o`'s counters (not its name, launches or cycles, nor its
    /// per-pc counts).
    fn add_counts(&mut self, o: &KernelStats) {
        for (a, b) in self.stalls.iter_mut().zip(o.stalls) {
            *a += b;
        }
        macro_rules! sum {
            ($($f:ident),*) => { $( self.$f += o.$f; )* };
        }
        sum!(
            sm_cycles_elapsed,
            sm_cycles_active,
            inst_executed,
            thread_inst_executed,
            issue_active,
            warp_cycles,
            smem_ld_inst,
            smem_st_inst,
            smem_ld_wavefronts,
            smem_st_wavefronts,
            smem_ld_bank_conflicts,
            smem_st_bank_conflicts,
            smem_atom_inst,
            smem_atom_wavefronts,
            smem_atom_bank_conflicts,
            shfl_inst,
            gmem_ld_requests,
            gmem_st_requests,
            gmem_ld_sectors,
            gmem_st_sectors,
            gmem_st_l2_sectors,
            l2_sector_hits,
            l2_sector_misses,
            dram_sectors_read,
            dram_sectors_write,
            barriers,
            blocks
        );
    }
}

impl AddAssign for KernelStats {
    fn add_assign(&mut self, o: KernelStats) {
        *self += &o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_its_nsight_metric() {
        assert_eq!(STALL_METRICS.len(), NUM_STALL_REASONS);
        for r in StallReason::ALL {
            let (_, metric) = STALL_METRICS.iter().find(|(x, _)| x == r).unwrap();
            assert_eq!(
                *metric,
                format!(
                    "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio",
                    r.name()
                )
            );
        }
    }

    #[test]
    fn adding_launches_sums_counters_and_keeps_per_pc_of_one_kernel() {
        let mut a = KernelStats::new("k", Dim3::x(1), Dim3::x(32), 2);
        a.cycles = Cycle(10);
        a.inst_executed = 5;
        a.per_pc[1].inst_executed = 3;
        a.charge(1, StallReason::Wait, 4);
        let b = a.clone();
        a += &b;
        assert_eq!((a.launches, a.cycles, a.inst_executed), (2, Cycle(20), 10));
        assert_eq!(a.per_pc[1].inst_executed, 6);
        assert_eq!(a.stall(StallReason::Wait), 8);
        let other = KernelStats::new("other", Dim3::x(1), Dim3::x(32), 7);
        a += &other;
        assert!(a.name.is_empty() && a.per_pc.is_empty());
        assert_eq!(a.launches, 3);
    }

    #[test]
    fn every_metric_is_a_count_or_a_ratio_by_its_name() {
        let mut s = KernelStats::new("k", Dim3::x(1), Dim3::x(32), 1);
        (s.issue_active, s.inst_executed, s.sm_cycles_active) = (3, 7, 2);
        for (name, value) in s.metrics() {
            if metric_is_count(name) {
                assert_eq!(value.fract(), 0.0, "{name}");
            } else {
                assert!(name.ends_with(".ratio") || name.contains(".avg."), "{name}");
            }
        }
        assert!(metric_is_count("smsp__inst_executed.sum"));
        assert!(!metric_is_count("sm__inst_executed.avg.per_cycle_active"));
    }

    #[test]
    fn stall_ratios_divide_by_issue_active_cycles() {
        let mut s = KernelStats::new("k", Dim3::x(1), Dim3::x(32), 1);
        s.issue_active = 4;
        s.charge(0, StallReason::LongScoreboard, 10);
        let m = s.metrics();
        let key = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
        assert_eq!(m[key], 2.5);
    }
}
