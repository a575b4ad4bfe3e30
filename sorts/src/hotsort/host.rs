//! The host schedule, generic over any [`Device`] (the interpreter or the
//! simulator), as the real HotSort runs it:
//!
//! 1. copy the keys in; `fill_in` pads them to whole `bs` blocks and, when
//!    blocks must be merged, `fill_out` pads the merge area to a power-of-two
//!    number of blocks, with the maximum key;
//! 2. `bs` sorts every block: runs of `R = block_slabs` slabs;
//! 3. the merge rounds of [`super::schedule::merge_steps`]: `fm` flip-merges
//!    pairs of runs, `hm` half-merges while the sub-spans left are larger
//!    than a `bc` block, `bc` cleans; each round doubles the run length;
//! 4. `transpose` turns the slabs holding keys into linear order; the first
//!    `N` words are read back.
//!
//! Pairs of runs whose right run is all padding are already one sorted run,
//! so `fm`, `hm` and `bc` only cover spans that hold keys.

use super::config::HotSortConfig;
use super::schedule::{Step, bc_sizes, merge_steps};
use super::{bc, bs, fill, fm, hm, transpose, validate};
use crate::{KernelMarks, Key, Launch, Pair, SortError, SortRun};
use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel, verify_kernel};
use std::borrow::Cow;

/// The verified kernels of one configuration, built once and reused for
/// every launch and every sort.
pub struct HotSort {
    cfg: HotSortConfig,
    fill_in: VerifiedKernel,
    fill_out: VerifiedKernel,
    bs: VerifiedKernel,
    /// The block cleans the schedule launches, by block size (slabs),
    /// ascending, with their marks.
    bc: Vec<(u32, VerifiedKernel, KernelMarks)>,
    fm: VerifiedKernel,
    hm: VerifiedKernel,
    transpose: VerifiedKernel,
    /// The marks of `bs`, `fm`, `hm` and `transpose`.
    marks: [KernelMarks; 4],
    /// The marks of the kernels that do not merge.
    no_marks: KernelMarks,
}

fn verified<E: std::error::Error>(k: kernels_ir::Kernel) -> Result<VerifiedKernel, SortError<E>> {
    let kernel = k.name.clone();
    verify_kernel(k).map_err(|errors| SortError::Verify { kernel, errors })
}

impl HotSort {
    /// Validates `cfg`, generates and verifies its kernels.
    pub fn new<E: std::error::Error>(cfg: &HotSortConfig) -> Result<HotSort, SortError<E>> {
        validate(cfg).map_err(SortError::Config)?;
        let (bs, bs_marks) = bs::generate_marked(cfg);
        let (fm, fm_marks) = fm::generate_marked(cfg);
        let (hm, hm_marks) = hm::generate_marked(cfg);
        let (transpose, transpose_marks) = transpose::generate_marked(cfg);
        let mut bcs = Vec::new();
        for slabs in bc_sizes(cfg) {
            let (k, marks) = bc::generate_marked(cfg, slabs);
            bcs.push((slabs, verified(k)?, marks));
        }
        Ok(HotSort {
            cfg: cfg.clone(),
            fill_in: verified(fill::generate(cfg, "fill_in"))?,
            fill_out: verified(fill::generate(cfg, "fill_out"))?,
            bs: verified(bs)?,
            bc: bcs,
            fm: verified(fm)?,
            hm: verified(hm)?,
            transpose: verified(transpose)?,
            marks: [bs_marks, fm_marks, hm_marks, transpose_marks],
            no_marks: KernelMarks::default(),
        })
    }

    /// Every verified kernel with its marks, in [`super::KERNEL_NAMES`]
    /// order (the block cleans smaller than a block, `bc_N`, before `bc`).
    pub fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        let [bs, fm, hm, transpose] = &self.marks;
        let mut out = vec![
            (&self.fill_in, &self.no_marks),
            (&self.fill_out, &self.no_marks),
            (&self.bs, bs),
            (&self.fm, fm),
            (&self.hm, hm),
        ];
        out.extend(self.bc.iter().map(|(_, k, m)| (k, m)));
        out.push((&self.transpose, transpose));
        out
    }

    /// The configuration.
    pub fn config(&self) -> &HotSortConfig {
        &self.cfg
    }

    /// Sorts `keys` on `dev` (a configuration without values).
    pub fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        let cfg = &self.cfg;
        crate::check_run(&*dev, keys.len(), K::BITS, cfg.key_bits, cfg.warp)?;
        if cfg.values {
            return Err(SortError::Values(
                "these HotSort kernels carry values: sort pairs".to_string(),
            ));
        }
        self.run(
            dev,
            keys.len(),
            |dev, buf, _| K::write(dev, buf, keys),
            |dev, buf, _| K::read(dev, buf, keys.len()),
        )
    }

    /// Sorts 64-bit `keys`, each carrying the value at its index in
    /// `values`, on `dev` (a configuration with values): the pairs read
    /// back in key order, equal keys in no particular order.
    ///
    /// Pairs whose key is the sentinel (`u64::MAX`, the padding key) stay on
    /// the host and are appended: on the device they would tie with the
    /// padding, and a padding pair could take a real pair's place among the
    /// first `n`. Every other pair is sorted on the device.
    pub fn sort_pairs<D: Device>(
        &self,
        dev: &mut D,
        keys: &[u64],
        values: &[u32],
    ) -> Result<SortRun<D::Stats, crate::Pair>, SortError<D::Error>> {
        let cfg = &self.cfg;
        crate::check_run(&*dev, keys.len(), 64, cfg.key_bits, cfg.warp)?;
        if !cfg.values {
            return Err(SortError::Values(
                "these HotSort kernels carry no values".to_string(),
            ));
        }
        if keys.len() != values.len() {
            return Err(SortError::Values(format!(
                "{} keys but {} values",
                keys.len(),
                values.len()
            )));
        }
        // Copies only when some key is the sentinel: the input is borrowed
        // as it is otherwise (a 16M-pair input is 192 MB).
        let top: Vec<Pair> = keys
            .iter()
            .zip(values)
            .filter(|(k, _)| **k == u64::MAX)
            .map(|(&k, &v)| (k, v))
            .collect();
        let (dk, dv): (Cow<'_, [u64]>, Cow<'_, [u32]>) = if top.is_empty() {
            (Cow::Borrowed(keys), Cow::Borrowed(values))
        } else {
            let below = |&(k, _): &(&u64, &u32)| *k != u64::MAX;
            let pairs = keys.iter().zip(values).filter(below);
            let (k, v): (Vec<u64>, Vec<u32>) = pairs.map(|(&k, &v)| (k, v)).unzip();
            (Cow::Owned(k), Cow::Owned(v))
        };
        let n = dk.len();
        let mut run = self.run(
            dev,
            n,
            |dev, kbuf, vbuf| {
                dev.write_u64s(kbuf, &dk)?;
                dev.write_u32s(vbuf, &dv)
            },
            |dev, kbuf, vbuf| {
                // In chunks, so the pairs are the one full-size copy.
                let mut pairs = Vec::with_capacity(n);
                for at in (0..n).step_by(READ_CHUNK) {
                    let len = READ_CHUNK.min(n - at);
                    let k = dev.read_u64s(kbuf + 8 * at as u64, len)?;
                    let v = dev.read_u32s(vbuf + 4 * at as u64, len)?;
                    pairs.extend(k.into_iter().zip(v));
                }
                Ok(pairs)
            },
        )?;
        run.sorted.extend(top);
        Ok(run)
    }

    /// The schedule for `n` keys: allocates the buffers (keys, and with
    /// values the values), writes the input with `write(dev, keys, values)`,
    /// launches every kernel and reads the output back with `read`.
    fn run<D: Device, T>(
        &self,
        dev: &mut D,
        n: usize,
        write: impl FnOnce(&mut D, u64, u64) -> Result<(), D::Error>,
        read: impl FnOnce(&D, u64, u64) -> Result<Vec<T>, D::Error>,
    ) -> Result<SortRun<D::Stats, T>, SortError<D::Error>> {
        let cfg = &self.cfg;
        let mut run = Runner {
            dev,
            launches: Vec::new(),
        };
        let n_keys = n;
        let n = n as u64;
        if n == 0 {
            return Ok(SortRun {
                sorted: Vec::new(),
                launches: run.launches,
            });
        }
        let (w, h, p) = (cfg.warp, cfg.slab_height, u64::from(cfg.block_slabs));
        let sk = u64::from(w * h);
        let slabs = n.div_ceil(sk);
        let blocks = slabs.div_ceil(p);
        let bs_slabs = blocks * p;
        let alloc_slabs = if blocks > 1 {
            p * blocks.next_power_of_two()
        } else {
            bs_slabs
        };
        if alloc_slabs * sk > 1 << 31 {
            return Err(SortError::TooManyKeys(n_keys));
        }
        let buf = run.dev.alloc(alloc_slabs * sk * u64::from(cfg.key_bytes()));
        let vbuf = if cfg.values {
            run.dev.alloc(alloc_slabs * sk * 4)
        } else {
            0
        };
        write(run.dev, buf, vbuf).map_err(SortError::Device)?;
        // Every kernel's first parameters: the keys, and the values.
        let mut bufs = vec![ParamValue::U64(buf)];
        if cfg.values {
            bufs.push(ParamValue::U64(vbuf));
        }
        let with =
            |rest: &[ParamValue]| -> Vec<ParamValue> { bufs.iter().chain(rest).copied().collect() };

        for (kernel, name, lo, hi) in [
            (&self.fill_in, "fill_in", n, bs_slabs * sk),
            (&self.fill_out, "fill_out", bs_slabs * sk, alloc_slabs * sk),
        ] {
            if hi > lo {
                let t = fill::threads_per_block(cfg);
                let grid = Dim3::x((hi - lo).div_ceil(u64::from(t)) as u32);
                let params = with(&[u32p(lo), u32p(hi)]);
                let label = format!("{name}: pad keys {lo}..{hi}");
                run.launch(kernel, name, label, grid, Dim3::x(t), &params)?;
            }
        }
        let block = Dim3::x(w * cfg.block_slabs);
        let label = format!("bs: {blocks} blocks of {p} slabs");
        run.launch(&self.bs, "bs", label, Dim3::x(blocks as u32), block, &bufs)?;
        // A round is one doubling of the sorted runs: its `fm`, then the
        // `hm`s and the clean that finish it.
        let mut round = 0;

        let y = fm::rows_per_block(cfg);
        let stream_block = Dim3 { x: w, y, z: 1 };
        for step in merge_steps(cfg, bs_slabs) {
            match step {
                Step::Fm {
                    run: r,
                    stride,
                    spans,
                } => {
                    let grid = Dim3 {
                        x: h / y,
                        y: stride as u32,
                        z: spans as u32,
                    };
                    let params = with(&[u32p(stride), u32p(r)]);
                    round += 1;
                    let label = format!(
                        "round {round}: fm runs of {r} -> {} slabs ({spans} pairs)",
                        2 * r
                    );
                    run.launch(&self.fm, "fm", label, grid, stream_block, &params)?;
                }
                Step::Hm {
                    span,
                    stride,
                    spans,
                } => {
                    let grid = Dim3 {
                        x: h / y,
                        y: stride as u32,
                        z: spans as u32,
                    };
                    let params = with(&[u32p(stride), u32p(span)]);
                    let label = format!("round {round}: hm span {span} slabs ({spans} spans)");
                    run.launch(&self.hm, "hm", label, grid, stream_block, &params)?;
                }
                Step::Bc { slabs, blocks } => {
                    let (_, kernel, _) = self
                        .bc
                        .iter()
                        .find(|(s, _, _)| *s == slabs)
                        .expect("bc_sizes lists every size merge_steps launches");
                    let name = super::schedule::bc_name(cfg, slabs);
                    let bc_block = Dim3::x(w * slabs);
                    let label = format!("round {round}: {name} {blocks} spans of {slabs} slabs");
                    let grid = Dim3::x(blocks as u32);
                    run.launch(kernel, name, label, grid, bc_block, &bufs)?;
                }
            }
        }

        let grid = Dim3::x(slabs.div_ceil(p) as u32);
        let params = with(&[u32p(slabs)]);
        let label = format!("transpose: {slabs} slabs to key order");
        run.launch(&self.transpose, "transpose", label, grid, block, &params)?;
        let sorted = read(run.dev, buf, vbuf).map_err(SortError::Device)?;
        Ok(SortRun {
            sorted,
            launches: run.launches,
        })
    }
}

/// Pairs read back at a time by [`HotSort::sort_pairs`].
const READ_CHUNK: usize = 1 << 16;

fn u32p(v: u64) -> ParamValue {
    ParamValue::U32(v as u32)
}

struct Runner<'d, D: Device> {
    dev: &'d mut D,
    launches: Vec<Launch<D::Stats>>,
}

impl<D: Device> Runner<'_, D> {
    fn launch(
        &mut self,
        kernel: &VerifiedKernel,
        name: &'static str,
        label: String,
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<(), SortError<D::Error>> {
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

/// Sorts `keys` on `dev` with the kernels of `cfg` (generated and verified
/// once for this call; keep a [`HotSort`] to reuse them across sorts).
pub fn sort<D: Device, K: Key>(
    dev: &mut D,
    cfg: &HotSortConfig,
    keys: &[K],
) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
    HotSort::new(cfg)?.sort(dev, keys)
}
