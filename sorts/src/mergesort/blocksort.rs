//! `blocksort`: each block sorts one tile of `NV = NT * VT` keys, as
//! moderngpu's `KernelBlocksort` does.
//!
//! 1. Coalesced load `r[i] = g[NV*b + NT*i + tid]` (predicated on the
//!    tile's count), through shared memory into thread order
//!    (`r[i] = s[VT*tid + i]`).
//! 2. In a partial tile the thread whose slots straddle the count fills
//!    its empty slots with its largest valid key.
//! 3. A fully unrolled odd-even transposition sort of the VT keys in
//!    registers (stable: neighbours only, equal keys stay).
//! 4. lg NT merge rounds in shared memory: coop = 2, 4, .., NT threads
//!    merge two sorted lists of `VT*coop/2` keys; each thread finds its
//!    start with a merge-path search and merges VT outputs serially.
//! 5. Coalesced store of the sorted tile.
//!
//! Launch: grid `(P)` with `P = ceil(count / NV)`, block `(NT)`;
//! parameters `src`, `dst` (may be `src`: the tile is read before it is
//! written), `count`.

use super::config::MergesortConfig;
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType, Special};

/// Generates `blocksort` for `cfg`.
pub fn generate(cfg: &MergesortConfig) -> Kernel {
    generate_marked(cfg).0
}

/// [`generate`], with the key registers and stage marks.
pub fn generate_marked(cfg: &MergesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("blocksort", cfg);
    let src = g.b.param("src", ParamType::U64);
    let dst = g.b.param("dst", ParamType::U64);
    let count = g.b.param("count", ParamType::U32);
    let (nt, vt) = (cfg.block_threads, cfg.items_per_thread);
    let nv = nt * vt;
    let kb = g.kb() as i32;
    g.reserve_shared();

    g.stage("blocksort load");
    let (tid, tile, cnt, t) = (g.b.reg32(), g.b.reg32(), g.b.reg32(), g.b.reg32());
    let p = g.b.pred();
    g.b.mov(tid, Special::TidX);
    g.b.mov(tile, Special::CtaidX);
    g.b.mul(tile, tile, nv);
    g.b.sub(cnt, count, tile);
    g.b.min_u(cnt, cnt, nv);
    let gaddr = g.b.reg64();
    g.b.add(t, tile, tid);
    g.global_addr(gaddr, src, t);
    let keys = g.key_regs(vt);
    g.marks.key_regs.clone_from(&keys);
    // rem = cnt - tid: slot NT*i + tid is valid when NT*i < rem.
    let rem = g.b.reg32();
    g.b.sub(rem, cnt, tid);
    for (i, &k) in keys.iter().enumerate() {
        let i = i as u32;
        g.below(p, rem, nt * i);
        g.b.when(p);
        g.ld_global(k, gaddr, (nt * i) as i32 * kb);
    }
    let striped = g.b.reg32();
    g.shared_addr(striped, tid);
    for (i, &k) in keys.iter().enumerate() {
        g.st_shared(Some(striped), (nt * i as u32) as i32 * kb, k);
    }
    g.b.bar_sync();
    let base = g.thread_order_base(tid);
    g.load_thread_order(base, &keys);
    g.b.bar_sync();

    // A partial tile: pad the straddling thread's empty slots with its
    // largest valid key (a block-uniform branch; full tiles skip it).
    let full = g.b.label("full_tile");
    g.b.setp_ge_u(p, cnt, nv);
    g.b.when(p).bra(full);
    g.stage("blocksort pad");
    let (first, mx, tmp) = (g.b.reg32(), g.key_reg(), g.key_reg());
    g.b.mul(first, tid, vt);
    g.b.mov(mx, keys[0]);
    for (i, &k) in keys.iter().enumerate().skip(1) {
        g.b.add(t, first, i as u32);
        g.b.setp_lt_u(p, t, cnt);
        g.b.max_u(tmp, mx, k);
        g.b.selp(mx, tmp, mx, p);
    }
    for (i, &k) in keys.iter().enumerate().skip(1) {
        g.b.add(t, first, i as u32);
        g.b.setp_lt_u(p, t, cnt);
        g.b.selp(k, k, mx, p);
    }
    g.b.bind(full);

    g.stage("blocksort sort");
    for round in 0..vt as usize {
        for i in (round % 2..keys.len().saturating_sub(1)).step_by(2) {
            g.b.cmpx_u(keys[i], keys[i + 1]);
        }
    }
    g.store_thread_order(base, &keys);
    g.b.bar_sync();

    let (diag, a0, b0, b1, na, nb, split, a, b) = (
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
    );
    let mut coop = 2;
    while coop <= nt {
        g.stage(format!("blocksort round coop={coop}"));
        // The list pair this thread helps merge starts at VT * (tid &
        // ~(coop-1)); every bound is clamped to the tile's count.
        g.b.and(t, tid, !(coop - 1));
        g.b.mul(t, t, vt);
        g.b.min_u(a0, t, cnt);
        g.b.add(b0, t, vt * coop / 2);
        g.b.min_u(b0, b0, cnt);
        g.b.add(b1, t, vt * coop);
        g.b.min_u(b1, b1, cnt);
        g.b.and(diag, tid, coop - 1);
        g.b.mul(diag, diag, vt);
        g.b.min_u(diag, diag, cnt);
        g.b.sub(na, b0, a0);
        g.b.sub(nb, b1, b0);
        g.merge_path_shared(split, a0, na, b0, nb, diag);
        g.b.add(a, a0, split);
        g.b.add(b, b0, diag);
        g.b.sub(b, b, split);
        for r in [a, b, b0, b1] {
            g.shared_addr(r, r);
        }
        g.serial_merge(&keys, a, b0, b, b1);
        g.b.bar_sync();
        g.store_thread_order(base, &keys);
        g.b.bar_sync();
        coop *= 2;
    }

    g.stage("blocksort store");
    for (i, &k) in keys.iter().enumerate() {
        g.ld_shared(k, Some(striped), (nt * i as u32) as i32 * kb);
    }
    g.b.add(t, tile, tid);
    g.global_addr(gaddr, dst, t);
    for (i, &k) in keys.iter().enumerate() {
        let i = i as u32;
        g.below(p, rem, nt * i);
        g.b.when(p);
        g.st_global(gaddr, (nt * i) as i32 * kb, k);
    }
    g.finish()
}
