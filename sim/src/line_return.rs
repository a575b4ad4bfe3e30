//! When a global load's data can be read: its lines return one after
//! another.
//!
//! **Why.** On the H200 (`hw/calib/suite_chase.txt`, docs/calibration.md)
//! a warp whose 32 lanes each follow a chain of loads to random words (32
//! lines a load) costs about 1,170 cycles a step when the words miss L2
//! and 790-860 when most hit, against 691 for one lane's chain (the DRAM
//! latency) and about 300 for an L2 hit; a coalesced load of one line
//! costs the plain latency (`suite_loads.txt`). Both fit a load whose
//! lines are written back one every `load_line_cycles` (16) as they
//! arrive: 31 further lines after a miss (640 + 31 x 16), or after the
//! first hit when nearly all hit (300 + 31 x 16).
//!
//! The timing keeps, per request, its first and last arrival and how many
//! of its lines went to DRAM, which the host threads that time a
//! request's partitions apart can merge ([`Arrivals::merge`]): the exact
//! order would need every line's arrival. With arrivals in two clusters
//! (L2 hits, then DRAM misses) the returns end at the later of the first
//! arrival plus a slot for every further line, and the last arrival plus
//! a slot for every further missed line.

/// What the timing saw of one request's sectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrivals {
    /// The earliest and latest cycle one of its sectors was ready
    /// (`u64::MAX` and 0: none yet).
    pub first: u64,
    pub last: u64,
    /// Its lines with a sector that missed L2.
    pub missed: u32,
}

impl Arrivals {
    /// No sector yet.
    pub const NONE: Arrivals = Arrivals {
        first: u64::MAX,
        last: 0,
        missed: 0,
    };

    /// A request that completes no earlier than `floor`.
    pub fn at_least(floor: u64) -> Arrivals {
        Arrivals {
            last: floor,
            ..Arrivals::NONE
        }
    }

    /// The same arrivals `delay` cycles later.
    #[inline]
    pub fn later(self, delay: u64) -> Arrivals {
        if delay == 0 {
            return self;
        }
        Arrivals {
            first: self.first.saturating_add(delay),
            last: self.last + delay,
            missed: self.missed,
        }
    }

    /// Notes a sector ready at `t`.
    #[inline]
    pub fn sector(&mut self, t: u64) {
        self.first = self.first.min(t);
        self.last = self.last.max(t);
    }

    /// Adds what another group of partitions saw of the same request (its
    /// lines are others).
    pub fn merge(&mut self, other: &Arrivals) {
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        self.missed += other.missed;
    }

    /// When the data of a load of `lines` lines can be read, each line
    /// after the first taking `per_line` cycles to return.
    pub fn complete(&self, lines: u32, per_line: u32) -> u64 {
        if lines <= 1 || per_line == 0 || self.first == u64::MAX {
            return self.last;
        }
        let per_line = u64::from(per_line);
        let all = self.first + u64::from(lines - 1) * per_line;
        let missed = self.last + u64::from(self.missed.saturating_sub(1)) * per_line;
        self.last.max(all).max(missed)
    }
}

/// The L2 lines of a request's `sectors` (ascending, as
/// [`crate::coalescer::sectors`] gives them), `shift` being `log2` of
/// sectors per line.
pub(crate) fn lines(sectors: &[u64], shift: u32) -> u32 {
    match sectors.split_first() {
        None => 0,
        Some((&first, rest)) => {
            let mut last = first >> shift;
            let mut n = 1;
            for &s in rest {
                if s >> shift != last {
                    last = s >> shift;
                    n += 1;
                }
            }
            n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_each_line_once() {
        assert_eq!(lines(&[], 2), 0);
        assert_eq!(lines(&[4, 5, 6, 7], 2), 1);
        assert_eq!(lines(&[6, 7, 8, 9], 2), 2);
        assert_eq!(lines(&[0, 2, 40, 80, 81], 2), 3);
    }

    fn seen(times: &[u64], missed: u32) -> Arrivals {
        let mut a = Arrivals::at_least(1);
        times.iter().for_each(|&t| a.sector(t));
        a.missed = missed;
        a
    }

    #[test]
    fn one_line_completes_with_its_last_sector() {
        assert_eq!(seen(&[300, 302], 0).complete(1, 16), 302);
        assert_eq!(seen(&[640], 1).complete(1, 16), 640);
    }

    #[test]
    fn the_lines_of_a_divergent_load_return_one_after_another() {
        // 32 lines, all missing L2: the last arrival, then 31 more slots.
        let misses: Vec<u64> = (0..32).map(|i| 640 + i % 3).collect();
        assert_eq!(seen(&misses, 32).complete(32, 16), 642 + 31 * 16);
        // 32 lines that hit, but for two: the first hit, then 31 slots.
        let mut mostly: Vec<u64> = (0..30).map(|_| 300).collect();
        mostly.extend([640, 640]);
        assert_eq!(seen(&mostly, 2).complete(32, 16), 300 + 31 * 16);
        // Half miss: the misses' 16 slots after the last arrival.
        let mut half: Vec<u64> = (0..16).map(|_| 300).collect();
        half.extend((0..16).map(|_| 640));
        assert_eq!(seen(&half, 16).complete(32, 16), 640 + 15 * 16);
        assert_eq!(seen(&half, 16).complete(32, 0), 640, "off");
    }

    #[test]
    fn merging_groups_gives_what_one_group_sees() {
        let mut a = seen(&[300, 310], 0);
        let b = seen(&[650], 1);
        a.merge(&b);
        assert_eq!(a, seen(&[300, 310, 650], 1));
        let mut none = Arrivals::NONE;
        none.merge(&a);
        assert_eq!(none, a);
    }
}
