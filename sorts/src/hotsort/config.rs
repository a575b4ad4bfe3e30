//! The HotSort configuration: slab shape, block size, shared-memory layout,
//! warp-merge exchange, and the derived sizes every generator and the host
//! schedule share.

use std::fmt;

/// How keys are placed in shared memory (see [`super::layout`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Logical word `a` is physical word `a`.
    Plain,
    /// One pad word after every `banks` words (the patent's COLUMN-PAD 1).
    Pad,
    /// Within each `banks`-word row, the column is XOR-ed with a hash of the
    /// row (the patent's XOR hashing; no extra memory).
    Xor,
}

impl Layout {
    /// Every layout, in a fixed order.
    pub const ALL: [Layout; 3] = [Layout::Plain, Layout::Pad, Layout::Xor];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Plain => "plain",
            Layout::Pad => "pad",
            Layout::Xor => "xor",
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the lanes of one warp exchange keys in the warp-level flip and half
/// merges.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MergeExchange {
    /// `shfl.xor`: one shuffle per register and stage.
    Shuffle,
    /// Through the warp's shared memory: rows are stored, read back
    /// transposed so one lane holds a whole merge unit, merged in registers,
    /// written back (the patent's shared-memory warp merge).
    Shared,
}

impl MergeExchange {
    /// Both exchanges.
    pub const ALL: [MergeExchange; 2] = [MergeExchange::Shuffle, MergeExchange::Shared];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            MergeExchange::Shuffle => "shuffle",
            MergeExchange::Shared => "shared",
        }
    }
}

impl fmt::Display for MergeExchange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the host schedules the merges after `bs` (see [`super::schedule`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// As the shipped HotSort does it: each `bc` launch is sized to the
    /// span left to clean (1, 2, 4, ... up to `block_slabs` warps); with
    /// [`HotSortConfig::new`]'s `fm_slabs` 8 and `hm_slabs` 16, `fm`
    /// threads take half a 16-slab block's slabs of each run and `hm`
    /// threads a block's, as the shipped NVIDIA configuration does.
    Sized,
    /// Every `bc` launch a full block of `block_slabs` warps, `fm` threads
    /// 4 slabs of each run and `hm` threads 8 slabs: the schedule the
    /// committed H200 calibration data (`hw/data/calib`) were measured with.
    FullBlock,
}

impl Schedule {
    /// Both schedules.
    pub const ALL: [Schedule; 2] = [Schedule::Sized, Schedule::FullBlock];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            Schedule::Sized => "sized",
            Schedule::FullBlock => "full-block",
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One configuration of the HotSort kernels.
///
/// A *slab* is `warp` lanes by `slab_height` registers of keys; a block of
/// the block sort holds `block_slabs` slabs, one per warp.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HotSortConfig {
    /// Lanes per warp `W`: a power of two in 4..=64.
    pub warp: u32,
    /// Key registers per lane `H` (the slab height): 1..=[`HotSortConfig::MAX_SLAB_HEIGHT`],
    /// any value, not only powers of two.
    pub slab_height: u32,
    /// Slabs (warps) per block in `bs` and `bc`: a power of two with
    /// `warp * block_slabs <= max_block_threads` and the block's keys within
    /// `smem_bytes_max`.
    pub block_slabs: u32,
    /// Shared-memory layout of the merges through shared memory.
    pub layout: Layout,
    /// Lane exchange of the warp merges.
    pub merge: MergeExchange,
    /// Key width in bits: 32 or 64.
    pub key_bits: u32,
    /// A 32-bit value carried with each 64-bit key: in its own register
    /// beside the key's, moved by every compare-exchange, shuffle and
    /// shared-memory exchange, loaded from and stored to its own buffer
    /// (the kernels' second parameter, `vals`). A 32-bit key with its value
    /// needs none of this: it sorts as one 64-bit word (`key_bits` 64).
    pub values: bool,
    /// Shared-memory banks the layouts are designed for (a power of two).
    pub banks: u32,
    /// Shared memory one block may use, in bytes.
    pub smem_bytes_max: u32,
    /// Slabs of each half that one `fm` thread loads (a power of two): the
    /// streaming flip merge half-cleans this many rows in registers.
    pub fm_slabs: u32,
    /// Slabs one `hm` thread loads (a power of two, at least 2).
    pub hm_slabs: u32,
    /// How the merges after `bs` are launched.
    pub schedule: Schedule,
    /// Threads one block may have (the machine's limit): bounds the block
    /// sort's blocks and the shape of the streaming `fm`/`hm` and `fill`
    /// blocks.
    pub max_block_threads: u32,
}

pub use crate::ConfigError;

impl HotSortConfig {
    /// The tallest slab the generators accept; [`super::validate`] also
    /// checks the generated kernels against the IR's register limit.
    pub const MAX_SLAB_HEIGHT: u32 = 128;

    /// The default configuration for a warp width and slab height: the real
    /// targets' block of 16 warps, cut down until the block fits 1024 threads
    /// and 48 KiB of shared memory (the classic static limit HotSort used).
    pub fn new(warp: u32, slab_height: u32) -> HotSortConfig {
        let smem_bytes_max = 48 * 1024;
        let mut block_slabs = 16u32;
        let key_bytes = 4u64;
        while block_slabs > 1
            && (u64::from(warp) * u64::from(block_slabs) > 1024
                || u64::from(warp) * u64::from(slab_height) * u64::from(block_slabs) * key_bytes
                    > u64::from(smem_bytes_max))
        {
            block_slabs /= 2;
        }
        HotSortConfig {
            warp,
            slab_height,
            block_slabs,
            layout: Layout::Pad,
            merge: MergeExchange::Shuffle,
            key_bits: 32,
            values: false,
            banks: 32,
            smem_bytes_max,
            fm_slabs: 8,
            hm_slabs: 16,
            schedule: Schedule::Sized,
            max_block_threads: 1024,
        }
    }

    /// Keys in one slab, `W * H`.
    pub fn slab_keys(&self) -> u32 {
        self.warp * self.slab_height
    }

    /// Keys sorted by one `bs` block.
    pub fn block_keys(&self) -> u32 {
        self.slab_keys() * self.block_slabs
    }

    /// Bytes per key.
    pub fn key_bytes(&self) -> u32 {
        self.key_bits / 8
    }

    /// The slabs one `fm` thread loads from each half, for runs of at least
    /// `block_slabs` slabs.
    pub fn fm_rows(&self) -> u32 {
        self.fm_slabs.min(self.block_slabs)
    }

    /// The slabs one `hm` thread loads: `hm` runs only on spans of at least
    /// `2 * block_slabs` slabs.
    pub fn hm_rows(&self) -> u32 {
        self.hm_slabs.min(2 * self.block_slabs)
    }

    /// Checks every rule that needs no generated kernel (shapes, sizes, the
    /// shared-memory budget) and reports every violation at once. The
    /// register budget depends on the generated code: [`super::validate`]
    /// runs both.
    pub fn check_rules(&self) -> Result<(), Vec<ConfigError>> {
        let mut errors = Vec::new();
        let mut bad = |msg: String| errors.push(ConfigError(msg));
        if !self.warp.is_power_of_two() || !(4..=64).contains(&self.warp) {
            bad(format!(
                "--warp {}: HotSort's warp width is a power of two in 4..=64",
                self.warp
            ));
        }
        if !(1..=Self::MAX_SLAB_HEIGHT).contains(&self.slab_height) {
            bad(format!(
                "slab height {} is outside 1..={}",
                self.slab_height,
                Self::MAX_SLAB_HEIGHT
            ));
        }
        if !self.block_slabs.is_power_of_two() {
            bad(format!(
                "block slabs {} is not a power of two",
                self.block_slabs
            ));
        } else if u64::from(self.warp) * u64::from(self.block_slabs)
            > u64::from(self.max_block_threads)
        {
            bad(format!(
                "a block of {} slabs of {} lanes has {} threads, more than {}",
                self.block_slabs,
                self.warp,
                self.warp * self.block_slabs,
                self.max_block_threads
            ));
        }
        if self.key_bits != 32 && self.key_bits != 64 {
            bad(format!("key bits {} is not 32 or 64", self.key_bits));
        } else if self.values && self.key_bits != 64 {
            bad(format!(
                "a separate value register is for 64-bit keys, not {}-bit ones (a 32-bit key \
                 and its value sort as one 64-bit word)",
                self.key_bits
            ));
        }
        if !self.banks.is_power_of_two() || !(1..=1024).contains(&self.banks) {
            bad(format!(
                "bank count {} is not a power of two in 1..=1024",
                self.banks
            ));
        }
        if !self.fm_slabs.is_power_of_two() {
            bad(format!("fm slabs {} is not a power of two", self.fm_slabs));
        }
        if !self.hm_slabs.is_power_of_two() || self.hm_slabs < 2 {
            bad(format!(
                "hm slabs {} is not a power of two of at least 2",
                self.hm_slabs
            ));
        }
        if errors.is_empty() {
            let smem = super::layout::SmemLayout::new(self).block_bytes(self.block_slabs);
            if smem > u64::from(self.smem_bytes_max) {
                errors.push(ConfigError(format!(
                    "a block of {} slabs needs {smem} bytes of shared memory with the {} \
                     layout, more than the {} allowed",
                    self.block_slabs, self.layout, self.smem_bytes_max
                )));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

impl Default for HotSortConfig {
    /// The NVIDIA target of the real HotSort: 32 lanes, 16 keys per lane,
    /// 16 warps per block.
    fn default() -> HotSortConfig {
        HotSortConfig::new(32, 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_real_targets() {
        let c = HotSortConfig::default();
        assert_eq!((c.warp, c.slab_height, c.block_slabs), (32, 16, 16));
        assert_eq!(c.block_keys(), 8192);
        assert!(c.check_rules().is_ok());
        // 64 lanes x 16 keys x 16 slabs would need 64 KiB: cut to 8 slabs.
        assert_eq!(HotSortConfig::new(64, 16).block_slabs, 8);
        assert_eq!(HotSortConfig::new(64, 1).block_slabs, 16);
    }

    #[test]
    fn every_violation_is_reported() {
        let c = HotSortConfig {
            warp: 3,
            slab_height: 0,
            block_slabs: 6,
            key_bits: 16,
            banks: 0,
            fm_slabs: 3,
            hm_slabs: 1,
            ..HotSortConfig::default()
        };
        let errors = c.check_rules().unwrap_err();
        assert_eq!(errors.len(), 7, "{errors:?}");
        assert!(errors[0].0.contains("--warp 3: HotSort's warp width"));
    }

    #[test]
    fn too_big_blocks_are_rejected() {
        let c = HotSortConfig {
            block_slabs: 64,
            ..HotSortConfig::default()
        };
        let e = c.check_rules().unwrap_err();
        assert!(e[0].0.contains("2048 threads"), "{e:?}");
        let c = HotSortConfig {
            slab_height: 32,
            ..HotSortConfig::default()
        };
        let e = c.check_rules().unwrap_err();
        assert!(e[0].0.contains("shared memory"), "{e:?}");
    }
}
