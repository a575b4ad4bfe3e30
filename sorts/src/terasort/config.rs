//! GPUTeraSort's options and their check: the record layout (`R`-byte
//! records with `K`-byte keys), the run size, the network (fused or the
//! seed's steps) and the step mode, with every violation listed at once.

use crate::Limits;
use crate::bitonic::{self, BitonicConfig, BitonicOptions};
use crate::mergesort::{self, MergesortConfig, MergesortOptions};

/// How phase 1 (and the refinement) sorts the key-pointer words.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Network {
    /// The bitonic sort's fused kernels for 64-bit words (this
    /// configuration, `sorts/src/bitonic`): the steps whose partners lie in
    /// one block's tile run in shared memory and registers inside one
    /// launch, only the larger distances are global launches. The same
    /// comparator network as the seed's, mapped onto a GPU with shared
    /// memory.
    Fused(BitonicConfig),
    /// The seed's network literally: one launch per step through global
    /// memory (the 2005 GPU had no shared memory), in the step mode.
    Steps,
}

impl Network {
    /// The name reports and `--terasort-network` use (`fused` or `steps`).
    pub const fn name(&self) -> &'static str {
        match self {
            Network::Fused(_) => "fused",
            Network::Steps => "steps",
        }
    }
}

/// The fused network's vector length: 16 words per vector, the longest
/// the bitonic sort has. At 1M words on `h200` (`--algo bitonic --key-bits
/// 64`) it makes the tile 8,192 words (G = 256, 64 KB of shared memory),
/// so 36 launches instead of the 55 of `L = 4`, 17.7 M warp instructions
/// instead of 29.8 M and 713 K cycles instead of 941 K.
pub const FUSED_VECTOR: u32 = 16;

/// The fused network's bitonic options for `warp`-lane warps: vectors of
/// [`FUSED_VECTOR`] 64-bit key-pointer words, and the bitonic sort's
/// defaults otherwise (block halved until the tile fits the machine,
/// swizzle).
pub fn fused_options(warp: u32) -> BitonicOptions {
    BitonicOptions {
        warp,
        vector: FUSED_VECTOR,
        key_bits: 64,
        ..BitonicOptions::default()
    }
}

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
    /// The seed's literal network, one launch per step, instead of the
    /// fused kernels.
    pub steps: bool,
    /// The seed's thread-per-output steps instead of thread-per-pair
    /// (steps only).
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
            steps: false,
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
    /// The network that sorts the key-pointer words.
    pub network: Network,
    /// The step mode of [`Network::Steps`].
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
    /// layout (100-byte records, 10-byte keys), one run, the fused network
    /// with the bitonic sort's vector length and 256-thread blocks
    /// (unchecked against a machine).
    pub fn new(warp: u32, key_bits: u32) -> TeraSortConfig {
        let o = fused_options(warp);
        let fused = BitonicConfig {
            key_bits: 64,
            ..BitonicConfig::new(warp, o.vector, bitonic::config::DEFAULT_BLOCK_THREADS)
        };
        TeraSortConfig {
            warp,
            key_bits,
            record_bytes: 100,
            key_bytes: 10,
            run_records: None,
            network: Network::Fused(fused),
            mode: StepMode::Pair,
            block_threads: warp * 8,
            phase2: Phase2::Host,
        }
    }

    /// The 32-bit words of one record.
    pub fn record_words(&self) -> u32 {
        self.record_bytes / 4
    }

    /// The words a refinement segment of `len` tied words takes: the next
    /// power of two, and for the fused network at least one vector pair
    /// (the smallest span its kernels sort).
    pub fn segment(&self, len: usize) -> usize {
        match &self.network {
            Network::Steps => len.next_power_of_two(),
            Network::Fused(b) => len
                .next_power_of_two()
                .max(bitonic::schedule::min_span(b) as usize),
        }
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
        // No record at all (`--record-bytes 0`) is one mistake: the key is
        // not also said to overflow it.
        if k > r && r >= 4 {
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
            errors.push(format!(
                "--warp {}: GPUTeraSort's warp width is a power of two",
                self.warp
            ));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// The fused network's bitonic configuration on a machine with `limits`:
/// vectors of [`FUSED_VECTOR`] words, halved while the bitonic kernels do
/// not fit (a machine with few registers per thread or little shared
/// memory), or the problems of the shortest vector.
fn fused_config(warp: u32, limits: &Limits) -> Result<BitonicConfig, Vec<String>> {
    let mut opts = fused_options(warp);
    loop {
        let problems = match bitonic::configure(&opts, limits) {
            Ok(b) => {
                let over: Vec<String> = bitonic::generate(&b)
                    .iter()
                    .filter(|k| k.regs.words_per_thread() > limits.max_regs_per_thread)
                    .map(|k| {
                        format!(
                            "--vector {}: `{}` needs {} registers per thread, over the machine's {}",
                            b.vector,
                            k.name,
                            k.regs.words_per_thread(),
                            limits.max_regs_per_thread
                        )
                    })
                    .collect();
                if over.is_empty() {
                    return Ok(b);
                }
                over
            }
            Err(problems) => problems,
        };
        if opts.vector == 1 {
            return Err(problems);
        }
        opts.vector /= 2;
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
        network: Network::Steps,
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
    if !opts.steps {
        if opts.per_output {
            errors.push(
                "--per-output: one thread per output element is a form of the GPUTeraSort paper's steps; \
                 give --terasort-network steps with it"
                    .to_string(),
            );
        }
        match fused_config(opts.warp, limits) {
            Ok(b) => cfg.network = Network::Fused(b),
            Err(more) => errors.extend(
                more.into_iter()
                    .map(|e| format!("--terasort-network fused: the bitonic tile: {e}")),
            ),
        }
    }
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
    fn the_fused_vector_shortens_to_fit_a_small_machine() {
        let opts = TeraSortOptions {
            warp: 8,
            key_bits: 32,
            record_bytes: 16,
            key_bytes: 10,
            run_records: None,
            steps: false,
            per_output: false,
            gpu_merge: false,
        };
        let mut limits = Limits {
            warp_size: 8,
            smem_banks: 32,
            smem_bytes_per_block: 227 * 1024,
            max_threads_per_block: 1024,
            max_warps_per_sm: 64,
            regs_per_sm: 65536,
            reg_alloc_unit: 256,
            max_regs_per_thread: 255,
            reg_words_beyond_live: 255,
            reg_words_beyond_live_b128: 0,
        };
        let vector = |l: &Limits| match configure(&opts, l).unwrap().network {
            Network::Fused(b) => b.vector,
            Network::Steps => unreachable!("fused by default"),
        };
        assert_eq!(vector(&limits), FUSED_VECTOR);
        // 64-bit vectors of 16 words need more than 64 registers.
        limits.max_regs_per_thread = 64;
        assert!(vector(&limits) < FUSED_VECTOR);
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
