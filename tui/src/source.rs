//! The source view's numbers: per instruction (pc), what the trace's
//! pc-tagged events add up to over a scope (the focused warp, its block, or
//! every block of the launch with detail), as Nsight Compute's source view
//! shows them: stall cycles by reason, issue slots, shared wavefronts and
//! excess wavefronts, global requests and sectors.
//!
//! Stalls come from the stall charges ([`traces::Event::Stall`]), which
//! name the instruction the warp waited to issue, so a line's stall cycles
//! are the report's per-pc stall counters restricted to the scope.

use traces::{Event, StallReason};

use crate::replay::LaunchData;

/// Which warps a line's numbers sum over.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// The focused warp.
    Warp,
    /// The focused block.
    #[default]
    Block,
    /// Every block of the launch with detail events.
    Launch,
}

impl Scope {
    /// The next scope, in the order the scope key cycles them.
    pub fn next(self) -> Scope {
        match self {
            Scope::Warp => Scope::Block,
            Scope::Block => Scope::Launch,
            Scope::Launch => Scope::Warp,
        }
    }
}

/// One instruction's numbers over a scope.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineStats {
    /// Issue slots (the report's `inst_executed`: a `cmpx` counts 2).
    pub exec: u64,
    /// Warp-cycles of each stall reason while it was the next instruction
    /// (indexed by [`StallReason::index`]; `selected` stays 0: see `exec`).
    pub stalls: [u64; StallReason::COUNT],
    /// Shared-memory wavefronts.
    pub wavefronts: u64,
    /// Shared-memory wavefronts beyond the minimum (bank conflicts).
    pub excess: u64,
    /// Global requests.
    pub requests: u64,
    /// Global sectors.
    pub sectors: u64,
}

impl LineStats {
    /// Stall cycles over every reason.
    pub fn stall_total(&self) -> u64 {
        self.stalls.iter().sum()
    }

    /// Sectors per global request, if it made any.
    pub fn sectors_per_request(&self) -> Option<f64> {
        (self.requests > 0).then(|| self.sectors as f64 / self.requests as f64)
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        *self == LineStats::default()
    }

    /// Adds one event's share, if it is a per-pc event.
    pub fn add_event(table: &mut Vec<LineStats>, e: &Event) {
        match *e {
            Event::Issue { pc, slots, .. } => at(table, pc).exec += u64::from(slots),
            Event::Stall {
                pc, reason, cycles, ..
            } => at(table, pc).stalls[reason.index()] += cycles,
            Event::SharedAccess {
                pc,
                wavefronts,
                conflicts,
                ..
            } => {
                let l = at(table, pc);
                l.wavefronts += u64::from(wavefronts);
                l.excess += u64::from(conflicts);
            }
            Event::GlobalRequest { pc, sectors, .. } => {
                let l = at(table, pc);
                l.requests += 1;
                l.sectors += u64::from(sectors);
            }
            _ => {}
        }
    }
}

impl LineStats {
    /// Adds an instruction's launch totals from the trace's index.
    pub fn add_totals(table: &mut Vec<LineStats>, p: &traces::PcTotals) {
        let l = at(table, p.pc);
        l.exec += p.slots;
        for &(reason, cycles) in &p.stalls {
            if let Some(s) = l.stalls.get_mut(usize::from(reason)) {
                *s += cycles;
            }
        }
        l.wavefronts += p.wavefronts;
        l.excess += p.conflicts;
        l.requests += p.requests;
        l.sectors += p.sectors;
    }
}

/// The table entry of `pc`, growing the table to hold it.
fn at(table: &mut Vec<LineStats>, pc: u32) -> &mut LineStats {
    let i = pc as usize;
    if table.len() <= i {
        table.resize(i + 1, LineStats::default());
    }
    &mut table[i]
}

/// Per pc, the numbers of the loaded block's warps (`warp`: only that
/// one).
pub fn block_table(d: &LaunchData, warp: Option<u32>) -> Vec<LineStats> {
    let mut t = Vec::new();
    let warps = match warp {
        Some(w) => w..w + 1,
        None => 0..d.warps(),
    };
    for w in warps {
        for i in d.warp_issues(w) {
            at(&mut t, i.pc).exec += u64::from(i.slots);
        }
        for s in d.warp_stalls(w) {
            at(&mut t, s.pc).stalls[s.reason.index()] += s.cycles;
        }
    }
    for a in d.smem.iter().filter(|a| warp.is_none_or(|w| w == a.warp)) {
        let l = at(&mut t, a.pc);
        l.wavefronts += u64::from(a.wavefronts);
        l.excess += u64::from(a.conflicts);
    }
    for &(_, pc, sectors) in d.gmem.iter().filter(|g| warp.is_none_or(|w| w == g.0)) {
        let l = at(&mut t, pc);
        l.requests += 1;
        l.sectors += u64::from(sectors);
    }
    t
}

/// What the table can be sorted by.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum SortBy {
    /// Program order (no sorting).
    #[default]
    Line,
    /// Stall cycles over every reason.
    Stalls,
    /// One stall reason.
    Reason(StallReason),
    /// Issue slots.
    Exec,
    /// Shared wavefronts.
    Wavefronts,
    /// Excess shared wavefronts.
    Excess,
    /// Global sectors per request.
    SectorsPerRequest,
}

impl SortBy {
    /// The column's header.
    pub fn header(self) -> &'static str {
        match self {
            SortBy::Line => "line",
            SortBy::Stalls => "stall",
            SortBy::Reason(r) => short(r),
            SortBy::Exec => "exec",
            SortBy::Wavefronts => "wf",
            SortBy::Excess => "xwf",
            SortBy::SectorsPerRequest => "sec/rq",
        }
    }

    /// The key a line sorts by (larger first), scaled so sectors per
    /// request compare to two decimals.
    pub fn key(self, l: &LineStats) -> u64 {
        match self {
            SortBy::Line => 0,
            SortBy::Stalls => l.stall_total(),
            SortBy::Reason(r) => l.stalls[r.index()],
            SortBy::Exec => l.exec,
            SortBy::Wavefronts => l.wavefronts,
            SortBy::Excess => l.excess,
            SortBy::SectorsPerRequest => l.sectors_per_request().map_or(0, |s| (s * 100.0) as u64),
        }
    }
}

/// The report's short header of a stall reason (`docs/report.md`).
pub fn short(r: StallReason) -> &'static str {
    match r {
        StallReason::Selected => "select",
        StallReason::NotSelected => "notsel",
        StallReason::LongScoreboard => "longsb",
        StallReason::ShortScoreboard => "shrtsb",
        StallReason::Wait => "wait",
        StallReason::MioThrottle => "mio",
        StallReason::LgThrottle => "lg",
        StallReason::Barrier => "bar",
        StallReason::MathPipeThrottle => "math",
        StallReason::BranchResolving => "branch",
        StallReason::DispatchStall => "disp",
        StallReason::NoInstruction => "noinst",
        StallReason::Membar => "membar",
    }
}

/// The stall reasons with any cycles in `table`, most cycles first.
pub fn top_reasons(table: &[LineStats]) -> Vec<StallReason> {
    let mut totals = [0u64; StallReason::COUNT];
    for l in table {
        for (t, s) in totals.iter_mut().zip(l.stalls) {
            *t += s;
        }
    }
    let mut v: Vec<StallReason> = StallReason::ALL
        .iter()
        .copied()
        .filter(|r| totals[r.index()] > 0)
        .collect();
    v.sort_by_key(|r| (std::cmp::Reverse(totals[r.index()]), r.index()));
    v
}

/// The sort columns the sort key cycles through for `table`: program
/// order, total stalls, each reason present (most cycles first), then
/// the other columns.
pub fn sort_columns(table: &[LineStats]) -> Vec<SortBy> {
    let mut v = vec![SortBy::Line, SortBy::Stalls];
    v.extend(top_reasons(table).into_iter().map(SortBy::Reason));
    v.extend([
        SortBy::Exec,
        SortBy::Wavefronts,
        SortBy::Excess,
        SortBy::SectorsPerRequest,
    ]);
    v
}

/// The pcs with anything counted, hottest first by `by` (total stalls
/// when `by` is program order), ties in program order.
pub fn hot_pcs(table: &[LineStats], by: SortBy) -> Vec<u32> {
    let by = if by == SortBy::Line {
        SortBy::Stalls
    } else {
        by
    };
    let mut v: Vec<u32> = (0..table.len() as u32)
        .filter(|&pc| by.key(&table[pc as usize]) > 0)
        .collect();
    v.sort_by_key(|&pc| (std::cmp::Reverse(by.key(&table[pc as usize])), pc));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(exec: u64, bar: u64, wait: u64) -> LineStats {
        let mut l = LineStats {
            exec,
            ..LineStats::default()
        };
        l.stalls[StallReason::Barrier.index()] = bar;
        l.stalls[StallReason::Wait.index()] = wait;
        l
    }

    #[test]
    fn hot_lines_come_hottest_first_by_the_sort_column() {
        let t = vec![
            line(1, 0, 5),
            line(9, 40, 0),
            LineStats::default(),
            line(2, 0, 50),
        ];
        assert_eq!(hot_pcs(&t, SortBy::Line), [3, 1, 0], "total stalls");
        assert_eq!(hot_pcs(&t, SortBy::Exec), [1, 3, 0]);
        assert_eq!(hot_pcs(&t, SortBy::Reason(StallReason::Barrier)), [1]);
        assert_eq!(
            top_reasons(&t),
            [StallReason::Wait, StallReason::Barrier],
            "55 wait cycles before 40 barrier"
        );
        let cols = sort_columns(&t);
        assert_eq!(cols[2], SortBy::Reason(StallReason::Wait));
        assert_eq!(cols.len(), 2 + 2 + 4);
    }

    #[test]
    fn sectors_per_request_needs_a_request() {
        let mut l = LineStats::default();
        assert_eq!(l.sectors_per_request(), None);
        l.requests = 4;
        l.sectors = 10;
        assert_eq!(l.sectors_per_request(), Some(2.5));
        assert_eq!(SortBy::SectorsPerRequest.key(&l), 250);
    }

    #[test]
    fn events_add_to_their_pc() {
        let mut t = Vec::new();
        LineStats::add_event(
            &mut t,
            &Event::Stall {
                cycle: 0,
                sm: 0,
                block: 0,
                warp: 0,
                pc: 3,
                reason: StallReason::Barrier,
                cycles: 7,
            },
        );
        LineStats::add_event(
            &mut t,
            &Event::GlobalRequest {
                cycle: 0,
                sm: 0,
                block: 0,
                warp: 0,
                pc: 1,
                is_store: false,
                sectors: 4,
            },
        );
        assert_eq!(t.len(), 4);
        assert_eq!(t[3].stalls[StallReason::Barrier.index()], 7);
        assert_eq!((t[1].requests, t[1].sectors), (1, 4));
    }
}
