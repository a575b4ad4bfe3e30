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

/// One launch of the run, as the machine view lays it out.
#[derive(Clone, Debug, Default)]
pub struct LaunchMachine {
    /// Its first cycle.
    pub start: u64,
    /// Its last cycle.
    pub end: u64,
    /// What it is called (its label, else its kernel's name).
    pub title: String,
    /// Its SMs' samples and blocks (`complete` false: not read).
    pub machine: Machine,
}

impl LaunchMachine {
    /// Its length in cycles (at least 1).
    pub fn cycles(&self) -> u64 {
        self.end.saturating_sub(self.start) + 1
    }
}

/// Every launch of the run side by side, for the machine view: time runs
/// across the launches in order, each as long as it ran.
#[derive(Clone, Debug, Default)]
pub struct RunMachine {
    /// The launches, in order.
    pub launches: Vec<LaunchMachine>,
    /// SMs (the most any launch used).
    pub sms: u32,
}

impl RunMachine {
    /// Cycles of every launch together.
    pub fn total(&self) -> u64 {
        self.launches.iter().map(LaunchMachine::cycles).sum()
    }

    /// Where launch `launch` begins on the run's time line.
    pub fn offset(&self, launch: usize) -> u64 {
        self.launches[..launch.min(self.launches.len())]
            .iter()
            .map(LaunchMachine::cycles)
            .sum()
    }

    /// `(launch, cycle)` as a position on the run's time line.
    pub fn position(&self, launch: usize, cycle: u64) -> u64 {
        let Some(l) = self.launches.get(launch) else {
            return self.total().saturating_sub(1);
        };
        self.offset(launch) + cycle.clamp(l.start, l.end) - l.start
    }

    /// The launch and cycle at position `pos` of the run's time line.
    pub fn at(&self, pos: u64) -> (usize, u64) {
        let mut from = 0;
        for (i, l) in self.launches.iter().enumerate() {
            if pos < from + l.cycles() {
                return (i, l.start + (pos - from));
            }
            from += l.cycles();
        }
        let last = self.launches.len().saturating_sub(1);
        (last, self.launches.get(last).map_or(0, |l| l.end))
    }

    /// Columns for each launch out of `cols`: in proportion to its cycles
    /// (largest remainders), and at least one each when there are enough
    /// columns, so that a short launch stays visible.
    pub fn widths(&self, cols: usize) -> Vec<usize> {
        let n = self.launches.len();
        if n == 0 {
            return Vec::new();
        }
        let (base, spread) = if cols >= n { (1, cols - n) } else { (0, cols) };
        let total = u128::from(self.total().max(1));
        let exact: Vec<u128> = self
            .launches
            .iter()
            .map(|l| u128::from(l.cycles()) * spread as u128)
            .collect();
        let mut w: Vec<usize> = exact.iter().map(|e| (e / total) as usize).collect();
        let mut left = spread - w.iter().sum::<usize>();
        // The largest remainders get the columns left (the earliest of
        // equals).
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(exact[i] % total), i));
        for &i in &order {
            if left == 0 {
                break;
            }
            w[i] += 1;
            left -= 1;
        }
        w.iter().map(|x| x + base).collect()
    }

    /// The column of `(launch, cycle)` given the launches' `widths`.
    pub fn column(&self, widths: &[usize], launch: usize, cycle: u64) -> usize {
        let before: usize = widths[..launch.min(widths.len())].iter().sum();
        let (Some(l), Some(&w)) = (self.launches.get(launch), widths.get(launch)) else {
            return widths.iter().sum::<usize>().saturating_sub(1);
        };
        if w == 0 {
            return before.saturating_sub(1);
        }
        let into = u128::from(cycle.clamp(l.start, l.end) - l.start);
        before + ((into * w as u128 / u128::from(l.cycles())) as usize).min(w - 1)
    }

    /// The grid: one row per SM, each launch's columns side by side.
    pub fn grid(&self, widths: &[usize]) -> Vec<Vec<Cell>> {
        let mut g = vec![Vec::new(); self.sms as usize];
        for (l, &w) in self.launches.iter().zip(widths) {
            if w == 0 {
                continue;
            }
            let part = if l.machine.complete {
                l.machine.grid(l.start, l.end, w)
            } else {
                Vec::new()
            };
            for (sm, row) in g.iter_mut().enumerate() {
                match part.get(sm) {
                    Some(cells) => row.extend(cells.iter().cloned()),
                    None => row.extend(std::iter::repeat_n(Cell::default(), w)),
                }
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_get_columns_by_their_cycles_and_at_least_one_each() {
        let l = |start, end| LaunchMachine {
            start,
            end,
            ..LaunchMachine::default()
        };
        let run = RunMachine {
            launches: vec![l(0, 899), l(0, 9), l(100, 189)],
            sms: 1,
        };
        // 900 + 10 + 90 cycles over 12 columns: one each, the other 9 by
        // cycles (8.1, 0.09, 0.81: the largest remainder takes the last).
        let w = run.widths(12);
        assert_eq!(w, [9, 1, 2]);
        assert_eq!(run.widths(2), [2, 0, 0], "fewer columns than launches");
        assert_eq!(run.total(), 1000);
        assert_eq!(run.position(2, 150), 960);
        assert_eq!(run.at(960), (2, 150));
        assert_eq!(run.at(905), (1, 5));
        assert_eq!(run.at(5000), (2, 189));
        assert_eq!(run.column(&w, 0, 899), 8);
        assert_eq!(run.column(&w, 1, 5), 9);
        assert_eq!(run.column(&w, 2, 189), 11);
        assert_eq!(run.grid(&w)[0].len(), 12);
    }

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
