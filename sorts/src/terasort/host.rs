//! GPUTeraSort's host schedule on any [`Device`]:
//!
//! Phase 1, per run of at most `run_records` records (pointers are local
//! to the run):
//! 1. `keygen` writes one key-pointer word per record, padded with
//!    all-ones words to a power of two;
//! 2. the seed's bitonic network sorts the words: with
//!    [`Network::Fused`] the bitonic sort's kernels run it (`fill` pads,
//!    `head` sorts each tile in shared memory, global `step`s and `tail`s
//!    merge past the tile); with [`Network::Steps`] stage `s = 1..=lg n`,
//!    steps `d = 2^(s-1) .. 1`, one launch per step;
//! 3. the hybrid refinement: the host reads the words back, finds maximal
//!    runs of equal prefixes, gathers them into aligned power-of-two
//!    segments (largest first, so every segment is aligned), `refine_keys`
//!    loads the next 4 key bytes, and the network sorts every segment of a
//!    size class at once (fused: one segmented bitonic sort per size
//!    class, segments at least one vector pair); repeated until no ties
//!    remain or the key is exhausted;
//! 4. `reorder` gathers the records by pointer into the sorted run.
//!
//! Phase 2: the host merges the runs ([`super::merge`]), or with
//! [`Phase2::Gpu`] the GPU does ([`super::gpu_merge`]: step 4 then waits
//! for the merged words); the output is checked whole record against
//! whole record.

use std::cell::{Cell, RefCell};
use std::time::Instant;

use super::config::{Network, Phase2, StepMode, TeraSortConfig};
use super::gpu_merge::{GpuMerge, MergeBuffers};
use super::{merge, records};
use crate::bitonic::Bitonic;
use crate::{KernelMarks, Key, Launch, SortError, SortRun};
use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel, verify_kernel};

/// What the last sort did beyond its launches (host-side figures that do
/// not belong in the deterministic report).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TeraSortSummary {
    /// Phase-1 runs.
    pub runs: u64,
    /// Key rounds of the run that needed most (1: no refinement).
    pub rounds: u32,
    /// Launches of the refinement rounds (all runs).
    pub refine_launches: u64,
    /// Host seconds of phase 2 (0 with one run: nothing to merge).
    pub merge_seconds: f64,
}

/// The verified kernels of one configuration.
pub struct TeraSort {
    cfg: TeraSortConfig,
    keygen: VerifiedKernel,
    refine: VerifiedKernel,
    network: Net,
    reorder: VerifiedKernel,
    /// Phase 2's kernels when it runs on the GPU.
    gpu: Option<GpuMerge>,
    marks: Vec<KernelMarks>,
    last: RefCell<TeraSortSummary>,
}

pub(super) fn verified<E: std::error::Error>(
    k: kernels_ir::Kernel,
) -> Result<VerifiedKernel, SortError<E>> {
    let kernel = k.name.clone();
    verify_kernel(k).map_err(|errors| SortError::Verify { kernel, errors })
}

impl TeraSort {
    /// Checks `cfg`, generates and verifies its kernels.
    pub fn new<E: std::error::Error>(cfg: &TeraSortConfig) -> Result<TeraSort, SortError<E>> {
        cfg.check()
            .map_err(|e| SortError::Config(e.into_iter().map(crate::ConfigError).collect()))?;
        let (kernels, marks): (Vec<_>, Vec<_>) = super::generate_marked(cfg).into_iter().unzip();
        let kernels = kernels
            .into_iter()
            .map(verified)
            .collect::<Result<Vec<_>, _>>()?;
        // In [`super::generate_marked`] order: phase 1's four, then phase 2's.
        let mut kernels = kernels.into_iter();
        let mut next = || kernels.next().expect("a kernel generate_marked lists");
        let (keygen, refine) = (next(), next());
        let network = match &cfg.network {
            Network::Steps => Net::Steps(next()),
            Network::Fused(b) => {
                let fused = (0..crate::bitonic::KERNEL_NAMES.len())
                    .map(|i| (next(), marks[2 + i].clone()))
                    .collect();
                Net::Fused(Bitonic::from_verified(b, fused))
            }
        };
        let reorder = next();
        let gpu = match &cfg.phase2 {
            Phase2::Host => None,
            Phase2::Gpu(m) => {
                let (rebase, partition, merge) = (next(), next(), next());
                Some(GpuMerge::new(m.clone(), rebase, partition, merge))
            }
        };
        Ok(TeraSort {
            cfg: cfg.clone(),
            keygen,
            refine,
            network,
            reorder,
            gpu,
            marks,
            last: RefCell::new(TeraSortSummary::default()),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &TeraSortConfig {
        &self.cfg
    }

    /// What the last sort did (runs, rounds, refinement launches, merge time).
    pub fn summary(&self) -> TeraSortSummary {
        self.last.borrow().clone()
    }

    /// Every verified kernel with its marks, in [`super::kernel_names`] order.
    pub fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        let mut kernels = vec![&self.keygen, &self.refine];
        match &self.network {
            Net::Steps(step) => kernels.push(step),
            Net::Fused(b) => kernels.extend(b.marked_kernels().into_iter().map(|(k, _)| k)),
        }
        kernels.push(&self.reorder);
        if let Some(g) = &self.gpu {
            kernels.extend(g.kernels());
        }
        kernels.into_iter().zip(&self.marks).collect()
    }

    /// Sorts `keys` as records on `dev` and checks the output records.
    pub fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        self.run(dev, keys, true)
    }

    /// The launches of a sort on a device without contents (a dry run):
    /// every word reads back equal, so every round refines every record,
    /// an upper bound of any input's schedule. The output is not checked.
    pub fn dry_run<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        self.run(dev, keys, false)
    }

    fn run<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
        check: bool,
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        let cfg = &self.cfg;
        crate::check_run(&*dev, keys.len(), K::BITS, cfg.key_bits, cfg.warp)?;
        *self.last.borrow_mut() = TeraSortSummary::default();
        let mut run = Runner {
            dev,
            launches: Vec::new(),
            cfg,
            summary: TeraSortSummary::default(),
            step: String::new(),
            dry: !check,
        };
        let n = keys.len();
        if n == 0 {
            return Ok(SortRun {
                sorted: Vec::new(),
                launches: run.launches,
            });
        }
        let r = cfg.record_bytes as u64;
        let input = records::build(cfg, keys);
        let in_buf = run.dev.alloc(n as u64 * r);
        run.dev
            .write_bytes(in_buf, &input)
            .map_err(SortError::Device)?;
        let out_buf = run.dev.alloc(n as u64 * r);
        let per_run = cfg.run_records.unwrap_or(n as u64).min(n as u64) as usize;
        let pad = per_run.next_power_of_two() as u64;
        // The fused sort fills a small run up to one vector pair.
        let words = match &self.network {
            Net::Steps(_) => pad,
            Net::Fused(b) => crate::bitonic::schedule::filled(b.config(), pad),
        };
        let pairs = [run.dev.alloc(words * 8), self.other(run.dev, pad)];
        // Ties pad to powers of two: twice the words hold them with the
        // steps; the fused network's spans of at least `2L` can need more,
        // and then [`TeraSort::refine`] allocates more.
        let tied = [run.dev.alloc(2 * pad * 8), self.other(run.dev, 2 * pad)];
        let bufs = Buffers::new(pairs, tied, 2 * pad);
        // Phase 2 on the GPU collects the runs' words instead of records.
        let gpu = match &self.gpu {
            Some(g) if per_run < n => Some((g, g.buffers(self, run.dev, n, per_run)?)),
            _ => None,
        };
        for start in (0..n).step_by(per_run) {
            let m = per_run.min(n - start);
            let base = in_buf + start as u64 * r;
            let out = match &gpu {
                None => Phase1Out::Records(out_buf + start as u64 * r),
                Some((_, mb)) => Phase1Out::Words(mb, start),
            };
            run.step = format!("run {}", run.summary.runs + 1);
            self.phase1(&mut run, &bufs, base, out, m)?;
            run.summary.runs += 1;
        }
        if let Some((g, mb)) = &gpu {
            g.phase2(self, &mut run, mb, in_buf, out_buf)?;
        }
        let sorted_runs = run
            .dev
            .read_bytes(out_buf, n as u64 * r)
            .map_err(SortError::Device)?;
        let t0 = Instant::now();
        let output = if per_run < n && gpu.is_none() {
            let out = merge::merge_runs(&sorted_runs, r as usize, cfg.key_bytes as usize, per_run);
            run.summary.merge_seconds = t0.elapsed().as_secs_f64();
            out
        } else {
            sorted_runs
        };
        if check {
            records::check(cfg, &input, &output).map_err(SortError::Wrong)?;
        }
        let sorted = output
            .chunks_exact(r as usize)
            .map(|rec| K::try_from(records::key_of::<K>(rec)).ok())
            .collect::<Option<Vec<K>>>()
            .ok_or_else(|| SortError::Wrong("a key wider than the key type".to_string()))?;
        *self.last.borrow_mut() = run.summary;
        Ok(SortRun {
            sorted,
            launches: run.launches,
        })
    }

    /// The second buffer of the per-output mode (none in pair mode).
    pub(super) fn other<D: Device>(&self, dev: &mut D, words: u64) -> u64 {
        match self.cfg.mode {
            StepMode::Pair => 0,
            StepMode::Output => dev.alloc(words * 8),
        }
    }

    /// One run of `m` records at `base`: keys, sort, refinement, and the
    /// reorder into `out` (or the words' copy into phase 2's buffer).
    fn phase1<D: Device>(
        &self,
        run: &mut Runner<'_, '_, D>,
        bufs: &Buffers,
        base: u64,
        out: Phase1Out<'_>,
        m: usize,
    ) -> Result<(), SortError<D::Error>> {
        // The steps pad to a power of two here; the fused sort's own `fill`
        // pads (to whole tiles only).
        let pad = match &self.network {
            Net::Steps(_) => m.next_power_of_two() as u64,
            Net::Fused(_) => m as u64,
        };
        let t = run.cfg.block_threads;
        let params = [
            ParamValue::U64(base),
            ParamValue::U64(bufs.pairs[0]),
            u32p(m as u64),
            u32p(pad),
            ParamValue::U32(run.cfg.prefix_mask(0)),
        ];
        let grid = Dim3::x(pad.div_ceil(u64::from(t)) as u32);
        run.launch(&self.keygen, grid, Dim3::x(t), &params)?;
        let at = match &self.network {
            Net::Steps(step) => {
                let classes = [(pad.trailing_zeros(), pad)];
                self.steps(run, step, bufs.pairs, &classes)?[0]
            }
            Net::Fused(b) => {
                let launches = b.sort_words(run.dev, bufs.pairs[0], m as u64, &run.step)?;
                run.launches.extend(launches);
                0
            }
        };
        let mut order = run
            .dev
            .read_u64s(bufs.pairs[at], m)
            .map_err(SortError::Device)?;
        if self.refine(run, bufs, base, &mut order)? {
            run.dev
                .write_u64s(bufs.pairs[at], &order)
                .map_err(SortError::Device)?;
        }
        match out {
            Phase1Out::Records(out) => self.reorder(run, base, bufs.pairs[at], out, m),
            Phase1Out::Words(mb, start) => {
                let g = self.gpu.as_ref().expect("phase 2 on the GPU");
                g.rebase(run, mb, bufs.pairs[at], start, m)
            }
        }
    }

    /// Gathers `m` records from `records` by the pointers of the words at
    /// `pairs` into `out`.
    pub(super) fn reorder<D: Device>(
        &self,
        run: &mut Runner<'_, '_, D>,
        records: u64,
        pairs: u64,
        out: u64,
        m: usize,
    ) -> Result<(), SortError<D::Error>> {
        let (x, y) = super::reorder::block(run.cfg);
        let owned = y * super::reorder::rows(run.cfg, m as u64);
        let params = [
            ParamValue::U64(records),
            ParamValue::U64(pairs),
            ParamValue::U64(out),
            u32p(m as u64),
            ParamValue::U32(owned),
        ];
        let grid = Dim3::x((m as u64).div_ceil(u64::from(owned)) as u32);
        run.launch(&self.reorder, grid, Dim3 { x, y, z: 1 }, &params)
    }

    /// One `refine_keys` launch over the `total` tied words at `tied`:
    /// their next 4 key bytes (round `round`) from the records at `base`.
    fn launch_refine<D: Device>(
        &self,
        run: &mut Runner<'_, '_, D>,
        base: u64,
        tied: u64,
        total: u64,
        round: u32,
    ) -> Result<(), SortError<D::Error>> {
        let t = run.cfg.block_threads;
        let params = [
            ParamValue::U64(base),
            ParamValue::U64(tied),
            u32p(total),
            u32p(u64::from(4 * round)),
            ParamValue::U32(run.cfg.prefix_mask(round)),
        ];
        let grid = Dim3::x(total.div_ceil(u64::from(t)) as u32);
        run.launch(&self.refine, grid, Dim3::x(t), &params)
    }

    /// The hybrid refinement of one run's sorted words; whether it changed
    /// any. Returns after the last key bytes or when no ties are left.
    pub(super) fn refine<D: Device>(
        &self,
        run: &mut Runner<'_, '_, D>,
        bufs: &Buffers,
        base: u64,
        order: &mut [u64],
    ) -> Result<bool, SortError<D::Error>> {
        if run.dry && matches!(self.network, Net::Fused(_)) {
            self.refine_bound(run, bufs, base, order.len())?;
            return Ok(false);
        }
        let mut groups = ties(order, 0, order.len());
        // Refinement permutes words only within a tie, so every position
        // keeps its first 4 key bytes: they are put back at the end, so
        // the words stay key-pointer pairs of the first key bytes (what
        // phase 2 on the GPU merges by).
        let prefixes: Vec<u64> = if groups.is_empty() {
            Vec::new()
        } else {
            order.iter().map(|&v| v & !0xFFFF_FFFF).collect()
        };
        let mut round = 1;
        let launches_before = run.launches.len();
        let step = run.step.clone();
        while !groups.is_empty() && round < run.cfg.max_rounds() {
            // Largest segments first: every segment then starts at a
            // multiple of its own (power-of-two) size.
            groups.sort_by_key(|&(start, len)| (std::cmp::Reverse(len.next_power_of_two()), start));
            let mut slots = Vec::new();
            let mut at = Vec::with_capacity(groups.len());
            for &(start, len) in &groups {
                at.push(slots.len());
                slots.extend(order[start..start + len].iter().map(|&v| v & 0xFFFF_FFFF));
                slots.resize(slots.len() + run.cfg.segment(len) - len, u64::MAX);
            }
            let total = slots.len() as u64;
            let tied = bufs.tied(self, run.dev, total);
            run.dev
                .write_u64s(tied[0], &slots)
                .map_err(SortError::Device)?;
            run.step = format!("{step} refine round {round}");
            self.launch_refine(run, base, tied[0], total, round)?;
            // One network over every size class (see [`TeraSort::steps`]).
            let mut classes: Vec<(u32, u64)> = Vec::new();
            for &(_, len) in &groups {
                let size = run.cfg.segment(len) as u64;
                match classes.last_mut() {
                    Some(c) if c.0 == size.trailing_zeros() => c.1 += size,
                    _ => classes.push((size.trailing_zeros(), size)),
                }
            }
            let which = self.classes(run, tied, &classes)?;
            let mut sorted = Vec::with_capacity(slots.len());
            for (&(_, words), &w) in classes.iter().zip(&which) {
                let off = sorted.len() as u64 * 8;
                let back = run
                    .dev
                    .read_u64s(tied[w] + off, words as usize)
                    .map_err(SortError::Device)?;
                sorted.extend(back);
            }
            let mut next = Vec::new();
            for (&(start, len), &a) in groups.iter().zip(&at) {
                order[start..start + len].copy_from_slice(&sorted[a..a + len]);
                next.extend(ties(order, start, len));
            }
            groups = next;
            round += 1;
        }
        run.step = step;
        if round > 1 {
            for (v, p) in order.iter_mut().zip(&prefixes) {
                *v = p | (*v & 0xFFFF_FFFF);
            }
        }
        run.summary.rounds = run.summary.rounds.max(round);
        run.summary.refine_launches += (run.launches.len() - launches_before) as u64;
        Ok(round > 1)
    }

    /// The dry run's refinement with the fused network: every round sorts
    /// one segment of every size class a tie of the run's `m` words can
    /// fall in (from the whole run's down to the smallest segment), the
    /// most launches any ties make. All-equal keys (what the dry device
    /// reads back) would give one class, and ties spread over many classes
    /// launch more (one segmented sort per class).
    fn refine_bound<D: Device>(
        &self,
        run: &mut Runner<'_, '_, D>,
        bufs: &Buffers,
        base: u64,
        m: usize,
    ) -> Result<(), SortError<D::Error>> {
        if m < 2 {
            return Ok(());
        }
        let (low, top) = (run.cfg.segment(1), run.cfg.segment(m));
        let classes: Vec<(u32, u64)> = (low.trailing_zeros()..=top.trailing_zeros())
            .rev()
            .map(|lg| (lg, 1u64 << lg))
            .collect();
        let total: u64 = classes.iter().map(|c| c.1).sum();
        let tied = bufs.tied(self, run.dev, total);
        let launches_before = run.launches.len();
        let step = run.step.clone();
        let rounds = run.cfg.max_rounds();
        for round in 1..rounds {
            run.step = format!("{step} refine round {round}");
            self.launch_refine(run, base, tied[0], total, round)?;
            self.classes(run, tied, &classes)?;
        }
        run.step = step;
        run.summary.rounds = run.summary.rounds.max(rounds);
        run.summary.refine_launches += (run.launches.len() - launches_before) as u64;
        Ok(())
    }

    /// Sorts every segment of the size classes laid out from word 0 of
    /// `bufs`, largest first: class `(lg, words)` holds `words / 2^lg`
    /// aligned segments of `2^lg` words. The fused network sorts each
    /// class as one segmented sort in place; the steps run
    /// [`TeraSort::steps`]. Returns, per class, which buffer holds it.
    fn classes<D: Device>(
        &self,
        run: &mut Runner<'_, '_, D>,
        bufs: [u64; 2],
        classes: &[(u32, u64)],
    ) -> Result<Vec<usize>, SortError<D::Error>> {
        match &self.network {
            Net::Steps(step) => self.steps(run, step, bufs, classes),
            Net::Fused(b) => {
                let mut at = bufs[0];
                for &(lg, words) in classes {
                    let span = 1u64 << lg;
                    let launches = b.sort_segments(run.dev, at, span, words / span, &run.step)?;
                    run.launches.extend(launches);
                    at += words * 8;
                }
                Ok(vec![0; classes.len()])
            }
        }
    }

    /// The seed's bitonic network over size classes laid out from word 0
    /// of `bufs`, largest first: class `(lg, words)` holds `words / 2^lg`
    /// aligned segments of `2^lg` words, each sorted ascending. Stage `s`
    /// covers the classes with `lg >= s` in one launch of `step` per step
    /// (a prefix of the area); those with `lg == s` end it sorting up.
    /// Returns, per class, which buffer holds it (the per-output mode swaps
    /// per step).
    fn steps<D: Device>(
        &self,
        run: &mut Runner<'_, '_, D>,
        step: &VerifiedKernel,
        bufs: [u64; 2],
        classes: &[(u32, u64)],
    ) -> Result<Vec<usize>, SortError<D::Error>> {
        let t = u64::from(run.cfg.block_threads);
        let top = classes.first().map_or(0, |c| c.0);
        let mut cur = 0;
        let mut which = vec![0; classes.len()];
        let at = run.step.clone();
        for stage in 1..=top {
            let active = classes.iter().take_while(|c| c.0 >= stage);
            let words: u64 = active.clone().map(|c| c.1).sum();
            let flat: u64 = active.filter(|c| c.0 > stage).map(|c| c.1).sum();
            for lgd in (0..stage).rev() {
                let d = 1u64 << lgd;
                run.step = format!("{at}, stage {stage} step {}", stage - lgd);
                let (stage, flat) = (u32p(u64::from(stage)), u32p(flat));
                match run.cfg.mode {
                    StepMode::Pair => {
                        let half = words / 2;
                        let params = [
                            ParamValue::U64(bufs[0]),
                            u32p(half),
                            u32p(u64::from(lgd)),
                            u32p(d),
                            stage,
                            flat,
                        ];
                        let grid = Dim3::x(half.div_ceil(t) as u32);
                        run.launch(step, grid, Dim3::x(t as u32), &params)?;
                    }
                    StepMode::Output => {
                        let params = [
                            ParamValue::U64(bufs[cur]),
                            ParamValue::U64(bufs[1 - cur]),
                            u32p(words),
                            u32p(d),
                            stage,
                            flat,
                        ];
                        let grid = Dim3::x(words.div_ceil(t) as u32);
                        run.launch(step, grid, Dim3::x(t as u32), &params)?;
                        cur = 1 - cur;
                    }
                }
            }
            for (w, c) in which.iter_mut().zip(classes) {
                if c.0 >= stage {
                    *w = cur;
                }
            }
        }
        run.step = at;
        Ok(which)
    }
}

/// The maximal runs (start, length >= 2) of equal prefixes in
/// `order[start..start + len]`.
fn ties(order: &[u64], start: usize, len: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = start;
    while i < start + len {
        let mut j = i + 1;
        while j < start + len && order[j] >> 32 == order[i] >> 32 {
            j += 1;
        }
        if j - i > 1 {
            out.push((i, j - i));
        }
        i = j;
    }
    out
}

/// The verified kernels of the network.
enum Net {
    /// The seed's step (pair or per-output), one launch per step.
    Steps(VerifiedKernel),
    /// The bitonic sort's fused kernels.
    Fused(Bitonic),
}

/// The device buffers of phase 1: the run's words and the refinement's
/// segments, each with its second buffer in the per-output mode.
pub(super) struct Buffers {
    pub(super) pairs: [u64; 2],
    /// The segments' buffers and how many words they hold.
    tied: Cell<([u64; 2], u64)>,
}

impl Buffers {
    pub(super) fn new(pairs: [u64; 2], tied: [u64; 2], words: u64) -> Buffers {
        Buffers {
            pairs,
            tied: Cell::new((tied, words)),
        }
    }

    /// The segments' buffers, with room for `words` words: new ones when
    /// the current hold fewer (the fused network pads a tie of 2 words to
    /// `2L`), kept for the next rounds and runs.
    fn tied<D: Device>(&self, ts: &TeraSort, dev: &mut D, words: u64) -> [u64; 2] {
        let (bufs, room) = self.tied.get();
        if words <= room {
            return bufs;
        }
        let grown = [dev.alloc(words * 8), ts.other(dev, words)];
        self.tied.set((grown, words));
        grown
    }
}

/// Where phase 1 leaves a run: its records at an address, or its words in
/// phase 2's buffer (with the run's first record).
enum Phase1Out<'a> {
    Records(u64),
    Words(&'a MergeBuffers, usize),
}

pub(super) fn u32p(v: u64) -> ParamValue {
    ParamValue::U32(v as u32)
}

/// The device, the launches so far and the figures of one sort.
pub(super) struct Runner<'d, 'c, D: Device> {
    pub(super) dev: &'d mut D,
    launches: Vec<Launch<D::Stats>>,
    pub(super) cfg: &'c TeraSortConfig,
    summary: TeraSortSummary,
    /// Where the schedule is (`run 2 refine round 1, stage 3 step 2`):
    /// each launch's label is this and the kernel's name.
    pub(super) step: String,
    /// A dry run (the plan's): the device holds no contents.
    dry: bool,
}

impl<D: Device> Runner<'_, '_, D> {
    pub(super) fn launch(
        &mut self,
        kernel: &VerifiedKernel,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<(), SortError<D::Error>> {
        let name = super::launch_name(&kernel.kernel().name);
        let label = format!("{}: {name}", self.step);
        self.dev.label_next_launch(&label);
        let stats = self
            .dev
            .launch(kernel, grid, block, params)
            .map_err(SortError::Device)?;
        self.launches.push(Launch {
            name,
            label,
            grid,
            block,
            stats,
        });
        Ok(())
    }
}
