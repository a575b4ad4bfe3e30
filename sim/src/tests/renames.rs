//! Packing a 64-bit value's halves costs nothing where SASS renames
//! registers (`crate::rename`): HotSort's exchange of a 64-bit key,
//! unpacked, shuffled as two halves and packed again.

use kernels_ir::Dim3;

use super::util::run_both;
use crate::GpuConfig;
use crate::stats::StallReason;

/// One exchange of HotSort's flip merge over a 64-bit key, `rounds` times:
/// unpack the key (`cvt`, `shr` by 32, `cvt`), shuffle both halves, pack
/// them (`cvt`, `cvt`, `shl` by 32, `or`), keep the minimum or maximum
/// (a `cmpx` folded with its predicated `mov`). 7 of the 12 instructions
/// of a round are renames. The key is loaded first, so the first unpack
/// waits for a load (and issues: its timing is not known then).
fn exchange(rounds: usize) -> String {
    let round = "    cvt.u32.u64 r1, d0
    shr d2, d0, 32
    cvt.u32.u64 r2, d2
    shfl.xor r3, r1, 1, 32
    shfl.xor r4, r2, 1, 32
    cvt.u64.u32 d3, r3
    cvt.u64.u32 d4, r4
    shl d4, d4, 32
    or d1, d3, d4
    cmpx.u d0, d1
    @p0 mov d0, d1
";
    format!(
        "kernel exchange {{
    param buf: u64
    regs r6 d8 p1
    shared 0
    mov r0, %tid.x
    and r5, r0, 1
    setp.ne p0, r5, 0
    cvt.u64.u32 d5, r0
    shl d5, d5, 3
    add d5, d5, $buf
    ld.global.b64 d0, [d5+0]
{}    st.global.b64 [d5+0], d0
    exit
}}
",
        round.repeat(rounds)
    )
}

/// The pc of round `r`'s instruction `i` (its `cmpx` is 9).
fn pc(r: usize, i: usize) -> usize {
    7 + 11 * r + i
}

#[test]
fn renames_issue_nothing_and_keep_the_values() {
    let cfg = GpuConfig::h200();
    let k = kernels_ir::parser::parse_and_verify("exchange", &exchange(4))
        .unwrap()
        .0;
    let (stats, sim, interp) = run_both(&cfg, &k, Dim3::x(2), Dim3::x(64), 1024, 64, 7);
    assert_eq!(sim, interp, "the same keys as the interpreter");
    // Per warp: the prologue's 6 (its `cvt` follows the issued `setp`),
    // the first round's unpack `cvt` (it waits for the load, whose timing
    // is not known when the warp issues the load), per round two shuffles
    // and the folded pair's 7 + 1, the store and the exit.
    let per_warp = stats.inst_executed / 4;
    assert_eq!(
        per_warp,
        6 + 1 + 4 * (2 + 7 + 1) + 2,
        "renames issue nothing"
    );
    let issued = |pc: usize| stats.per_pc[pc].inst_executed;
    assert_eq!((issued(pc(0, 0)), issued(pc(1, 0))), (4, 0));
    assert!((5..=8).all(|i| issued(pc(2, i)) == 0), "the packing");
    // The `cmpx` reads the packed value: it waits for the shuffles
    // (short scoreboard), not for an ALU result of the packing.
    let waits = stats.per_pc[pc(1, 9)].stalls;
    assert!(waits[StallReason::ShortScoreboard as usize] > 0);
    assert_eq!(waits[StallReason::Wait as usize], 0);
}
