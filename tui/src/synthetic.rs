//! Synthetic traces, written with the real [`TraceWriter`], for tests, the
//! benchmark and demos while no simulator run is at hand.
//!
//! The trace is a small but honest block sort: each warp loads a slab
//! (`lanes` x `regs` random keys), sorts each lane with an odd-even
//! transposition network (`cmpx.u`), then merges lanes HotSort-style (flip
//! steps with `shfl.xor` mask `f-1`, half steps with masks `f/4 .. 1`, then
//! the in-register half cleaners), and finally stores the slab to shared
//! memory with a plain (conflicting) layout. Every register write carries
//! the values those steps really compute, so the final slab is sorted in
//! lane-major order. A second, smaller launch of another kernel follows so
//! that kernel navigation has somewhere to go.

use std::io::Write;

use traces::{
    CounterSample, Event, Focus, KernelSource, RegClass, RegRef, StageMark, StallReason,
    TraceError, TraceHeader, TraceLevel, TraceOptions, TraceWriter,
};

/// The shape of a synthetic run.
#[derive(Clone, Debug)]
pub struct Synthetic {
    /// Lanes per warp (a power of two, 2..=64).
    pub lanes: u32,
    /// Key registers per lane (a power of two, at least 2).
    pub regs: u32,
    /// Warps per block.
    pub warps: u32,
    /// Blocks in the block-sort launch.
    pub blocks: u32,
    /// Shared-memory banks.
    pub banks: u32,
    /// SMs the blocks are spread over.
    pub sms: u32,
    /// What the trace records.
    pub level: TraceLevel,
    /// The focus written into the header.
    pub focus: Focus,
    /// Seed of the key generator.
    pub seed: u64,
    /// The first launch's label (`None`: `bs: B blocks`); the second
    /// launch has none, so readers fall back to its kernel's name.
    pub label: Option<String>,
}

impl Default for Synthetic {
    fn default() -> Self {
        Synthetic {
            lanes: 8,
            regs: 4,
            warps: 2,
            blocks: 2,
            banks: 8,
            sms: 2,
            level: TraceLevel::Full,
            focus: Focus {
                block: 0,
                warp: None,
            },
            seed: 1,
            label: None,
        }
    }
}

/// One straight-line instruction of the synthetic kernel and its effect.
#[derive(Clone, Debug)]
enum Op {
    /// Load row `reg` from global memory.
    Load { reg: u32 },
    /// `cmpx.u lo, hi` inside each lane.
    Cmpx { lo: u32, hi: u32 },
    /// Exchange with lane `lane ^ mask`: register `reg` takes the min (lower
    /// lane) or max (upper lane) of itself and the partner's `partner_reg`.
    /// All exchanges of one step read the slab as it was when the step
    /// began (`first` marks the step's first instruction), as HotSort's
    /// paired registers do.
    Exchange {
        reg: u32,
        partner_reg: u32,
        mask: u32,
        lower_bit: u32,
        first: bool,
    },
    /// Store row `reg` to shared memory at word `lane * regs + reg`.
    StoreShared { reg: u32 },
    /// `bar.sync`.
    Barrier,
}

impl Synthetic {
    fn program(&self) -> (Vec<Op>, Vec<StageMark>) {
        let (w, h) = (self.lanes, self.regs);
        let mut ops: Vec<Op> = (0..h).map(|reg| Op::Load { reg }).collect();
        let mut stages = vec![StageMark {
            pc: 0,
            label: "load".into(),
        }];
        let mark = |ops: &Vec<Op>, stages: &mut Vec<StageMark>, label: String| {
            stages.push(StageMark {
                pc: pc_of(ops),
                label,
            })
        };
        mark(&ops, &mut stages, "lane sort".into());
        for round in 0..h {
            for lo in (round % 2..h - 1).step_by(2) {
                ops.push(Op::Cmpx { lo, hi: lo + 1 });
            }
        }
        let mut f = 2;
        while f <= w {
            mark(&ops, &mut stages, format!("flip f={f}"));
            for reg in 0..h {
                let (partner_reg, mask, lower_bit) = (h - 1 - reg, f - 1, f / 2);
                ops.push(Op::Exchange {
                    reg,
                    partner_reg,
                    mask,
                    lower_bit,
                    first: reg == 0,
                });
            }
            let mut m = f / 4;
            while m >= 1 {
                mark(&ops, &mut stages, format!("half m={m}"));
                for reg in 0..h {
                    let first = reg == 0;
                    ops.push(Op::Exchange {
                        reg,
                        partner_reg: reg,
                        mask: m,
                        lower_bit: m,
                        first,
                    });
                }
                m /= 2;
            }
            mark(&ops, &mut stages, format!("lane merge f={f}"));
            let mut s = h / 2;
            while s >= 1 {
                for lo in (0..h).filter(|r| r & s == 0) {
                    ops.push(Op::Cmpx { lo, hi: lo + s });
                }
                s /= 2;
            }
            f *= 2;
        }
        mark(&ops, &mut stages, "store to shared".into());
        ops.extend((0..h).map(|reg| Op::StoreShared { reg }));
        ops.push(Op::Barrier);
        (ops, stages)
    }

    fn text(&self, ops: &[Op]) -> String {
        let (w, h) = (self.lanes, self.regs);
        let mut t = format!(
            "kernel bs {{\n    param keys: u64\n    regs r{} d1 p1\n",
            h + 2
        );
        t.push_str(&format!("    shared {}\n", 4 * w * h * self.warps));
        for op in ops {
            let line = match *op {
                Op::Load { reg } => format!("ld.global.b32 r{reg}, [d0+{}]", 4 * w * reg),
                Op::Cmpx { lo, hi } => format!("cmpx.u r{lo}, r{hi}"),
                Op::Exchange {
                    partner_reg, mask, ..
                } => {
                    format!("shfl.xor r{h}, r{partner_reg}, {mask}, {w}")
                }
                Op::StoreShared { reg } => {
                    format!("st.shared.b32 [r{}+{}], r{reg}", h + 1, 4 * reg)
                }
                Op::Barrier => "bar.sync".to_string(),
            };
            t.push_str("    ");
            t.push_str(&line);
            t.push('\n');
        }
        t.push_str("    exit\n}\n");
        t
    }

    /// The header this generator writes (also handy for tests).
    pub fn header(&self) -> TraceHeader {
        let (ops, stages) = self.program();
        let mut h = TraceHeader::new(TraceOptions {
            level: self.level,
            focus: self.focus,
            counter_interval_cycles: 64,
        });
        h.config = vec![
            ("warp_size".into(), self.lanes.into()),
            ("smem_banks".into(), self.banks.into()),
            ("smem_bank_width_bytes".into(), 4.into()),
            ("sms".into(), self.sms.into()),
            ("clock_mhz".into(), 1000.into()),
        ];
        h.sort_options = vec![
            ("algo".into(), "synthetic".into()),
            ("slab-height".into(), self.regs.to_string()),
        ];
        let mut bs = KernelSource::from_text("bs", &self.text(&ops));
        bs.slab_regs = (0..self.regs)
            .map(|index| RegRef {
                class: RegClass::B32,
                index,
            })
            .collect();
        bs.stages = stages;
        h.kernels.push(bs);
        h.kernels.push(KernelSource::from_text(
            "copy",
            "kernel copy {\n    regs r1 d1 p0\n    ld.global.b32 r0, [d0+0]\n    st.global.b32 [d0+0], r0\n    exit\n}\n",
        ));
        h
    }

    /// Writes the whole trace to `out`.
    pub fn write<W: Write>(&self, out: W) -> Result<W, TraceError> {
        let (ops, _) = self.program();
        let mut w = TraceWriter::new(out, &self.header())?;
        let mut rng = self.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut end = 0;
        w.record(&Event::KernelLaunch {
            cycle: 0,
            launch: 0,
            kernel: 0,
            grid: [self.blocks, 1, 1],
            block: [self.lanes * self.warps, 1, 1],
            label: self
                .label
                .clone()
                .unwrap_or_else(|| format!("bs: {} blocks", self.blocks)),
        })?;
        // Blocks run in waves of one per SM, their events interleaved
        // instruction by instruction as a simulator's would be.
        let sms = self.sms.max(1);
        for wave_first in (0..self.blocks).step_by(sms as usize) {
            let wave_end = (wave_first + sms).min(self.blocks);
            let start = end;
            let mut runs = Vec::new();
            for block in wave_first..wave_end {
                runs.push(BlockRun::new(
                    self,
                    &mut w,
                    block,
                    block % sms,
                    start,
                    &mut rng,
                )?);
            }
            for pc in 0..ops.len() {
                for run in &mut runs {
                    run.step(self, &mut w, &ops, pc)?;
                }
            }
            for run in runs {
                end = end.max(run.finish(&mut w, &ops)?);
            }
        }
        w.record(&Event::KernelEnd {
            cycle: end + 1,
            launch: 0,
        })?;
        self.copy_launch(&mut w, end + 1)?;
        w.finish()
    }

    /// Applies `op` to one warp's slab; returns the registers it wrote.
    fn execute<W: Write>(
        &self,
        op: &Op,
        slab: &mut [Vec<u64>],
        snap: &mut Vec<Vec<u64>>,
        w: &mut TraceWriter<W>,
        place: Place,
        sample: &mut CounterSample,
    ) -> Result<Vec<usize>, TraceError> {
        let Place {
            sm,
            block,
            warp,
            pc,
            cycle,
        } = place;
        let lanes = self.lanes as usize;
        Ok(match *op {
            Op::Load { reg } => {
                let sectors = (4 * self.lanes).div_ceil(32);
                sample.gmem_requests += 1;
                sample.gmem_sectors += u64::from(sectors);
                w.record(&Event::GlobalRequest {
                    cycle,
                    sm,
                    block,
                    warp,
                    pc,
                    is_store: false,
                    sectors,
                })?;
                vec![reg as usize]
            }
            Op::Cmpx { lo, hi } => {
                let (lo, hi) = (lo as usize, hi as usize);
                // The program only compares a lower register with a higher one.
                let (low_rows, high_rows) = slab.split_at_mut(hi);
                for (a, b) in low_rows[lo].iter_mut().zip(high_rows[0].iter_mut()) {
                    (*a, *b) = ((*a).min(*b), (*a).max(*b));
                }
                vec![lo, hi]
            }
            Op::Exchange {
                reg,
                partner_reg,
                mask,
                lower_bit,
                first,
            } => {
                if first {
                    *snap = slab.to_vec();
                }
                let (reg, pr) = (reg as usize, partner_reg as usize);
                for lane in 0..lanes {
                    let partner = snap[pr][lane ^ mask as usize];
                    let mine = snap[reg][lane];
                    let lower = lane as u32 & lower_bit == 0;
                    slab[reg][lane] = if lower {
                        mine.min(partner)
                    } else {
                        mine.max(partner)
                    };
                }
                vec![reg]
            }
            Op::StoreShared { reg } => {
                let mut words = vec![0u8; self.banks as usize];
                let mut addrs = Vec::new();
                for lane in 0..self.lanes {
                    let word = (warp * self.lanes + lane) * self.regs + reg;
                    let bank = (word % self.banks) as usize;
                    words[bank] = words[bank].saturating_add(1);
                    addrs.push(u64::from(word) * 4);
                }
                let wavefronts = u32::from(*words.iter().max().unwrap_or(&1));
                sample.smem_wavefronts += u64::from(wavefronts);
                sample.smem_bank_conflicts += u64::from(wavefronts - 1);
                w.record(&Event::SharedAccess {
                    cycle,
                    sm,
                    block,
                    warp,
                    pc,
                    kind: traces::AccessKind::Store,
                    wavefronts,
                    conflicts: wavefronts - 1,
                    words_per_bank: words,
                    bytes: 4,
                    active: lane_mask(self.lanes),
                    addrs,
                })?;
                vec![]
            }
            Op::Barrier => {
                w.record(&Event::BarrierArrive {
                    cycle,
                    sm,
                    block,
                    warp,
                })?;
                vec![]
            }
        })
    }

    fn copy_launch<W: Write>(&self, w: &mut TraceWriter<W>, start: u64) -> Result<(), TraceError> {
        w.record(&Event::KernelLaunch {
            cycle: start,
            launch: 1,
            kernel: 1,
            grid: [1, 1, 1],
            block: [self.lanes, 1, 1],
            // No label: the UI falls back to the kernel's name.
            label: String::new(),
        })?;
        let (sm, block, warp) = (0, 0, 0);
        w.record(&Event::BlockStart {
            cycle: start,
            sm,
            block,
        })?;
        for (pc, is_store) in [(0, false), (1, true)] {
            let cycle = start + 1 + u64::from(pc) * 300;
            let active = lane_mask(self.lanes);
            // Before the load: a cycle unpicked; before the store: the
            // wait for the load since the cycle after it issued.
            let (from, reason) = match pc {
                0 => (start, StallReason::NotSelected),
                _ => (start + 2, StallReason::LongScoreboard),
            };
            w.record(&Event::Stall {
                cycle: from,
                sm,
                block,
                warp,
                pc,
                reason,
                cycles: cycle - from,
            })?;
            w.record(&Event::Issue {
                cycle,
                sm,
                sched: 0,
                block,
                warp,
                pc,
                active,
                slots: 1,
            })?;
            let sectors = (4 * self.lanes).div_ceil(32);
            w.record(&Event::GlobalRequest {
                cycle,
                sm,
                block,
                warp,
                pc,
                is_store,
                sectors,
            })?;
        }
        // The store drains until the block ends.
        w.record(&Event::Stall {
            cycle: start + 302,
            sm,
            block,
            warp,
            pc: 2,
            reason: StallReason::LongScoreboard,
            cycles: 308,
        })?;
        w.record(&Event::BlockEnd {
            cycle: start + 610,
            sm,
            block,
        })?;
        w.record(&Event::KernelEnd {
            cycle: start + 611,
            launch: 1,
        })?;
        Ok(())
    }
}

/// One block's progress through the program.
struct BlockRun {
    block: u32,
    sm: u32,
    slabs: Vec<Vec<Vec<u64>>>,
    snaps: Vec<Vec<Vec<u64>>>,
    cycle: u64,
    stalled: Vec<u64>,
    sample: CounterSample,
    last_sample: u64,
}

impl BlockRun {
    fn new<W: Write>(
        s: &Synthetic,
        w: &mut TraceWriter<W>,
        block: u32,
        sm: u32,
        start: u64,
        rng: &mut u64,
    ) -> Result<Self, TraceError> {
        w.record(&Event::BlockStart {
            cycle: start,
            sm,
            block,
        })?;
        let (lanes, h) = (s.lanes as usize, s.regs as usize);
        let slabs = (0..s.warps)
            .map(|_| {
                (0..h)
                    .map(|_| (0..lanes).map(|_| next_key(rng)).collect())
                    .collect()
            })
            .collect();
        Ok(BlockRun {
            block,
            sm,
            slabs,
            snaps: vec![Vec::new(); s.warps as usize],
            cycle: start,
            stalled: vec![start; s.warps as usize],
            sample: CounterSample::default(),
            last_sample: start,
        })
    }

    /// Every warp of the block issues instruction `pc`.
    fn step<W: Write>(
        &mut self,
        s: &Synthetic,
        w: &mut TraceWriter<W>,
        ops: &[Op],
        pc: usize,
    ) -> Result<(), TraceError> {
        let (sm, block, op) = (self.sm, self.block, &ops[pc]);
        for warp in 0..s.warps {
            self.cycle += 1;
            let cycle = self.cycle;
            let wi = warp as usize;
            let (pc32, active) = (pc as u32, lane_mask(s.lanes));
            // The wait since its last issue (or the block's start, while
            // the warps before it issued), charged to this instruction.
            let reason = match pc {
                0 => StallReason::NotSelected,
                _ => reason_of(&ops[pc - 1]),
            };
            self.charge(w, warp, pc32, reason, cycle)?;
            w.record(&Event::Issue {
                cycle,
                sm,
                sched: warp % 4,
                block,
                warp,
                pc: pc32,
                active,
                slots: 1,
            })?;
            self.sample.inst_issued += 1;
            let place = Place {
                sm,
                block,
                warp,
                pc: pc32,
                cycle,
            };
            let slab = &mut self.slabs[wi];
            let written = s.execute(op, slab, &mut self.snaps[wi], w, place, &mut self.sample)?;
            for reg in written {
                if !w.wants_registers(block, warp) {
                    break;
                }
                w.record(&Event::RegWrite {
                    cycle: cycle + 4,
                    block,
                    warp,
                    reg: RegRef {
                        class: RegClass::B32,
                        index: reg as u32,
                    },
                    mask: active,
                    values: slab[reg].clone(),
                })?;
            }
            self.stalled[wi] = cycle + 1;
        }
        if matches!(op, Op::Barrier) {
            self.cycle += 3;
            w.record(&Event::BarrierRelease {
                cycle: self.cycle,
                sm,
                block,
            })?;
        }
        if self.cycle - self.last_sample >= 64 {
            let sample = std::mem::take(&mut self.sample);
            w.record(&Event::Counters {
                cycle: self.cycle,
                sm,
                sample,
            })?;
            self.last_sample = self.cycle;
        }
        Ok(())
    }

    /// Charges warp `warp`, waiting to issue `pc`, `reason` from its last
    /// issue up to `until`, in the trace and in the counter sample.
    fn charge<W: Write>(
        &mut self,
        w: &mut TraceWriter<W>,
        warp: u32,
        pc: u32,
        reason: StallReason,
        until: u64,
    ) -> Result<(), TraceError> {
        let from = self.stalled[warp as usize];
        if until <= from {
            return Ok(());
        }
        let stalls = &mut self.sample.stall_warp_cycles;
        stalls.resize(StallReason::COUNT, 0);
        stalls[reason.index()] += until - from;
        w.record(&Event::Stall {
            cycle: from,
            sm: self.sm,
            block: self.block,
            warp,
            pc,
            reason,
            cycles: until - from,
        })
    }

    /// Ends the block (its warps wait for the last one to exit); returns
    /// its last cycle.
    fn finish<W: Write>(mut self, w: &mut TraceWriter<W>, ops: &[Op]) -> Result<u64, TraceError> {
        let (cycle, sm, block) = (self.cycle, self.sm, self.block);
        let last = ops.len().saturating_sub(1);
        for warp in 0..self.stalled.len() as u32 {
            let reason = ops.last().map_or(StallReason::NotSelected, reason_of);
            self.charge(w, warp, last as u32, reason, cycle + 5)?;
        }
        w.record(&Event::Counters {
            cycle,
            sm,
            sample: self.sample,
        })?;
        w.record(&Event::BlockEnd {
            cycle: cycle + 5,
            sm,
            block,
        })?;
        Ok(cycle + 5)
    }
}

/// Where and when an instruction runs.
#[derive(Copy, Clone)]
struct Place {
    sm: u32,
    block: u32,
    warp: u32,
    pc: u32,
    cycle: u64,
}

fn pc_of(ops: &[Op]) -> u32 {
    ops.len() as u32
}

fn reason_of(op: &Op) -> StallReason {
    match op {
        Op::Load { .. } => StallReason::LongScoreboard,
        Op::Cmpx { .. } => StallReason::Wait,
        Op::Exchange { .. } => StallReason::ShortScoreboard,
        Op::StoreShared { .. } => StallReason::MioThrottle,
        Op::Barrier => StallReason::Barrier,
    }
}

fn lane_mask(lanes: u32) -> u64 {
    if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    }
}

/// A 32-bit key from a xorshift generator (deterministic for a seed).
fn next_key(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state >> 32
}

#[cfg(test)]
mod tests;
