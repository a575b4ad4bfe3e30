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
use crate::{KernelMarks, Key, Launch, SortError, SortRun};
use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel, verify_kernel};

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
    /// The marks of `bs`, `fm` and `hm`.
    marks: [KernelMarks; 3],
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
            transpose: verified(transpose::generate(cfg))?,
            marks: [bs_marks, fm_marks, hm_marks],
            no_marks: KernelMarks::default(),
        })
    }

    /// Every verified kernel with its marks, in [`super::KERNEL_NAMES`]
    /// order (the block cleans smaller than a block, `bc_N`, before `bc`).
    pub fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        let [bs, fm, hm] = &self.marks;
        let mut out = vec![
            (&self.fill_in, &self.no_marks),
            (&self.fill_out, &self.no_marks),
            (&self.bs, bs),
            (&self.fm, fm),
            (&self.hm, hm),
        ];
        out.extend(self.bc.iter().map(|(_, k, m)| (k, m)));
        out.push((&self.transpose, &self.no_marks));
        out
    }

    /// The configuration.
    pub fn config(&self) -> &HotSortConfig {
        &self.cfg
    }

    /// Sorts `keys` on `dev`.
    pub fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        let cfg = &self.cfg;
        crate::check_run(&*dev, keys.len(), K::BITS, cfg.key_bits, cfg.warp)?;
        let mut run = Runner {
            dev,
            launches: Vec::new(),
        };
        let n = keys.len() as u64;
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
            return Err(SortError::TooManyKeys(keys.len()));
        }
        let buf = run.dev.alloc(alloc_slabs * sk * u64::from(cfg.key_bytes()));
        K::write(run.dev, buf, keys).map_err(SortError::Device)?;
        let keys_param = ParamValue::U64(buf);

        for (kernel, name, lo, hi) in [
            (&self.fill_in, "fill_in", n, bs_slabs * sk),
            (&self.fill_out, "fill_out", bs_slabs * sk, alloc_slabs * sk),
        ] {
            if hi > lo {
                let t = fill::threads_per_block(cfg);
                let grid = Dim3::x((hi - lo).div_ceil(u64::from(t)) as u32);
                let params = [keys_param, u32p(lo), u32p(hi)];
                run.launch(kernel, name, grid, Dim3::x(t), &params)?;
            }
        }
        let block = Dim3::x(w * cfg.block_slabs);
        run.launch(&self.bs, "bs", Dim3::x(blocks as u32), block, &[keys_param])?;

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
                    let params = [keys_param, u32p(stride), u32p(r)];
                    run.launch(&self.fm, "fm", grid, stream_block, &params)?;
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
                    let params = [keys_param, u32p(stride), u32p(span)];
                    run.launch(&self.hm, "hm", grid, stream_block, &params)?;
                }
                Step::Bc { slabs, blocks } => {
                    let (_, kernel, _) = self
                        .bc
                        .iter()
                        .find(|(s, _, _)| *s == slabs)
                        .expect("bc_sizes lists every size merge_steps launches");
                    let name = super::schedule::bc_name(cfg, slabs);
                    let bc_block = Dim3::x(w * slabs);
                    run.launch(
                        kernel,
                        name,
                        Dim3::x(blocks as u32),
                        bc_block,
                        &[keys_param],
                    )?;
                }
            }
        }

        let grid = Dim3::x(slabs.div_ceil(p) as u32);
        let params = [keys_param, u32p(slabs)];
        run.launch(&self.transpose, "transpose", grid, block, &params)?;
        let sorted = K::read(run.dev, buf, keys.len()).map_err(SortError::Device)?;
        Ok(SortRun {
            sorted,
            launches: run.launches,
        })
    }
}

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
        grid: Dim3,
        block: Dim3,
        params: &[ParamValue],
    ) -> Result<(), SortError<D::Error>> {
        let stats = self
            .dev
            .launch(kernel, grid, block, params)
            .map_err(SortError::Device)?;
        self.launches.push(Launch {
            name,
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
