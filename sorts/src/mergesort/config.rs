//! The mergesort configuration and its rules: the block size `NT` (threads)
//! and the keys per thread `VT` moderngpu's mergesort is parameterised by,
//! the key width, and the machine limits the tile must fit.

use crate::Limits;

/// moderngpu's block size for keys on current GPUs (its launch box for
/// sm_90): 128 threads.
pub const DEFAULT_BLOCK_THREADS: u32 = 128;
/// moderngpu's keys per thread on current GPUs: 11 (odd, so the transposes
/// between blocked and striped order are free of bank conflicts).
pub const DEFAULT_ITEMS_PER_THREAD: u32 = 11;
/// Threads per `partition` block, as the seed launches it (clamped to the
/// machine's limit).
pub const PARTITION_THREADS: u32 = 64;

/// What the user chooses for mergesort (`Default`: every choice left to
/// the algorithm; the warp and key width are the caller's to set).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MergesortOptions {
    /// Lanes per warp (the machine's).
    pub warp: u32,
    /// Threads per block `NT`; `None`: [`DEFAULT_BLOCK_THREADS`], clamped
    /// to the machine's threads per block.
    pub block_threads: Option<u32>,
    /// Keys per thread `VT`; `None`: [`DEFAULT_ITEMS_PER_THREAD`].
    pub items_per_thread: Option<u32>,
    /// Word width in bits: 32 or 64 (a key-value pair is one 64-bit word).
    pub key_bits: u32,
}

/// A complete mergesort configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MergesortConfig {
    /// Lanes per warp.
    pub warp: u32,
    /// Threads per `blocksort` and `merge` block (`NT`).
    pub block_threads: u32,
    /// Keys per thread (`VT`).
    pub items_per_thread: u32,
    /// Word width in bits: 32 or 64.
    pub key_bits: u32,
    /// Threads per `partition` block.
    pub partition_threads: u32,
}

impl MergesortConfig {
    /// Keys per tile, `NV = NT * VT`.
    pub fn tile_keys(&self) -> u32 {
        self.block_threads * self.items_per_thread
    }

    /// Bytes of one key word.
    pub fn key_bytes(&self) -> u32 {
        self.key_bits / 8
    }

    /// Shared-memory words of a `blocksort` or `merge` block: moderngpu's
    /// `NT * (VT + 1)` (the serial merge's look-ahead may read past the
    /// tile), and at least `NV + VT` so a thread whose outputs all lie past
    /// the tile's count still reads inside the block's memory.
    pub fn smem_words(&self) -> u32 {
        let (nt, vt) = (self.block_threads, self.items_per_thread);
        (nt * (vt + 1)).max(nt * vt + vt)
    }

    /// Shared-memory bytes of a `blocksort` or `merge` block.
    pub fn smem_bytes(&self) -> u64 {
        u64::from(self.smem_words()) * u64::from(self.key_bytes())
    }

    /// A conservative estimate of the registers one thread of `blocksort`
    /// needs (the kernel's own count is checked at launch): VT keys plus
    /// the merge state.
    pub fn regs_estimate(&self) -> u32 {
        self.items_per_thread * (self.key_bits / 32) + 24
    }
}

/// The configuration `opts` describe on a machine with `limits`, or every
/// violation at once.
pub fn configure(opts: &MergesortOptions, limits: &Limits) -> Result<MergesortConfig, Vec<String>> {
    let mut problems = Vec::new();
    let warp = opts.warp;
    let vt = opts.items_per_thread.unwrap_or(DEFAULT_ITEMS_PER_THREAD);
    let nt = opts.block_threads.unwrap_or_else(|| {
        // The default, clamped to the machine: halved (staying a power of
        // two and at least one warp) until a block fits its threads and
        // shared memory per block.
        let mut nt = DEFAULT_BLOCK_THREADS.max(warp);
        let smem = |nt: u32| {
            let words = u64::from(nt) * u64::from(vt + 1) + u64::from(vt);
            words * u64::from(opts.key_bits / 8)
        };
        while nt > warp
            && (nt > limits.max_threads_per_block
                || smem(nt) > u64::from(limits.smem_bytes_per_block))
        {
            nt /= 2;
        }
        nt
    });
    if vt == 0 {
        problems.push("--items-per-thread 0: each thread sorts at least one key".to_string());
    }
    if vt > 64 {
        problems.push(format!(
            "--items-per-thread {vt}: at most 64 keys per thread (the keys live in registers)"
        ));
    }
    if nt == 0 || !nt.is_power_of_two() || !nt.is_multiple_of(warp) {
        problems.push(format!(
            "--block-threads {nt}: must be a power of two and a multiple of the warp ({warp} \
             lanes), as moderngpu's merge rounds require"
        ));
    }
    if nt > limits.max_threads_per_block {
        problems.push(format!(
            "--block-threads {nt}: over the machine's {} threads per block",
            limits.max_threads_per_block
        ));
    }
    if opts.key_bits != 32 && opts.key_bits != 64 {
        problems.push(format!("--key-bits {}: use 32 or 64", opts.key_bits));
    }
    let cfg = MergesortConfig {
        warp,
        block_threads: nt,
        items_per_thread: vt,
        key_bits: opts.key_bits,
        partition_threads: PARTITION_THREADS.min(limits.max_threads_per_block),
    };
    if problems.is_empty() {
        if cfg.smem_bytes() > u64::from(limits.smem_bytes_per_block) {
            problems.push(format!(
                "a tile of {nt} threads x {vt} keys (--block-threads, --items-per-thread) needs {} bytes of shared \
                 memory, over the machine's {} per block",
                cfg.smem_bytes(),
                limits.smem_bytes_per_block
            ));
        }
        if u64::from(nt) * u64::from(vt) >= 1 << 24 {
            problems.push(format!(
                "--block-threads {nt} --items-per-thread {vt}: tile too large"
            ));
        }
    }
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(problems)
    }
}
