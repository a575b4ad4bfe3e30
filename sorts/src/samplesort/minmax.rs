//! `minmax`: the degenerate path's reductions. A bucket whose sample gave
//! equal first and last splitters is either constant (done) or split three
//! ways; its minimum and maximum decide. Each block reduces `t * l`
//! elements to one minimum and one maximum (a tree in shared memory, lg t
//! steps); the host launches it again over the block results until one
//! block remains (the first launch reads the keys as both inputs).
//!
//! Launch: grid `(g)`, block `(t)`; parameters `lo_src`, `hi_src`,
//! `count`, `items`, `lo_dst`, `hi_dst`. Batched (the default level
//! form), one launch per round reduces every degenerate bucket of the
//! level: `count` is replaced by `table` ([`super::batch::plan`]'s rows:
//! each block finds its bucket's slice), and block `b` of the launch
//! writes result `b`, so a bucket's results lie together for the next
//! round.

use super::batch;
use super::config::{LevelLaunches, SamplesortConfig};
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, Operand, ParamType, Reg, Special};

/// Generates `minmax` for `cfg`.
pub fn generate(cfg: &SamplesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("minmax", cfg);
    let lo_src = g.b.param("lo_src", ParamType::U64);
    let hi_src = g.b.param("hi_src", ParamType::U64);
    let batched = cfg.level_launches == LevelLaunches::Batched;
    let count = g.b.param(
        if batched { "table" } else { "count" },
        if batched {
            ParamType::U64
        } else {
            ParamType::U32
        },
    );
    let items = g.b.param("items", ParamType::U32);
    let lo_dst = g.b.param("lo_dst", ParamType::U64);
    let hi_dst = g.b.param("hi_dst", ParamType::U64);
    let t = cfg.block_threads;
    let kb = g.kb();
    let hi_off = t * kb;
    g.b.shared(2 * t * kb, 8);
    g.stage("reduce");
    let tid = g.tid();
    let (blk, cur, r, sh) = (g.b.reg32(), g.b.reg32(), g.b.reg32(), g.b.reg32());
    let a = g.b.reg64();
    let (lo, hi, x, y) = (g.key_reg(), g.key_reg(), g.key_reg(), g.key_reg());
    g.marks.key_regs = vec![lo, hi];
    let (p, more) = (g.b.pred(), g.b.pred());
    g.b.mov(blk, Special::CtaidX);
    // Batched: the bucket's slice; results go to the launch's block index.
    let (count, out, lo_src, hi_src): (Operand, Reg, Operand, Operand) = if batched {
        let (start, n, out) = (g.b.reg32(), g.b.reg32(), g.b.reg32());
        let (l, h) = (g.b.reg64(), g.b.reg64());
        g.b.mov(out, blk);
        batch::slice(&mut g, blk, count, start, n);
        g.key_addr(l, lo_src, start);
        g.key_addr(h, hi_src, start);
        (n.into(), out, l.into(), h.into())
    } else {
        (count.into(), blk, lo_src.into(), hi_src.into())
    };
    g.b.mul(cur, blk, items);
    g.b.mul(cur, cur, t);
    g.b.add(cur, cur, tid);
    g.b.mov(r, 0u32);
    let max = g.max_key();
    g.b.mov(lo, max);
    g.b.mov(hi, 0u32);
    let top = g.b.label("next_key");
    g.b.bind(top);
    g.b.setp_lt_u(p, cur, count);
    g.key_addr(a, lo_src, cur);
    g.b.when(p);
    g.ld_global(x, a, 0);
    g.key_addr(a, hi_src, cur);
    g.b.when(p);
    g.ld_global(y, a, 0);
    g.b.when(p).min_u(lo, lo, x);
    g.b.when(p).max_u(hi, hi, y);
    g.b.add(cur, cur, t);
    g.b.add(r, r, 1u32);
    g.b.setp_lt_u(more, r, items);
    g.b.when(more).bra(top);
    g.b.shl(sh, tid, g.kb_shift());
    g.st_shared(Some(sh), 0, lo);
    g.st_shared(Some(sh), hi_off as i32, hi);
    g.b.bar_sync();
    // Each step's loads and stores sit behind a branch, the min and max
    // between them guarded, as ptxas compiles the step (`@P BRA` over the
    // two `LDS` and over the two `STS`, each in a `BSSY`/`BSYNC` region;
    // hw/data/h200/sass/samplesort_1m_fewuniq/minmax.sass): a warp with
    // no thread below `d` skips them rather than waiting for loads guarded
    // off in every lane.
    let mut d = t / 2;
    while d >= 1 {
        let (no_loads, no_stores) = (g.b.label("skip_loads"), g.b.label("skip_stores"));
        g.b.setp_lt_u(p, tid, d);
        g.b.unless(p).bra(no_loads);
        g.ld_shared(x, Some(sh), (d * kb) as i32);
        g.ld_shared(y, Some(sh), (hi_off + d * kb) as i32);
        g.b.bind(no_loads);
        g.b.when(p).min_u(lo, lo, x);
        g.b.when(p).max_u(hi, hi, y);
        g.b.unless(p).bra(no_stores);
        g.st_shared(Some(sh), 0, lo);
        g.st_shared(Some(sh), hi_off as i32, hi);
        g.b.bind(no_stores);
        g.b.bar_sync();
        d /= 2;
    }
    g.b.setp_eq(p, tid, 0u32);
    g.key_addr(a, lo_dst, out);
    g.b.when(p);
    g.st_global(a, 0, lo);
    g.key_addr(a, hi_dst, out);
    g.b.when(p);
    g.st_global(a, 0, hi);
    g.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_ir::opcode::{Format, Opcode, Space};

    #[test]
    fn the_tree_branches_around_its_shared_accesses_as_ptxas_does() {
        // ptxas puts each step's two `LDS` and two `STS` behind `@P BRA`
        // (hw/data/h200/sass/samplesort_1m_fewuniq/minmax.sass): none is
        // guarded, and every step has its two branches.
        for levels in [LevelLaunches::Batched, LevelLaunches::PerBucket] {
            let mut cfg = SamplesortConfig::new(32, 32);
            cfg.level_launches = levels;
            let (k, _) = generate(&cfg);
            let shared = |i: &kernels_ir::Inst| {
                let op = i.data.opcode();
                matches!(op.format(), Format::Load | Format::Store)
                    && op.memory().map(|(s, _)| s) == Some(Space::Shared)
            };
            assert!(k.insts.iter().any(shared));
            assert!(
                k.insts
                    .iter()
                    .filter(|i| shared(i))
                    .all(|i| i.guard.is_none())
            );
            let steps = cfg.block_threads.trailing_zeros() as usize;
            let branches = k
                .insts
                .iter()
                .filter(|i| i.data.opcode() == Opcode::Bra && i.guard.is_some_and(|g| g.negated))
                .count();
            assert!(
                branches >= 2 * steps,
                "{branches} guarded-off branches, {steps} steps"
            );
        }
    }
}
