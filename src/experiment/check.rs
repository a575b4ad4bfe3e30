//! The reference check: is the device's output the sorted input?

/// Why a sort's output is wrong, with the first place it goes wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// Output and input lengths differ.
    #[error("output has {got} keys, input had {want}")]
    Length {
        /// Output length.
        got: usize,
        /// Input length.
        want: usize,
    },
    /// The output differs from the reference sort.
    #[error(
        "output differs from the reference sort at index {index}: got {got:#x}, expected {want:#x} \
         ({mismatches} of {len} keys differ; {})",
        if *.sorted { "the output is sorted but not a permutation of the input" } else { "the output is not sorted" }
    )]
    Mismatch {
        /// First differing index.
        index: usize,
        /// Key found there.
        got: u64,
        /// Key expected there.
        want: u64,
        /// How many positions differ.
        mismatches: usize,
        /// Total keys.
        len: usize,
        /// Whether the output is at least ascending.
        sorted: bool,
    },
}

/// Checks `output` against a reference sort of `input` (ascending): equal
/// means sorted and a permutation of the input.
pub fn check_sorted<K: Ord + Copy + Into<u64>>(
    input: &[K],
    output: &[K],
) -> Result<(), CheckError> {
    if input.len() != output.len() {
        return Err(CheckError::Length {
            got: output.len(),
            want: input.len(),
        });
    }
    let mut reference = input.to_vec();
    reference.sort_unstable();
    let mut diffs = reference
        .iter()
        .zip(output)
        .enumerate()
        .filter(|(_, (a, b))| a != b);
    match diffs.next() {
        None => Ok(()),
        Some((index, (want, got))) => Err(CheckError::Mismatch {
            index,
            got: (*got).into(),
            want: (*want).into(),
            mismatches: 1 + diffs.count(),
            len: input.len(),
            sorted: output.windows(2).all(|w| w[0] <= w[1]),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_sorted_permutation() {
        assert_eq!(check_sorted(&[3u32, 1, 2], &[1, 2, 3]), Ok(()));
        assert_eq!(check_sorted::<u32>(&[], &[]), Ok(()));
    }

    #[test]
    fn rejects_unsorted_lost_and_invented_keys() {
        let err = check_sorted(&[3u32, 1, 2], &[1, 3, 2]).unwrap_err();
        assert!(err.to_string().contains("not sorted"), "{err}");
        let err = check_sorted(&[3u32, 1, 2], &[1, 2, 2]).unwrap_err();
        assert!(err.to_string().contains("not a permutation"), "{err}");
        let err = check_sorted(&[3u32, 1, 2], &[1, 2]).unwrap_err();
        assert!(matches!(err, CheckError::Length { got: 2, want: 3 }));
    }
}
