//! Phase 2 on the host, as the seed runs it on the CPU: a k-way merge of the
//! sorted runs. Equal keys come from the earlier run first, so the merged
//! order is by key, then by record index, as within a run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Merges the sorted runs of `data` (records of `record_bytes`, runs of
/// `run_records` records, the last one shorter) by their first `key_bytes`.
pub fn merge_runs(
    data: &[u8],
    record_bytes: usize,
    key_bytes: usize,
    run_records: usize,
) -> Vec<u8> {
    let n = data.len() / record_bytes;
    let key = |i: usize| &data[i * record_bytes..i * record_bytes + key_bytes];
    let ends: Vec<usize> = (0..n.div_ceil(run_records))
        .map(|r| ((r + 1) * run_records).min(n))
        .collect();
    // (key, run, position): the heap pops the smallest key, then run.
    let mut heap: BinaryHeap<Reverse<(&[u8], usize, usize)>> = ends
        .iter()
        .enumerate()
        .map(|(r, _)| Reverse((key(r * run_records), r, r * run_records)))
        .collect();
    let mut out = Vec::with_capacity(data.len());
    while let Some(Reverse((_, run, pos))) = heap.pop() {
        out.extend_from_slice(&data[pos * record_bytes..(pos + 1) * record_bytes]);
        if pos + 1 < ends[run] {
            heap.push(Reverse((key(pos + 1), run, pos + 1)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_by_key_then_run() {
        // Records of 2 bytes: key byte, then a tag; runs of 2 records.
        let data = [1, b'a', 3, b'b', 1, b'c', 2, b'd', 0, b'e'];
        let out = merge_runs(&data, 2, 1, 2);
        assert_eq!(out, [0, b'e', 1, b'a', 1, b'c', 2, b'd', 3, b'b']);
    }
}
