//! The records GPUTeraSort sorts, built from the experiment's keys, and
//! the host's side of the check: record `i` opens with key `i`'s
//! big-endian bytes; the rest of its `K`-byte key is pseudo-random from
//! `i` (so ties of the experiment's keys leave the refinement real work);
//! then the payload, `i` as 4 little-endian bytes (as far as the record
//! holds them), then filler.

use super::config::TeraSortConfig;
use crate::Key;

/// SplitMix64: the key bytes past the experiment's key, from the index.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The records of `keys`, `record_bytes` each, concatenated.
pub fn build<K: Key>(cfg: &TeraSortConfig, keys: &[K]) -> Vec<u8> {
    let (r, k) = (cfg.record_bytes as usize, cfg.key_bytes as usize);
    let width = (K::BITS / 8) as usize;
    let mut out = vec![0u8; keys.len() * r];
    for (i, (rec, key)) in out.chunks_exact_mut(r).zip(keys).enumerate() {
        let key: u64 = (*key).into();
        let be = key.to_be_bytes();
        rec[..width].copy_from_slice(&be[8 - width..]);
        let mut bits = mix(i as u64);
        for (j, byte) in rec[width..k].iter_mut().enumerate() {
            if j % 8 == 0 && j > 0 {
                bits = mix(bits);
            }
            *byte = (bits >> (8 * (j % 8))) as u8;
        }
        let payload = (i as u32).to_le_bytes();
        let end = (k + 4).min(r);
        rec[k..end].copy_from_slice(&payload[..end - k]);
        for (j, byte) in rec[end..].iter_mut().enumerate() {
            *byte = b'A' + ((i + j) % 26) as u8;
        }
    }
    out
}

/// The experiment's key of one record: its first `K::BITS/8` bytes, big-endian.
pub fn key_of<K: Key>(record: &[u8]) -> u64 {
    let width = (K::BITS / 8) as usize;
    record[..width]
        .iter()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// The indices of the records in the order the sort promises: by key
/// bytes, equal keys by index (the pointer the key-pointer pairs carry).
/// Sorted by the first 8 key bytes as one integer with the index (no
/// record read per comparison), then runs tied on those by the rest of
/// the key, stably.
pub fn order(cfg: &TeraSortConfig, records: &[u8]) -> Vec<usize> {
    let (r, k) = (cfg.record_bytes as usize, cfg.key_bytes as usize);
    let head = k.min(8);
    let mut keyed: Vec<(u64, usize)> = records
        .chunks_exact(r)
        .enumerate()
        .map(|(i, rec)| {
            let mut b = [0u8; 8];
            b[..head].copy_from_slice(&rec[..head]);
            (u64::from_be_bytes(b), i)
        })
        .collect();
    keyed.sort_unstable();
    let mut order: Vec<usize> = keyed.iter().map(|&(_, i)| i).collect();
    if k > head {
        let rest = |i: usize| &records[i * r + head..i * r + k];
        let mut start = 0;
        while start < keyed.len() {
            let end = start
                + keyed[start..]
                    .iter()
                    .take_while(|e| e.0 == keyed[start].0)
                    .count();
            order[start..end].sort_by(|&a, &b| rest(a).cmp(rest(b)));
            start = end;
        }
    }
    order
}

/// The records in the order the sort promises (see [`order`]).
pub fn expected(cfg: &TeraSortConfig, records: &[u8]) -> Vec<u8> {
    let r = cfg.record_bytes as usize;
    let mut out = Vec::with_capacity(records.len());
    for i in order(cfg, records) {
        out.extend_from_slice(&records[i * r..(i + 1) * r]);
    }
    out
}

/// Whether `output` is the input records ordered by key: whole records
/// compared; the first difference named.
pub fn check(cfg: &TeraSortConfig, records: &[u8], output: &[u8]) -> Result<(), String> {
    let r = cfg.record_bytes as usize;
    if records.len() != output.len() {
        return Err(format!(
            "{} output bytes for {} input bytes",
            output.len(),
            records.len()
        ));
    }
    let ranks = order(cfg, records);
    match ranks
        .iter()
        .zip(output.chunks_exact(r))
        .position(|(&i, b)| &records[i * r..(i + 1) * r] != b)
    {
        None => Ok(()),
        Some(i) => Err(format!(
            "output record {i} is not the input record of that rank ({} records)",
            ranks.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_open_with_the_key_and_carry_their_index() {
        let cfg = TeraSortConfig {
            record_bytes: 16,
            ..TeraSortConfig::new(32, 32)
        };
        let recs = build(&cfg, &[0x0102_0304u32, 7]);
        assert_eq!(&recs[..4], &[1, 2, 3, 4]);
        assert_eq!(&recs[10..14], &0u32.to_le_bytes());
        assert_eq!(&recs[26..30], &1u32.to_le_bytes());
        assert_eq!(key_of::<u32>(&recs[16..]), 7);
        // The key bytes past the experiment's key differ between records.
        assert_ne!(&recs[4..10], &recs[20..26]);
    }

    #[test]
    fn the_check_compares_whole_records() {
        let cfg = TeraSortConfig {
            record_bytes: 8,
            key_bytes: 4,
            ..TeraSortConfig::new(32, 32)
        };
        let recs = build(&cfg, &[5u32, 5, 1]);
        let want = expected(&cfg, &recs);
        assert!(check(&cfg, &recs, &want).is_ok());
        // Equal keys in the other order: the payloads differ.
        let mut swapped = want.clone();
        let (a, b) = swapped.split_at_mut(16);
        a[8..16].swap_with_slice(&mut b[..8]);
        assert!(check(&cfg, &recs, &swapped).is_err());
    }

    #[test]
    fn the_order_breaks_ties_of_8_key_bytes_on_the_rest_then_the_index() {
        // 12-byte keys: records 0 and 2 tie on bytes 0..8 and differ in
        // byte 9; records 1 and 3 are equal in all 12 key bytes.
        let cfg = TeraSortConfig {
            record_bytes: 16,
            key_bytes: 12,
            ..TeraSortConfig::new(32, 32)
        };
        let mut recs = vec![0u8; 64];
        recs[9] = 2;
        recs[16..28].fill(7);
        recs[41] = 1;
        recs[48..60].fill(7);
        assert_eq!(order(&cfg, &recs), [2, 0, 1, 3]);
    }
}
