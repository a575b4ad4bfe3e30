//! A key's rank in its warp's final output: the slab's colour and the
//! inspector's "final position".
//!
//! Colouring by value relative to what is loaded so far changes a key's
//! colour when nothing moved it. Instead, the keys the focused warp holds in
//! its slab rows when the launch ends (its output) are sorted once, when
//! the launch is loaded; a key's colour is its rank among them, a function
//! of the key alone, so a student can follow one key through every step.
//! A value that is not in the output (a temporary) takes the rank it would
//! be inserted at, which is still a function of the value only.

use traces::{RegClass, RegRef};

use crate::regs::WarpRegs;

/// The slab's rows: the kernel's marked key registers, else every 32- and
/// 64-bit register the warp wrote (a kernel without marks).
pub fn slab_rows(key_regs: &[RegRef], regs: &WarpRegs) -> Vec<RegRef> {
    if key_regs.is_empty() {
        regs.registers()
            .into_iter()
            .filter(|r| r.class != RegClass::Pred)
            .collect()
    } else {
        key_regs.to_vec()
    }
}

/// One output key: its value and where the warp holds it at the end.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    /// The key.
    pub value: u64,
    /// Its position in the output, counted in lane-major order (lane 0's
    /// rows first), as HotSort's slab is read.
    pub position: usize,
    /// The lane holding it.
    pub lane: u32,
    /// The row holding it.
    pub reg: RegRef,
}

/// The warp's output keys, sorted by value.
#[derive(Clone, Debug, Default)]
pub struct KeyRanks {
    sorted: Vec<Place>,
}

impl KeyRanks {
    /// The ranks of the keys `rows` of `regs` hold at cycle `end`.
    pub fn new(rows: &[RegRef], regs: &WarpRegs, end: u64) -> Self {
        let file = regs.at(end);
        let lanes = regs.lanes();
        let mut sorted = Vec::with_capacity(rows.len() * lanes);
        for lane in 0..lanes {
            for (i, reg) in rows.iter().enumerate() {
                if let Some(v) = file.get(reg).and_then(|row| row.get(lane)) {
                    sorted.push(Place {
                        value: *v,
                        position: lane * rows.len() + i,
                        lane: lane as u32,
                        reg: *reg,
                    });
                }
            }
        }
        sorted.sort_unstable();
        KeyRanks { sorted }
    }

    /// Keys in the output.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether the warp holds no output key.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The rank of `value`: how many output keys are smaller.
    pub fn rank(&self, value: u64) -> usize {
        self.sorted.partition_point(|p| p.value < value)
    }

    /// The rank scaled to 0..=1, for the colour ramp.
    pub fn fraction(&self, value: u64) -> f64 {
        let n = self.sorted.len();
        if n < 2 {
            return 0.5;
        }
        self.rank(value).min(n - 1) as f64 / (n - 1) as f64
    }

    /// Where `value` ends up, if it is an output key (the first of equals).
    pub fn place(&self, value: u64) -> Option<Place> {
        self.sorted
            .get(self.rank(value))
            .filter(|p| p.value == value)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regs::RegWriteRec;

    fn r(index: u32) -> RegRef {
        RegRef {
            class: RegClass::B32,
            index,
        }
    }

    #[test]
    fn a_keys_colour_is_its_final_rank_whatever_is_loaded_so_far() {
        // Cycle 1 loads r0 = [30, 10]; cycle 2 loads r1 = [40, 20]; cycle 3
        // sorts: r0 = [10, 30], r1 = [20, 40].
        let w = |cycle, reg, values: Vec<u64>| RegWriteRec {
            cycle,
            reg: r(reg),
            mask: 0b11,
            values,
        };
        let regs = WarpRegs::new(vec![
            w(1, 0, vec![30, 10]),
            w(2, 1, vec![40, 20]),
            w(3, 0, vec![10, 30]),
            w(3, 1, vec![20, 40]),
        ]);
        let rows = [r(0), r(1)];
        let ranks = KeyRanks::new(&rows, &regs, 3);
        assert_eq!(ranks.len(), 4);
        // Key 30 has rank 2 of 4 at every cycle: before the other keys
        // arrive (a min-max scale of [30, 10] would make it the top) and
        // after.
        assert_eq!(ranks.rank(30), 2);
        assert!((ranks.fraction(30) - 2.0 / 3.0).abs() < 1e-9);
        // It ends in lane 1, row r0: output position 2 (lane-major).
        let p = ranks.place(30).unwrap();
        assert_eq!((p.lane, p.reg, p.position), (1, r(0), 2));
        assert_eq!(ranks.place(31), None);
        assert_eq!(ranks.rank(31), 3, "a temporary ranks where it would go");
    }
}
