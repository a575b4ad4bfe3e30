//! The sectors an SM takes in from L2: the data of loads that missed L1
//! arrive one after another, `l1_fill_sectors_per_cycle` a cycle.
//!
//! **Why.** `hw/calib/suite_xbar.txt`'s `xb_l_c` (`hw/calib/kernels/xbar.kir`:
//! 8 warps on each of 8 SMs, eight coalesced 16-byte loads a lane in each
//! of 8 rounds, 16 whole sectors in 4 lines a request, each round's load
//! rewriting the register the round before loaded) reads 8,192 sectors an
//! SM (`l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld`,
//! `hw/data/h200/ncu/xbar_port/`) in 9,913 active cycles: about one sector
//! a cycle and a load's latency. The model, which let every load's lines
//! arrive at the latency whatever else the SM had in flight, ran it in
//! about 6,700 (-15.5%, 64 loads an SM a round at about 700 cycles each).
//! Loads whose data pass the L1 data stage slower than a sector a cycle
//! (`xb_l_p`, GPUTeraSort's fused `step`: 32 wavefronts for 16 sectors)
//! or whose lines return slower (`load_line_cycles`) are bound there, not
//! here. Where on the way the limit sits (the SM's read port from the
//! crossbar, the L1's fills, the misses it can track at once) these data
//! do not tell apart: Nsight Compute's peak for the read port is 4 sectors
//! a cycle (`l1tex__m_xbar2l1tex_read_sectors.pct_of_peak_sustained_elapsed`
//! in `hw/data/h200/ncu/ts64k_head_step_tail_full.csv`), far above this.
//!
//! **The model.** Each SM keeps when it can next take a sector, in ticks
//! of `1 / l1_fill_sectors_per_cycle` cycles. A load's sectors that missed
//! L1 take it from its first sector's arrival (after the partitions' timing
//! and its wait for the port to L2), in the order loads land; the load's
//! data can be read no earlier than its last sector is in.

use crate::config::GpuConfig;

/// One SM's intake of sectors from L2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fill {
    /// The tick the SM can next take a sector.
    free_at: u64,
    /// Ticks a cycle: sectors taken per cycle (0: no limit).
    rate: u64,
}

impl Fill {
    /// The intake of an SM of `cfg`, free.
    pub fn new(cfg: &GpuConfig) -> Fill {
        Fill {
            free_at: 0,
            rate: u64::from(cfg.l1_fill_sectors_per_cycle),
        }
    }

    /// Frees it (a new launch).
    pub fn reset(&mut self) {
        self.free_at = 0;
    }

    /// The cycle the last of a load's `sectors` sectors, the first of
    /// which arrives at `first`, is in (0: no limit, or nothing to take).
    #[inline]
    pub fn take(&mut self, first: u64, sectors: u32) -> u64 {
        if self.rate == 0 || sectors == 0 || first == u64::MAX {
            return 0;
        }
        let at = self.free_at.max(first * self.rate);
        self.free_at = at + u64::from(sectors);
        // The cycle its last sector is taken in.
        (self.free_at - 1) / self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200() -> Fill {
        Fill::new(&GpuConfig::h200())
    }

    #[test]
    fn a_load_alone_takes_a_cycle_a_sector() {
        let mut f = h200();
        assert_eq!(f.take(700, 1), 700);
        assert_eq!(f.take(800, 16), 815);
    }

    #[test]
    fn loads_landing_together_queue() {
        let mut f = h200();
        // Four loads of 16 sectors whose first sectors arrive at 700.
        let last: Vec<u64> = (0..4).map(|_| f.take(700, 16)).collect();
        assert_eq!(last, [715, 731, 747, 763]);
        // One arriving after the queue drained waits for nothing.
        assert_eq!(f.take(1000, 4), 1003);
    }

    #[test]
    fn two_a_cycle_take_half_the_time() {
        let mut cfg = GpuConfig::h200();
        cfg.l1_fill_sectors_per_cycle = 2;
        let mut f = Fill::new(&cfg);
        assert_eq!(f.take(100, 16), 107);
        assert_eq!(f.take(100, 1), 108);
    }

    #[test]
    fn none_taken_or_no_limit_constrains_nothing() {
        let mut f = h200();
        assert_eq!(f.take(100, 0), 0);
        assert_eq!(f.take(u64::MAX, 4), 0, "no sector arrived");
        let mut f = Fill::new(&GpuConfig::tiny());
        assert_eq!(f.take(100, 64), 0);
    }

    #[test]
    fn a_new_launch_finds_it_free() {
        let mut f = h200();
        f.take(0, 1000);
        f.reset();
        assert_eq!(f.take(10, 1), 10);
    }
}
