//! Where ptxas puts a `YIELD`: in a loop whose exit waits on a shared load.
//!
//! Every committed SASS listing (`hw/data/h200/sass/`) has a `YIELD` in
//! exactly the loops whose exit condition depends, through the loop's
//! registers, on a value loaded from shared memory: mergesort's merge-path
//! searches (8 in `blocksort`, one in `merge`) and `search_shared.kir`'s
//! search. None where the exit depends on global loads only (mergesort's
//! `partition`), on registers only (`search_reg.kir`, `branch_loop.kir`),
//! or where the loop loads shared words but counts its own trips (sample
//! sort's `scatter`, `find_buckets` and `scan`, `guard_shared.kir`,
//! `smem_step.kir`); a loop around such a loop has no `YIELD` of its own.
//! `hw/calib/suite_branch2.txt` measures what one costs a trip
//! (`yield_cycles`; docs/calibration.md, "Branches and `wait`").

use kernels_ir::{InstData, Kernel, Reg, Space};

/// For every pc of `kernel`, whether it is the back edge (a branch to a
/// label at or before it) of a loop where ptxas puts a `YIELD`: a branch
/// inside the loop that leaves it is guarded by a predicate that depends,
/// within the loop, on a shared load.
pub(crate) fn yield_back_edges(kernel: &Kernel) -> Vec<bool> {
    let insts = &kernel.insts;
    let mut marks = vec![false; insts.len()];
    for (pc, inst) in insts.iter().enumerate() {
        let InstData::Branch { target, .. } = inst.data else {
            continue;
        };
        let head = kernel.label(target).pos as usize;
        if head > pc {
            continue;
        }
        marks[pc] = exit_waits_on_shared_load(kernel, head, pc);
    }
    marks
}

/// Whether a branch in `head..=back` that leaves that range is guarded by
/// a value that depends on a shared load in it (loop-carried values
/// included: the dependence is followed to a fixed point).
fn exit_waits_on_shared_load(kernel: &Kernel, head: usize, back: usize) -> bool {
    let body = &kernel.insts[head..=back];
    let mut tainted: Vec<Reg> = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for inst in body {
            let shared_load = matches!(inst.data, InstData::Load { opcode, .. }
                if matches!(opcode.memory(), Some((Space::Shared, _))));
            let mut reads_tainted =
                shared_load || inst.guard.is_some_and(|g| tainted.contains(&g.pred));
            kernels_ir::uses::for_each_use(inst, |r| reads_tainted |= tainted.contains(&r));
            if reads_tainted {
                kernels_ir::uses::for_each_def(inst, |r| {
                    if !tainted.contains(&r) {
                        tainted.push(r);
                        changed = true;
                    }
                });
            }
        }
    }
    body.iter().any(|inst| {
        let InstData::Branch { target, .. } = inst.data else {
            return false;
        };
        let to = kernel.label(target).pos as usize;
        let leaves = to < head || to > back;
        leaves && inst.guard.is_some_and(|g| tainted.contains(&g.pred))
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn marks(src: &str) -> Vec<usize> {
        let (k, _) = kernels_ir::parse_kernel(src).expect("parses");
        let m = yield_back_edges(&k);
        (0..m.len()).filter(|&pc| m[pc]).collect()
    }

    /// Four lower-bound searches of exactly four probes each (a range of
    /// 15), each probe `load` (a shared or a global load, or arithmetic),
    /// inside a counted loop.
    pub(crate) fn search(load: &str) -> String {
        format!(
            "kernel k {{
    param out: u64
    regs r8 d1 p2
    shared 64
    mov r5, 0
  outer:
    setp.ge.u p0, r5, 4
    @p0 bra done
    mov r0, 0
    mov r1, 15
  search:
    setp.ge.u p1, r0, r1
    @p1 bra found
    add r2, r0, r1
    shr r2, r2, 1
    shl r3, r2, 2
    {load}
    setp.lt.u p1, r3, 7
    add r4, r2, 1
    selp r0, r4, r0, p1
    selp r1, r1, r2, p1
    bra search
  found:
    add r5, r5, 1
    bra outer
  done:
    mov d0, $out
    st.global.b32 [d0+0], r0
    exit
}}"
        )
    }

    #[test]
    fn a_search_on_shared_words_yields_and_its_outer_loop_does_not() {
        // pcs: 0 mov, 1 setp, 2 bra, 3-4 mov, 5 setp, 6 bra, 7-9, 10 ld,
        // 11 setp, 12 add, 13-14 selp, 15 bra search, 16 add, 17 bra outer.
        assert_eq!(marks(&search("ld.shared.b32 r3, [r3+0]")), vec![15]);
    }

    #[test]
    fn a_search_on_global_words_or_registers_does_not() {
        let global = search("cvt.u64.u32 d0, r3\n    ld.global.b32 r3, [d0+0]");
        assert_eq!(marks(&global), Vec::<usize>::new());
        assert_eq!(marks(&search("mul r3, r3, 3")), Vec::<usize>::new());
    }

    /// The committed microbenchmarks whose SASS is committed: ptxas put a
    /// `YIELD` in `search_shared.kir`'s search loop only.
    #[test]
    fn the_loops_ptxas_gave_a_yield_are_the_ones_marked() {
        let count = |src: &str| marks(src).len();
        let k = |name| std::fs::read_to_string(format!("../hw/calib/kernels/{name}.kir"));
        assert_eq!(count(&k("search_shared").unwrap()), 1);
        for name in [
            "search_reg",
            "search_nobar",
            "branch_loop",
            "guard_shared",
            "smem_step",
        ] {
            assert_eq!(count(&k(name).unwrap()), 0, "{name}");
        }
    }

    #[test]
    fn a_counted_loop_over_shared_words_does_not() {
        let src = "kernel k {
    param out: u64
    regs r4 d1 p1
    shared 64
    mov r0, 0
    mov r2, 0
  again:
    setp.ge.u p0, r0, 16
    @p0 bra done
    shl r1, r0, 2
    ld.shared.b32 r3, [r1+0]
    add r2, r2, r3
    add r0, r0, 1
    bra again
  done:
    mov d0, $out
    st.global.b32 [d0+0], r2
    exit
}";
        assert_eq!(marks(src), Vec::<usize>::new());
    }
}
