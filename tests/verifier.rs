//! Invalid kernels report exactly the errors annotated in them: each
//! `; error: TEXT` comment expects one error whose message contains TEXT,
//! on the comment's line (syntax or verifier errors alike).

use kernels_ir::parser::parse_and_verify;

use crate::util::{kir_files, read};

/// The `(line, text)` expectations of a file.
fn expected(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for part in line.split("; error:").skip(1) {
            out.push((i + 1, part.trim().to_string()));
        }
    }
    out
}

#[test]
fn invalid_files_report_exactly_their_annotated_errors() {
    for path in kir_files("kernels/invalid") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = read(&path);
        let mut want = expected(&text);
        assert!(!want.is_empty(), "{name} has no `; error:` annotations");
        let diagnostics = match parse_and_verify(&name, &text) {
            Ok(_) => panic!("{name} parsed and verified"),
            Err(d) => d,
        };
        let mut unexpected = Vec::new();
        for d in &diagnostics {
            let hit = want
                .iter()
                .position(|(line, s)| *line == d.line && d.message.contains(s));
            match hit {
                Some(i) => {
                    want.remove(i);
                }
                None => unexpected.push(format!("{name}:{}:{}: {}", d.line, d.col, d.message)),
            }
        }
        let missing: Vec<String> = want
            .iter()
            .map(|(line, s)| format!("{name}:{line}: {s}"))
            .collect();
        assert!(
            unexpected.is_empty() && missing.is_empty(),
            "unexpected errors:\n{}\nmissing errors:\n{}",
            unexpected.join("\n"),
            missing.join("\n")
        );
    }
}

#[test]
fn annotations_are_read_from_comments() {
    let text = "a\n  mov r0, 1 ; error: one ; error: two\n; error: three\n";
    assert_eq!(
        expected(text),
        [(2, "one".into()), (2, "two".into()), (3, "three".into())]
    );
}
