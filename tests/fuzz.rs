//! No input makes the parser or the verifier panic or hang: arbitrary text,
//! arbitrary bytes, token soup inside a kernel, and mutations of valid
//! kernels. Whatever parses also survives print-then-parse unchanged. Inputs
//! that once broke something are kept below as plain tests.
//!
//! The coverage-guided fuzz targets (`fuzz/`, nightly) keep their corpora,
//! seeds and every crash they found in the repo; [`fuzz_inputs_replay_clean`]
//! runs them all through the same entry points on stable, so CI keeps them.

use kernels_ir::parser::parse_and_verify;
use kernels_ir::{kernels, parse_kernel, print_kernel, verify_kernel};
use proptest::prelude::*;

use crate::util::kernel;

/// Parses and, if that works, verifies and round-trips `text`.
fn exercise(text: &str) -> Result<(), TestCaseError> {
    if let Ok((k, map)) = parse_kernel(text) {
        prop_assert_eq!(map.insts.len(), k.insts.len());
        let printed = print_kernel(&k);
        let again = parse_kernel(&printed);
        prop_assert!(again.is_ok(), "printed text does not parse:\n{}", printed);
        prop_assert_eq!(&again.unwrap().0, &k);
        let _ = verify_kernel(k);
    }
    // The diagnostics path (spans into the text) must not panic either.
    let _ = parse_and_verify("fuzz.kir", text);
    Ok(())
}

/// Words the grammar knows, so random sequences reach deep into it.
const VOCABULARY: &[&str] = &[
    "kernel",
    "k",
    "{",
    "}",
    "\n",
    "\n",
    "\n",
    "param",
    "regs",
    "shared",
    ":",
    ",",
    "[",
    "]",
    "+",
    "-",
    "@",
    "!",
    "u32",
    "u64",
    "r0",
    "r1",
    "d0",
    "d1",
    "p0",
    "p1",
    "r9999999999",
    "0",
    "1",
    "4",
    "64",
    "0x10",
    "-1",
    "99999999999999999999",
    "%tid.x",
    "%laneid",
    "%bad",
    "$n",
    "$x",
    "mov",
    "add",
    "setp.eq",
    "selp",
    "cmpx.u",
    "ld.global.b32",
    "ld.shared.b64",
    "st.shared.b128",
    "st.global.b32",
    "shfl.xor",
    "bra",
    "exit",
    "bar.sync",
    "warp.sync",
    "lbl",
    "lbl:",
    "end:",
    ";c",
    " ",
    "\t",
    "é",
    "\u{0}",
];

fn token_soup() -> impl Strategy<Value = String> {
    let body = proptest::collection::vec(proptest::sample::select(VOCABULARY), 0..80);
    let decls = "kernel k {\n    param n: u32\n    regs r4 d2 p2\n    shared 64\n";
    (body, any::<bool>()).prop_map(move |(words, close)| {
        let mut text = decls.to_string();
        for w in words {
            text.push_str(w);
            text.push(' ');
        }
        if close {
            text.push_str("\n}\n");
        }
        text
    })
}

/// A valid kernel's text with a few random edits.
fn mutated() -> impl Strategy<Value = String> {
    let catalogue: Vec<String> = kernels::all().iter().map(print_kernel).collect();
    let base = prop_oneof![
        proptest::sample::select(catalogue),
        kernel().prop_map(|k| print_kernel(&k)),
    ];
    let edit = (
        0u8..4,
        any::<usize>(),
        any::<usize>(),
        proptest::sample::select(VOCABULARY),
    );
    (base, proptest::collection::vec(edit, 1..6)).prop_map(|(text, edits)| {
        let mut chars: Vec<char> = text.chars().collect();
        for (kind, at, len, word) in edits {
            let at = at % (chars.len() + 1);
            let end = (at + len % 12).min(chars.len());
            match kind {
                0 => {
                    chars.drain(at..end);
                }
                1 => {
                    chars.splice(at..at, word.chars());
                }
                2 => {
                    let copy: Vec<char> = chars[at..end].to_vec();
                    chars.splice(at..at, copy);
                }
                _ => {
                    chars.splice(at..end, word.chars());
                }
            }
        }
        chars.into_iter().collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        exercise(&text)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        exercise(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn token_soup_never_panics(text in token_soup()) {
        exercise(&text)?;
    }

    #[test]
    fn mutated_kernels_never_panic(text in mutated()) {
        exercise(&text)?;
    }

    #[test]
    fn random_kernels_verify_without_panicking(k in kernel()) {
        let _ = verify_kernel(k);
    }
}

/// Inputs kept from earlier runs and edge cases worth pinning.
#[test]
fn kept_regressions() {
    let cases = [
        "",
        "kernel",
        "kernel k {",
        "kernel k {\n",
        "}",
        "kernel k {\n}\n}",
        "kernel k {\n  l:\n  l:\n    bra l\n}\n",
        "kernel k {\n    bra l\n}\n",
        "kernel k {\n    regs r0 d0 p0\n    @p0 bra x\n  x:\n}\n",
        "kernel k {\n    mov r0, -\n}\n",
        "kernel k {\n    ld.global.b32 r0, [-9223372036854775808]\n}\n",
        "kernel k {\n    ld.global.b32 r0, [d0-2147483648]\n}\n",
        "kernel k {\n    ld.global.b32 r0, [d0+2147483648]\n}\n",
        "kernel k {\n    shfl.idx r0, r0, 0, 4294967295\n}\n",
        "kernel k {\n    regs r4294967295 d4294967295 p4294967295\n    mov r0, 1\n}\n",
        "kernel k {\n    regs r1 d0 p1\n  top:\n    bra top\n    bar.sync\n}\n",
        "kernel k {\n    regs r1 d0 p1\n    setp.eq p0, %laneid, 0\n  top:\n    @p0 bra top\n    bar.sync\n}\n",
        "kernel é {\n}\n",
        "kernel k {\n    mov r0, %\n    mov r0, $\n}\n",
        "\u{feff}kernel k {\n}\n",
    ];
    for text in cases {
        exercise(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    }
}

/// Text of a kernel with `n` branches nested inside each other (each
/// branch's region holds all the later ones) and a barrier in the innermost.
fn nested_branches(n: usize) -> String {
    let mut text = String::from("kernel nest {\n    regs r1 d0 p1\n    shared 0\n");
    text += "    setp.eq p0, %laneid, 0\n";
    for i in 0..n {
        text += &format!("    @p0 bra e{i}\n");
    }
    text += "    bar.sync\n";
    for i in (0..n).rev() {
        text += &format!("    add r0, r0, 1\n  e{i}:\n");
    }
    text + "}\n"
}

#[test]
fn deeply_nested_divergence_is_reported_at_the_innermost_divergent_branch() {
    // The analysis's work on such nesting is bounded by counted steps in
    // `kernels-ir` (`deeply_nested_divergence_is_analysed_in_linear_work`);
    // here the whole verifier reports it once, at the right branch.
    let text = nested_branches(50_000);
    let errors = parse_and_verify("nest.kir", &text).expect_err("divergent barrier");
    assert_eq!(errors.len(), 1);
    // `bra e0` jumps to the end, which is an exit, not a divergence.
    assert!(
        errors[0].message.contains("`@p0 bra e1` (pc 2)"),
        "{}",
        errors[0].message
    );
}

/// A fuzz target's entry point (`simsort::fuzz_entry`).
type Entry = fn(&[u8]);

/// The fuzz targets, each with its entry point.
const FUZZ_TARGETS: &[(&str, Entry)] = &[
    ("ir", simsort::fuzz_entry::ir),
    ("trace", simsort::fuzz_entry::trace),
    ("buffer_spec", simsort::fuzz_entry::buffer_spec),
    ("sweep_lists", simsort::fuzz_entry::sweep_lists),
];

#[test]
fn fuzz_inputs_replay_clean() {
    let fuzz = crate::util::tests_dir().join("../fuzz");
    for (target, entry) in FUZZ_TARGETS {
        let mut files = 0;
        for dir in ["seeds", "corpus", "artifacts"] {
            let Ok(entries) = std::fs::read_dir(fuzz.join(dir).join(target)) else {
                continue;
            };
            let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
            paths.sort();
            for path in paths {
                let data = std::fs::read(&path).unwrap();
                let run = std::panic::catch_unwind(|| entry(&data));
                assert!(run.is_ok(), "{target}: {} panics", path.display());
                files += 1;
            }
        }
        // A target without inputs would pass without testing anything.
        assert!(files >= 5, "{target}: only {files} inputs under fuzz/");
    }
}
