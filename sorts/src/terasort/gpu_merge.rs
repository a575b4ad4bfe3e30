//! Phase 2 on the simulated GPU (`--terasort-merge gpu`): the seed merges
//! the runs on the CPU; this merges their key-pointer words on the GPU
//! with merge path, reusing mergesort's `partition` and `merge` kernels.
//!
//! 1. After each run's phase 1, `rebase` copies its sorted words into a
//!    slot of the merge buffer with pointers made global (the run's first
//!    record added). A slot holds a power-of-two number of the merge's
//!    tiles (`NV` words), padded with the all-ones word, so that runs are
//!    exactly the frames mergesort's passes merge pairwise; padding sorts
//!    last and never mixes into the real words.
//! 2. `ceil(lg runs)` passes of `partition` and `merge` (stable, so equal
//!    words keep the earlier run first) order the words by their 4-byte
//!    prefix, then by global pointer.
//! 3. Words whose prefixes tie may belong to different runs, which the
//!    merge did not order by their further key bytes: the hybrid
//!    refinement of phase 1 runs once more over the merged words.
//! 4. One `reorder` gathers every record by pointer into the output.
//!
//! The output is the same as the host merge's: by key, ties by index.

use kernels_ir::{Device, Dim3, ParamValue, VerifiedKernel};

use super::host::{Buffers, Runner, TeraSort, u32p};
use crate::mergesort::MergesortConfig;
use crate::{ConfigError, SortError};

/// Phase 2's verified kernels.
pub struct GpuMerge {
    cfg: MergesortConfig,
    rebase: VerifiedKernel,
    partition: VerifiedKernel,
    merge: VerifiedKernel,
}

/// Phase 2's device buffers and layout.
pub struct MergeBuffers {
    /// The merge's ping-pong buffers of `count` words.
    words: [u64; 2],
    /// The splitters, one `u32` per tile boundary.
    mp: u64,
    /// The refinement's segments (and their second buffer).
    tied: Buffers,
    /// Words per run slot: a power-of-two number of tiles.
    stride: u64,
    /// Records per run (the last run may be shorter).
    per_run: usize,
    /// Runs.
    runs: u64,
    /// Words the merge covers: every slot, the last one unpadded.
    count: u64,
    /// Records.
    n: usize,
}

impl GpuMerge {
    pub(super) fn new(
        cfg: MergesortConfig,
        rebase: VerifiedKernel,
        partition: VerifiedKernel,
        merge: VerifiedKernel,
    ) -> GpuMerge {
        GpuMerge {
            cfg,
            rebase,
            partition,
            merge,
        }
    }

    /// The kernels, in launch order.
    pub(super) fn kernels(&self) -> [&VerifiedKernel; 3] {
        [&self.rebase, &self.partition, &self.merge]
    }

    /// Words per run slot for runs of `per_run` records: the run rounded up
    /// to a power-of-two number of tiles.
    pub fn stride(&self, per_run: usize) -> u64 {
        let nv = u64::from(self.cfg.tile_keys());
        (per_run as u64).div_ceil(nv).next_power_of_two() * nv
    }

    /// Allocates phase 2's buffers for `n` records in runs of `per_run`.
    pub(super) fn buffers<D: Device>(
        &self,
        ts: &TeraSort,
        dev: &mut D,
        n: usize,
        per_run: usize,
    ) -> Result<MergeBuffers, SortError<D::Error>> {
        let stride = self.stride(per_run);
        let runs = n.div_ceil(per_run) as u64;
        let last = (n - (runs as usize - 1) * per_run) as u64;
        let count = (runs - 1) * stride + last;
        if count > 1 << 31 {
            return Err(SortError::Config(vec![ConfigError(format!(
                "--terasort-merge gpu: {runs} runs of {per_run} records pad to {count} words, \
                 more than the merge addresses (2^31); give --run-records a multiple of {}",
                self.cfg.tile_keys()
            ))]));
        }
        let tiles = count.div_ceil(u64::from(self.cfg.tile_keys()));
        let mut alloc = |bytes: u64| dev.try_alloc(bytes).map_err(SortError::Device);
        let words = [alloc(count * 8)?, alloc(count * 8)?];
        let mp = alloc((tiles + 1) * 4)?;
        // The refinement's segments pad every tie to a power of two: at
        // most twice the records (the fused network's smallest span can
        // take more: [`TeraSort::refine`] then allocates more).
        let seg = 2 * n.next_power_of_two() as u64;
        let tied = [alloc(seg * 8)?, ts.other(dev, seg)];
        Ok(MergeBuffers {
            words,
            mp,
            tied: Buffers::new([0, 0], tied, seg),
            stride,
            per_run,
            runs,
            count,
            n,
        })
    }

    /// Copies run `start / per_run`'s `m` sorted words at `pairs` into its
    /// slot, pointers made global, the slot padded.
    pub(super) fn rebase<D: Device>(
        &self,
        run: &mut Runner<'_, '_, D>,
        mb: &MergeBuffers,
        pairs: u64,
        start: usize,
        m: usize,
    ) -> Result<(), SortError<D::Error>> {
        let r = (start / mb.per_run) as u64;
        let total = if r + 1 < mb.runs { mb.stride } else { m as u64 };
        let t = u64::from(run.cfg.block_threads);
        let params = [
            ParamValue::U64(pairs),
            ParamValue::U64(mb.words[0] + r * mb.stride * 8),
            u32p(m as u64),
            u32p(total),
            u32p(start as u64),
        ];
        let grid = Dim3::x(total.div_ceil(t) as u32);
        run.launch(&self.rebase, grid, Dim3::x(t as u32), &params)
    }

    /// Merges the runs' words, refines the ties they leave and gathers the
    /// records from `records` into `out`.
    pub(super) fn phase2<D: Device>(
        &self,
        ts: &TeraSort,
        run: &mut Runner<'_, '_, D>,
        mb: &MergeBuffers,
        records: u64,
        out: u64,
    ) -> Result<(), SortError<D::Error>> {
        let nv = u64::from(self.cfg.tile_keys());
        let tiles = mb.count.div_ceil(nv);
        let passes = mb.runs.next_power_of_two().trailing_zeros();
        let pt = self.cfg.partition_threads;
        let pt_grid = Dim3::x((tiles + 1).div_ceil(u64::from(pt)) as u32);
        let (mut src, mut dst) = (mb.words[0], mb.words[1]);
        let count = u32p(mb.count);
        for pass in 0..passes {
            // Frames of `coop` tiles: two slots, then two merged slots, ...
            let coop = u32p((2 * mb.stride / nv) << pass);
            run.step = format!("merge pass {}", pass + 1);
            let params = [
                ParamValue::U64(src),
                count,
                coop,
                ParamValue::U64(mb.mp),
                u32p(tiles + 1),
            ];
            run.launch(&self.partition, pt_grid, Dim3::x(pt), &params)?;
            let params = [
                ParamValue::U64(src),
                ParamValue::U64(dst),
                count,
                coop,
                ParamValue::U64(mb.mp),
            ];
            let block = Dim3::x(self.cfg.block_threads);
            run.launch(&self.merge, Dim3::x(tiles as u32), block, &params)?;
            std::mem::swap(&mut src, &mut dst);
        }
        // The padding sorted last: the first n words are the records'.
        let mut order = run.dev.read_u64s(src, mb.n).map_err(SortError::Device)?;
        run.step = "merge".to_string();
        if ts.refine(run, &mb.tied, records, &mut order)? {
            run.dev.write_u64s(src, &order).map_err(SortError::Device)?;
        }
        ts.reorder(run, records, src, out, mb.n)
    }
}
