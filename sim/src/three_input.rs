//! Pairs of 32-bit integer instructions that ptxas writes as one
//! three-input SASS instruction: a multiply and the add after it as `IMAD`,
//! a shift by a constant and an add as `LEA` or `LEA.HI`, two adds or
//! subtracts as `IADD3`. The second of such a pair is a register rename
//! ([`crate::rename`]): no issue slot, no pipe time, its result ready when
//! its sources are, as the one instruction's.
//!
//! Measured: HotSort's `bs` writes each padded shared address as seven IR
//! instructions (`add`, `mul`, `add`, `shr`, `add`, `shl`, `add`) where its
//! SASS has three or four (`hw/data/h200/sass/hotsort_bs_h16.sass.gz`:
//! `VIADD`/`IADD3`, `IMAD`, `LEA.HI`, `IMAD`), and the model charged its ALU
//! about 14% more than the H200's pipe counters give (`hw/data/h200/pipes/
//! hs.csv`: 2,037 ALU instructions a warp, 1,976 of them the compare-
//! exchanges). Where several blocks share an SM that ALU bounds `bs`, and
//! it ran +12% to +17% at 16M keys. With these pairs folded every `bs`
//! launch of the committed suites is within 15% (docs/calibration.md,
//! "Three-input forms").
//!
//! Only what ptxas cannot fail to fold is folded: both instructions 32-bit,
//! unguarded, one straight after the other with no label between, and the
//! second reading and overwriting the first's destination (so the first's
//! value has no other reader) and reading no special register (its `S2R`
//! stays an instruction). Pairs whose intermediate value dies later,
//! two logic operations (`LOP3`) and an `and` before a compare against zero
//! (`LOP3` with a predicate out) fold too in ptxas's code, but not always
//! where the IR has them; folding them as well made bitonic's `tail` and
//! mergesort's `merge` faster than the H200 (the same section).

use kernels_ir::{Inst, InstData, Kernel, Opcode, Operand, RegClass};

/// For each instruction of `kernel`, whether it is the second of a pair
/// ptxas writes as one three-input instruction. Pairs do not overlap: the
/// instruction after a folded pair starts the next candidate.
pub(crate) fn folded(kernel: &Kernel) -> Vec<bool> {
    let insts = &kernel.insts;
    let mut starts_block = vec![false; insts.len() + 1];
    for label in &kernel.labels {
        starts_block[label.pos as usize] = true;
    }
    let mut out = vec![false; insts.len()];
    let mut pc = 0;
    while pc + 1 < insts.len() {
        if !starts_block[pc + 1] && pair(&insts[pc], &insts[pc + 1]) {
            out[pc + 1] = true;
            pc += 2;
        } else {
            pc += 1;
        }
    }
    out
}

/// Whether `a` then `b` is one three-input instruction in SASS.
fn pair(a: &Inst, b: &Inst) -> bool {
    if a.guard.is_some() || b.guard.is_some() {
        return false;
    }
    let (
        InstData::Binary {
            opcode: first,
            dst: d1,
            args: a1,
        },
        InstData::Binary {
            opcode: second,
            dst: d2,
            args: a2,
        },
    ) = (&a.data, &b.data)
    else {
        return false;
    };
    let narrow = |op: &Operand| !matches!(op, Operand::Reg(r) if r.class() != RegClass::B32);
    if d1.class() != RegClass::B32 || d2 != d1 || !a1.iter().chain(a2).all(narrow) {
        return false;
    }
    // The second reads the first's value, and no special register: a
    // special's `S2R` is an instruction of its own in SASS, which the
    // model charges where the reader issues.
    if !a2.contains(&Operand::Reg(*d1)) || a2.iter().any(|op| matches!(op, Operand::Special(_))) {
        return false;
    }
    let by_constant = matches!(a1[1], Operand::Imm(_));
    use Opcode::*;
    match (first, second) {
        // IMAD, IADD3.
        (Mul | Add | Sub, Add | Sub) => true,
        // LEA, LEA.HI.
        (Shl | Shr, Add) => by_constant,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::KernelBuilder;

    fn fold(build: impl FnOnce(&mut KernelBuilder)) -> Vec<bool> {
        let mut b = KernelBuilder::new("t");
        build(&mut b);
        folded(&b.build())
    }

    #[test]
    fn a_padded_address_folds_as_ptxas_writes_it() {
        // bs's row address: add, mul, add, shr, add, shl, add.
        let f = fold(|b| {
            let (row, o, a, lane, base) = (b.reg32(), b.reg32(), b.reg32(), b.reg32(), b.reg32());
            b.add(row, lane, 2u32); // 0
            b.mul(o, row, 32u32); // 1
            b.add(o, o, lane); // 2: IMAD
            b.shr(a, o, 5u32); // 3
            b.add(a, a, o); // 4: LEA.HI
            b.shl(a, a, 2u32); // 5
            b.add(a, a, base); // 6: LEA
        });
        assert_eq!(f, [false, false, true, false, true, false, true]);
    }

    #[test]
    fn only_a_pair_that_overwrites_its_value_unguarded_and_narrow_folds() {
        let f = fold(|b| {
            let (x, y, z) = (b.reg32(), b.reg32(), b.reg32());
            let (d, p) = (b.reg64(), b.pred());
            b.mul(x, y, 3u32); // 0
            b.add(z, x, y); // 1: another register; x may be read later
            b.shl(x, y, z); // 2: a shift by a register
            b.add(x, x, y); // 3
            b.add(x, y, 1u32); // 4
            b.when(p).add(x, x, y); // 5: guarded
            b.add(d, d, 1u32); // 6: 64-bit
            b.add(d, d, 2u32); // 7
            b.and(x, y, 1u32); // 8: logic
            b.xor(x, x, z); // 9
        });
        assert!(f.iter().all(|&folded| !folded), "{f:?}");
    }

    #[test]
    fn a_label_between_breaks_the_pair() {
        let f = fold(|b| {
            let (x, y) = (b.reg32(), b.reg32());
            let l = b.label("l");
            b.add(x, y, 1u32);
            b.bind(l);
            b.add(x, x, y);
            b.add(x, x, 3u32);
        });
        assert_eq!(f, [false, false, true], "the second and third still fold");
    }

    #[test]
    fn a_special_register_read_keeps_its_instruction() {
        let f = fold(|b| {
            let x = b.reg32();
            b.mul(x, kernels_ir::Special::CtaidX, kernels_ir::Special::NtidX);
            b.add(x, x, kernels_ir::Special::TidX);
        });
        assert_eq!(f, [false, false]);
    }
}
