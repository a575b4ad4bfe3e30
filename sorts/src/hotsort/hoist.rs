//! The shuffles of the shuffle warp merges, moved up among the
//! compare-exchanges before them and renamed among the merge's
//! temporaries, as ptxas schedules them.
//!
//! **Why** (docs/calibration.md, "The block sort `bs`"): the generator
//! emits a lane stage as eight shuffles into eight temporaries, then the
//! eight compare-exchanges that read them, then the next eight, and it
//! reuses the same temporaries at every stage. ptxas renames those
//! temporaries and issues each shuffle as soon as the register it reads is
//! final: in `hw/data/h200/sass/hotsort_bs_h16.sass.gz` the next stage's
//! `SHFL.BFLY`s sit among the current stage's `VIMNMX` pairs, one every
//! third instruction, two to twenty instructions after the min/max that
//! wrote their source (never right after it: the ALU's latency). So a warp
//! rarely waits for a shuffle (`short_scoreboard` 0.08 an issue with one
//! warp a sub-partition, `hs64k_h16_b4`), where the IR's order made the
//! model wait for each batch.
//!
//! **What changes.** Only order and register names: every instruction is
//! kept (the same shuffles, compare-exchanges and selects), within each run
//! of register-only instructions (a memory access, barrier or exit ends a
//! run; the kernel must be straight-line). A shuffle into one of the merge's
//! temporaries and the instructions that read its result until the
//! temporary is written again form its *web*. The run's other instructions
//! keep their order; before each, the next shuffles (in their order) are
//! issued once the instruction that writes their source is [`LAG`]
//! instructions back and one of the merge's own temporaries is free until
//! the web's last reader (the one freed longest ago, so the temporaries
//! turn over as in the generator's order and a freed one is written again
//! soon, which keeps each select folded with its compare-exchange:
//! sim/src/select_fold.rs); never between a compare-exchange and its
//! select; at the latest where the generator put it. So no register is
//! added: a shuffle runs ahead of its reader by as many webs as there are
//! temporaries (eight, about eight compare-exchange pairs: 14 or more other
//! instructions, past the shuffle's latency for a lone warp, where the
//! generator's first shuffle of a batch had none). ptxas, which allocates
//! registers after it schedules, goes further (38 registers at H = 16);
//! the IR's declared registers, which the simulator's occupancy counts, do
//! not change. The stage marks keep their pcs, so a hoisted shuffle counts
//! in the stage before its own.

use kernels_ir::{Inst, InstData, Kernel, Operand, Reg};

/// Instructions from the one that writes a shuffle's source to the shuffle,
/// at least: one instruction between them, as the closest pairs of the
/// `bs` SASS (the ALU's result is not ready at the next issue).
pub const LAG: usize = 2;

/// Moves the shuffles into `temps` of `kernel` up and renames their webs
/// (see the module comment). A kernel with branches is left as it is.
pub fn hoist_shuffles(kernel: &mut Kernel, temps: &[Reg]) {
    if temps.is_empty()
        || kernel
            .insts
            .iter()
            .any(|i| matches!(i.data, InstData::Branch { .. }))
    {
        return;
    }
    let live_out = live_after_windows(kernel);
    let n = kernel.insts.len();
    let mut s = 0;
    while s < n {
        if !register_only(&kernel.insts[s]) {
            s += 1;
            continue;
        }
        let mut e = s;
        while e < n && register_only(&kernel.insts[e]) {
            e += 1;
        }
        let live = &live_out[&(e - 1)];
        hoist_window(kernel, s, e, temps, live);
        s = e;
    }
}

/// Whether the instruction touches only registers (so it may be reordered
/// with others like it under register dependences alone).
fn register_only(inst: &Inst) -> bool {
    matches!(
        inst.data,
        InstData::Unary { .. }
            | InstData::Binary { .. }
            | InstData::Select { .. }
            | InstData::Cmpx { .. }
            | InstData::Shfl { .. }
    )
}

/// The registers live after the last instruction of every register-only
/// run of the straight-line `kernel`, by that instruction's pc.
fn live_after_windows(kernel: &Kernel) -> std::collections::HashMap<usize, Vec<Reg>> {
    let insts = &kernel.insts;
    let mut live: std::collections::BTreeSet<Reg> = std::collections::BTreeSet::new();
    let mut out = std::collections::HashMap::new();
    for pc in (0..insts.len()).rev() {
        let inst = &insts[pc];
        let ends_run =
            register_only(inst) && insts.get(pc + 1).is_none_or(|next| !register_only(next));
        if ends_run {
            out.insert(pc, live.iter().copied().collect());
        }
        if inst.guard.is_none() {
            kernels_ir::uses::for_each_def(inst, |r| {
                live.remove(&r);
            });
        }
        if let Some(g) = inst.guard {
            live.insert(g.pred);
        }
        kernels_ir::uses::for_each_use(inst, |r| {
            live.insert(r);
        });
        // A guarded write keeps the old value where the guard is off.
        if inst.guard.is_some() {
            kernels_ir::uses::for_each_def(inst, |r| {
                live.insert(r);
            });
        }
    }
    out
}

/// A shuffle's web: the shuffle and the instructions that read its result
/// before the temporary is written again.
struct Web {
    /// The temporary the generator wrote.
    temp: Reg,
    /// The pcs of its instructions, the shuffle first.
    pcs: Vec<usize>,
}

/// The registers an instruction reads (guard included) and writes.
fn refs(inst: &Inst) -> (Vec<Reg>, Vec<Reg>) {
    let mut uses = Vec::new();
    let mut defs = Vec::new();
    if let Some(g) = inst.guard {
        uses.push(g.pred);
    }
    kernels_ir::uses::for_each_use(inst, |r| uses.push(r));
    kernels_ir::uses::for_each_def(inst, |r| defs.push(r));
    (uses, defs)
}

/// The webs of the shuffles into `temps` in `[s, e)`: only those that end
/// inside the run with the temporary dead after them, and whose every
/// instruction names no other temporary.
fn webs(insts: &[Inst], s: usize, e: usize, temps: &[Reg], live_out: &[Reg]) -> Vec<Web> {
    let mut webs = Vec::new();
    let mut owner: Vec<Option<usize>> = vec![None; e - s];
    let mut bad = Vec::new();
    for pc in s..e {
        let InstData::Shfl { dst, src, .. } = insts[pc].data else {
            continue;
        };
        if !temps.contains(&dst) || dst == src || insts[pc].guard.is_some() {
            continue;
        }
        let mut pcs = vec![pc];
        let mut closed = false;
        for (q, inst) in insts.iter().enumerate().take(e).skip(pc + 1) {
            let (uses, defs) = refs(inst);
            let reads = uses.contains(&dst);
            if !reads && defs.contains(&dst) && inst.guard.is_none() {
                closed = true;
                break;
            }
            if reads || defs.contains(&dst) {
                pcs.push(q);
            }
        }
        let ok = closed || !live_out.contains(&dst);
        let id = webs.len();
        for &q in &pcs {
            let others = {
                let (u, d) = refs(&insts[q]);
                u.iter().chain(&d).any(|r| *r != dst && temps.contains(r))
            };
            if others || owner[q - s].is_some() {
                bad.push(id);
                if let Some(o) = owner[q - s] {
                    bad.push(o);
                }
            }
            owner[q - s] = Some(id);
        }
        if !ok {
            bad.push(id);
        }
        webs.push(Web { temp: dst, pcs });
    }
    for id in bad {
        webs[id].pcs.clear();
    }
    webs
}

/// Replaces `from` by `to` in every operand of `inst`.
fn rename(inst: &mut Inst, from: Reg, to: Reg) {
    let swap = |r: &mut Reg| {
        if *r == from {
            *r = to;
        }
    };
    let swap_op = |o: &mut Operand| {
        if let Operand::Reg(r) = o
            && *r == from
        {
            *r = to;
        }
    };
    match &mut inst.data {
        InstData::Unary { dst, src, .. } => {
            swap(dst);
            swap_op(src);
        }
        InstData::Binary { dst, args, .. } => {
            swap(dst);
            args.iter_mut().for_each(swap_op);
        }
        InstData::Select {
            dst, args, pred, ..
        } => {
            swap(dst);
            args.iter_mut().for_each(swap_op);
            swap(pred);
        }
        InstData::Cmpx { regs, .. } => regs.iter_mut().for_each(swap),
        InstData::Shfl { dst, src, lane, .. } => {
            swap(dst);
            swap(src);
            swap_op(lane);
        }
        _ => unreachable!("webs hold register-only instructions"),
    }
}

fn hoist_window(kernel: &mut Kernel, s: usize, e: usize, temps: &[Reg], live_out: &[Reg]) {
    let webs = webs(&kernel.insts, s, e, temps, live_out);
    let webs: Vec<&Web> = webs.iter().filter(|w| !w.pcs.is_empty()).collect();
    if webs.is_empty() {
        return;
    }
    let len = e - s;
    // web_of[pc - s]: the web an instruction belongs to.
    let mut web_of: Vec<Option<usize>> = vec![None; len];
    for (id, w) in webs.iter().enumerate() {
        for &pc in &w.pcs {
            web_of[pc - s] = Some(id);
        }
    }
    // The registers an instruction names, its web's temporary left out.
    let own = |pc: usize| -> (Vec<Reg>, Vec<Reg>) {
        let (mut u, mut d) = refs(&kernel.insts[pc]);
        if let Some(id) = web_of[pc - s] {
            u.retain(|r| *r != webs[id].temp);
            d.retain(|r| *r != webs[id].temp);
        }
        (u, d)
    };
    // busy[k][pc - s]: temporary k holds a value outside the webs after pc
    // (it is live there), or the instruction at pc names it outside a web.
    let mut busy = vec![vec![false; len]; temps.len()];
    let mut named = vec![vec![false; len]; temps.len()];
    let mut live: Vec<bool> = temps.iter().map(|t| live_out.contains(t)).collect();
    for pc in (s..e).rev() {
        let (uses, defs) = own(pc);
        for (k, t) in temps.iter().enumerate() {
            busy[k][pc - s] = live[k];
            named[k][pc - s] = uses.contains(t) || defs.contains(t);
            let guarded = kernel.insts[pc].guard.is_some();
            if defs.contains(t) && !guarded {
                live[k] = false;
            }
            if uses.contains(t) || (defs.contains(t) && guarded) {
                live[k] = true;
            }
        }
    }
    let live_in = live;
    // The pc of the last instruction before each web's shuffle that writes
    // what the shuffle reads (None: written before the run).
    let deps: Vec<Option<usize>> = webs
        .iter()
        .map(|w| {
            let (reads, _) = own(w.pcs[0]);
            (s..w.pcs[0])
                .rev()
                .find(|&p| own(p).1.iter().any(|r| reads.contains(r)))
        })
        .collect();

    // Emit the run's other instructions in order; before each, the next
    // shuffles (in their order) whose source was written LAG instructions
    // ago and for which a temporary is free until the web's last
    // instruction; a shuffle is due at its own pc or its first reader.
    let mut out: Vec<usize> = Vec::with_capacity(len);
    let mut emitted_at: Vec<Option<usize>> = vec![None; len];
    let mut reg_of: Vec<Option<usize>> = vec![None; webs.len()];
    // Per temporary: the web holding it, and where it was freed.
    let mut holder: Vec<Option<usize>> = vec![None; temps.len()];
    let mut freed: Vec<usize> = vec![0; temps.len()];
    let mut next = 0;
    let mut last_plain: Option<usize> = None;
    for pc in s..e {
        loop {
            if next == webs.len() {
                break;
            }
            let w = webs[next];
            let due = w.pcs.contains(&pc);
            if !due {
                let ready = match deps[next] {
                    None => true,
                    Some(d) => emitted_at[d - s].is_some_and(|at| out.len() >= at + LAG),
                };
                let splits = out
                    .last()
                    .is_some_and(|&prev| is_select_after(&kernel.insts, prev, pc));
                if !ready || splits {
                    break;
                }
            }
            // A free temporary: no web holds it and nothing else uses it
            // from here to the web's last instruction.
            let last = *w.pcs.last().expect("a shuffle");
            let free = |k: usize| {
                let live_now = match last_plain {
                    Some(c) => busy[k][c - s],
                    None => live_in[k],
                };
                let from = last_plain.map_or(s, |c| c + 1);
                holder[k].is_none() && !live_now && !(from..=last).any(|p| named[k][p - s])
            };
            let pick = (0..temps.len())
                .filter(|&k| free(k))
                .min_by_key(|&k| freed[k]);
            match pick {
                Some(k) => {
                    holder[k] = Some(next);
                    reg_of[next] = Some(k);
                    emitted_at[w.pcs[0] - s] = Some(out.len());
                    out.push(w.pcs[0]);
                    next += 1;
                }
                // A due web finds a temporary as in the generator's order
                // (the earlier webs still live here were live there); if
                // not, the run keeps the generator's order.
                None if due => return,
                None => break,
            }
        }
        if web_of[pc - s].is_some_and(|id| webs[id].pcs[0] == pc) {
            continue;
        }
        emitted_at[pc - s] = Some(out.len());
        out.push(pc);
        last_plain = Some(pc);
        // A web's last instruction frees its temporary.
        if let Some(id) = web_of[pc - s]
            && *webs[id].pcs.last().expect("a shuffle") == pc
            && let Some(k) = reg_of[id]
        {
            holder[k] = None;
            freed[k] = out.len();
        }
    }
    if next != webs.len() || out.len() != len {
        return;
    }
    for (id, w) in webs.iter().enumerate() {
        let to = temps[reg_of[id].expect("every web emitted")];
        for &pc in &w.pcs {
            rename(&mut kernel.insts[pc], w.temp, to);
        }
    }
    let moved: Vec<Inst> = out.iter().map(|&pc| kernel.insts[pc]).collect();
    kernel.insts[s..e].copy_from_slice(&moved);
}

/// Whether `next` is the select that follows the compare-exchange `prev`
/// (a guarded `mov` between the `cmpx`'s two registers).
fn is_select_after(insts: &[Inst], prev: usize, next: usize) -> bool {
    let InstData::Cmpx { regs, .. } = insts[prev].data else {
        return false;
    };
    matches!(
        insts[next].data,
        InstData::Unary { dst, src: Operand::Reg(src), .. }
            if insts[next].guard.is_some() && regs.contains(&dst) && regs.contains(&src)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotsort::bs;
    use crate::hotsort::config::{HotSortConfig, Layout, MergeExchange};
    use std::collections::BTreeMap;

    fn opcodes(k: &Kernel) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for i in &k.insts {
            *m.entry(format!("{:?}", i.data.opcode())).or_default() += 1;
        }
        m
    }

    /// For every shuffle, how many other instructions than shuffles issue
    /// between it and the first that reads its result: the work that hides
    /// its latency.
    fn shuffle_leads(k: &Kernel) -> Vec<usize> {
        let mut leads = Vec::new();
        for (pc, i) in k.insts.iter().enumerate() {
            let InstData::Shfl { dst, .. } = i.data else {
                continue;
            };
            let first = k.insts[pc + 1..].iter().position(|j| {
                let mut read = false;
                kernels_ir::uses::for_each_use(j, |r| read |= r == dst);
                read
            });
            let Some(d) = first else { continue };
            let between = &k.insts[pc + 1..pc + 1 + d];
            leads.push(
                between
                    .iter()
                    .filter(|j| !matches!(j.data, InstData::Shfl { .. }))
                    .count(),
            );
        }
        leads
    }

    /// How far after a select the simulator looks for the write that makes
    /// the compare-exchange's other register dead (`HORIZON` in
    /// sim/src/select_fold.rs).
    const FOLD_HORIZON: usize = 64;

    /// The compare-exchanges the simulator folds with their select: the
    /// rule of sim/src/select_fold.rs (the `mov`'s source written, unread,
    /// within [`FOLD_HORIZON`] straight-line instructions).
    fn folds(k: &Kernel) -> usize {
        let insts = &k.insts;
        (0..insts.len().saturating_sub(1))
            .filter(|&pc| {
                let InstData::Cmpx { regs, .. } = insts[pc].data else {
                    return false;
                };
                let InstData::Unary {
                    dst,
                    src: Operand::Reg(src),
                    ..
                } = insts[pc + 1].data
                else {
                    return false;
                };
                if insts[pc + 1].guard.is_none() || !regs.contains(&dst) || !regs.contains(&src) {
                    return false;
                }
                for i in insts.iter().skip(pc + 2).take(FOLD_HORIZON) {
                    let (uses, defs) = refs(i);
                    // `refs` lists a guard first; a guard is not a read here.
                    let read = match i.guard {
                        Some(_) => uses[1..].contains(&src),
                        None => uses.contains(&src),
                    };
                    if read {
                        return false;
                    }
                    if matches!(
                        i.data,
                        InstData::Nullary {
                            opcode: kernels_ir::Opcode::Exit
                        }
                    ) && i.guard.is_none()
                    {
                        return true;
                    }
                    if defs.contains(&src) && i.guard.is_none() {
                        return true;
                    }
                }
                false
            })
            .count()
    }

    fn shapes() -> Vec<HotSortConfig> {
        let mut v = Vec::new();
        for (w, h, p) in [
            (32, 16, 16),
            (32, 4, 16),
            (32, 8, 16),
            (32, 32, 16),
            (16, 32, 4),
        ] {
            v.push(HotSortConfig {
                block_slabs: p,
                ..HotSortConfig::new(w, h)
            });
        }
        v.push(HotSortConfig {
            layout: Layout::Xor,
            ..HotSortConfig::new(32, 16)
        });
        v.push(HotSortConfig {
            block_slabs: 8,
            ..HotSortConfig::new(32, 16)
        });
        v
    }

    /// The hoist changes order and register names only: the same count of
    /// every opcode, and no more registers than the generator's order
    /// declares where dead registers can hold the renamed temporaries.
    #[test]
    fn the_hoist_keeps_every_instruction() {
        for cfg in shapes() {
            let (before, _) = bs::generate_with(&cfg, false);
            let (after, _) = bs::generate_with(&cfg, true);
            assert_eq!(opcodes(&before), opcodes(&after), "{cfg:?}");
            assert_ne!(before.insts, after.insts, "{cfg:?}: nothing moved");
            assert!(
                folds(&after) >= folds(&before),
                "{cfg:?}: {} -> {} folds",
                folds(&before),
                folds(&after)
            );
            assert!(
                after.regs.words_per_thread() <= before.regs.words_per_thread(),
                "{cfg:?}: {:?} -> {:?}",
                before.regs,
                after.regs
            );
        }
    }

    /// A shuffle's result is read well after it: the next stage's shuffles
    /// go up among this stage's compare-exchanges. In the generator's order
    /// shuffle `i` of a batch of eight is read after `2i` other instructions
    /// (median 8; none for the first of a batch: W=32, H=16); hoisted, 14 or
    /// more for most of them (28 ALU cycles of a lone warp, past the
    /// shuffle's latency), fewer only where a flip's source is final at the
    /// end of the lane merge network.
    #[test]
    fn shuffles_lead_their_readers() {
        let cfg = HotSortConfig::new(32, 16);
        let (before, _) = bs::generate_with(&cfg, false);
        let (after, _) = bs::generate_with(&cfg, true);
        let (b, mut a) = (shuffle_leads(&before), shuffle_leads(&after));
        assert_eq!(b.len(), a.len());
        assert_eq!(b.iter().min(), Some(&0));
        let median = |mut v: Vec<usize>| {
            v.sort_unstable();
            v[v.len() / 2]
        };
        assert_eq!(median(b), 8);
        a.sort_unstable();
        assert!(a[a.len() / 4] >= 14, "{a:?}");
    }

    /// Kernels the hoist must not touch: 64-bit keys, values, the shared
    /// warp merge (no shuffle temporaries).
    #[test]
    fn other_kernels_are_left_alone() {
        for cfg in [
            HotSortConfig {
                merge: MergeExchange::Shared,
                ..HotSortConfig::new(32, 16)
            },
            HotSortConfig {
                key_bits: 64,
                ..HotSortConfig::new(32, 16)
            },
        ] {
            let (before, _) = bs::generate_with(&cfg, false);
            let (after, _) = bs::generate_with(&cfg, true);
            assert_eq!(before, after, "{cfg:?}");
        }
    }
}
