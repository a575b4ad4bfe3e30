//! The tables of a batched distribution level: one `find_buckets`, one
//! scan and one `scatter` launch cover every large bucket of the level (as
//! the authors' code does), so each block must learn which bucket and
//! which of its tiles it works on.
//!
//! The host writes one table from what it already knows (the bucket list
//! and its degenerate flags): per block of the launch [`DESC_WORDS`] u32
//! words, its bucket's start, length and blocks `p`, the block's index
//! among them, the bucket's first count in the level's histogram, the
//! position adjustment, its tree's index and its index in the batch. One
//! round of independent loads (a table per bucket indexed by a block table
//! would be two dependent rounds: the first launch with it took 40% more
//! cycles in `find_buckets` of a single-bucket level). Keys per thread
//! `l` are the launch's, a parameter. The histogram is every bucket's bucket-major `nb * p *
//! C` counts one after another, so one exclusive scan from 0 gives each
//! (bucket, sub-bucket, block, copy) its rank among the level's keys; the
//! bucket's keys start at `start`, not at the keys of the buckets before
//! it, so `scatter` adds `delta = start - (keys of the earlier buckets)`
//! (mod 2^32) to every position it loads.

use super::config::SamplesortConfig;
use super::emit::Gen;
use kernels_ir::{Param, Reg};

/// u32 words per block of the table.
pub const DESC_WORDS: u32 = 8;
/// Byte offsets of the fields.
const START: i32 = 0;
const LEN: i32 = 4;
const BLOCKS: i32 = 8;
const BLOCK: i32 = 12;
const HIST_BASE: i32 = 16;
const DELTA: i32 = 20;
const TREE: i32 = 24;
const INDEX: i32 = 28;

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

/// A batch's table and sizes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// [`DESC_WORDS`] words per block of the launch.
    pub table: Vec<u32>,
    /// Blocks of the launch.
    pub blocks: u64,
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
        for b in 0..p {
            out.table.extend([
                e.start as u32,
                e.len as u32,
                p as u32,
                b as u32,
                out.counts as u32,
                e.start.wrapping_sub(before) as u32,
                e.tree,
                i as u32,
            ]);
        }
        out.blocks += p;
        out.counts += per_block * p;
        before += e.len;
    }
    out
}

/// What a block of a batched kernel looked up: its bucket's keys, count,
/// tree, histogram (or offsets) and bounds addresses, its
/// block within the bucket and the bucket's blocks.
pub struct Lookup {
    /// Address of the bucket's first key.
    pub src: Reg,
    /// Its keys.
    pub count: Reg,
    /// Address of its splitter tree.
    pub tree: Reg,
    /// Address of its first count (or offset).
    pub table: Reg,
    /// Its block count `p`.
    pub nblk: Reg,
    /// The position adjustment and the bucket's index in the batch, which
    /// only `scatter` reads (loading them in `find_buckets` too would be
    /// two dead loads per warp that `ptxas` removes, so the H200 would
    /// count two load requests per warp fewer than the simulator).
    pub scatter: Option<(Reg, Reg)>,
}

/// The shared part of the kernels' parameters: the keys buffer, the
/// table, keys per thread, the level's trees and the histogram (or
/// offsets).
pub struct Params {
    /// The buffer the level's keys are in.
    pub src: Param,
    /// The table.
    pub table: Param,
    /// Keys per thread.
    pub items: Param,
    /// The level's trees (`k` words each).
    pub trees: Param,
    /// The histogram (`find`) or offsets (`scatter`).
    pub counts: Param,
}

/// Looks the block's bucket up: `blk` (`%ctaid.x` on entry) becomes the
/// block's index within its bucket. Every thread loads the same words
/// (one request each, broadcast); `scatter` says whether to load the two
/// fields only the scatter uses.
pub fn lookup(g: &mut Gen, blk: Reg, p: &Params, scatter: bool) -> Lookup {
    let k = g.cfg.buckets;
    let a = g.b.reg64();
    let w = g.b.reg32();
    g.b.shl(w, blk, DESC_WORDS.trailing_zeros());
    g.word_addr(a, p.table, w);
    let out = Lookup {
        src: g.b.reg64(),
        count: g.b.reg32(),
        tree: g.b.reg64(),
        table: g.b.reg64(),
        nblk: g.b.reg32(),
        scatter: scatter.then(|| (g.b.reg32(), g.b.reg32())),
    };
    let (tree, start, base) = (g.b.reg32(), g.b.reg32(), g.b.reg32());
    g.b.ld_global_b32(tree, a, TREE);
    g.b.ld_global_b32(start, a, START);
    g.b.ld_global_b32(out.count, a, LEN);
    g.b.ld_global_b32(out.nblk, a, BLOCKS);
    g.b.ld_global_b32(blk, a, BLOCK);
    g.b.ld_global_b32(base, a, HIST_BASE);
    if let Some((delta, index)) = out.scatter {
        g.b.ld_global_b32(delta, a, DELTA);
        g.b.ld_global_b32(index, a, INDEX);
    }
    g.b.mul(tree, tree, k);
    g.key_addr(out.tree, p.trees, tree);
    g.word_addr(out.table, p.counts, base);
    g.key_addr(out.src, p.src, start);
    out
}

/// The block's slice of a batched `minmax` round: `blk` (`%ctaid.x` on
/// entry) becomes the block's index within its bucket, `start` and `count`
/// the bucket's first element and elements (the table of [`plan`]).
pub fn slice(g: &mut Gen, blk: Reg, table: Param, start: Reg, count: Reg) {
    let a = g.b.reg64();
    let w = g.b.reg32();
    g.b.shl(w, blk, DESC_WORDS.trailing_zeros());
    g.word_addr(a, table, w);
    g.b.ld_global_b32(start, a, START);
    g.b.ld_global_b32(count, a, LEN);
    g.b.ld_global_b32(blk, a, BLOCK);
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
        assert_eq!((p.blocks, p.items), (4, 1));
        assert_eq!(p.counts, 4 * 2 * 4);
        assert_eq!(&p.table[..8], &[100, 65, 3, 0, 0, 100, 0, 0]);
        assert_eq!(&p.table[16..24], &[100, 65, 3, 2, 0, 100, 0, 0]);
        // The second bucket's keys rank after the first's 65: delta = 300 - 65.
        assert_eq!(&p.table[24..], &[300, 32, 1, 0, 24, 235, 2, 1]);
    }
}
