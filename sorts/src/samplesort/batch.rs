//! The tables of a batched distribution level: one `find_buckets`, one
//! scan and one `scatter` launch cover every large bucket of the level (as
//! the authors' code does), so each block must learn which bucket and
//! which of its tiles it works on.
//!
//! The host writes two tables from what it already knows (the bucket list
//! and its degenerate flags): per bucket a descriptor of [`DESC_WORDS`]
//! u32 words (its start, length, keys per thread `l`, blocks `p`, first
//! block of the launch, first count of the level's histogram, the
//! position adjustment, its tree's index), and per block of the launch its
//! bucket's index. The histogram is every bucket's bucket-major `nb * p *
//! C` counts one after another, so one exclusive scan from 0 gives each
//! (bucket, sub-bucket, block, copy) its rank among the level's keys; the
//! bucket's keys start at `start`, not at the keys of the buckets before
//! it, so `scatter` adds `delta = start - (keys of the earlier buckets)`
//! (mod 2^32) to every position it loads.

use super::config::SamplesortConfig;
use super::emit::Gen;
use kernels_ir::{Param, Reg};

/// u32 words per bucket descriptor.
pub const DESC_WORDS: u32 = 8;
/// Byte offsets of the descriptor's fields.
const START: i32 = 0;
const LEN: i32 = 4;
const ITEMS: i32 = 8;
const BLOCKS: i32 = 12;
const FIRST_BLOCK: i32 = 16;
const HIST_BASE: i32 = 20;
const DELTA: i32 = 24;
const TREE: i32 = 28;

/// One bucket of a batch, as the host plans it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// First key (an index into its buffer).
    pub start: u64,
    /// Keys.
    pub len: u64,
    /// Its index in the level's `create_bst` list (its tree).
    pub tree: u32,
}

/// A batch's tables and sizes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// [`DESC_WORDS`] words per bucket.
    pub desc: Vec<u32>,
    /// Per block of the launch, its bucket's index in the batch.
    pub blocks: Vec<u32>,
    /// Counts of the level's histogram (`nb * p * C` summed).
    pub counts: u64,
    /// Keys per thread of the launch.
    pub items: u32,
}

/// Plans one launch over `entries` split `nb` ways: `l` from the authors'
/// rule over the batch's keys (at least 450 blocks per launch), `p =
/// ceil(len / (t l))` blocks per bucket.
pub fn plan(cfg: &SamplesortConfig, entries: &[Entry], nb: u32) -> Plan {
    let keys: u64 = entries.iter().map(|e| e.len).sum();
    let items = cfg.items_for(keys);
    let tile = u64::from(cfg.block_threads) * u64::from(items);
    let per_block = u64::from(nb) * u64::from(cfg.counter_copies);
    let mut out = Plan {
        items,
        ..Plan::default()
    };
    let mut before = 0u64;
    for (i, e) in entries.iter().enumerate() {
        let p = e.len.div_ceil(tile);
        let first = out.blocks.len() as u32;
        out.desc.extend([
            e.start as u32,
            e.len as u32,
            items,
            p as u32,
            first,
            out.counts as u32,
            e.start.wrapping_sub(before) as u32,
            e.tree,
        ]);
        out.blocks.extend(std::iter::repeat_n(i as u32, p as usize));
        out.counts += per_block * p;
        before += e.len;
    }
    out
}

/// What a block of a batched kernel looked up: its bucket's keys, count,
/// keys per thread, tree, histogram (or offsets) and bounds addresses, its
/// block within the bucket and the bucket's blocks.
pub struct Lookup {
    /// Address of the bucket's first key.
    pub src: Reg,
    /// Its keys.
    pub count: Reg,
    /// Keys per thread.
    pub items: Reg,
    /// Address of its splitter tree.
    pub tree: Reg,
    /// Address of its first count (or offset).
    pub table: Reg,
    /// Its block count `p`.
    pub nblk: Reg,
    /// The position adjustment (`scatter`).
    pub delta: Reg,
    /// Its index in the batch.
    pub index: Reg,
}

/// The shared part of the kernels' parameters: the keys buffer, the
/// descriptors, the block table, the level's trees and the histogram (or
/// offsets).
pub struct Params {
    /// The buffer the level's keys are in.
    pub src: Param,
    /// The descriptors.
    pub desc: Param,
    /// The block table.
    pub blocks: Param,
    /// The level's trees (`k` words each).
    pub trees: Param,
    /// The histogram (`find`) or offsets (`scatter`).
    pub table: Param,
}

/// Looks the block's bucket up: `blk` (`%ctaid.x` on entry) becomes the
/// block's index within its bucket. Every thread loads the same words
/// (one request each, broadcast).
pub fn lookup(g: &mut Gen, blk: Reg, p: &Params) -> Lookup {
    let k = g.cfg.buckets;
    let a = g.b.reg64();
    let (index, w) = (g.b.reg32(), g.b.reg32());
    g.word_addr(a, p.blocks, blk);
    g.b.ld_global_b32(index, a, 0);
    g.b.shl(w, index, DESC_WORDS.trailing_zeros());
    g.word_addr(a, p.desc, w);
    let out = Lookup {
        src: g.b.reg64(),
        count: g.b.reg32(),
        items: g.b.reg32(),
        tree: g.b.reg64(),
        table: g.b.reg64(),
        nblk: g.b.reg32(),
        delta: g.b.reg32(),
        index,
    };
    g.b.ld_global_b32(out.count, a, LEN);
    g.b.ld_global_b32(out.items, a, ITEMS);
    g.b.ld_global_b32(out.nblk, a, BLOCKS);
    g.b.ld_global_b32(out.delta, a, DELTA);
    g.b.ld_global_b32(w, a, FIRST_BLOCK);
    g.b.sub(blk, blk, w);
    g.b.ld_global_b32(w, a, HIST_BASE);
    g.word_addr(out.table, p.table, w);
    g.b.ld_global_b32(w, a, TREE);
    g.b.mul(w, w, k);
    g.key_addr(out.tree, p.trees, w);
    g.b.ld_global_b32(w, a, START);
    g.key_addr(out.src, p.src, w);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_numbers_blocks_counts_and_positions() {
        let cfg = SamplesortConfig {
            buckets: 4,
            counter_copies: 2,
            block_threads: 32,
            items_per_thread: Some(1),
            ..SamplesortConfig::new(8, 32)
        };
        let entries = [
            Entry {
                start: 100,
                len: 65,
                tree: 0,
            },
            Entry {
                start: 300,
                len: 32,
                tree: 2,
            },
        ];
        let p = plan(&cfg, &entries, 4);
        // 65 keys: 3 blocks of 32; 32 keys: 1 block.
        assert_eq!(p.blocks, [0, 0, 0, 1]);
        assert_eq!(p.counts, 4 * 2 * 4);
        assert_eq!(&p.desc[..8], &[100, 65, 1, 3, 0, 0, 100, 0]);
        // The second bucket's keys rank after the first's 65: delta = 300 - 65.
        assert_eq!(&p.desc[8..], &[300, 32, 1, 1, 3, 24, 235, 2]);
    }
}
