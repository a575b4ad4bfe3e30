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
    if bytes > sector_bytes || exec == 0 {
        return general(addrs, exec, bytes, shift, out);
    }
    // Accesses are aligned to their width (checked before), so one no
    // wider than a sector touches exactly one: a lane's sector is a shift,
    // and neighbouring lanes mostly share it or follow it.
    if let Some(s) = crate::memory::Strided::of(addrs, exec, bytes)
        && s.stride <= u64::from(sector_bytes)
        && let Some(end) = addrs[0].checked_add(s.span - 1)
    {
        // Every lane, evenly spaced no more than a sector apart (the
        // usual coalesced access): neighbouring lanes' sectors are the
        // same or the next, so the sectors are every one from the first
        // lane's to the last lane's, found without looking at each lane.
        out.extend((addrs[0] >> shift)..=(end >> shift));
        return;
    }
    let mut buf = [0u64; crate::regfile::MAX_LANES];
    let mut n = 0;
    let mut sorted = true;
    let mut last = u64::MAX;
    let mut push = |s: u64| {
        if s != last {
            sorted &= n == 0 || last < s;
            buf[n] = s;
            n += 1;
            last = s;
        }
    };
    if exec == crate::regfile::lane_mask(addrs.len()) {
        addrs.iter().for_each(|&a| push(a >> shift));
    } else {
        let mut m = exec;
        while m != 0 {
            push(addrs[m.trailing_zeros() as usize] >> shift);
            m &= m - 1;
        }
    }
    out.extend_from_slice(&buf[..n]);
    if !sorted {
        out.sort_unstable();
        out.dedup();
    }
}

/// [`sectors`] for accesses that may straddle sectors.
fn general(addrs: &[u64], exec: u64, bytes: u32, shift: u32, out: &mut Vec<u64>) {
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
    fn evenly_spaced_accesses_give_the_sectors_lane_by_lane() {
        let mut out = Vec::new();
        for bytes in [4u32, 8, 16] {
            for stride in (0..=80).step_by(4) {
                for base in [0x1000u64, 0x1010, 0x1FF0] {
                    for (width, exec) in [(32, u64::from(u32::MAX)), (32, 0xFFFF_FFFE), (8, 0xFF)] {
                        let addrs: Vec<u64> = (0..width)
                            .map(|l| (base + l * stride) / u64::from(bytes) * u64::from(bytes))
                            .collect();
                        let want: std::collections::BTreeSet<u64> = (0..width as usize)
                            .filter(|&l| (exec >> l) & 1 != 0)
                            .flat_map(|l| {
                                let a = addrs[l];
                                (a / 32)..=((a + u64::from(bytes) - 1) / 32)
                            })
                            .collect();
                        sectors(&addrs, exec, bytes, 32, &mut out);
                        let want: Vec<u64> = want.into_iter().collect();
                        assert_eq!(out, want, "bytes {bytes} stride {stride} base {base:#x}");
                    }
                }
            }
        }
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
        // Wider than a sector: each 16-byte access spans two 8-byte sectors.
        sectors(&[16, 0, 48], 0b101, 16, 8, &mut out);
        assert_eq!(out, [2, 3, 6, 7]);
        sectors(&[16, 0, 48], 0b111, 16, 8, &mut out);
        assert_eq!(out, [0, 1, 2, 3, 6, 7]);
    }
}
