//! The bitonic sort's options and the configuration they describe on one
//! machine, with every violation of the machine's limits listed at once.

use crate::Limits;

/// The seed's work-group size G (its address rules imply 2G = 512 vectors).
pub const DEFAULT_BLOCK_THREADS: u32 = 256;

/// The vector lengths `--vector` takes (OpenCL's vector widths that are
/// powers of two; the tile must stay a power of two).
pub const VECTORS: [u32; 5] = [1, 2, 4, 8, 16];

/// What the user chooses for the bitonic sort.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitonicOptions {
    /// Lanes per warp (the machine's).
    pub warp: u32,
    /// Keys per vector `L`: one thread acts as `L` comparators.
    pub vector: u32,
    /// Threads per block `G`; `None`: the seed's 256, halved until the tile
    /// fits the machine.
    pub block_threads: Option<u32>,
    /// The seed's method (head, global steps, tail); `false`: the plain
    /// bitonic sort, one launch per step through global memory.
    pub fused: bool,
    /// Swap the store order of the back half of each group of lanes served
    /// together (the seed's claims 6 and 7) when writing back to shared
    /// memory.
    pub swizzle: bool,
    /// Word width in bits (32, or 64 for 64-bit keys and key-value pairs).
    pub key_bits: u32,
}

impl Default for BitonicOptions {
    fn default() -> BitonicOptions {
        BitonicOptions {
            warp: 32,
            vector: 4,
            block_threads: None,
            fused: true,
            swizzle: true,
            key_bits: 32,
        }
    }
}

/// A complete, checked bitonic configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitonicConfig {
    /// Lanes per warp.
    pub warp: u32,
    /// Keys per vector `L` (a power of two, 1..=16).
    pub vector: u32,
    /// Threads per block `G` (a power of two, a multiple of the warp).
    pub block_threads: u32,
    /// The seed's method, or the plain one-launch-per-step sort.
    pub fused: bool,
    /// The store-order swizzle of shared write-backs.
    pub swizzle: bool,
    /// Word width in bits.
    pub key_bits: u32,
    /// Shared-memory banks (4 bytes each): they decide how many lanes one
    /// wavefront serves, the group the swizzle works on.
    pub banks: u32,
}

impl BitonicConfig {
    /// A configuration with the defaults for `warp` lanes (unchecked).
    pub fn new(warp: u32, vector: u32, block_threads: u32) -> BitonicConfig {
        BitonicConfig {
            warp,
            vector,
            block_threads,
            fused: true,
            swizzle: true,
            key_bits: 32,
            banks: 32,
        }
    }

    /// Bytes per key word.
    pub fn key_bytes(&self) -> u32 {
        self.key_bits / 8
    }

    /// Bytes per vector.
    pub fn vector_bytes(&self) -> u32 {
        self.vector * self.key_bytes()
    }

    /// Bytes of one access to a vector: the widest the IR has (16), or the
    /// whole vector when it is smaller.
    pub fn chunk_bytes(&self) -> u32 {
        self.vector_bytes().min(16)
    }

    /// Accesses per vector.
    pub fn chunks(&self) -> u32 {
        self.vector_bytes() / self.chunk_bytes()
    }

    /// Keys per block tile `T = 2 G L`.
    pub fn tile(&self) -> u64 {
        2 * u64::from(self.block_threads) * u64::from(self.vector)
    }

    /// Shared-memory bytes of the tile kernels.
    pub fn smem_bytes(&self) -> u64 {
        self.tile() * u64::from(self.key_bytes())
    }

    /// Lanes one shared wavefront serves for a vector access (all banks
    /// of 4 bytes deliver one word each), at most the warp.
    pub fn lanes_served(&self) -> u32 {
        (self.banks * 4 / self.chunk_bytes()).clamp(1, self.warp)
    }

    /// The rules that do not depend on the machine, every violation.
    pub fn check_rules(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !VECTORS.contains(&self.vector) {
            problems.push(format!(
                "--vector {}: the vector length must be 1, 2, 4, 8 or 16",
                self.vector
            ));
        }
        if self.key_bits != 32 && self.key_bits != 64 {
            problems.push(format!(
                "--key-bits {}: bitonic sorts 32- or 64-bit words",
                self.key_bits
            ));
        }
        let g = self.block_threads;
        if g == 0 || self.warp == 0 || !g.is_multiple_of(self.warp) {
            problems.push(format!(
                "--block-threads {g}: bitonic needs a multiple of the warp ({} lanes)",
                self.warp
            ));
        }
        if !g.is_power_of_two() {
            problems.push(format!(
                "--block-threads {g}: bitonic needs a power of two (the tile 2*G*L is one merge span)"
            ));
        }
        problems
    }
}

/// The configuration `opts` describe on a machine with `limits`, or every
/// violation at once. Without `--block-threads`, the block is the seed's
/// 256 threads, halved (down to one warp) until it fits the machine's
/// threads, shared memory and registers per block.
pub fn configure(opts: &BitonicOptions, limits: &Limits) -> Result<BitonicConfig, Vec<String>> {
    let mut cfg = BitonicConfig {
        warp: opts.warp,
        vector: opts.vector,
        block_threads: opts.block_threads.unwrap_or(DEFAULT_BLOCK_THREADS),
        fused: opts.fused,
        swizzle: opts.swizzle,
        key_bits: opts.key_bits,
        banks: limits.smem_banks,
    };
    if opts.block_threads.is_none() {
        let fits = |c: &BitonicConfig| machine_problems(c, limits).is_empty();
        while cfg.block_threads > opts.warp.max(1) && (!cfg.check_rules().is_empty() || !fits(&cfg))
        {
            cfg.block_threads /= 2;
        }
    }
    let mut problems = cfg.check_rules();
    if problems.is_empty() {
        problems = machine_problems(&cfg, limits);
    }
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(problems)
    }
}

/// The machine's limits `cfg` violates (a configuration whose rules hold).
fn machine_problems(cfg: &BitonicConfig, limits: &Limits) -> Vec<String> {
    let mut problems = Vec::new();
    let g = cfg.block_threads;
    if g > limits.max_threads_per_block {
        problems.push(format!(
            "--block-threads {g}: over the machine's {} threads per block",
            limits.max_threads_per_block
        ));
    }
    if cfg.warp != limits.warp_size {
        problems.push(format!(
            "the machine has {}-lane warps but bitonic was asked for {}",
            limits.warp_size, cfg.warp
        ));
    }
    if cfg.fused && cfg.smem_bytes() > u64::from(limits.smem_bytes_per_block) {
        problems.push(format!(
            "--vector {} --block-threads {g}: a tile of {} {}-bit keys needs {} bytes of shared \
             memory, over the machine's {} per block",
            cfg.vector,
            cfg.tile(),
            cfg.key_bits,
            cfg.smem_bytes(),
            limits.smem_bytes_per_block
        ));
    }
    for k in super::generate(cfg) {
        let words = k.regs.words_per_thread();
        if words > kernels_ir::verify::MAX_WORDS_PER_THREAD {
            problems.push(format!(
                "--vector {}: `{}` needs {words} register words per thread, over the limit of {}",
                cfg.vector,
                k.name,
                kernels_ir::verify::MAX_WORDS_PER_THREAD
            ));
        } else if !limits.kernel_block_fits(u64::from(g), &k) {
            problems.push(format!(
                "--block-threads {g}: `{}` uses {} registers per thread ({words} declared), a \
                 block does not fit the SM's {} registers",
                k.name,
                limits.allocated_words(&k),
                limits.regs_per_sm
            ));
        }
    }
    problems
}
