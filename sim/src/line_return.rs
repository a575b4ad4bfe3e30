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
//! **A warp's loads return together.** On the H200 a warp's two loads of
//! 16 lines each, in flight together, take what one load of 32 lines
//! takes: mergesort's `partition`, each probe two such loads, pays
//! 1,172-1,252 cycles a probe, as a 32-line chase step does
//! (`hw/calib/suite_partition.txt`, docs/calibration.md "Two loads a
//! probe"); timed apart, each load's 16 lines made the probe 945. Yet two
//! loads of 24-32 lines a probe (the sort's later passes) cost it no more:
//! the lines of a warp's loads in flight together return one after
//! another up to a warp's lanes of them, beyond that no later.
//! [`WarpLines`] keeps a warp's group of such loads: scattered ones, whose
//! lines hold fewer than two of their sectors each on average. A coalesced
//! load of several lines (HotSort's rows at 64-bit keys, or at 64 lanes)
//! fills its lines and stays on its own: nothing measured it waiting for
//! the warp's other loads.
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

/// A warp's scattered loads whose data return together: a load of two or
/// more lines, fewer than two of its sectors a line, whose first line
/// arrives before the group's last line returned joins the group, else it
/// starts one. Any other load (one line, or lines it fills) stays on its
/// own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WarpLines {
    /// The group's first arrival, its lines (at most `cap`), and when its
    /// last line returned.
    first: u64,
    lines: u32,
    end: u64,
}

impl WarpLines {
    /// When a load of `sectors` sectors in `lines` lines that arrived as
    /// `seen` and would complete at `done` on its own can be read, its
    /// lines returning after the group's, `per_line` cycles each, for at
    /// most `cap` lines a group (a warp's lanes).
    pub fn join(
        &mut self,
        seen: &Arrivals,
        (sectors, lines): (u32, u32),
        done: u64,
        per_line: u32,
        cap: u32,
    ) -> u64 {
        let scattered = lines >= 2 && sectors < 2 * lines;
        if !scattered || per_line == 0 || seen.first == u64::MAX {
            return done;
        }
        if seen.first < self.end {
            self.first = self.first.min(seen.first);
            self.lines = (self.lines + lines).min(cap);
        } else {
            self.first = seen.first;
            self.lines = lines.min(cap);
        }
        let done =
            done.max(self.first + u64::from(self.lines.saturating_sub(1)) * u64::from(per_line));
        self.end = self.end.max(done);
        done
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
    fn a_warps_loads_in_flight_together_return_their_lines_one_after_another() {
        // Two loads of 16 missed lines, issued together (a partition
        // probe): the second's lines return after the first's, as one
        // load of 32 would.
        let a = seen(&[640, 641], 16);
        let b = seen(&[641, 642], 16);
        let mut w = WarpLines::default();
        let da = w.join(&a, (16, 16), a.complete(16, 16), 16, 32);
        assert_eq!(da, 641 + 15 * 16);
        let db = w.join(&b, (16, 16), b.complete(16, 16), 16, 32);
        assert_eq!(db, 640 + 31 * 16);
        // Two of 32 lines return no later than one: a warp's lanes at most.
        let mut w = WarpLines::default();
        let c = seen(&[640, 641], 32);
        let dc = c.complete(32, 16);
        assert_eq!(w.join(&c, (32, 32), dc, 16, 32), dc);
        assert_eq!(w.join(&c, (32, 32), dc, 16, 32), dc);
    }

    #[test]
    fn a_load_after_the_group_or_of_one_line_stays_on_its_own() {
        let mut w = WarpLines::default();
        let a = seen(&[640], 16);
        let da = w.join(&a, (16, 16), a.complete(16, 16), 16, 32);
        // Arriving after the group's last line returned: a group of its own.
        let late = seen(&[da + 10], 16);
        let d = late.complete(16, 16);
        assert_eq!(w.join(&late, (16, 16), d, 16, 32), d);
        // One line: as it would complete alone, and the group unchanged.
        let before = w;
        let one = seen(&[700], 1);
        assert_eq!(w.join(&one, (1, 1), 700, 16, 32), 700);
        assert_eq!(w, before);
        // A coalesced load of two whole lines: on its own too.
        let rows = seen(&[da + 20], 2);
        assert_eq!(w.join(&rows, (8, 2), da + 36, 16, 32), da + 36);
        assert_eq!(w, before);
        // The rule off (no per-line time).
        assert_eq!(w.join(&late, (16, 16), 5, 0, 32), 5);
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
