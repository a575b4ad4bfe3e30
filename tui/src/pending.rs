//! When each register write of a warp was issued, so the slab can mark the
//! writes that are in flight (issued, not landed yet) at the cursor.
//!
//! A trace records a write at the cycle its value becomes visible. The
//! instruction that made it is the warp's latest issue at or before that
//! cycle whose printed text names the register as its destination.

use traces::RegRef;

use crate::inst;
use crate::regs::WarpRegs;
use crate::replay::{IssueRec, KernelView};

/// How far back (in the warp's issues) a write's instruction is looked
/// for; a longer gap means the write is shown as never pending.
const LOOK_BACK: usize = 64;

/// One register write with its issue cycle.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Landing {
    /// The cycle its instruction issued.
    pub issued: u64,
    /// The cycle the value became visible.
    pub landed: u64,
    /// The register.
    pub reg: RegRef,
    /// The lanes written.
    pub mask: u64,
}

/// The landings of every write of `regs`, in landing order.
pub fn landings(k: &KernelView, issues: &[IssueRec], regs: &WarpRegs) -> Vec<Landing> {
    regs.writes()
        .iter()
        .map(|w| {
            let n = issues.partition_point(|i| i.cycle <= w.cycle);
            let issued = issues[..n]
                .iter()
                .rev()
                .take(LOOK_BACK)
                .find(|i| k.dests(i.pc).contains(&Some(w.reg)))
                .map_or(w.cycle, |i| i.cycle);
            Landing {
                issued,
                landed: w.cycle,
                reg: w.reg,
                mask: w.mask,
            }
        })
        .collect()
}

/// The writes in flight at `cycle`: issued at or before it, landing after.
pub fn in_flight(landings: &[Landing], cycle: u64) -> impl Iterator<Item = &Landing> {
    let from = landings.partition_point(|l| l.landed <= cycle);
    landings[from..]
        .iter()
        .take(4 * LOOK_BACK)
        .filter(move |l| l.issued <= cycle)
}

/// The writes of the last step: those that landed at the latest landing
/// cycle at or before `cycle`.
pub fn last_step(landings: &[Landing], cycle: u64) -> &[Landing] {
    let to = landings.partition_point(|l| l.landed <= cycle);
    let Some(last) = to.checked_sub(1).map(|i| landings[i].landed) else {
        return &[];
    };
    let from = landings.partition_point(|l| l.landed < last);
    &landings[from..to]
}

/// The registers an instruction's text writes: its first operand when that
/// is a register (`add r1, ...`, `ld.shared.b32 r8, [...]`), both operands
/// of a compare-exchange.
pub fn dests(text: &str) -> [Option<RegRef>; 2] {
    let mut t = text.trim();
    if t.starts_with('@') {
        t = t.split_once(' ').map_or("", |(_, rest)| rest.trim_start());
    }
    let (op, rest) = t.split_once(' ').unwrap_or((t, ""));
    let mut args = rest.split(',').map(str::trim);
    let first = args.next().and_then(inst::reg);
    if op.starts_with("cmpx") {
        [first, args.next().and_then(inst::reg)]
    } else {
        [first, None]
    }
}

#[cfg(test)]
mod tests {
    use traces::{KernelSource, RegClass};

    use super::*;
    use crate::regs::RegWriteRec;

    fn r(index: u32) -> RegRef {
        RegRef {
            class: RegClass::B32,
            index,
        }
    }

    #[test]
    fn a_write_is_pending_from_its_issue_until_it_lands() {
        let text = "kernel k {\n    ld.shared.b32 r1, [r0+0]\n    add r2, r0, r0\n    \
                    cmpx.u r3, r4\n    st.shared.b32 [r0+0], r1\n}\n";
        let k = KernelView::new(KernelSource::from_text("k", text));
        assert_eq!(dests("cmpx.u r3, r4"), [Some(r(3)), Some(r(4))]);
        assert_eq!(dests("st.shared.b32 [r0+0], r1"), [None, None]);
        let issue = |cycle, pc| IssueRec {
            cycle,
            pc,
            active: 1,
            slots: 1,
        };
        // The load issues at 10 and lands at 40; the add issues at 11 and
        // lands at 15.
        let issues = [issue(10, 0), issue(11, 1), issue(20, 3)];
        let w = |cycle, reg| RegWriteRec {
            cycle,
            reg: r(reg),
            mask: 1,
            values: vec![7],
        };
        let regs = WarpRegs::new(vec![w(15, 2), w(40, 1)]);
        let l = landings(&k, &issues, &regs);
        assert_eq!((l[0].issued, l[1].issued), (11, 10));
        let pending = |c| in_flight(&l, c).map(|l| l.reg.index).collect::<Vec<_>>();
        assert_eq!(pending(9), Vec::<u32>::new());
        assert_eq!(pending(12), [2, 1]);
        assert_eq!(pending(15), [1]);
        assert_eq!(pending(40), Vec::<u32>::new());
        assert_eq!(
            last_step(&l, 39)
                .iter()
                .map(|l| l.reg.index)
                .collect::<Vec<_>>(),
            [2]
        );
        assert_eq!(last_step(&l, 40).len(), 1);
        assert!(last_step(&l, 14).is_empty());
    }
}
