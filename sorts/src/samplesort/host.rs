//! Sample sort's host schedule on any [`Device`], as the authors' driver
//! runs it: a work list of buckets, each `(start, length, buffer)`; the
//! keys buffer and a scratch buffer of the same size, a bucket's keys
//! always at its final positions in one of them.
//!
//! Per distribution level: one `create_bst` launch for every bucket larger
//! than `M`, the degenerate flags read back. Batched (the default): the
//! degenerate buckets' `minmax` rounds (one launch each for all of them)
//! and one readback, so constant buckets are done; one `find_buckets`,
//! `scan_sums`, `scan`, `scatter` chain over every k-way bucket and one
//! `find_3way`, ..., `scatter_3way` chain over every three-way bucket
//! ([`super::batch`] tables tell each block its bucket); one readback of
//! every split's bucket starts. Per bucket (`--level-launches
//! per-bucket`): those chains, `minmax` and readbacks for each bucket
//! alone, as before the batching. Sub-buckets larger than `M` make the
//! next level; buckets of 2..=M keys go to the small sorter, single keys
//! and done buckets in the scratch buffer to the copy list. Then
//! `small_sort` classes, largest first, and one `copy_buckets`.

use std::cell::RefCell;

use super::config::{LevelLaunches, SamplesortConfig};
use super::distribute::Split;
use super::{batch, bst, scan, small};
use crate::{KernelMarks, Key, Launch, SortError, SortRun};
use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel, verify_kernel};

/// What the last sort did beyond its launches (shown on stderr and in
/// tests; the report holds the launches).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SamplesortSummary {
    /// Keys sorted.
    pub keys: u64,
    /// Distribution levels (0: the input went straight to the small sorter).
    pub levels: u32,
    /// Buckets split `k` ways.
    pub splits: u64,
    /// Buckets whose sample was degenerate (first and last splitter equal).
    pub degenerate: u64,
    /// Degenerate buckets found constant (done without a scatter).
    pub constant: u64,
    /// Degenerate buckets split three ways.
    pub three_way: u64,
    /// Buckets sorted by the small sorter.
    pub small_buckets: u64,
    /// The largest of them.
    pub largest_small: u64,
    /// Buckets copied out of the scratch buffer.
    pub copied: u64,
    /// Host readbacks (flags, bucket starts, reductions): each a host
    /// synchronisation.
    pub readbacks: u64,
    /// Kernel launches.
    pub launches: u64,
}

/// One bucket of the work list: keys `start .. start + len`, in the
/// scratch buffer when `in_b`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Bucket {
    start: u64,
    len: u64,
    in_b: bool,
}

/// The verified kernels of one configuration.
pub struct Samplesort {
    cfg: SamplesortConfig,
    kernels: Vec<(VerifiedKernel, KernelMarks)>,
    last: RefCell<SamplesortSummary>,
}

/// Indices into [`Samplesort::kernels`] ([`super::generate_marked`] order).
const CREATE_BST: usize = 0;
const FIND: usize = 1;
const SCAN: usize = 2;
const SCATTER: usize = 3;
const SCAN_SUMS: usize = 4;
const MINMAX: usize = 5;
const FIND3: usize = 6;
const SCATTER3: usize = 7;
const COPY: usize = 8;
const SMALL: usize = 9;

fn verified<E: std::error::Error>(k: kernels_ir::Kernel) -> Result<VerifiedKernel, SortError<E>> {
    let kernel = k.name.clone();
    verify_kernel(k).map_err(|errors| SortError::Verify { kernel, errors })
}

impl Samplesort {
    /// Generates and verifies the kernels of `cfg` (a configuration from
    /// [`super::configure`]).
    pub fn new<E: std::error::Error>(cfg: &SamplesortConfig) -> Result<Samplesort, SortError<E>> {
        let kernels = super::generate_marked(cfg)
            .into_iter()
            .map(|(k, m)| Ok((verified(k)?, m)))
            .collect::<Result<_, _>>()?;
        Ok(Samplesort {
            cfg: cfg.clone(),
            kernels,
            last: RefCell::new(SamplesortSummary::default()),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &SamplesortConfig {
        &self.cfg
    }

    /// What the last sort did.
    pub fn summary(&self) -> SamplesortSummary {
        self.last.borrow().clone()
    }

    /// Every verified kernel with its marks, in launch-kind order.
    pub fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        self.kernels.iter().map(|(k, m)| (k, m)).collect()
    }

    /// Sorts `keys` on `dev`.
    pub fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        self.run(dev, keys, true)
    }

    /// The launches of a sort on a device without contents: the bucket
    /// starts are not read back but taken as an even split (what uniform
    /// keys give on average), so every kind of kernel is launched and
    /// checked; the flags read back as zero (no degenerate bucket). An
    /// estimate of the real schedule, which depends on the keys.
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
        real: bool,
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        let cfg = &self.cfg;
        crate::check_run(&*dev, keys.len(), K::BITS, cfg.key_bits, cfg.warp)?;
        *self.last.borrow_mut() = SamplesortSummary::default();
        let n = keys.len() as u64;
        let kb = u64::from(cfg.key_bytes());
        let mut r = Runner {
            s: self,
            dev,
            launches: Vec::new(),
            summary: SamplesortSummary::default(),
            real,
            a: 0,
            b: 0,
            hist: (0, 0),
            offsets: 0,
            step: String::new(),
        };
        if n == 0 {
            return Ok(SortRun {
                sorted: Vec::new(),
                launches: r.launches,
            });
        }
        r.a = r.dev.try_alloc(n * kb).map_err(SortError::Device)?;
        K::write(r.dev, r.a, keys).map_err(SortError::Device)?;
        let mut ends = Ends::default();
        let mut large = Vec::new();
        ends.classify(
            cfg,
            Bucket {
                start: 0,
                len: n,
                in_b: false,
            },
            &mut large,
        );
        if !large.is_empty() {
            r.b = r.dev.try_alloc(n * kb).map_err(SortError::Device)?;
        }
        let mut level = 0u32;
        while !large.is_empty() {
            level += 1;
            large = r.level(level, &large, &mut ends)?;
        }
        r.summary.levels = level;
        r.summary.keys = n;
        r.finish(&mut ends)?;
        let sorted = K::read(r.dev, r.a, keys.len()).map_err(SortError::Device)?;
        r.summary.launches = r.launches.len() as u64;
        *self.last.borrow_mut() = r.summary;
        Ok(SortRun {
            sorted,
            launches: r.launches,
        })
    }
}

/// Where finished buckets go: the small sorter or the copy list.
#[derive(Default)]
struct Ends {
    small: Vec<Bucket>,
    copy: Vec<Bucket>,
}

impl Ends {
    /// Files `b` by its size: larger than `M` into `large`, 2..=M to the
    /// small sorter, a single key in the scratch buffer to the copy list.
    fn classify(&mut self, cfg: &SamplesortConfig, b: Bucket, large: &mut Vec<Bucket>) {
        if b.len > u64::from(cfg.small_size) {
            large.push(b);
        } else if b.len >= 2 {
            self.small.push(b);
        } else {
            self.done(b);
        }
    }

    /// A bucket that needs no sorting: copied if it is in the scratch buffer.
    fn done(&mut self, b: Bucket) {
        if b.in_b && b.len > 0 {
            self.copy.push(b);
        }
    }
}

struct Runner<'s, 'd, D: Device> {
    s: &'s Samplesort,
    dev: &'d mut D,
    launches: Vec<Launch<D::Stats>>,
    summary: SamplesortSummary,
    real: bool,
    /// The keys buffer and the scratch buffer.
    a: u64,
    b: u64,
    /// The counts buffer and its capacity in words, and the offsets buffer.
    hist: (u64, u64),
    offsets: u64,
    /// Where the schedule is (`level 2 bucket 3/61 (5012 keys)`): the
    /// launches' labels start with it.
    step: String,
}

impl<D: Device> Runner<'_, '_, D> {
    fn launch(
        &mut self,
        kernel: usize,
        name: &'static str,
        grid: u64,
        block: u32,
        params: &[ParamValue],
    ) -> Result<(), SortError<D::Error>> {
        let grid = Dim3::x(grid as u32);
        let block = Dim3::x(block);
        let label = format!("{}: {name}", self.step);
        self.dev.label_next_launch(&label);
        let stats = self
            .dev
            .launch(&self.s.kernels[kernel].0, grid, block, params)
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

    fn read_u32s(&mut self, addr: u64, n: usize) -> Result<Vec<u32>, SortError<D::Error>> {
        self.summary.readbacks += 1;
        self.dev.read_u32s(addr, n).map_err(SortError::Device)
    }

    fn alloc(&mut self, bytes: u64) -> Result<u64, SortError<D::Error>> {
        self.dev.try_alloc(bytes.max(4)).map_err(SortError::Device)
    }

    /// Writes a bucket list (four u32 words per bucket: start, length,
    /// in-scratch flag, `extra(i)`) to a fresh buffer.
    fn list(
        &mut self,
        buckets: &[Bucket],
        extra: impl Fn(usize, &Bucket) -> u32,
    ) -> Result<u64, SortError<D::Error>> {
        let words: Vec<u32> = buckets
            .iter()
            .enumerate()
            .flat_map(|(i, b)| [b.start as u32, b.len as u32, u32::from(b.in_b), extra(i, b)])
            .collect();
        let addr = self.alloc(words.len() as u64 * 4)?;
        self.dev
            .write_u32s(addr, &words)
            .map_err(SortError::Device)?;
        Ok(addr)
    }

    /// One distribution level over `large`; returns the next level's buckets.
    fn level(
        &mut self,
        level: u32,
        large: &[Bucket],
        ends: &mut Ends,
    ) -> Result<Vec<Bucket>, SortError<D::Error>> {
        let cfg = &self.s.cfg;
        let kb = u64::from(cfg.key_bytes());
        let k = u64::from(cfg.buckets);
        let list = self.list(large, |_, b| seed(level, b.start))?;
        let trees = self.alloc(large.len() as u64 * k * kb)?;
        let flags = self.alloc(large.len() as u64 * 4)?;
        let params = [
            ParamValue::U64(list),
            ParamValue::U64(self.a),
            ParamValue::U64(self.b),
            ParamValue::U64(trees),
            ParamValue::U64(flags),
        ];
        let t = bst::threads(cfg);
        self.step = format!("level {level} ({} buckets)", large.len());
        self.launch(CREATE_BST, "create_bst", large.len() as u64, t, &params)?;
        let flags = self.read_u32s(flags, large.len())?;
        if cfg.level_launches == LevelLaunches::Batched {
            return self.batched(large, &flags, trees, ends);
        }
        let mut next = Vec::new();
        for (i, (&bucket, &flag)) in large.iter().zip(&flags).enumerate() {
            let tree = trees + i as u64 * k * kb;
            self.step = format!(
                "level {level} bucket {}/{} ({} keys)",
                i + 1,
                large.len(),
                bucket.len
            );
            if flag == 0 {
                self.summary.splits += 1;
                let children = self.split(bucket, tree, Split::Tree)?;
                for c in children {
                    ends.classify(cfg, c, &mut next);
                }
                continue;
            }
            let Some(three) = self.degenerate(bucket, ends)? else {
                continue;
            };
            let children = self.split(bucket, tree, Split::ThreeWay)?;
            three.file(cfg, children, ends, &mut next);
        }
        Ok(next)
    }

    /// A bucket with a degenerate sample: `minmax`, then either done
    /// (constant: `None`) or split three ways.
    fn degenerate(
        &mut self,
        bucket: Bucket,
        ends: &mut Ends,
    ) -> Result<Option<Split>, SortError<D::Error>> {
        self.summary.degenerate += 1;
        let (lo, hi) = self.minmax(bucket)?;
        if lo == hi {
            self.summary.constant += 1;
            ends.done(bucket);
            return Ok(None);
        }
        self.summary.three_way += 1;
        Ok(Some(Split::ThreeWay))
    }

    /// The batched level: the degenerate buckets' `minmax` first, then one
    /// `find`, scan and `scatter` chain for every k-way split and one for
    /// every three-way split, and one readback of all their bucket starts.
    fn batched(
        &mut self,
        large: &[Bucket],
        flags: &[u32],
        trees: u64,
        ends: &mut Ends,
    ) -> Result<Vec<Bucket>, SortError<D::Error>> {
        let cfg = &self.s.cfg;
        let in_b = large[0].in_b;
        if large.iter().any(|b| b.in_b != in_b) {
            return Err(SortError::Wrong(
                "a level's large buckets lie in both buffers".to_string(),
            ));
        }
        // The degenerate buckets' minima and maxima, all at once.
        let entry = |(i, b): (usize, &Bucket)| batch::Entry {
            start: b.start,
            len: b.len,
            tree: i as u32,
        };
        let odd: Vec<batch::Entry> = (large.iter().enumerate())
            .filter(|&(i, _)| flags[i] != 0)
            .map(entry)
            .collect();
        // Each chain's launches say which of the level's splits they are.
        let level = std::mem::take(&mut self.step);
        self.step = format!("{level}, {} degenerate samples", odd.len());
        let mut extremes = self.minmax_batch(&odd, in_b)?.into_iter();
        // Per bucket its split (None: done) and its entry's batch.
        let mut how = Vec::with_capacity(large.len());
        let (mut tree, mut three) = (Vec::new(), Vec::new());
        for (i, (&b, &flag)) in large.iter().zip(flags).enumerate() {
            let entry = entry((i, &b));
            let split = if flag == 0 {
                self.summary.splits += 1;
                Some(Split::Tree)
            } else {
                self.summary.degenerate += 1;
                match extremes.next() {
                    Some((lo, hi)) if lo == hi => {
                        self.summary.constant += 1;
                        ends.done(b);
                        None
                    }
                    _ => {
                        self.summary.three_way += 1;
                        Some(Split::ThreeWay)
                    }
                }
            };
            match split {
                Some(Split::Tree) => tree.push(entry),
                Some(Split::ThreeWay) => three.push(entry),
                None => {}
            }
            how.push(split);
        }
        let k = u64::from(cfg.buckets);
        let words = tree.len() as u64 * k + three.len() as u64 * 3;
        let bounds = self.alloc(words * 4)?;
        self.step = format!("{level}, {} k-way splits", tree.len());
        self.batch(&tree, Split::Tree, in_b, trees, bounds)?;
        let three_at = bounds + tree.len() as u64 * k * 4;
        self.step = format!("{level}, {} three-way splits", three.len());
        self.batch(&three, Split::ThreeWay, in_b, trees, three_at)?;
        let read = if self.real && words > 0 {
            Some(self.read_u32s(bounds, words as usize)?)
        } else {
            None
        };
        let mut next = Vec::new();
        // Where the next bucket's starts lie: the k-way splits' first,
        // then the three-way splits'.
        let mut at = [0usize, tree.len() * k as usize];
        for (&b, split) in large.iter().zip(how) {
            let Some(split) = split else { continue };
            let nb = split.buckets(cfg) as usize;
            let at = &mut at[usize::from(split == Split::ThreeWay)];
            let starts: Vec<u64> = match &read {
                Some(r) => r[*at..*at + nb].iter().map(|&s| u64::from(s)).collect(),
                None => estimate(b, nb as u64),
            };
            *at += nb;
            let children = children(b, &starts, split)?;
            split.file(cfg, children, ends, &mut next);
        }
        Ok(next)
    }

    /// One `find`, scan and `scatter` chain over every bucket of
    /// `entries` (in the buffer `in_b` names) by `split`; block 0 of each
    /// bucket writes its starts at `bounds`, the buckets one after another.
    fn batch(
        &mut self,
        entries: &[batch::Entry],
        split: Split,
        in_b: bool,
        trees: u64,
        bounds: u64,
    ) -> Result<(), SortError<D::Error>> {
        if entries.is_empty() {
            return Ok(());
        }
        let cfg = &self.s.cfg;
        let plan = batch::plan(cfg, entries, split.buckets(cfg));
        self.reserve(plan.counts)?;
        let table = self.words(&plan.table)?;
        let (from, to) = if in_b {
            (self.b, self.a)
        } else {
            (self.a, self.b)
        };
        let (find, scatter, names) = split.kernels();
        let grid = plan.blocks;
        let t = cfg.block_threads;
        let head = [
            ParamValue::U64(from),
            ParamValue::U64(table),
            ParamValue::U32(plan.items),
            ParamValue::U64(trees),
        ];
        let hist = ParamValue::U64(self.hist.0);
        let mut params = head.to_vec();
        params.push(hist);
        self.launch(find, names.0, grid, t, &params)?;
        self.scan(plan.counts, 0)?;
        let mut params = head.to_vec();
        params.extend([
            ParamValue::U64(self.offsets),
            ParamValue::U64(to),
            ParamValue::U64(bounds),
        ]);
        self.launch(scatter, names.1, grid, t, &params)
    }

    /// Grows the counts and offsets buffers to `total` words.
    fn reserve(&mut self, total: u64) -> Result<(), SortError<D::Error>> {
        if total > self.hist.1 {
            self.hist = (self.alloc(total * 4)?, total);
            self.offsets = self.alloc(total * 4)?;
        }
        Ok(())
    }

    /// Writes `words` to a fresh buffer.
    fn words(&mut self, words: &[u32]) -> Result<u64, SortError<D::Error>> {
        let addr = self.alloc(words.len() as u64 * 4)?;
        self.dev
            .write_u32s(addr, words)
            .map_err(SortError::Device)?;
        Ok(addr)
    }

    /// `scan_sums` then `scan` over the first `total` counts: every count's
    /// exclusive prefix plus `base`, into the offsets buffer.
    fn scan(&mut self, total: u64, base: u64) -> Result<(), SortError<D::Error>> {
        let cfg = &self.s.cfg;
        let t = cfg.block_threads;
        let hist = ParamValue::U64(self.hist.0);
        let offsets = ParamValue::U64(self.offsets);
        let chunk = u64::from(scan::chunk(cfg));
        let chunks = total.div_ceil(chunk);
        let sums = ParamValue::U64(self.alloc(chunks * 4)?);
        let (total, chunk) = (ParamValue::U32(total as u32), ParamValue::U32(chunk as u32));
        self.launch(
            SCAN_SUMS,
            "scan_sums",
            chunks,
            t,
            &[hist, total, chunk, sums],
        )?;
        let start = ParamValue::U32(base as u32);
        let scan = [hist, offsets, total, start, sums, chunk];
        self.launch(SCAN, "scan", chunks, t, &scan)
    }

    /// `find`, `scan`, `scatter` over `bucket` by `split`; the sub-buckets
    /// in the other buffer.
    fn split(
        &mut self,
        bucket: Bucket,
        tree: u64,
        split: Split,
    ) -> Result<Vec<Bucket>, SortError<D::Error>> {
        let cfg = &self.s.cfg;
        let kb = u64::from(cfg.key_bytes());
        let nb = u64::from(split.buckets(cfg));
        let t = cfg.block_threads;
        let items = cfg.items_for(bucket.len);
        let p = bucket.len.div_ceil(u64::from(t) * u64::from(items));
        let total = nb * p * u64::from(cfg.counter_copies);
        self.reserve(total)?;
        let (from, to) = if bucket.in_b {
            (self.b, self.a)
        } else {
            (self.a, self.b)
        };
        let src = ParamValue::U64(from + bucket.start * kb);
        let count = ParamValue::U32(bucket.len as u32);
        let items = ParamValue::U32(items);
        let tree = ParamValue::U64(tree);
        let (find, scatter, names) = split.kernels();
        let hist = ParamValue::U64(self.hist.0);
        self.launch(find, names.0, p, t, &[src, count, items, tree, hist])?;
        let offsets = ParamValue::U64(self.offsets);
        self.scan(total, bucket.start)?;
        let bounds = self.alloc(nb * 4)?;
        let params = [
            src,
            count,
            items,
            tree,
            offsets,
            ParamValue::U64(to),
            ParamValue::U64(bounds),
        ];
        self.launch(scatter, names.1, p, t, &params)?;
        let starts: Vec<u64> = if self.real {
            let read = self.read_u32s(bounds, nb as usize)?;
            read.into_iter().map(u64::from).collect()
        } else {
            estimate(bucket, nb)
        };
        children(bucket, &starts, split)
    }

    /// The minimum and maximum of `bucket`: `minmax` launches until one
    /// block remains, then one readback.
    fn minmax(&mut self, bucket: Bucket) -> Result<(u64, u64), SortError<D::Error>> {
        let cfg = &self.s.cfg;
        let kb = u64::from(cfg.key_bytes());
        let t = cfg.block_threads;
        let from = if bucket.in_b { self.b } else { self.a };
        let mut src = (from + bucket.start * kb, from + bucket.start * kb);
        let mut n = bucket.len;
        loop {
            let items = cfg.items_for(n);
            let blocks = n.div_ceil(u64::from(t) * u64::from(items));
            let lo = self.alloc(blocks * kb)?;
            let hi = self.alloc(blocks * kb)?;
            let params = [
                ParamValue::U64(src.0),
                ParamValue::U64(src.1),
                ParamValue::U32(n as u32),
                ParamValue::U32(items),
                ParamValue::U64(lo),
                ParamValue::U64(hi),
            ];
            self.launch(MINMAX, "minmax", blocks, t, &params)?;
            src = (lo, hi);
            n = blocks;
            if blocks == 1 {
                break;
            }
        }
        self.summary.readbacks += 1;
        let (lo, hi) = if kb == 8 {
            let lo = self.dev.read_u64s(src.0, 1).map_err(SortError::Device)?;
            let hi = self.dev.read_u64s(src.1, 1).map_err(SortError::Device)?;
            (lo[0], hi[0])
        } else {
            let lo = self.dev.read_u32s(src.0, 1).map_err(SortError::Device)?;
            let hi = self.dev.read_u32s(src.1, 1).map_err(SortError::Device)?;
            (u64::from(lo[0]), u64::from(hi[0]))
        };
        Ok((lo, hi))
    }

    /// The minimum and maximum of every bucket of `entries` (in the buffer
    /// `in_b` names): rounds of one batched `minmax` launch, each reducing
    /// every bucket's elements to one per block, until every bucket has
    /// one; then one readback.
    fn minmax_batch(
        &mut self,
        entries: &[batch::Entry],
        in_b: bool,
    ) -> Result<Vec<(u64, u64)>, SortError<D::Error>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let cfg = &self.s.cfg;
        let kb = u64::from(cfg.key_bytes());
        let t = cfg.block_threads;
        let from = if in_b { self.b } else { self.a };
        let mut src = (from, from);
        let mut entries = entries.to_vec();
        loop {
            let plan = batch::plan(cfg, &entries, 1);
            let table = self.words(&plan.table)?;
            let lo = self.alloc(plan.blocks * kb)?;
            let hi = self.alloc(plan.blocks * kb)?;
            let params = [
                ParamValue::U64(src.0),
                ParamValue::U64(src.1),
                ParamValue::U64(table),
                ParamValue::U32(plan.items),
                ParamValue::U64(lo),
                ParamValue::U64(hi),
            ];
            self.launch(MINMAX, "minmax", plan.blocks, t, &params)?;
            src = (lo, hi);
            // Each bucket's results lie together: its blocks' row order.
            let tile = u64::from(t) * u64::from(plan.items);
            let mut first = 0;
            for e in &mut entries {
                let p = e.len.div_ceil(tile);
                (e.start, e.len) = (first, p);
                first += p;
            }
            if plan.blocks == entries.len() as u64 {
                break;
            }
        }
        self.summary.readbacks += 1;
        let n = entries.len();
        let (lo, hi) = if kb == 8 {
            let lo = self.dev.read_u64s(src.0, n).map_err(SortError::Device)?;
            let hi = self.dev.read_u64s(src.1, n).map_err(SortError::Device)?;
            (lo, hi)
        } else {
            let lo = self.dev.read_u32s(src.0, n).map_err(SortError::Device)?;
            let hi = self.dev.read_u32s(src.1, n).map_err(SortError::Device)?;
            let wide = |v: Vec<u32>| v.into_iter().map(u64::from).collect::<Vec<_>>();
            (wide(lo), wide(hi))
        };
        Ok(lo.into_iter().zip(hi).collect())
    }

    /// The small sorts, classes largest first, then the copies.
    fn finish(&mut self, ends: &mut Ends) -> Result<(), SortError<D::Error>> {
        let cfg = &self.s.cfg;
        ends.small
            .sort_by_key(|b| (std::cmp::Reverse(b.len), b.start));
        self.summary.small_buckets = ends.small.len() as u64;
        self.summary.largest_small = ends.small.first().map_or(0, |b| b.len);
        let mut rest = &ends.small[..];
        while let Some(first) = rest.first() {
            let slots = small_slots(cfg, first.len);
            let class = rest
                .iter()
                .take_while(|b| small_slots(cfg, b.len) == slots)
                .count();
            let (now, later) = rest.split_at(class);
            let kernel = SMALL + (slots / cfg.min_small_slots()).trailing_zeros() as usize;
            let list = self.list(now, |_, _| 0)?;
            let params = [
                ParamValue::U64(list),
                ParamValue::U64(self.a),
                ParamValue::U64(self.b),
            ];
            let t = small::threads(cfg, slots);
            self.step = format!("small sorts ({} buckets of <= {slots} keys)", now.len());
            self.launch(kernel, "small_sort", now.len() as u64, t, &params)?;
            rest = later;
        }
        self.summary.copied = ends.copy.len() as u64;
        if !ends.copy.is_empty() {
            let list = self.list(&ends.copy, |_, _| 0)?;
            let params = [
                ParamValue::U64(list),
                ParamValue::U64(self.a),
                ParamValue::U64(self.b),
            ];
            let (grid, t) = (ends.copy.len() as u64, cfg.block_threads);
            self.step = format!("copies ({} buckets)", ends.copy.len());
            self.launch(COPY, "copy_buckets", grid, t, &params)?;
        }
        Ok(())
    }
}

impl SamplesortSummary {
    /// The levels the seed expects for uniform keys, `ceil(log_k(N / M))`
    /// (0 when `N <= M`).
    pub fn expected_levels(&self, cfg: &SamplesortConfig) -> u32 {
        let (mut span, mut levels) = (u64::from(cfg.small_size), 0);
        while span < self.keys {
            span = span.saturating_mul(u64::from(cfg.buckets));
            levels += 1;
        }
        levels
    }
}

/// One line about the last sort of `s` (stderr, beside the report).
pub fn note(s: &Samplesort) -> String {
    let m = s.summary();
    format!(
        "samplesort: {} level(s) (ceil(log_k(N/M)) = {}), {} k-way split(s), {} degenerate \
         sample(s) ({} constant, {} three-way), {} small bucket(s) (largest {}), {} copied, \
         {} readback(s), {} launch(es)",
        m.levels,
        m.expected_levels(s.config()),
        m.splits,
        m.degenerate,
        m.constant,
        m.three_way,
        m.small_buckets,
        m.largest_small,
        m.copied,
        m.readbacks,
        m.launches
    )
}

/// The small-sort network size for a bucket of `len` keys.
pub fn small_slots(cfg: &SamplesortConfig, len: u64) -> u32 {
    (len.next_power_of_two() as u32).max(cfg.min_small_slots())
}

/// The create_bst seed of the bucket at `start` in `level`: a fixed mix,
/// so every run draws the same sample.
fn seed(level: u32, start: u64) -> u32 {
    let mut x = (u64::from(level) << 40) ^ start ^ 0x5EED_5A3B_1E50_u64;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (x ^ (x >> 31)) as u32
}

/// Even bucket starts, for a dry run (nothing read back).
fn estimate(bucket: Bucket, nb: u64) -> Vec<u64> {
    (0..nb)
        .map(|i| bucket.start + i * bucket.len / nb)
        .collect()
}

impl Split {
    /// The `find` and `scatter` kernels (indices and launch names).
    fn kernels(self) -> (usize, usize, (&'static str, &'static str)) {
        match self {
            Split::Tree => (FIND, SCATTER, ("find_buckets", "scatter")),
            Split::ThreeWay => (FIND3, SCATTER3, ("find_3way", "scatter_3way")),
        }
    }

    /// Files the sub-buckets of one split: the three-way split's `=`
    /// bucket (every key equal to the splitter) is done, every other is
    /// classified by size.
    fn file(
        self,
        cfg: &SamplesortConfig,
        children: Vec<Bucket>,
        ends: &mut Ends,
        next: &mut Vec<Bucket>,
    ) {
        for (j, c) in children.into_iter().enumerate() {
            if self == Split::ThreeWay && j == 1 {
                ends.done(c);
            } else {
                ends.classify(cfg, c, next);
            }
        }
    }
}

/// The sub-buckets of `bucket` from their starts (read back or
/// estimated), in the other buffer; an impossible set of starts, or a
/// split that made no progress, is an error rather than a loop.
fn children<E: std::error::Error>(
    bucket: Bucket,
    starts: &[u64],
    split: Split,
) -> Result<Vec<Bucket>, SortError<E>> {
    let end = bucket.start + bucket.len;
    let mut out = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let e = starts.get(i + 1).copied().unwrap_or(end);
        if s > e || e > end || (i == 0 && s != bucket.start) {
            return Err(SortError::Wrong(format!(
                "bucket starts {starts:?} do not partition keys {}..{end}",
                bucket.start
            )));
        }
        out.push(Bucket {
            start: s,
            len: e - s,
            in_b: !bucket.in_b,
        });
    }
    let stuck = out
        .iter()
        .enumerate()
        .any(|(i, c)| c.len == bucket.len && !(split == Split::ThreeWay && i == 1));
    if stuck {
        return Err(SortError::Wrong(format!(
            "a split of {} keys at {} made no progress",
            bucket.len, bucket.start
        )));
    }
    Ok(out)
}
