//! `merge`: one tile of one merge pass (moderngpu's `KernelMerge` in
//! mergesort mode). Block `b` reads the splitters `mp[b]`, `mp[b+1]` of
//! its frame, loads its A range and then its B range contiguously into
//! shared memory (coalesced, predicated on the range sizes), and each
//! thread finds its diagonal `VT*tid` with a merge-path search and merges
//! VT keys serially; the merged tile goes back through shared memory to a
//! coalesced store at `NV*b`. Every block emits exactly NV keys (the last
//! one fewer), whatever the data: the only data-dependent work is the
//! search's probe count and the A/B share.
//!
//! Launch: grid `(P)`, block `(NT)`; parameters `src`, `dst`, `count`,
//! `coop` (tiles per merged frame), `mp` (from `partition`).

use super::config::MergesortConfig;
use super::emit::Gen;
use super::partition::frame_ranges;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType, Special};

/// Generates `merge` for `cfg`.
pub fn generate(cfg: &MergesortConfig) -> Kernel {
    generate_marked(cfg).0
}

/// [`generate`], with the key registers and stage marks.
pub fn generate_marked(cfg: &MergesortConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("merge", cfg);
    let src = g.b.param("src", ParamType::U64);
    let dst = g.b.param("dst", ParamType::U64);
    let count = g.b.param("count", ParamType::U32);
    let coop = g.b.param("coop", ParamType::U32);
    let mp = g.b.param("mp", ParamType::U64);
    let (nt, vt) = (cfg.block_threads, cfg.items_per_thread);
    let nv = nt * vt;
    let kb = g.kb() as i32;
    g.reserve_shared();

    g.stage("merge ranges");
    let (blk, tid, t, frame, half) = (
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
    );
    let p = g.b.pred();
    g.b.mov(blk, Special::CtaidX);
    g.b.mov(tid, Special::TidX);
    let addr = g.b.reg64();
    let (mp0, mp1) = (g.b.reg32(), g.b.reg32());
    g.b.cvt_u64_u32(addr, blk);
    g.b.shl(addr, addr, 2);
    g.b.add(addr, addr, mp);
    g.b.ld_global_b32(mp0, addr, 0);
    g.b.ld_global_b32(mp1, addr, 4);
    let r = frame_ranges(&mut g, blk, count, coop, nv, [frame, half]);
    // diag = NV*b - frame; A = [a_start + mp0, a_start + mp1) and
    // B = [b_start + diag - mp0, b_start + diag + NV - mp1), except that
    // the frame's last block ends at the ends of A and B (its mp[b+1]
    // belongs to the next frame).
    let (diag, a0, na, b0, nb) = (
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
    );
    g.b.mul(diag, blk, nv);
    g.b.sub(diag, diag, frame);
    g.b.add(a0, r.a_start, mp0);
    g.b.sub(t, diag, mp0);
    g.b.add(b0, r.b_start, t);
    g.b.sub(t, coop, 1);
    g.b.and(t, blk, t);
    g.b.sub(t, t, coop);
    g.b.setp_eq(p, t, -1i64);
    // na = (last ? a_count : mp1) - mp0
    g.b.selp(na, r.a_count, mp1, p);
    g.b.sub(na, na, mp0);
    // nb = (last ? b_count : min(diag + NV - mp1, b_count)) - (diag - mp0)
    g.b.add(nb, diag, nv);
    g.b.sub(nb, nb, mp1);
    g.b.min_u(nb, nb, r.b_count);
    g.b.selp(nb, r.b_count, nb, p);
    g.b.sub(t, diag, mp0);
    g.b.sub(nb, nb, t);

    g.stage("merge load");
    let total = g.b.reg32();
    g.b.add(total, na, nb);
    // Word NT*i + tid of the concatenation A ++ B: A[a0 + NT*i + tid] while
    // NT*i < na - tid, else B[b0 - na + NT*i + tid]; valid while
    // NT*i < total - tid. Two 64-bit bases, selected per slot.
    let (rem_a, rem_t) = (g.b.reg32(), g.b.reg32());
    g.b.sub(rem_a, na, tid);
    g.b.sub(rem_t, total, tid);
    let (pa, pb, sel) = (g.b.reg64(), g.b.reg64(), g.b.reg64());
    g.b.add(t, a0, tid);
    g.global_addr(pa, src, t);
    // pb = &src[b0 + tid] - na words (below `src` for the slots of A,
    // which never use it; 64-bit arithmetic, so no 32-bit index overflows).
    g.b.add(t, b0, tid);
    g.global_addr(pb, src, t);
    g.b.cvt_u64_u32(sel, na);
    g.b.shl(sel, sel, g.kb().trailing_zeros());
    g.b.sub(pb, pb, sel);
    let q = g.b.pred();
    let keys = g.key_regs(vt);
    g.marks.key_regs.clone_from(&keys);
    for (i, &k) in keys.iter().enumerate() {
        let i = i as u32;
        g.below(q, rem_a, nt * i);
        g.below(p, rem_t, nt * i);
        g.b.selp(sel, pa, pb, q);
        g.b.when(p);
        g.ld_global(k, sel, (nt * i) as i32 * kb);
    }
    let striped = g.b.reg32();
    g.shared_addr(striped, tid);
    for (i, &k) in keys.iter().enumerate() {
        g.st_shared(Some(striped), (nt * i as u32) as i32 * kb, k);
    }
    g.b.bar_sync();

    g.stage("merge path");
    let (zero, split, a, b, d) = (
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
        g.b.reg32(),
    );
    g.b.mov(zero, 0);
    g.b.mul(d, tid, vt);
    g.b.min_u(d, d, total);
    g.merge_path_shared(split, zero, na, na, nb, d);
    g.stage("merge serial");
    g.b.add(b, na, d);
    g.b.sub(b, b, split);
    let (a_end, b_end) = (g.b.reg32(), g.b.reg32());
    g.shared_addr(a, split);
    g.shared_addr(b, b);
    g.shared_addr(a_end, na);
    g.shared_addr(b_end, total);
    g.serial_merge(&keys, a, a_end, b, b_end);
    g.b.bar_sync();
    let base = g.thread_order_base(tid);
    g.store_thread_order(base, &keys);
    g.b.bar_sync();

    g.stage("merge store");
    for (i, &k) in keys.iter().enumerate() {
        g.ld_shared(k, Some(striped), (nt * i as u32) as i32 * kb);
    }
    g.b.mul(t, blk, nv);
    g.b.add(t, t, tid);
    g.global_addr(addr, dst, t);
    for (i, &k) in keys.iter().enumerate() {
        g.below(p, rem_t, nt * i as u32);
        g.b.when(p);
        g.st_global(addr, (nt * i as u32) as i32 * kb, k);
    }
    g.finish()
}
