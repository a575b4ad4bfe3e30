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
    /// The output of a sort of pairs is not the input's pairs by key.
    #[error(
        "{} at index {index} (key {key:#x})",
        if *.sorted { "the output's keys ascend but its (key, value) pairs differ from the input's" } else { "the output's keys descend" }
    )]
    Pairs {
        /// The first index where it shows.
        index: usize,
        /// The key there.
        key: u64,
        /// Whether the keys ascend.
        sorted: bool,
    },
}

/// Checks `output` against a reference sort of `input` (ascending): equal
/// means sorted and a permutation of the input.
pub fn check_sorted<K: Ord + Copy + Into<u64>>(
    input: &[K],
    output: &[K],
) -> Result<(), CheckError> {
    check_against(&reference_sort(input), output)
}

/// The reference sort of `input`: a sorted copy. Separate from the
/// comparison so a caller can sort while the device runs
/// ([`crate::experiment::sort`] does on several host threads).
pub fn reference_sort<K: Ord + Copy>(input: &[K]) -> Vec<K> {
    let mut reference = input.to_vec();
    reference.sort_unstable();
    reference
}

/// [`check_sorted`] against a reference sort already made
/// ([`reference_sort`] of the input).
pub fn check_against<K: Ord + Copy + Into<u64>>(
    reference: &[K],
    output: &[K],
) -> Result<(), CheckError> {
    if reference.len() != output.len() {
        return Err(CheckError::Length {
            got: output.len(),
            want: reference.len(),
        });
    }
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
            len: reference.len(),
            sorted: output.windows(2).all(|w| w[0] <= w[1]),
        }),
    }
}

/// Checks the output of a sort of 64-bit `keys` carrying `values`: the
/// keys ascend and the (key, value) pairs are the input's (equal keys may
/// carry their values in any order). A failure names the first place the
/// output's keys descend, or the first key whose pairs differ.
///
/// `output` is sorted in place (pairs of equal keys by value), so the check
/// needs one more copy of the pairs, not two.
pub fn check_pairs(
    keys: &[u64],
    values: &[u32],
    output: &mut [(u64, u32)],
) -> Result<(), CheckError> {
    if keys.len() != output.len() {
        return Err(CheckError::Length {
            got: output.len(),
            want: keys.len(),
        });
    }
    if let Some(index) = output.windows(2).position(|w| w[0].0 > w[1].0) {
        return Err(CheckError::Pairs {
            index: index + 1,
            key: output[index + 1].0,
            sorted: false,
        });
    }
    let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
    want.sort_unstable();
    output.sort_unstable();
    let got = output;
    match want.iter().zip(got.iter()).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(at) => {
            let key = want[at].0.min(got[at].0);
            let index = got.iter().position(|p| p.0 >= key).unwrap_or(0);
            Err(CheckError::Pairs {
                index,
                key,
                sorted: true,
            })
        }
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

    #[test]
    fn pairs_need_ascending_keys_and_the_input_s_pairs() {
        let (keys, values) = ([5u64, 1, 5, 3], [50u32, 10, 51, 30]);
        // Equal keys may carry their values in either order.
        for out in [
            [(1, 10), (3, 30), (5, 50), (5, 51)],
            [(1, 10), (3, 30), (5, 51), (5, 50)],
        ] {
            assert_eq!(check_pairs(&keys, &values, &mut out.clone()), Ok(()));
        }
        let unsorted = [(1, 10), (5, 50), (3, 30), (5, 51)];
        let e = check_pairs(&keys, &values, &mut unsorted.clone()).unwrap_err();
        assert!(
            matches!(
                e,
                CheckError::Pairs {
                    index: 2,
                    sorted: false,
                    ..
                }
            ),
            "{e}"
        );
        // A value left behind (a duplicated one in its place).
        let lost = [(1, 10), (3, 30), (5, 50), (5, 50)];
        let e = check_pairs(&keys, &values, &mut lost.clone()).unwrap_err();
        assert!(
            matches!(
                e,
                CheckError::Pairs {
                    key: 5,
                    sorted: true,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("pairs differ"), "{e}");
        let short = check_pairs(&keys, &values, &mut lost[..3].to_vec()).unwrap_err();
        assert!(matches!(short, CheckError::Length { got: 3, want: 4 }));
    }
}
