//! Simulated time.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

use serde::Serialize;

/// A count of SM clock cycles: a point in simulated time or a duration.
///
/// A newtype, never a bare `u64`, so a cycle count cannot be mixed up with a
/// byte count or an instruction count.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Cycle(pub u64);

impl Cycle {
    /// The raw count.
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Add<u64> for Cycle {
    type Output = Cycle;
    fn add(self, rhs: u64) -> Cycle {
        Cycle(self.0 + rhs)
    }
}

impl Add for Cycle {
    type Output = Cycle;
    fn add(self, rhs: Cycle) -> Cycle {
        Cycle(self.0 + rhs.0)
    }
}

impl AddAssign for Cycle {
    fn add_assign(&mut self, rhs: Cycle) {
        self.0 += rhs.0;
    }
}

impl Sub for Cycle {
    type Output = u64;
    fn sub(self, rhs: Cycle) -> u64 {
        self.0 - rhs.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_add_and_subtract() {
        let t = Cycle(10) + 5;
        assert_eq!(t, Cycle(15));
        assert_eq!(t - Cycle(3), 12);
        let mut s = Cycle(1);
        s += Cycle(2);
        assert_eq!(s.get(), 3);
    }
}
