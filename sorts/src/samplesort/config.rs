//! The sample sort configuration and its rules: the seed's parameters
//! (`k` buckets, oversampling `a`, small-sort threshold `M`, `t` threads
//! and `l` keys per thread), the authors' replicated counters `C`, the key
//! width, and the machine limits every kernel's shared memory must fit.

use crate::Limits;

/// The authors' bucket count per distribution level (a compile-time `k`
/// in their code, a tree of depth 7).
pub const DEFAULT_BUCKETS: u32 = 128;
/// The oversampling the authors' 2010 code uses: its nominal `a = 32` is
/// halved whenever `M < 2^25`, that is always (`peers.md` 3.2).
pub const DEFAULT_OVERSAMPLE: u32 = 16;
/// Counter copies per bucket in `find_buckets` and `scatter`: the 2010
/// code's 4. Lanes `tid mod C` share a copy, so at most `W / C` lanes of
/// one warp can hit one counter; we keep the authors' value for every warp
/// width (so W = 64 shows the doubled contention) and let `--counter-copies`
/// scale it.
pub const DEFAULT_COUNTER_COPIES: u32 = 4;
/// The authors' threads per block (2010 code).
pub const DEFAULT_BLOCK_THREADS: u32 = 256;
/// The largest default small-sort threshold: 2^13 keys, the size above
/// which the authors' small sorter still splits a bucket inside its block;
/// below it one block sorts the bucket in shared memory. Our small sorter
/// is that shared-memory network alone, so `M` is also capped by one
/// block's shared memory (see [`SamplesortConfig::small_capacity`]).
pub const DEFAULT_SMALL_SIZE_CAP: u32 = 1 << 13;
/// The authors' rule for keys per thread: at least this many blocks per
/// `find_buckets` / `scatter` launch, `l = max(1, ceil(n / (450 t)))`.
pub const TARGET_BLOCKS: u64 = 450;
/// Counts each `scan` thread adds serially per tile: odd, so the threads'
/// reads of their consecutive counts (stride 5 words) hit distinct banks.
pub const SCAN_ITEMS: u32 = 5;

/// How a distribution level launches its `find`, `scan` and `scatter`
/// kernels over the level's large buckets.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum LevelLaunches {
    /// One chain for the whole level, as the authors' code runs it: every
    /// block of `find_buckets` and `scatter` looks its bucket up in a
    /// host-written table, and one scan covers every bucket's counts.
    #[default]
    Batched,
    /// One chain of `find_buckets`, `scan_sums`, `scan`, `scatter` (and a
    /// readback) per large bucket: the launch sequence the committed H200
    /// data (`hw/calib/suite_samplesort.txt`) were recorded with.
    PerBucket,
}

impl LevelLaunches {
    /// Both forms.
    pub const ALL: [LevelLaunches; 2] = [LevelLaunches::Batched, LevelLaunches::PerBucket];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            LevelLaunches::Batched => "batched",
            LevelLaunches::PerBucket => "per-bucket",
        }
    }
}

impl std::fmt::Display for LevelLaunches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the user chooses for sample sort (`None`: the default, fitted to
/// the machine).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SamplesortOptions {
    /// Lanes per warp (the machine's).
    pub warp: u32,
    /// Word width in bits: 32 or 64 (a key-value pair is one 64-bit word).
    pub key_bits: u32,
    /// Buckets per level `k`: a power of two, at least 2.
    pub buckets: Option<u32>,
    /// Oversampling `a`: the sample holds `a * k` keys.
    pub oversample: Option<u32>,
    /// Buckets of at most `M` keys go to the small sorter.
    pub small_size: Option<u32>,
    /// Counter copies per bucket `C`: a power of two.
    pub counter_copies: Option<u32>,
    /// Threads per block `t`.
    pub block_threads: Option<u32>,
    /// Keys per thread `l` in `find_buckets` and `scatter`; `None`: the
    /// authors' rule per launch ([`TARGET_BLOCKS`]).
    pub items_per_thread: Option<u32>,
    /// One launch chain per level or per large bucket.
    pub level_launches: LevelLaunches,
}

impl SamplesortOptions {
    /// Every option at its default on a machine of `warp` lanes.
    pub fn new(warp: u32, key_bits: u32) -> SamplesortOptions {
        SamplesortOptions {
            warp,
            key_bits,
            buckets: None,
            oversample: None,
            small_size: None,
            counter_copies: None,
            block_threads: None,
            items_per_thread: None,
            level_launches: LevelLaunches::Batched,
        }
    }
}

/// A complete sample sort configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SamplesortConfig {
    /// Lanes per warp.
    pub warp: u32,
    /// Word width in bits: 32 or 64.
    pub key_bits: u32,
    /// Buckets per level `k` (a power of two).
    pub buckets: u32,
    /// Oversampling `a`.
    pub oversample: u32,
    /// The small-sort threshold `M`.
    pub small_size: u32,
    /// Counter copies per bucket `C` (a power of two).
    pub counter_copies: u32,
    /// Threads per block `t` of every kernel (small sorts of small buckets
    /// use fewer: one thread per compare-exchange pair).
    pub block_threads: u32,
    /// Keys per thread `l`; `None`: chosen per launch.
    pub items_per_thread: Option<u32>,
    /// One launch chain per level or per large bucket.
    pub level_launches: LevelLaunches,
}

impl SamplesortConfig {
    /// The default configuration for `warp` lanes and `key_bits`-bit
    /// words on a machine with generous limits (tests).
    pub fn new(warp: u32, key_bits: u32) -> SamplesortConfig {
        SamplesortConfig {
            warp,
            key_bits,
            buckets: DEFAULT_BUCKETS,
            oversample: DEFAULT_OVERSAMPLE,
            small_size: DEFAULT_SMALL_SIZE_CAP,
            counter_copies: DEFAULT_COUNTER_COPIES,
            block_threads: DEFAULT_BLOCK_THREADS.max(warp),
            items_per_thread: None,
            level_launches: LevelLaunches::Batched,
        }
    }

    /// Bytes of one key word.
    pub fn key_bytes(&self) -> u32 {
        self.key_bits / 8
    }

    /// Slots of the sample's shared sort: `a * k` rounded up to a power of two.
    pub fn sample_slots(&self) -> u32 {
        (self.oversample * self.buckets).next_power_of_two()
    }

    /// Slots of the largest small sort: `M` rounded up to a power of two
    /// (the network's size), at least one warp's pairs.
    pub fn small_slots(&self) -> u32 {
        self.small_size
            .next_power_of_two()
            .max(self.min_small_slots())
    }

    /// The smallest small-sort network: two keys per lane of one warp.
    pub fn min_small_slots(&self) -> u32 {
        2 * self.warp
    }

    /// The largest `M` a block's shared memory sorts: the power of two of
    /// keys that fits `smem` bytes.
    pub fn small_capacity(key_bits: u32, smem: u32) -> u32 {
        let keys = smem / (key_bits / 8);
        if keys == 0 {
            0
        } else {
            1 << (31 - keys.leading_zeros())
        }
    }

    /// Shared bytes of `find_buckets` and `scatter`: the tree (node `j` at
    /// word `j`, `k` words) and the `k * C` counters.
    pub fn find_smem_bytes(&self, buckets: u32) -> u64 {
        u64::from(buckets) * u64::from(self.key_bytes())
            + u64::from(buckets) * u64::from(self.counter_copies) * 4
    }

    /// Shared bytes of `create_bst`: the padded sample.
    pub fn bst_smem_bytes(&self) -> u64 {
        u64::from(self.sample_slots()) * u64::from(self.key_bytes())
    }

    /// Shared bytes of `scan`: a tile of counts and the thread sums.
    pub fn scan_smem_bytes(&self) -> u64 {
        u64::from(self.block_threads) * u64::from(SCAN_ITEMS + 1) * 4
    }

    /// Shared bytes of the largest `small_sort`.
    pub fn small_smem_bytes(&self) -> u64 {
        u64::from(self.small_slots()) * u64::from(self.key_bytes())
    }

    /// `lg k`: the tree's depth.
    pub fn depth(&self) -> u32 {
        self.buckets.trailing_zeros()
    }

    /// Keys per thread for a launch over `n` keys (one bucket, or every
    /// bucket of a batched level): the option, or the authors' rule (at
    /// least [`TARGET_BLOCKS`] blocks per launch).
    pub fn items_for(&self, n: u64) -> u32 {
        self.items_per_thread.unwrap_or_else(|| {
            let per_block = TARGET_BLOCKS * u64::from(self.block_threads);
            n.div_ceil(per_block).clamp(1, 1 << 16) as u32
        })
    }

    /// Every violated rule (an empty list: the configuration is valid).
    pub fn check(&self, limits: &Limits) -> Vec<String> {
        let mut problems = Vec::new();
        let (k, a, c, t, w) = (
            self.buckets,
            self.oversample,
            self.counter_copies,
            self.block_threads,
            self.warp,
        );
        let smem = u64::from(limits.smem_bytes_per_block);
        if self.key_bits != 32 && self.key_bits != 64 {
            problems.push(format!("--key-bits {}: use 32 or 64", self.key_bits));
            return problems;
        }
        if k < 2 || !k.is_power_of_two() || k > 1 << 16 {
            problems.push(format!(
                "--buckets {k}: must be a power of two from 2 to 65536 (the splitters form a \
                 complete binary tree)"
            ));
        }
        if a == 0 || a > 1 << 16 {
            problems.push(format!(
                "--oversample {a}: use 1 to 65536 sample keys per bucket"
            ));
        }
        if c == 0 || !c.is_power_of_two() || c > t {
            problems.push(format!(
                "--counter-copies {c}: must be a power of two from 1 to the block's {t} threads \
                 (thread t counts into copy t mod C)"
            ));
        }
        if t == 0 || !t.is_power_of_two() || !t.is_multiple_of(w) {
            problems.push(format!(
                "--block-threads {t}: must be a power of two and a multiple of the warp ({w} \
                 lanes)"
            ));
        }
        if t > limits.max_threads_per_block {
            problems.push(format!(
                "--block-threads {t}: over the machine's {} threads per block",
                limits.max_threads_per_block
            ));
        }
        if let Some(l) = self.items_per_thread
            && (l == 0 || l > 1 << 16)
        {
            problems.push(format!(
                "--items-per-thread {l}: use 1 to 65536 keys per thread"
            ));
        }
        if self.small_size == 0 {
            problems.push("--small-size 0: buckets of at least one key are sorted".to_string());
        }
        if !problems.is_empty() {
            return problems;
        }
        if self.find_smem_bytes(k) > smem {
            problems.push(format!(
                "--buckets {k} --counter-copies {c}: the tree and counters of `find_buckets` need \
                 {} bytes of shared memory, over the machine's {smem} per block (fewer buckets or \
                 copies fit)",
                self.find_smem_bytes(k)
            ));
        }
        if self.bst_smem_bytes() > smem {
            problems.push(format!(
                "--oversample {a} --buckets {k}: the sample of {} keys (padded to {}) needs {} \
                 bytes of shared memory in `create_bst`, over the machine's {smem} per block",
                a * k,
                self.sample_slots(),
                self.bst_smem_bytes()
            ));
        }
        if self.scan_smem_bytes() > smem {
            problems.push(format!(
                "--block-threads {t}: `scan` needs {} bytes of shared memory, over the machine's \
                 {smem} per block",
                self.scan_smem_bytes()
            ));
        }
        if self.small_smem_bytes() > smem {
            problems.push(format!(
                "--small-size {}: the small sorter holds a bucket in one block's shared memory \
                 ({} slots of {} bytes = {} bytes), over the machine's {smem} per block; at most \
                 {} keys fit",
                self.small_size,
                self.small_slots(),
                self.key_bytes(),
                self.small_smem_bytes(),
                Self::small_capacity(self.key_bits, limits.smem_bytes_per_block)
            ));
        }
        problems
    }
}

/// The configuration `opts` describe on a machine with `limits`, or every
/// violation at once. Options left out take the authors' values, fitted to
/// the machine: `t` halves to the threads per block, `k` halves until the
/// tree, counters and sample fit one block's shared memory, and `M` is
/// [`DEFAULT_SMALL_SIZE_CAP`] or the largest bucket one block sorts.
pub fn configure(
    opts: &SamplesortOptions,
    limits: &Limits,
) -> Result<SamplesortConfig, Vec<String>> {
    let warp = opts.warp;
    let kb = opts.key_bits.max(8) / 8;
    let smem = u64::from(limits.smem_bytes_per_block);
    let block_threads = opts.block_threads.unwrap_or_else(|| {
        let mut t = DEFAULT_BLOCK_THREADS.max(warp);
        while t > warp && t > limits.max_threads_per_block {
            t /= 2;
        }
        t
    });
    let counter_copies = opts.counter_copies.unwrap_or(DEFAULT_COUNTER_COPIES);
    let oversample = opts.oversample.unwrap_or(DEFAULT_OVERSAMPLE);
    let buckets = opts.buckets.unwrap_or_else(|| {
        let mut k = DEFAULT_BUCKETS;
        let fits = |k: u32| {
            let find = u64::from(k) * u64::from(kb + 4 * counter_copies);
            let sample =
                u64::from(oversample.saturating_mul(k).next_power_of_two()) * u64::from(kb);
            find <= smem && sample <= smem
        };
        while k > 2 && !fits(k) {
            k /= 2;
        }
        k
    });
    let small_size = opts.small_size.unwrap_or_else(|| {
        DEFAULT_SMALL_SIZE_CAP
            .min(SamplesortConfig::small_capacity(
                opts.key_bits.max(8),
                limits.smem_bytes_per_block,
            ))
            .max(1)
    });
    let cfg = SamplesortConfig {
        warp,
        key_bits: opts.key_bits,
        buckets,
        oversample,
        small_size,
        counter_copies,
        block_threads,
        items_per_thread: opts.items_per_thread,
        level_launches: opts.level_launches,
    };
    let problems = cfg.check(limits);
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(problems)
    }
}
