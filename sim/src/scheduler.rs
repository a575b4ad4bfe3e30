//! A sub-partition: its warp scheduler's state and its issue-side queues.
//!
//! Each sub-partition issues at most one warp instruction per cycle from its
//! warps ([`crate::SchedulerPolicy`] decides which eligible warp). Its ALU
//! accepts a new warp instruction when the previous one has passed
//! (`alu_free_at`); its MIO and LSU queues hold the instructions that were
//! issued but have not started in the SM's shared-memory pipe or LSU.

use crate::config::SchedulerPolicy;

/// A FIFO of the start cycles of the last `depth` queued instructions: the
/// queue is full while the oldest of them has not started.
#[derive(Clone, Debug)]
pub(crate) struct Queue {
    starts: Vec<u64>,
    head: usize,
}

impl Queue {
    pub fn new(depth: u32) -> Queue {
        Queue {
            starts: vec![0; depth as usize],
            head: 0,
        }
    }

    /// The cycle a slot frees if the queue is full at `now`.
    #[inline]
    pub fn full_until(&self, now: u64) -> Option<u64> {
        let oldest = self.starts[self.head];
        (oldest > now).then_some(oldest)
    }

    /// Records an instruction that starts at `start`.
    #[inline]
    pub fn push(&mut self, start: u64) {
        self.starts[self.head] = start;
        self.head = (self.head + 1) % self.starts.len();
    }

    pub fn clear(&mut self) {
        self.starts.iter_mut().for_each(|s| *s = 0);
        self.head = 0;
    }
}

/// One sub-partition of an SM.
#[derive(Clone, Debug)]
pub(crate) struct SubPartition {
    /// Its resident warps' slots, oldest first.
    pub warps: Vec<u16>,
    /// The next cycle it can issue (a `cmpx` takes two issue slots).
    pub issue_free_at: u64,
    /// The next cycle its ALU accepts an instruction.
    pub alu_free_at: u64,
    pub mio: Queue,
    pub lsu: Queue,
    /// Age of the warp that issued last (`u64::MAX`: none yet).
    pub last_age: u64,
    /// The next cycle anything can happen here.
    pub next_at: u64,
}

impl SubPartition {
    pub fn new(mio_depth: u32, lsu_depth: u32) -> SubPartition {
        SubPartition {
            warps: Vec::new(),
            issue_free_at: 0,
            alu_free_at: 0,
            mio: Queue::new(mio_depth),
            lsu: Queue::new(lsu_depth),
            last_age: u64::MAX,
            next_at: u64::MAX,
        }
    }

    pub fn reset(&mut self) {
        self.warps.clear();
        self.issue_free_at = 0;
        self.alu_free_at = 0;
        self.mio.clear();
        self.lsu.clear();
        self.last_age = u64::MAX;
        self.next_at = u64::MAX;
    }
}

/// Collects the eligible warps of one scheduling pass (visited oldest
/// first) and picks one by policy.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Pick {
    oldest: Option<u16>,
    after_last: Option<u16>,
    last: Option<u16>,
}

impl Pick {
    /// Notes an eligible warp.
    #[inline]
    pub fn offer(&mut self, slot: u16, age: u64, last_age: u64) {
        if self.oldest.is_none() {
            self.oldest = Some(slot);
        }
        if age == last_age {
            self.last = Some(slot);
        }
        if self.after_last.is_none() && (last_age == u64::MAX || age > last_age) {
            self.after_last = Some(slot);
        }
    }

    /// The warp to issue.
    pub fn choose(&self, policy: SchedulerPolicy) -> Option<u16> {
        match policy {
            SchedulerPolicy::Gto => self.last.or(self.oldest),
            SchedulerPolicy::Lrr => self.after_last.or(self.oldest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_is_full_until_its_oldest_entry_starts() {
        let mut q = Queue::new(2);
        assert_eq!(q.full_until(0), None);
        q.push(5);
        q.push(7);
        assert_eq!(q.full_until(3), Some(5));
        assert_eq!(q.full_until(5), None);
        q.push(9);
        assert_eq!(q.full_until(6), Some(7));
    }

    #[test]
    fn gto_stays_greedy_and_lrr_moves_on() {
        let mut p = Pick::default();
        for (slot, age) in [(4, 10), (1, 11), (6, 12)] {
            p.offer(slot, age, 11);
        }
        assert_eq!(p.choose(SchedulerPolicy::Gto), Some(1));
        assert_eq!(p.choose(SchedulerPolicy::Lrr), Some(6));
        let mut p = Pick::default();
        p.offer(4, 10, 12);
        p.offer(1, 11, 12);
        assert_eq!(
            p.choose(SchedulerPolicy::Gto),
            Some(4),
            "last not eligible: oldest"
        );
        assert_eq!(p.choose(SchedulerPolicy::Lrr), Some(4), "wraps around");
    }
}
