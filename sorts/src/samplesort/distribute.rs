//! `find_buckets` and `scatter`, the two passes of a distribution level
//! over one large bucket (p blocks of t threads, `l` keys per thread at
//! stride t, so every load is coalesced), and their degenerate forms
//! (`find_3way`, `scatter_3way`: one splitter, buckets `<`, `=`, `>`).
//!
//! Both copy the bucket's tree from global memory into shared memory and
//! compute each key's bucket with the branch-free walk
//! ([`super::emit::Gen::tree_walk`]); `scatter` recomputes it rather than
//! reading one `find_buckets` stored (the authors found storing no faster).
//!
//! `find_buckets` counts keys per bucket in shared memory, `C` copies per
//! bucket, thread `tid` adding to copy `tid mod C` with a shared atomic,
//! and writes its block's `k * C` counts bucket-major:
//! `hist[(bucket * p + block) * C + c]`, so one exclusive scan of the
//! `k * p * C` counts (`scan`) gives every (bucket, block, copy) its first
//! output position. `scatter` loads its block's positions into the same
//! counters and writes each key to `dst[atomicAdd(pos, 1)]`: the same
//! thread sees the same keys in the same order as in `find_buckets`, so
//! every range is filled exactly. Block 0 also writes the `k` bucket
//! starts (the host reads them back).
//!
//! Launch, one bucket (`--level-launches per-bucket`): grid `(p)`, block
//! `(t)`; `find_buckets`: `src`, `count`, `items` (l), `tree`, `hist`;
//! `scatter`: `src`, `count`, `items`, `tree`, `offsets`, `dst`, `bounds`.
//! Batched (the default): grid `(sum of p)`, block `(t)`; `find_buckets`:
//! `src` (the buffer), `table`, `items`, `trees`, `hist`; `scatter`:
//! `src`, `table`, `items`, `trees`, `offsets`, `dst`, `bounds`; each
//! block first looks up its bucket ([`super::batch`]).

use super::batch;
use super::config::{LevelLaunches, SamplesortConfig};
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, Operand, Param, ParamType, Reg, Special};

/// How a kernel assigns keys to buckets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// The `k`-way tree of splitters.
    Tree,
    /// The degenerate path: `<`, `=`, `>` the single splitter.
    ThreeWay,
}

impl Split {
    /// Buckets of one split.
    pub fn buckets(self, cfg: &SamplesortConfig) -> u32 {
        match self {
            Split::Tree => cfg.buckets,
            Split::ThreeWay => 3,
        }
    }

    /// Tree words a kernel copies into shared memory (node 0 unused).
    fn tree_words(self, cfg: &SamplesortConfig) -> u32 {
        match self {
            Split::Tree => cfg.buckets,
            Split::ThreeWay => 2,
        }
    }
}

/// The registers both passes share (allocated once: a generator loop
/// must not allocate per iteration, the IR allows 7 predicates).
struct Common {
    tid: Reg,
    blk: Reg,
    /// The shared byte address of this thread's counter copy of bucket 0.
    lane_counter: Reg,
    /// Shared byte offset of the counters.
    counters: u32,
    /// Counter loops: shared index, global index, scratch.
    i: Reg,
    gi: Reg,
    s1: Reg,
    s2: Reg,
    a64: Reg,
    nblk: Reg,
    /// Predicates: where the counter or key exists, and scratch.
    p: Reg,
    q: Reg,
}
/// Where a kernel finds its bucket: the launch's parameters (one bucket
/// per launch) or, batched, the host's tables ([`batch`]).
enum Given {
    /// Keys, count, keys per thread, tree, histogram (or offsets).
    One {
        src: Param,
        count: Param,
        items: Param,
        tree: Param,
        table: Param,
    },
    /// The batch's parameters.
    Batch(batch::Params),
}

/// The block's bucket as operands (parameters or looked-up registers).
struct Source {
    src: Operand,
    count: Operand,
    items: Operand,
    table: Operand,
    /// A batched scatter: the position adjustment and the bucket's batch
    /// index (`None` in `find_buckets` and per-bucket launches).
    batch: Option<(Reg, Reg)>,
}

/// The parameters of `find_buckets` / `scatter` up to the histogram (or
/// offsets) table, named `table`, in either launch form.
fn params(g: &mut Gen, table: &str) -> Given {
    match g.cfg.level_launches {
        LevelLaunches::PerBucket => Given::One {
            src: g.b.param("src", ParamType::U64),
            count: g.b.param("count", ParamType::U32),
            items: g.b.param("items", ParamType::U32),
            tree: g.b.param("tree", ParamType::U64),
            table: g.b.param(table, ParamType::U64),
        },
        LevelLaunches::Batched => Given::Batch(batch::Params {
            src: g.b.param("src", ParamType::U64),
            table: g.b.param("table", ParamType::U64),
            items: g.b.param("items", ParamType::U32),
            trees: g.b.param("trees", ParamType::U64),
            counts: g.b.param(table, ParamType::U64),
        }),
    }
}

/// Finds the block's bucket (batched) and copies its tree into shared
/// memory; returns the common registers and the bucket's operands.
/// `scatter`: the kernel is a scatter (which also reads the batch table's
/// position adjustment and bucket index).
fn prologue(g: &mut Gen, split: Split, given: &Given, scatter: bool) -> (Common, Source) {
    let cfg = g.cfg;
    let t = cfg.block_threads;
    let words = split.tree_words(cfg);
    let counters = words * g.kb();
    let nb = split.buckets(cfg);
    g.b.shared(counters + nb * cfg.counter_copies * 4, 8);
    g.stage("load tree");
    let tid = g.tid();
    let blk = g.b.reg32();
    g.b.mov(blk, Special::CtaidX);
    let (tree, source, nblk): (Operand, Source, Option<Reg>) = match given {
        Given::One {
            src,
            count,
            items,
            tree,
            table,
        } => (
            (*tree).into(),
            Source {
                src: (*src).into(),
                count: (*count).into(),
                items: (*items).into(),
                table: (*table).into(),
                batch: None,
            },
            None,
        ),
        Given::Batch(params) => {
            let l = batch::lookup(g, blk, params, scatter);
            (
                l.tree.into(),
                Source {
                    src: l.src.into(),
                    count: l.count.into(),
                    items: params.items.into(),
                    table: l.table.into(),
                    batch: l.scatter,
                },
                Some(l.nblk),
            )
        }
    };
    let (j, sh) = (g.b.reg32(), g.b.reg32());
    let addr = g.b.reg64();
    let node = g.key_reg();
    let p = g.b.pred();
    for r in 0..words.div_ceil(t) {
        g.b.add(j, tid, r * t);
        g.b.setp_lt_u(p, j, words);
        g.key_addr(addr, tree, j);
        g.b.when(p);
        g.ld_global(node, addr, 0);
        g.b.shl(sh, j, g.kb_shift());
        g.b.when(p);
        g.st_shared(Some(sh), 0, node);
    }
    let lane_counter = g.b.reg32();
    g.b.and(lane_counter, tid, cfg.counter_copies - 1);
    g.b.shl(lane_counter, lane_counter, 2u32);
    g.b.add(lane_counter, lane_counter, counters);
    let nblk = nblk.unwrap_or_else(|| {
        let nblk = g.b.reg32();
        g.b.mov(nblk, Special::NctaidX);
        nblk
    });
    let common = Common {
        tid,
        blk,
        lane_counter,
        counters,
        i: j,
        gi: sh,
        s1: g.b.reg32(),
        s2: g.b.reg32(),
        a64: addr,
        nblk,
        p,
        q: g.b.pred(),
    };
    (common, source)
}

/// Visits every `(bucket, copy)` counter of the block: `body(g, i, gi, p)`
/// with `i` the counter's index in shared memory, `gi` its index in the
/// bucket-major global table and `p` true where the counter exists.
fn each_counter(
    g: &mut Gen,
    split: Split,
    c: &Common,
    mut body: impl FnMut(&mut Gen, Reg, Reg, Reg),
) {
    let cfg = g.cfg;
    let t = cfg.block_threads;
    let total = split.buckets(cfg) * cfg.counter_copies;
    let lg_c = cfg.counter_copies.trailing_zeros();
    let (i, gi, cp, nblk, p) = (c.i, c.gi, c.s1, c.nblk, c.p);
    for r in 0..total.div_ceil(t) {
        g.b.add(i, c.tid, r * t);
        g.b.setp_lt_u(p, i, total);
        g.b.shr(gi, i, lg_c);
        g.b.mul(gi, gi, nblk);
        g.b.add(gi, gi, c.blk);
        g.b.shl(gi, gi, lg_c);
        g.b.and(cp, i, cfg.counter_copies - 1);
        g.b.add(gi, gi, cp);
        body(g, i, gi, p);
    }
}

/// The loop over the thread's `l` keys: `body(g, x, p)` with the key in
/// `x` and `p` true where it exists.
fn each_key(
    g: &mut Gen,
    c: &Common,
    s: &Source,
    stage: &str,
    mut body: impl FnMut(&mut Gen, Reg, Reg),
) {
    let t = g.cfg.block_threads;
    let (cur, r) = (g.b.reg32(), g.b.reg32());
    let addr = c.a64;
    let (p, more) = (c.p, c.q);
    let (src, count, items) = (s.src, s.count, s.items);
    // cur = blk * t * l + tid; then + t per key.
    g.b.mul(cur, c.blk, items);
    g.b.mul(cur, cur, t);
    g.b.add(cur, cur, c.tid);
    g.b.mov(r, 0u32);
    let x = g.key_reg();
    g.marks.key_regs.push(x);
    let top = g.b.label("next_key");
    g.b.bind(top);
    // The stage is the loop body: every instruction of it runs once per
    // warp and key round (no divergence), up to the loop's branch.
    g.stage(stage);
    g.b.setp_lt_u(p, cur, count);
    g.key_addr(addr, src, cur);
    g.b.when(p);
    g.ld_global(x, addr, 0);
    body(g, x, p);
    g.b.add(cur, cur, t);
    g.b.add(r, r, 1u32);
    g.b.setp_lt_u(more, r, items);
    g.b.when(more).bra(top);
}

/// The bucket of `x` by `split`, and the shared address of this thread's
/// copy of its counter.
fn bucket_counter(g: &mut Gen, split: Split, c: &Common, x: Reg, out: Reg) {
    let (bucket, sh) = (g.b.reg32(), g.b.reg32());
    let node = g.key_reg();
    let q = g.b.pred();
    match split {
        Split::Tree => g.tree_walk(bucket, x, node, sh, q),
        Split::ThreeWay => g.three_way(bucket, x, node, q),
    }
    g.b.shl(out, bucket, g.cfg.counter_copies.trailing_zeros() + 2);
    g.b.add(out, out, c.lane_counter);
}

/// Generates `find_buckets` (or `find_3way`).
pub fn find(cfg: &SamplesortConfig, split: Split) -> (Kernel, KernelMarks) {
    let name = match split {
        Split::Tree => "find_buckets",
        Split::ThreeWay => "find_3way",
    };
    let mut g = Gen::new(name, cfg);
    let given = params(&mut g, "hist");
    let (c, s) = prologue(&mut g, split, &given, false);
    let counters = c.counters;
    let (sh, v, a) = (c.s2, g.b.reg32(), c.a64);
    g.b.mov(v, 0u32);
    each_counter(&mut g, split, &c, |g, i, _, p| {
        g.b.shl(sh, i, 2u32);
        g.b.when(p).st_shared_b32(Some(sh), counters as i32, v);
    });
    g.b.bar_sync();
    let (addr, old) = (g.b.reg32(), g.b.reg32());
    each_key(&mut g, &c, &s, "find", |g, x, p| {
        bucket_counter(g, split, &c, x, addr);
        g.atom_inc(p, old, addr);
    });
    g.b.bar_sync();
    g.stage("histogram");
    each_counter(&mut g, split, &c, |g, i, gi, p| {
        g.b.shl(sh, i, 2u32);
        g.b.when(p).ld_shared_b32(v, Some(sh), counters as i32);
        g.word_addr(a, s.table, gi);
        g.b.when(p).st_global_b32(a, 0, v);
    });
    g.finish()
}

/// Generates `scatter` (or `scatter_3way`).
pub fn scatter(cfg: &SamplesortConfig, split: Split) -> (Kernel, KernelMarks) {
    let name = match split {
        Split::Tree => "scatter",
        Split::ThreeWay => "scatter_3way",
    };
    let mut g = Gen::new(name, cfg);
    let given = params(&mut g, "offsets");
    let dst = g.b.param("dst", ParamType::U64);
    let bounds = g.b.param("bounds", ParamType::U64);
    let (c, s) = prologue(&mut g, split, &given, true);
    let counters = c.counters;
    g.stage("load offsets");
    let lg_c = cfg.counter_copies.trailing_zeros();
    let first = g.b.pred();
    g.b.setp_eq(first, c.blk, 0u32);
    let (sh, v, bucket, a, q) = (c.s2, g.b.reg32(), g.b.reg32(), c.a64, c.q);
    // Batched: this bucket's bounds follow the earlier buckets' `nb` each.
    let bounds: Operand = match s.batch {
        None => bounds.into(),
        Some((_, index)) => {
            let at = g.b.reg64();
            g.b.mul(bucket, index, split.buckets(cfg));
            g.word_addr(at, bounds, bucket);
            at.into()
        }
    };
    each_counter(&mut g, split, &c, |g, i, gi, p| {
        g.word_addr(a, s.table, gi);
        g.b.when(p).ld_global_b32(v, a, 0);
        if let Some((delta, _)) = s.batch {
            g.b.add(v, v, delta);
        }
        g.b.shl(sh, i, 2u32);
        g.b.when(p).st_shared_b32(Some(sh), counters as i32, v);
        // Block 0's copy 0 of each bucket starts the bucket.
        g.b.and(bucket, i, cfg.counter_copies - 1);
        g.b.setp_eq(q, bucket, 0u32);
        g.b.and(q, q, p);
        g.b.and(q, q, first);
        g.b.shr(bucket, i, lg_c);
        g.word_addr(a, bounds, bucket);
        g.b.when(q).st_global_b32(a, 0, v);
    });
    g.b.bar_sync();
    let (addr, pos) = (g.b.reg32(), g.b.reg32());
    let out = g.b.reg64();
    each_key(&mut g, &c, &s, "scatter", |g, x, p| {
        bucket_counter(g, split, &c, x, addr);
        g.atom_inc(p, pos, addr);
        g.key_addr(out, dst, pos);
        g.b.when(p);
        g.st_global(out, 0, x);
    });
    g.finish()
}
