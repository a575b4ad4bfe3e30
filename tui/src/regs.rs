//! Rebuilding a warp's registers at any cycle from its register writes.
//!
//! Replaying every write from the launch's start would make stepping
//! backwards cost the whole history each frame, so a full copy of the
//! registers is kept every [`CHECKPOINT_EVERY`] writes; a lookup starts from
//! the nearest earlier copy.

use std::collections::BTreeMap;

use traces::RegRef;

/// Writes between two checkpoints.
pub const CHECKPOINT_EVERY: usize = 256;

/// One register write of one warp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegWriteRec {
    /// Cycle the value became visible.
    pub cycle: u64,
    /// The register.
    pub reg: RegRef,
    /// Lanes written.
    pub mask: u64,
    /// Values per lane (unwritten lanes ignored).
    pub values: Vec<u64>,
}

/// A warp's registers: per register, one value per lane.
pub type RegFile = BTreeMap<RegRef, Vec<u64>>;

/// The writes of one warp, in cycle order, with checkpoints.
#[derive(Clone, Debug, Default)]
pub struct WarpRegs {
    writes: Vec<RegWriteRec>,
    /// `(n, file)`: the registers after the first `n` writes.
    checkpoints: Vec<(usize, RegFile)>,
    lanes: usize,
}

impl WarpRegs {
    /// Builds the history from writes (sorted here by cycle, stably).
    pub fn new(mut writes: Vec<RegWriteRec>) -> Self {
        writes.sort_by_key(|w| w.cycle);
        let lanes = writes.iter().map(|w| w.values.len()).max().unwrap_or(0);
        let mut file = RegFile::new();
        let mut checkpoints = vec![(0, file.clone())];
        for (i, w) in writes.iter().enumerate() {
            apply(&mut file, w, lanes);
            if (i + 1) % CHECKPOINT_EVERY == 0 {
                checkpoints.push((i + 1, file.clone()));
            }
        }
        WarpRegs {
            writes,
            checkpoints,
            lanes,
        }
    }

    /// Every write, in cycle order.
    pub fn writes(&self) -> &[RegWriteRec] {
        &self.writes
    }

    /// Whether the warp has any recorded write.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// Lanes of the warp, as seen in its writes.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Every register written at some point, in order.
    pub fn registers(&self) -> Vec<RegRef> {
        let mut regs: Vec<RegRef> = self.writes.iter().map(|w| w.reg).collect();
        regs.sort_unstable();
        regs.dedup();
        regs
    }

    /// The registers as they are at the end of `cycle` (every write with
    /// `cycle <= cycle` applied).
    pub fn at(&self, cycle: u64) -> RegFile {
        let n = self.writes.partition_point(|w| w.cycle <= cycle);
        let k = self.checkpoints.partition_point(|(m, _)| *m <= n) - 1;
        let (start, file) = &self.checkpoints[k];
        let mut file = file.clone();
        for w in &self.writes[*start..n] {
            apply(&mut file, w, self.lanes);
        }
        file
    }

    /// The registers written in exactly `cycle`.
    pub fn written_at(&self, cycle: u64) -> Vec<RegRef> {
        let from = self.writes.partition_point(|w| w.cycle < cycle);
        let to = self.writes.partition_point(|w| w.cycle <= cycle);
        self.writes[from..to].iter().map(|w| w.reg).collect()
    }
}

fn apply(file: &mut RegFile, w: &RegWriteRec, lanes: usize) {
    let row = file.entry(w.reg).or_insert_with(|| vec![0; lanes]);
    for (lane, v) in w.values.iter().enumerate() {
        if w.mask >> lane & 1 == 1 {
            row[lane] = *v;
        }
    }
}

#[cfg(test)]
mod tests {
    use traces::RegClass;

    use super::*;

    fn r(index: u32) -> RegRef {
        RegRef {
            class: RegClass::B32,
            index,
        }
    }

    #[test]
    fn state_at_a_cycle_applies_exactly_the_earlier_writes() {
        let writes = (0..1000u64)
            .map(|i| RegWriteRec {
                cycle: i * 2,
                reg: r((i % 3) as u32),
                mask: if i % 2 == 0 { 0b11 } else { 0b10 },
                values: vec![i, i + 100],
            })
            .collect();
        let regs = WarpRegs::new(writes);
        // Brute force: replay from the start.
        for cycle in [0, 1, 2, 511, 512, 513, 1001, 1998, 5000] {
            let mut want = RegFile::new();
            for i in 0..1000u64 {
                if i * 2 <= cycle {
                    let row = want.entry(r((i % 3) as u32)).or_insert_with(|| vec![0, 0]);
                    if i % 2 == 0 {
                        row[0] = i;
                    }
                    row[1] = i + 100;
                }
            }
            assert_eq!(regs.at(cycle), want, "cycle {cycle}");
        }
        assert_eq!(regs.written_at(4), vec![r(2)]);
        assert_eq!(regs.registers(), vec![r(0), r(1), r(2)]);
    }
}
