//! GPUTeraSort's options and their check: the record layout (`R`-byte
//! records with `K`-byte keys), the run size and the step mode, with every
//! violation listed at once.

use crate::Limits;
use crate::mergesort::{self, MergesortConfig, MergesortOptions};

/// How one bitonic step maps onto threads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StepMode {
    /// One thread per compare-exchange pair: each word read and written
    /// once per step, in place (the compute form of the seed's network).
    Pair,
    /// One thread per output element, as the seed's fragment program: each
    /// thread reads its word and its partner's and writes one word to a
    /// second buffer; the buffers swap after every step.
    Output,
}

impl StepMode {
    /// The name reports show (`pair` or `output`).
    pub const fn name(self) -> &'static str {
        match self {
            StepMode::Pair => "pair",
            StepMode::Output => "output",
        }
    }
}

/// Where phase 2 merges the sorted runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Phase2 {
    /// On the host, k-way, as the seed's CPU does.
    Host,
    /// On the simulated GPU: merge-path passes over the runs' key-pointer
    /// words with mergesort's `partition` and `merge` kernels (this
    /// configuration), a refinement of the prefixes the merge left tied,
    /// and one reorder of every record.
    Gpu(MergesortConfig),
}

impl Phase2 {
    /// The name the report's `config.phase2` shows.
    pub fn name(&self) -> &'static str {
        match self {
            Phase2::Host => "host-merge",
            Phase2::Gpu(_) => "gpu-merge",
        }
    }
}

/// What the user chooses for GPUTeraSort.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TeraSortOptions {
    /// Lanes per warp.
    pub warp: u32,
    /// Width of the experiment's keys in bits (32 or 64): the key's
    /// big-endian bytes open every record's key.
    pub key_bits: u32,
    /// Bytes per record.
    pub record_bytes: u32,
    /// Key bytes at the start of every record.
    pub key_bytes: u32,
    /// Records per phase-1 run; `None`: every record in one run (the
    /// simulated machine has no memory size to bound it).
    pub run_records: Option<u64>,
    /// The seed's thread-per-output steps instead of thread-per-pair.
    pub per_output: bool,
    /// Phase 2 on the simulated GPU instead of the host.
    pub gpu_merge: bool,
}

impl Default for TeraSortOptions {
    /// The records and runs of [`TeraSortConfig::new`] on 32-lane warps and
    /// 32-bit keys (the experiment layer's option table fills in the rest).
    fn default() -> TeraSortOptions {
        let d = TeraSortConfig::new(32, 32);
        TeraSortOptions {
            warp: d.warp,
            key_bits: d.key_bits,
            record_bytes: d.record_bytes,
            key_bytes: d.key_bytes,
            run_records: d.run_records,
            per_output: false,
            gpu_merge: false,
        }
    }
}

/// A checked GPUTeraSort configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TeraSortConfig {
    /// Lanes per warp.
    pub warp: u32,
    /// Width of the experiment's keys in bits.
    pub key_bits: u32,
    /// Bytes per record, a multiple of 4 (kernels copy 32-bit words).
    pub record_bytes: u32,
    /// Key bytes at the start of every record, `key_bits/8..=record_bytes`.
    pub key_bytes: u32,
    /// Records per run (`None`: one run of every record).
    pub run_records: Option<u64>,
    /// The step mode.
    pub mode: StepMode,
    /// Threads per block of every kernel: 8 warps, or fewer where the
    /// machine allows fewer threads per block.
    pub block_threads: u32,
    /// Where phase 2 merges the runs (with one run nothing merges).
    pub phase2: Phase2,
}

/// The most records one run holds: pointers are 32-bit and the all-ones
/// word marks padding.
pub const MAX_RUN_RECORDS: u64 = 1 << 31;

impl TeraSortConfig {
    /// A configuration of `warp`-lane warps with the Sort Benchmark's
    /// layout (100-byte records, 10-byte keys), one run, pair steps.
    pub fn new(warp: u32, key_bits: u32) -> TeraSortConfig {
        TeraSortConfig {
            warp,
            key_bits,
            record_bytes: 100,
            key_bytes: 10,
            run_records: None,
            mode: StepMode::Pair,
            block_threads: warp * 8,
            phase2: Phase2::Host,
        }
    }

    /// The 32-bit words of one record.
    pub fn record_words(&self) -> u32 {
        self.record_bytes / 4
    }

    /// Refinement rounds at most: one per 4 key bytes.
    pub fn max_rounds(&self) -> u32 {
        self.key_bytes.div_ceil(4)
    }

    /// The mask that keeps the key bytes of the big-endian word at key
    /// bytes `4*round..4*round+4` (bytes past the key read as zero).
    pub fn prefix_mask(&self, round: u32) -> u32 {
        let end = 4 * round + 4;
        if end <= self.key_bytes {
            u32::MAX
        } else {
            let missing = end - self.key_bytes;
            if missing >= 4 {
                0
            } else {
                u32::MAX << (8 * missing)
            }
        }
    }

    /// Every rule of the configuration that fails, at once.
    pub fn check(&self) -> Result<(), Vec<String>> {
        let mut errors = Vec::new();
        let (r, k) = (self.record_bytes, self.key_bytes);
        if r < 4 || r % 4 != 0 {
            errors.push(format!(
                "--record-bytes {r}: records must be a positive multiple of 4 bytes (the \
                 kernels move 32-bit words)"
            ));
        }
        if k == 0 {
            errors.push("--key-bytes 0: a key has at least one byte".to_string());
        }
        if k > r {
            errors.push(format!(
                "--key-bytes {k} is more than --record-bytes {r}: the key lies inside the record"
            ));
        }
        let width = self.key_bits / 8;
        if k < width {
            errors.push(format!(
                "--key-bytes {k}: {}-bit keys need at least {width} key bytes",
                self.key_bits
            ));
        }
        if let Some(run) = self.run_records
            && !(1..=MAX_RUN_RECORDS).contains(&run)
        {
            errors.push(format!(
                "--run-records {run}: a run holds 1..=2^31 records (32-bit pointers)"
            ));
        }
        if !self.warp.is_power_of_two() {
            errors.push(format!("warp width {} is not a power of two", self.warp));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// The configuration `opts` describe on a machine with `limits`, or every
/// violation at once.
pub fn configure(opts: &TeraSortOptions, limits: &Limits) -> Result<TeraSortConfig, Vec<String>> {
    let warp = opts.warp.max(1);
    let most = (limits.max_threads_per_block / warp).max(1);
    let cfg = TeraSortConfig {
        warp: opts.warp,
        key_bits: opts.key_bits,
        record_bytes: opts.record_bytes,
        key_bytes: opts.key_bytes,
        run_records: opts.run_records,
        mode: if opts.per_output {
            StepMode::Output
        } else {
            StepMode::Pair
        },
        block_threads: warp * most.min(8),
        phase2: Phase2::Host,
    };
    let mut errors = cfg.check().err().unwrap_or_default();
    let mut cfg = cfg;
    if opts.gpu_merge {
        // Mergesort's default tile on this machine, for 64-bit words.
        let merge = MergesortOptions {
            warp: opts.warp,
            block_threads: None,
            items_per_thread: None,
            key_bits: 64,
        };
        match mergesort::configure(&merge, limits) {
            Ok(m) => cfg.phase2 = Phase2::Gpu(m),
            Err(more) => errors.extend(
                more.into_iter()
                    .map(|e| format!("--terasort-merge gpu: the merge's tile: {e}")),
            ),
        }
    }
    if limits.max_threads_per_block < warp {
        errors.push(format!(
            "the machine allows {} threads per block, fewer than one {warp}-lane warp",
            limits.max_threads_per_block
        ));
    }
    if errors.is_empty() {
        Ok(cfg)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_zero_the_bytes_past_the_key() {
        let cfg = TeraSortConfig::new(32, 32);
        assert_eq!(cfg.prefix_mask(0), u32::MAX);
        assert_eq!(cfg.prefix_mask(1), u32::MAX);
        assert_eq!(cfg.prefix_mask(2), 0xFFFF_0000);
        assert_eq!(cfg.max_rounds(), 3);
    }

    #[test]
    fn every_violation_is_listed() {
        let cfg = TeraSortConfig {
            record_bytes: 6,
            key_bytes: 2,
            run_records: Some(0),
            ..TeraSortConfig::new(32, 64)
        };
        let errors = cfg.check().unwrap_err();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("--record-bytes 6"));
        assert!(errors[1].contains("--key-bytes 2"));
        assert!(errors[2].contains("--run-records 0"));
    }
}
