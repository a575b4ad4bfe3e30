//! Parser unit tests: canonical text round-trips, accepted spellings, and
//! located syntax errors.

use super::*;
use crate::inst::{InstData, Operand};
use crate::printer::print_kernel;

const VCOPY: &str = "kernel vcopy {
    param src: u64
    param dst: u64
    param n: u32
    regs r4 d3 p1
    shared 0
    mov r0, %tid.x
    setp.ge.u p0, r0, $n
    @p0 bra done
    cvt.u64.u32 d0, r0
    shl d0, d0, 2
    add d1, $src, d0
    ld.global.b32 r1, [d1+0]
    add d2, $dst, d0
    st.global.b32 [d2+0], r1
  done:
    exit
}
";

fn errors(src: &str) -> Vec<(usize, usize, String)> {
    let e = parse_kernel(src).expect_err("should not parse");
    e.0.into_iter()
        .map(|e| (e.line, e.col, e.message))
        .collect()
}

#[test]
fn canonical_text_round_trips() {
    let (kernel, map) = parse_kernel(VCOPY).unwrap();
    assert_eq!(print_kernel(&kernel), VCOPY);
    assert_eq!(kernel.insts.len(), 10);
    assert_eq!(map.insts.len(), 10);
    assert_eq!(&VCOPY[map.insts[2].start..map.insts[2].end], "@p0 bra done");
    assert_eq!(&VCOPY[map.labels[0].start..map.labels[0].end], "done");
    assert_eq!(
        &VCOPY[map.params[2].start..map.params[2].end],
        "param n: u32"
    );
}

#[test]
fn accepts_other_spellings_and_prints_them_canonically() {
    let src = "; leading comment\n\nkernel k{ ; c\nregs p1 r2\nshared 0x40\n\
               add r0,r1,-0x10\nld.shared.b64 {r0,r1}, [r1]\nst.shared.b32 [0x8], {r0}\n}\n\n";
    let (kernel, _) = parse_kernel(src).unwrap();
    let expected = "kernel k {
    regs r2 d0 p1
    shared 64
    add r0, r1, -16
    ld.shared.b64 {r0, r1}, [r1+0]
    st.shared.b32 [8], r0
}
";
    assert_eq!(print_kernel(&kernel), expected);
}

#[test]
fn immediates_cover_the_64_bit_range() {
    let src = "kernel k {\n    mov d0, 0xffffffffffffffff\n    mov d0, -9223372036854775808\n}\n";
    let (kernel, _) = parse_kernel(src).unwrap();
    let imms: Vec<_> = kernel
        .insts
        .iter()
        .map(|i| match i.data {
            InstData::Unary {
                src: Operand::Imm(v),
                ..
            } => v,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(imms, vec![-1, i64::MIN]);
    assert_eq!(
        errors("kernel k {\n    mov d0, -9223372036854775809\n}\n"),
        vec![(2, 13, "`-9223372036854775809` is below -2^63".to_string())]
    );
}

#[test]
fn labels_are_numbered_by_definition_then_first_use() {
    let src = "kernel k {\n    bra b\n    bra c\n  a:\n  b:\n    exit\n}\n";
    let (kernel, _) = parse_kernel(src).unwrap();
    let names: Vec<_> = kernel
        .labels
        .iter()
        .map(|l| (l.name.as_str(), l.pos))
        .collect();
    assert_eq!(
        names,
        vec![("a", 2), ("b", 2), ("c", crate::builder::UNBOUND)]
    );
    assert_eq!(
        kernel.insts[0].data,
        InstData::Branch {
            opcode: crate::Opcode::Bra,
            target: crate::Label(1)
        }
    );
}

#[test]
fn collects_one_error_per_bad_line_with_line_and_column() {
    let src = "kernel k {\n    regs r2 d0 p0\n    add r0, r1\n    mvo r0, 1\n    mov r0, $x\n\
               mov r0, %tid.w\n    ld.global.b32 r0, [d0+9999999999]\n    mov r0, 1 2\n}\n";
    let got = errors(src);
    let want = [
        (3, 15, "expected `,`, found end of line"),
        (4, 5, "unknown opcode `mvo`"),
        (5, 13, "undefined parameter `$x`"),
        (6, 9, "unknown special value `%tid.w`"),
        (7, 27, "offset does not fit 32 bits (signed)"),
        (8, 15, "expected end of line, found `2`"),
    ];
    let got: Vec<_> = got.iter().map(|(l, c, m)| (*l, *c, m.as_str())).collect();
    assert_eq!(got, want);
}

#[test]
fn unknown_names_come_with_a_suggestion() {
    let e = parse_kernel("kernel k {\n    ld.global.b23 r0, [d0+0]\n}\n").unwrap_err();
    assert_eq!(
        e.0[0].help.as_deref(),
        Some("did you mean `ld.global.b32`?")
    );
}

#[test]
fn structural_errors_are_reported() {
    assert_eq!(
        errors(""),
        vec![(1, 1, "expected `kernel NAME {`, found end of file".into())]
    );
    assert_eq!(
        errors("kernel k {\n    exit\n"),
        vec![(
            3,
            1,
            "unexpected end of file: the kernel has no closing `}`".into()
        )]
    );
    assert_eq!(
        errors("kernel k {\n}\nkernel j {\n}\n"),
        vec![(
            3,
            1,
            "unexpected `kernel` after the kernel (one kernel per file)".into()
        )]
    );
    assert_eq!(
        errors("kernel k {\n    exit\n    regs r1\n}\n"),
        vec![(
            3,
            5,
            "`regs` must come before the first instruction or label".into()
        )]
    );
    assert_eq!(
        errors("kernel a.b {\n}\n"),
        vec![(
            1,
            8,
            "`a.b` is not a valid kernel name (use letters, digits and `_`)".into()
        )]
    );
    assert_eq!(
        errors("kernel k {\n    st.global.b32 [d0+0], {r0, r1, r2, r3, r4}\n}\n"),
        vec![(2, 27, "a register list holds 1 to 4 registers".into())]
    );
    assert_eq!(
        errors("kernel k {\n    mov r99999999999, 1\n}\n"),
        vec![(2, 9, "register number of `r99999999999` too large".into())]
    );
}

#[test]
fn verifier_errors_point_at_their_line() {
    let src = "kernel k {\n    regs r1 d0 p0\n    shared 0\n    mov r0, 1\n    mov r1, 2\n}\n";
    let diags = parse_and_verify("k.kir", src).unwrap_err();
    assert_eq!(diags.len(), 1);
    assert_eq!((diags[0].line, diags[0].col), (5, 5));
    assert!(diags[0].message.contains("r1"), "{}", diags[0].message);
}

#[test]
fn atomics_round_trip_with_every_address_and_source_form() {
    let src = "kernel k {
    param n: u32
    regs r3 d0 p1
    shared 64
    atom.shared.add.u32 r0, [r1+4], r2
    atom.shared.add.u32 r0, [r1-8], 1
    @!p0 atom.shared.add.u32 r2, [60], $n
    atom.shared.add.u32 r1, [r1+0], %laneid
}
";
    let (kernel, _) = parse_kernel(src).unwrap();
    assert_eq!(print_kernel(&kernel), src);
    let InstData::Atomic { src: operand, .. } = kernel.insts[1].data else {
        panic!("{:?}", kernel.insts[1].data);
    };
    assert_eq!(operand, Operand::Imm(1));
    // Spellings the parser accepts beyond the canonical one.
    let (other, _) = parse_kernel(
        "kernel k {\nparam n: u32\nregs r3 p1\nshared 64\natom.shared.add.u32 r0,[r1+0x4],r2\n\
         atom.shared.add.u32 r0, [r1-8], 0x1 ; comment\n@!p0 atom.shared.add.u32 r2,[0x3c],$n\n\
         atom.shared.add.u32 r1, [r1], %laneid\n}",
    )
    .unwrap();
    assert_eq!(print_kernel(&other), src);
    assert_eq!(
        errors("kernel k {\nregs r2\natom.shared.add.u32 r0, r1\n}\n")[0].2,
        "expected an address `[...]`, found `r1`"
    );
}
