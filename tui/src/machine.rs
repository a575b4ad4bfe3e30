//! The machine view's data (as AerialVision's time-lapse): for the loaded
//! launch, each SM's counter samples and the blocks it ran, so that a grid
//! of SMs by time can be coloured by IPC or by the dominant stall, and a
//! cell can open the block that SM ran then.

use traces::{CounterSample, StallReason};

/// One SM's counters over one sampling interval, ending at `cycle`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The SM.
    pub sm: u32,
    /// The interval's last cycle.
    pub cycle: u64,
    /// The counters of the interval.
    pub counters: CounterSample,
}

/// A block's residency on an SM.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Residency {
    /// The SM.
    pub sm: u32,
    /// The block.
    pub block: u32,
    /// Its first cycle.
    pub start: u64,
    /// Its last cycle (the launch's end if it never ended).
    pub end: u64,
}

/// The whole machine during one launch.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    /// Counter samples, in trace order.
    pub samples: Vec<Sample>,
    /// The blocks each SM ran.
    pub blocks: Vec<Residency>,
    /// Number of SMs (one more than the highest seen).
    pub sms: u32,
    /// Whether every chunk of the launch was read (else the view is empty).
    pub complete: bool,
}

/// One cell of the grid: what an SM did over a span of cycles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    /// Instructions issued.
    pub issued: u64,
    /// Warp-cycles per stall reason.
    pub stalls: Vec<u64>,
}

impl Cell {
    /// The reason with the most warp-cycles (issuing excluded), if any.
    pub fn dominant(&self) -> Option<StallReason> {
        let (i, &c) = self
            .stalls
            .iter()
            .enumerate()
            .filter(|&(i, _)| StallReason::from_index(i) != Some(StallReason::Selected))
            .max_by_key(|&(i, c)| (*c, std::cmp::Reverse(i)))?;
        (c > 0).then(|| StallReason::from_index(i)).flatten()
    }
}

impl Machine {
    /// The grid: `cols` columns over `start..=end`, one row per SM. A
    /// sample covers the cycles since its SM's previous one (or the
    /// launch's start), spread over the columns they fall in.
    pub fn grid(&self, start: u64, end: u64, cols: usize) -> Vec<Vec<Cell>> {
        let mut g = vec![vec![Cell::default(); cols]; self.sms as usize];
        let len = u128::from((end - start).max(1) + 1);
        let col_of = |t: u64| ((u128::from(t) * cols as u128 / len) as usize).min(cols - 1);
        // The first cycle of column c.
        let from = |c: usize| (c as u128 * len).div_ceil(cols as u128) as u64;
        let mut last = vec![None::<u64>; self.sms as usize];
        for s in &self.samples {
            let t1 = s.cycle.clamp(start, end) - start;
            let t0 = last[s.sm as usize].map_or(0, |p: u64| (p + 1).min(t1));
            last[s.sm as usize] = Some(t1);
            let span = t1 - t0 + 1;
            let (c0, c1) = (col_of(t0), col_of(t1));
            for (c, cell) in g[s.sm as usize]
                .iter_mut()
                .enumerate()
                .take(c1 + 1)
                .skip(c0)
            {
                let lo = from(c).max(t0);
                let hi = (from(c + 1).saturating_sub(1)).min(t1);
                let part = hi.saturating_sub(lo) + 1;
                let share = |v: u64| (u128::from(v) * u128::from(part) / u128::from(span)) as u64;
                cell.issued += share(s.counters.inst_issued);
                let n = s.counters.stall_warp_cycles.len();
                if cell.stalls.len() < n {
                    cell.stalls.resize(n, 0);
                }
                for (a, b) in cell.stalls.iter_mut().zip(&s.counters.stall_warp_cycles) {
                    *a += share(*b);
                }
            }
        }
        g
    }

    /// The block SM `sm` ran at `cycle` (the latest started, if several).
    pub fn block_at(&self, sm: u32, cycle: u64) -> Option<u32> {
        self.blocks
            .iter()
            .filter(|r| r.sm == sm && r.start <= cycle && cycle <= r.end)
            .max_by_key(|r| r.start)
            .map(|r| r.block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_land_in_their_columns_and_blocks_are_found_by_sm_and_cycle() {
        let sample = |sm, cycle, issued, barrier| {
            let mut stalls = vec![0; StallReason::COUNT];
            stalls[StallReason::Barrier.index()] = barrier;
            stalls[StallReason::Selected.index()] = 1000;
            Sample {
                sm,
                cycle,
                counters: CounterSample {
                    inst_issued: issued,
                    stall_warp_cycles: stalls,
                    ..CounterSample::default()
                },
            }
        };
        let m = Machine {
            samples: vec![
                sample(0, 10, 5, 0),
                sample(1, 99, 7, 40),
                sample(1, 100, 1, 2),
            ],
            blocks: vec![
                Residency {
                    sm: 1,
                    block: 4,
                    start: 0,
                    end: 60,
                },
                Residency {
                    sm: 1,
                    block: 9,
                    start: 61,
                    end: 100,
                },
            ],
            sms: 2,
            complete: true,
        };
        let g = m.grid(0, 100, 4);
        assert_eq!(g.len(), 2);
        // SM 0's sample covers cycles 0-10, all in column 0; SM 1's first
        // covers 0-99 (7 issues spread over the 4 columns), its second 100.
        assert_eq!(g[0][0].issued, 5);
        let sm1: Vec<u64> = g[1].iter().map(|c| c.issued).collect();
        assert_eq!(sm1, [1, 1, 1, 1 + 1]);
        assert_eq!(g[1][3].dominant(), Some(StallReason::Barrier));
        assert_eq!(g[0][0].dominant(), None, "issuing is not a stall");
        assert_eq!(m.block_at(1, 30), Some(4));
        assert_eq!(m.block_at(1, 61), Some(9));
        assert_eq!(m.block_at(0, 30), None);
    }
}
