//! The decoded blocks of the loaded launch, so that `b`/`B` do not decode
//! the launch again.
//!
//! In a `full`-level trace before format version 4, when a launch's
//! blocks are all resident at once, every chunk holds events of every
//! block, and reading one block costs decoding the whole launch (0.16-0.40
//! s per `b` on a 64K-key trace). The replay decodes such a launch once for
//! all its blocks, up to [`WHOLE_LAUNCH_EVENTS`] events, and keeps them
//! here. From format 4 on each block has its own chunks: reading one is
//! cheap, and only the last [`RECENT_BLOCKS`] are kept, for `B` after `b`.

use std::collections::HashMap;

use crate::replay::LaunchData;

/// The most events a launch may have to be decoded for all its blocks at
/// once (the decoded blocks take about 40 bytes an event).
pub const WHOLE_LAUNCH_EVENTS: u64 = 6_000_000;

/// How many blocks a trace with block chunks keeps decoded (reading one
/// again costs tens of milliseconds, keeping each many megabytes).
pub const RECENT_BLOCKS: usize = 4;

/// Decoded blocks of one launch.
#[derive(Debug, Default)]
pub struct BlockCache {
    launch: Option<usize>,
    blocks: HashMap<u32, LaunchData>,
}

impl BlockCache {
    /// Takes block `block` of launch `launch` out, if decoded.
    pub fn take(&mut self, launch: usize, block: u32) -> Option<LaunchData> {
        if self.launch != Some(launch) {
            return None;
        }
        self.blocks.remove(&block)
    }

    /// Keeps `d` (a launch's block); a block of another launch replaces
    /// the cache.
    pub fn keep(&mut self, d: LaunchData) {
        let Some(block) = d.block else { return };
        if self.launch != Some(d.launch) {
            self.blocks.clear();
            self.launch = Some(d.launch);
        }
        self.blocks.insert(block, d);
    }

    /// Keeps `d` as [`BlockCache::keep`] does, then drops the blocks
    /// farthest from it until at most `max` are kept.
    pub fn keep_few(&mut self, d: LaunchData, max: usize) {
        let Some(block) = d.block else { return };
        self.keep(d);
        while self.blocks.len() > max {
            let far = self
                .blocks
                .keys()
                .copied()
                .max_by_key(|&b| (b.abs_diff(block), b));
            match far {
                Some(b) => self.blocks.remove(&b),
                None => break,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_blocks_are_kept_the_nearest_to_the_last_kept() {
        let mut c = BlockCache::default();
        for b in [0, 9, 4, 5, 6] {
            c.keep_few(
                LaunchData {
                    launch: 1,
                    block: Some(b),
                    ..LaunchData::default()
                },
                3,
            );
        }
        let mut kept: Vec<u32> = c.blocks.keys().copied().collect();
        kept.sort();
        assert_eq!(kept, [4, 5, 6]);
        assert!(c.take(1, 5).is_some() && c.take(1, 5).is_none());
        assert!(c.take(2, 4).is_none(), "another launch's");
    }
}
