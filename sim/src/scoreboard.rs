//! Pending-write tracking: per register, the cycle its value lands and the
//! stall reason a wait for it is charged to, packed in one `u64` so the
//! latest dependency (and its reason) is a plain `max`.

use crate::stats::StallReason;

/// Bits below the cycle that hold the reason.
const REASON_BITS: u32 = 4;

/// Packs a ready cycle and the reason a wait for it counts as.
#[inline]
pub(crate) const fn pack(cycle: u64, reason: StallReason) -> u64 {
    (cycle << REASON_BITS) | reason as u64
}

/// The cycle of a packed entry.
#[inline]
pub(crate) const fn cycle(packed: u64) -> u64 {
    packed >> REASON_BITS
}

/// The reason of a packed entry.
#[inline]
pub(crate) fn reason(packed: u64) -> StallReason {
    StallReason::ALL[(packed & ((1 << REASON_BITS) - 1)) as usize]
}

/// The latest of `floor` and the entries `deps` of `sb`.
#[inline]
pub(crate) fn latest(sb: &[u64], deps: &[u32], floor: u64) -> u64 {
    deps.iter().fold(floor, |m, &d| m.max(sb[d as usize]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_dependency_decides_the_reason() {
        let sb = [
            pack(10, StallReason::Wait),
            pack(30, StallReason::LongScoreboard),
            0,
        ];
        let l = latest(&sb, &[0, 1, 2], pack(5, StallReason::Selected));
        assert_eq!((cycle(l), reason(l)), (30, StallReason::LongScoreboard));
        let l = latest(&sb, &[0, 2], pack(12, StallReason::BranchResolving));
        assert_eq!((cycle(l), reason(l)), (12, StallReason::BranchResolving));
    }
}
