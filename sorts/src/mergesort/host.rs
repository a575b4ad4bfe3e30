//! The host schedule, generic over any [`Device`], as moderngpu's
//! `MergesortKeys` runs it: `blocksort` sorts every tile of `NV` keys,
//! then each of the `ceil(lg P)` passes launches `partition` (the
//! splitters) and `merge` (runs of `coop/2` tiles become runs of `coop`),
//! ping-ponging between the keys buffer and a scratch buffer; `blocksort`
//! writes to the scratch buffer when the pass count is odd, so the last
//! pass lands in the keys buffer. Launches: `1 + 2 * ceil(lg P)`.

use super::config::MergesortConfig;
use super::{blocksort, merge, partition};
use crate::{KernelMarks, Key, Launch, SortError, SortRun};
use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel, verify_kernel};

/// The verified kernels of one configuration, built once and reused.
pub struct Mergesort {
    cfg: MergesortConfig,
    blocksort: VerifiedKernel,
    partition: VerifiedKernel,
    merge: VerifiedKernel,
    marks: [KernelMarks; 3],
}

fn verified<E: std::error::Error>(k: kernels_ir::Kernel) -> Result<VerifiedKernel, SortError<E>> {
    let kernel = k.name.clone();
    verify_kernel(k).map_err(|errors| SortError::Verify { kernel, errors })
}

/// The number of merge passes for `tiles` tiles: `ceil(lg tiles)`.
pub fn passes(tiles: u64) -> u32 {
    tiles.max(1).next_power_of_two().trailing_zeros()
}

impl Mergesort {
    /// Generates and verifies the kernels of `cfg` (a configuration from
    /// [`super::configure`]).
    pub fn new<E: std::error::Error>(cfg: &MergesortConfig) -> Result<Mergesort, SortError<E>> {
        let (bs, bs_marks) = blocksort::generate_marked(cfg);
        let (pt, pt_marks) = partition::generate_marked(cfg);
        let (mg, mg_marks) = merge::generate_marked(cfg);
        Ok(Mergesort {
            cfg: cfg.clone(),
            blocksort: verified(bs)?,
            partition: verified(pt)?,
            merge: verified(mg)?,
            marks: [bs_marks, pt_marks, mg_marks],
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MergesortConfig {
        &self.cfg
    }

    /// Every verified kernel with its marks, in [`super::KERNEL_NAMES`] order.
    pub fn marked_kernels(&self) -> Vec<(&VerifiedKernel, &KernelMarks)> {
        let [bs, pt, mg] = &self.marks;
        vec![
            (&self.blocksort, bs),
            (&self.partition, pt),
            (&self.merge, mg),
        ]
    }

    /// Sorts `keys` on `dev`.
    pub fn sort<D: Device, K: Key>(
        &self,
        dev: &mut D,
        keys: &[K],
    ) -> Result<SortRun<D::Stats, K>, SortError<D::Error>> {
        let cfg = &self.cfg;
        crate::check_run(&*dev, keys.len(), K::BITS, cfg.key_bits, cfg.warp)?;
        let mut launches = Vec::new();
        let n = keys.len() as u64;
        if n == 0 {
            return Ok(SortRun {
                sorted: Vec::new(),
                launches,
            });
        }
        let nv = u64::from(cfg.tile_keys());
        let tiles = n.div_ceil(nv);
        let passes = passes(tiles);
        let bytes = n * u64::from(cfg.key_bytes());
        let buf = dev.try_alloc(bytes).map_err(SortError::Device)?;
        K::write(dev, buf, keys).map_err(SortError::Device)?;
        let scratch = if passes > 0 {
            dev.try_alloc(bytes).map_err(SortError::Device)?
        } else {
            buf
        };
        let mp = dev.try_alloc((tiles + 1) * 4).map_err(SortError::Device)?;

        let (mut src, mut dst) = if passes % 2 == 1 {
            (scratch, buf)
        } else {
            (buf, scratch)
        };
        let count = ParamValue::U32(n as u32);
        let block = Dim3::x(cfg.block_threads);
        let params = [ParamValue::U64(buf), ParamValue::U64(src), count];
        let grid = Dim3::x(tiles as u32);
        launch(
            dev,
            &mut launches,
            (&self.blocksort, "blocksort"),
            format!("blocksort: {tiles} tiles of {nv} keys"),
            (grid, block),
            &params,
        )?;
        let pt = cfg.partition_threads;
        let pt_grid = Dim3::x((tiles + 1).div_ceil(u64::from(pt)) as u32);
        for pass in 0..passes {
            let coop = ParamValue::U32(2 << pass);
            let mp = ParamValue::U64(mp);
            let params = [
                ParamValue::U64(src),
                count,
                coop,
                mp,
                ParamValue::U32(tiles as u32 + 1),
            ];
            // Runs of `nv << pass` keys merge into runs twice as long.
            let (from, to) = (nv << pass, nv << (pass + 1));
            launch(
                dev,
                &mut launches,
                (&self.partition, "partition"),
                format!("pass {}: partition {from} -> {to}", pass + 1),
                (pt_grid, Dim3::x(pt)),
                &params,
            )?;
            let params = [ParamValue::U64(src), ParamValue::U64(dst), count, coop, mp];
            launch(
                dev,
                &mut launches,
                (&self.merge, "merge"),
                format!("pass {}: merge {from} -> {to}", pass + 1),
                (grid, block),
                &params,
            )?;
            std::mem::swap(&mut src, &mut dst);
        }
        debug_assert_eq!(src, buf);
        let sorted = K::read(dev, buf, keys.len()).map_err(SortError::Device)?;
        Ok(SortRun { sorted, launches })
    }
}

fn launch<D: Device>(
    dev: &mut D,
    launches: &mut Vec<Launch<D::Stats>>,
    (kernel, name): (&VerifiedKernel, &'static str),
    label: String,
    (grid, block): (Dim3, Dim3),
    params: &[ParamValue],
) -> Result<(), SortError<D::Error>> {
    dev.label_next_launch(&label);
    let stats = dev
        .launch(kernel, grid, block, params)
        .map_err(SortError::Device)?;
    launches.push(Launch {
        name,
        label,
        grid,
        block,
        stats,
    });
    Ok(())
}
