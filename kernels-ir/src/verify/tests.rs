//! Verifier unit tests, written as `.kir` text for readability (the
//! integration tests hold many more, as annotated files).

use super::*;
use crate::builder::KernelBuilder;
use crate::kernel::ParamType;
use crate::parser::parse_kernel;

/// The verifier's messages for `body` inside a kernel with a few
/// declarations, as `(pc or -1, message)`.
fn errors(decls: &str, body: &str) -> Vec<(i64, String)> {
    let src = format!("kernel k {{\n{decls}\n{body}\n}}\n");
    let (kernel, _) = parse_kernel(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    match verify_kernel(kernel) {
        Ok(_) => Vec::new(),
        Err(e) => {
            e.0.into_iter()
                .map(|e| match e.location {
                    Location::Inst(pc) => (i64::from(pc), e.message),
                    _ => (-1, e.message),
                })
                .collect()
        }
    }
}

const DECLS: &str = "param buf: u64\nparam n: u32\nregs r4 d2 p2\nshared 64";

fn only(body: &str) -> Vec<String> {
    errors(DECLS, body).into_iter().map(|(_, m)| m).collect()
}

#[test]
fn well_typed_instructions_pass() {
    let body = "mov r0, %laneid\nmov d0, $buf\nmov p0, 1\nadd r1, r0, -1\nadd d1, d0, 8\n\
                shl d1, d1, r0\nsetp.lt.u p1, r0, $n\nsetp.eq p0, d0, 0\nand p0, p0, p1\n\
                selp r2, r0, 4294967295, p0\ncmpx.s r0, r1\ncvt.u64.u32 d1, r0\n\
                cvt.u32.u64 r3, d1\nld.global.b64 {r0, r1}, [d0+4]\nst.shared.b128 [r0-4], {d0, d1}\n\
                ld.shared.b32 r0, [60]\nshfl.idx r0, r1, %laneid, 64\n@!p1 exit\nbar.sync\nwarp.sync";
    assert_eq!(only(body), Vec::<String>::new());
}

#[test]
fn operand_classes_and_immediates_are_checked() {
    assert_eq!(
        only("add r0, d0, 1"),
        ["`add` operand must be 32-bit, found d0"]
    );
    assert_eq!(
        only("add r0, r1, 4294967296"),
        ["`add` operand must be a 32-bit value, found immediate 4294967296"]
    );
    assert_eq!(
        only("add d0, d0, %tid.x"),
        ["`add` operand must be 64-bit, found %tid.x (32-bit)"]
    );
    assert_eq!(
        only("mov r0, $buf"),
        ["`mov` operand must be 32-bit, found $buf (u64)"]
    );
    assert_eq!(
        only("add p0, p0, p1"),
        ["`add` does not operate on predicates (destination p0)"]
    );
    assert_eq!(
        only("mov p0, 2"),
        ["`mov` operand must be 0 or 1, found immediate 2"]
    );
    assert_eq!(
        only("setp.eq r0, r1, 0"),
        ["`setp.eq` destination must be a predicate, found r0"]
    );
    assert_eq!(
        only("setp.eq p0, r1, d0"),
        ["`setp.eq` operand must be 32-bit, found d0"]
    );
    assert_eq!(
        only("cvt.u64.u32 r0, r0"),
        ["`cvt.u64.u32` destination must be 64-bit, found r0"]
    );
    assert_eq!(
        only("selp r0, r1, r2, r3"),
        ["`selp` selector must be a predicate register, found r3"]
    );
    assert_eq!(
        only("cmpx.u r0, d1"),
        ["`cmpx.u` needs two registers of one integer class, found r0 and d1"]
    );
    assert_eq!(
        only("@r0 exit"),
        ["the guard must be a predicate register, found r0"]
    );
    assert_eq!(
        only("shl d0, d0, d1"),
        ["`shl` operand must be 32-bit, found d1"]
    );
}

#[test]
fn memory_operands_are_checked() {
    assert_eq!(
        only("ld.global.b32 r0, [r1+0]"),
        ["a global address base must be a 64-bit register, found r1"]
    );
    assert_eq!(
        only("ld.global.b32 r0, [0]"),
        ["a global address needs a 64-bit base register"]
    );
    assert_eq!(
        only("st.shared.b32 [d0+0], r0"),
        ["a shared address base must be a 32-bit register, found d0"]
    );
    assert_eq!(
        only("ld.global.b64 r0, [d0+0]"),
        ["`ld.global.b64` moves 64 bits but its registers hold 32"]
    );
    assert_eq!(
        only("ld.global.b64 {r0, r0}, [d0+0]"),
        ["`ld.global.b64` writes r0 twice"]
    );
    assert_eq!(
        only("ld.global.b128 {r0, d0, r1}, [d0+0]"),
        ["`ld.global.b128` registers must all be 32-bit or all 64-bit, found {r0, d0, r1}"]
    );
    assert_eq!(
        only("ld.shared.b64 d0, [60]"),
        ["shared access of 8 bytes at [60] is outside the 64 declared bytes"]
    );
    assert_eq!(
        only("ld.shared.b32 r0, [-4]"),
        ["shared access of 4 bytes at [-4] is outside the 64 declared bytes"]
    );
    assert_eq!(
        only("ld.shared.b64 d0, [4]"),
        ["shared access of 8 bytes at [4] is not aligned to 8"]
    );
    // A constant misaligned offset on a register base is checked at run time.
    assert_eq!(only("ld.shared.b64 d0, [r0+4]"), Vec::<String>::new());
}

#[test]
fn shuffles_and_barriers_are_checked() {
    assert_eq!(
        only("shfl.xor r0, r1, 1, 48"),
        ["shuffle width 48 is not a power of two in 1..=64"]
    );
    assert_eq!(
        only("shfl.xor r0, r1, 1, 128"),
        ["shuffle width 128 is not a power of two in 1..=64"]
    );
    assert_eq!(
        only("shfl.up d0, r1, 1, 32"),
        ["`shfl.up` destination must be a 32-bit register, found d0"]
    );
    assert_eq!(
        only("@p0 bar.sync"),
        ["`bar.sync` cannot be guarded: every thread of the block must reach it"]
    );
}

#[test]
fn undeclared_registers_and_limits_are_reported() {
    let got = errors("regs r1 d0 p8", "mov r1, r0\nadd r0, r1, r1");
    assert_eq!(
        got,
        vec![
            (
                -1,
                "the kernel declares 8 predicate registers, more than the limit of 7".into()
            ),
            (
                0,
                "register r1 is not declared (the kernel declares 1 r registers)".into()
            ),
            (
                1,
                "register r1 is not declared (the kernel declares 1 r registers)".into()
            ),
        ]
    );
    let got = errors("regs r200 d28 p0", "");
    assert_eq!(
        got,
        vec![(
        -1,
        "the kernel declares 256 register words per thread (r + 2*d), more than the limit of 255"
            .into()
    )]
    );
}

#[test]
fn labels_and_names_are_checked() {
    let got = errors("regs r0 d0 p0", "bra nowhere\n  twice:\n  twice:\n    exit");
    let msgs: Vec<_> = got.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "label `twice` is defined twice",
            "label `nowhere` is never placed"
        ]
    );
    let mut b = KernelBuilder::new("bad name");
    b.param("x", ParamType::U32);
    b.param("x", ParamType::U32);
    let e = verify_kernel(b.build()).unwrap_err();
    let msgs: Vec<_> =
        e.0.iter()
            .map(|e| (e.location, e.message.as_str()))
            .collect();
    assert_eq!(
        msgs,
        [
            (
                Location::Kernel,
                "kernel name `bad name` is not an identifier"
            ),
            (Location::Param(1), "parameter `x` is declared twice"),
        ]
    );
}

#[test]
fn a_barrier_under_a_per_thread_branch_is_rejected() {
    let body = "mov r0, %tid.x\nsetp.eq p0, r0, 0\n@p0 bra skip\nbar.sync\n  skip:\n    exit";
    assert_eq!(
        only(body),
        [
            "`bar.sync` may be reached by only some threads of the block: it depends on \
         `@p0 bra skip` (pc 2), and p0 may differ between threads"
        ]
    );
}

#[test]
fn a_barrier_after_reconvergence_or_under_a_uniform_branch_is_fine() {
    // After the join.
    let body = "setp.eq p0, %laneid, 0\n@p0 bra skip\nadd r0, r0, 1\n  skip:\n    bar.sync";
    assert_eq!(only(body), Vec::<String>::new());
    // Under a branch on a parameter and a block-uniform special.
    let body = "add r0, $n, %ctaid.x\nsetp.eq p0, r0, 0\n@p0 bra skip\nbar.sync\n  skip:\n    exit";
    assert_eq!(only(body), Vec::<String>::new());
}

#[test]
fn non_uniformity_flows_through_loads_and_divergent_writes() {
    // r1 is loaded: non-uniform.
    let load =
        "ld.global.b32 r1, [d0+0]\nsetp.eq p0, r1, 0\n@p0 bra skip\nbar.sync\n  skip:\n    exit";
    assert_eq!(only(load).len(), 1);
    // r2 is written only by some threads, so a later branch on it diverges.
    let body = "setp.eq p0, %laneid, 0\n@p0 bra join\nmov r2, 1\n  join:\n    \
                setp.eq p1, r2, 0\n@p1 bra skip\nbar.sync\n  skip:\n    exit";
    assert_eq!(only(body).len(), 1);
    // A loop whose trip count differs between threads may not hold a barrier.
    let body =
        "mov r0, %tid.x\n  top:\n    bar.sync\nsub r0, r0, 1\nsetp.ne p0, r0, 0\n@p0 bra top";
    assert_eq!(
        errors(DECLS, body).iter().map(|e| e.0).collect::<Vec<_>>(),
        [1]
    );
}

#[test]
fn verified_kernels_know_their_branch_targets_and_reconvergence() {
    let src = "kernel k {\n    regs r1 d0 p1\n    shared 0\n    setp.eq p0, %laneid, 0\n    \
               @p0 bra skip\n    add r0, r0, 1\n  skip:\n    exit\n}\n";
    let vk = verify_kernel(parse_kernel(src).unwrap().0).unwrap();
    assert_eq!(vk.branch_target(1), 3);
    assert_eq!(vk.reconvergence_pc(1), 3);
}

#[test]
fn shared_atomics_are_checked_like_shared_words() {
    let ok = "atom.shared.add.u32 r0, [r1+4], r2\natom.shared.add.u32 r0, [60], 1\n\
              atom.shared.add.u32 r0, [r1-4], $n\n@p0 atom.shared.add.u32 r3, [r3+0], %laneid";
    assert_eq!(only(ok), Vec::<String>::new());
    assert_eq!(
        only("atom.shared.add.u32 d0, [0], r0"),
        ["`atom.shared.add.u32` destination must be a 32-bit register, found d0"]
    );
    assert_eq!(
        only("atom.shared.add.u32 r0, [0], d0"),
        ["`atom.shared.add.u32` operand must be 32-bit, found d0"]
    );
    assert_eq!(
        only("atom.shared.add.u32 r0, [0], 4294967296"),
        ["`atom.shared.add.u32` operand must be a 32-bit value, found immediate 4294967296"]
    );
    assert_eq!(
        only("atom.shared.add.u32 r0, [d0+0], 1"),
        ["a shared address base must be a 32-bit register, found d0"]
    );
    assert_eq!(
        only("atom.shared.add.u32 r0, [64], 1"),
        ["shared access of 4 bytes at [64] is outside the 64 declared bytes"]
    );
    assert_eq!(
        only("atom.shared.add.u32 r0, [2], 1"),
        ["shared access of 4 bytes at [2] is not aligned to 4"]
    );
    // The old value differs between threads: a branch on it diverges.
    let body = "mov r1, 0\natom.shared.add.u32 r0, [r1+0], 1\nsetp.eq p0, r0, 0\n@p0 bra skip\n\
                bar.sync\n  skip:\n    exit";
    assert_eq!(only(body).len(), 1);
}
