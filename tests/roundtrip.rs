//! Printer and parser agree: canonical files round-trip byte for byte, every
//! generated kernel survives print-then-parse, and so does any random kernel.

use kernels_ir::{kernels, parse_kernel, print_kernel, verify_kernel};
use proptest::prelude::*;

use crate::util::{kernel, kir_files, read};

#[test]
fn canonical_files_round_trip_byte_for_byte_and_verify() {
    for path in kir_files("kernels") {
        let text = read(&path);
        let (k, _) = parse_kernel(&text).unwrap_or_else(|e| panic!("{}:\n{e}", path.display()));
        assert_eq!(
            print_kernel(&k),
            text,
            "{} is not canonical",
            path.display()
        );
        if let Err(e) = verify_kernel(k) {
            panic!("{} does not verify:\n{e}", path.display());
        }
    }
}

#[test]
fn parse_of_print_is_identity_on_every_generated_kernel() {
    for k in kernels::all() {
        let text = print_kernel(&k);
        let (parsed, _) = parse_kernel(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(parsed, k);
    }
}

#[test]
fn the_checked_in_generated_kernels_match_their_generators() {
    // tests/kernels holds the printed text of some catalogue kernels.
    for name in ["reduce", "diverge", "smem_stride_33", "vcopy4", "histogram"] {
        let k = kernels::find(name, kernels::REFERENCE_WARP_SIZE).expect("catalogue kernel");
        let path = crate::util::tests_dir().join(format!("kernels/{name}.kir"));
        assert_eq!(print_kernel(&k.kernel), read(&path), "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parse_of_print_is_identity_on_random_kernels(k in kernel()) {
        let text = print_kernel(&k);
        let parsed = parse_kernel(&text);
        prop_assert!(parsed.is_ok(), "{}\n{}", parsed.unwrap_err(), text);
        let (parsed, map) = parsed.unwrap();
        prop_assert_eq!(&parsed, &k);
        prop_assert_eq!(map.insts.len(), k.insts.len());
        prop_assert_eq!(print_kernel(&parsed), text);
    }
}
