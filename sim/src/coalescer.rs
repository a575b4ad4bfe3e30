//! Coalescing: the distinct sectors a warp's global access touches.
//!
//! One warp instruction is one request; its cost is the number of distinct
//! `sector_bytes` sectors the active lanes touch (Nsight Compute's
//! `l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}`).

/// Fills `out` with the distinct sector numbers (address / `sector_bytes`)
/// touched by the lanes of `exec`, in increasing order.
pub(crate) fn sectors(addrs: &[u64], exec: u64, bytes: u32, sector_bytes: u32, out: &mut Vec<u64>) {
    out.clear();
    // The sector size is a power of two (`GpuConfig::validate`): a shift.
    debug_assert!(sector_bytes.is_power_of_two());
    let shift = sector_bytes.trailing_zeros();
    let mut sorted = true;
    for (l, &a) in addrs.iter().enumerate() {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        for s in a >> shift..=(a + u64::from(bytes) - 1) >> shift {
            match out.last() {
                Some(&last) if last == s => {}
                Some(&last) => {
                    sorted &= last < s;
                    out.push(s);
                }
                None => out.push(s),
            }
        }
    }
    if !sorted {
        out.sort_unstable();
        out.dedup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(stride: u64, bytes: u32) -> usize {
        let addrs: Vec<u64> = (0..32)
            .map(|l| 0x1000 + l * stride * u64::from(bytes))
            .collect();
        let mut out = Vec::new();
        sectors(&addrs, u32::MAX.into(), bytes, 32, &mut out);
        out.len()
    }

    #[test]
    fn thirty_two_bit_strides_match_the_h200() {
        assert_eq!(count(1, 4), 4);
        assert_eq!(count(2, 4), 8);
        assert_eq!(count(8, 4), 32);
        assert_eq!(count(32, 4), 32);
    }

    #[test]
    fn wide_and_scattered_accesses() {
        assert_eq!(count(1, 16), 16);
        let addrs = [96, 0, 32, 0, 64];
        let mut out = Vec::new();
        sectors(&addrs, 0b11111, 4, 32, &mut out);
        assert_eq!(out, [0, 1, 2, 3]);
        sectors(&addrs, 0b01000, 4, 32, &mut out);
        assert_eq!(out, [0]);
        sectors(&addrs, 0, 4, 32, &mut out);
        assert!(out.is_empty());
    }
}
