//! The simulator computes exactly what the reference interpreter computes:
//! on every example kernel at several warp widths and machine shapes, and on
//! random straight-line kernels.

use kernels_ir::{Dim3, KernelBuilder, Opcode, ParamType, Reg, Special};

use super::util::{Rng, run_both, verified};
use crate::{GpuConfig, SchedulerPolicy};

/// Machines the example kernels run on: the reference, a small one, and
/// shapes that stress the scheduler and occupancy.
fn machines() -> Vec<GpuConfig> {
    let mut wide = GpuConfig::tiny();
    wide.warp_size = 64;
    wide.max_threads_per_block = 1024;
    wide.max_warps_per_sm = 16;
    wide.smem_bytes_per_block = 16384;
    wide.smem_bytes_per_sm = 32768;
    wide.regs_per_sm = 65536;
    let mut lrr = GpuConfig::tiny();
    lrr.scheduler = SchedulerPolicy::Lrr;
    lrr.warp_size = 4;
    lrr.smem_banks = 4;
    lrr.num_sms = 3;
    let mut h200 = GpuConfig::h200();
    h200.num_sms = 4;
    vec![h200, GpuConfig::tiny(), wide, lrr]
}

#[test]
fn example_kernels_match_the_interpreter() {
    for cfg in machines() {
        let warp = cfg.warp_size;
        for named in kernels_ir::kernels::catalog(warp) {
            let name = named.name().to_string();
            let k = verified(named.kernel);
            for (grid, block, n) in [(3, 2 * warp, 5 * warp - 3), (5, 3 * warp + 1, 1000)] {
                let threads = u64::from(block) * u64::from(grid);
                let block = block.min(cfg.max_threads_per_block);
                let bytes = (threads * 128 * 4 + 4096).max(u64::from(n) * 128 * 4 + 4096);
                let (stats, sim, interp) =
                    run_both(&cfg, &k, Dim3::x(grid), Dim3::x(block), bytes, n, 7);
                assert!(sim == interp, "{name} on warp {warp}: memory differs");
                assert!(stats.inst_executed > 0);
            }
        }
    }
}

/// Registers a random straight-line kernel works on.
struct Regs {
    r: Vec<Reg>,
    d: Vec<Reg>,
    p: Vec<Reg>,
}

/// Appends a random instruction.
fn random_inst(b: &mut KernelBuilder, regs: &Regs, rng: &mut Rng, warp: u32, n: kernels_ir::Param) {
    let pick = |rng: &mut Rng, v: &[Reg]| v[(rng.next() % v.len() as u64) as usize];
    let imm = |rng: &mut Rng| -> i64 {
        match rng.next() % 6 {
            0 => (rng.next() % 70) as i64,
            1 => -((rng.next() % 5) as i64),
            2 => 0xFFFF_FFFF,
            3 => 0x8000_0000,
            4 => (rng.next() as u32) as i64,
            _ => 31 + (rng.next() % 3) as i64,
        }
    };
    if rng.next().is_multiple_of(4) {
        let p = pick(rng, &regs.p);
        if rng.next().is_multiple_of(2) {
            b.when(p)
        } else {
            b.unless(p)
        };
    }
    let r32: [Opcode; 13] = [
        Opcode::Add,
        Opcode::Sub,
        Opcode::Mul,
        Opcode::Shl,
        Opcode::Shr,
        Opcode::Sra,
        Opcode::And,
        Opcode::Or,
        Opcode::Xor,
        Opcode::MinU,
        Opcode::MaxU,
        Opcode::MinS,
        Opcode::MaxS,
    ];
    let setps = super::values::COMPARISONS;
    match rng.next() % 10 {
        0..=3 => {
            let op = r32[(rng.next() % r32.len() as u64) as usize];
            let wide = rng.next().is_multiple_of(3);
            let class = if wide { &regs.d } else { &regs.r };
            let (dst, a) = (pick(rng, class), pick(rng, class));
            if wide && matches!(op, Opcode::Shl | Opcode::Shr | Opcode::Sra) {
                // Shift amounts are 32-bit.
                let amount = pick(rng, &regs.r);
                b.binary(op, dst, a, amount);
                return;
            }
            match rng.next() % 4 {
                0 => b.binary(op, dst, a, imm(rng)),
                1 if !wide => b.binary(op, dst, a, Special::LaneId),
                2 if !wide => b.binary(op, dst, a, n),
                _ => b.binary(op, dst, a, pick(rng, class)),
            };
        }
        4 => {
            let op = setps[(rng.next() % setps.len() as u64) as usize];
            let class = if rng.next().is_multiple_of(3) {
                &regs.d
            } else {
                &regs.r
            };
            let (p, a, c) = (pick(rng, &regs.p), pick(rng, class), pick(rng, class));
            if rng.next().is_multiple_of(2) {
                b.binary(op, p, a, c)
            } else {
                b.binary(op, p, a, imm(rng))
            };
        }
        5 => {
            let (dst, a, c, p) = (
                pick(rng, &regs.r),
                pick(rng, &regs.r),
                pick(rng, &regs.r),
                pick(rng, &regs.p),
            );
            b.selp(dst, a, c, p);
        }
        6 => {
            let (lo, hi) = (pick(rng, &regs.r), pick(rng, &regs.r));
            if lo != hi {
                if rng.next().is_multiple_of(2) {
                    b.cmpx_u(lo, hi)
                } else {
                    b.cmpx_s(lo, hi)
                };
            } else {
                b.not(lo, hi);
            }
        }
        7 => {
            let modes = [
                Opcode::ShflIdx,
                Opcode::ShflXor,
                Opcode::ShflUp,
                Opcode::ShflDown,
            ];
            let op = modes[(rng.next() % 4) as usize];
            let width = 1 << (rng.next() % (u64::from(warp.trailing_zeros()) + 1));
            let (dst, src) = (pick(rng, &regs.r), pick(rng, &regs.r));
            if rng.next().is_multiple_of(2) {
                b.shfl(
                    op,
                    dst,
                    src,
                    (rng.next() % u64::from(warp + 2)) as i64,
                    width,
                );
            } else {
                b.shfl(op, dst, src, pick(rng, &regs.r), width);
            }
        }
        8 => {
            let (d, r) = (pick(rng, &regs.d), pick(rng, &regs.r));
            match rng.next() % 3 {
                0 => b.cvt_u64_u32(d, r),
                1 => b.cvt_s64_s32(d, r),
                _ => b.cvt_u32_u64(r, d),
            };
        }
        _ => {
            let (p, q, s) = (pick(rng, &regs.p), pick(rng, &regs.p), pick(rng, &regs.p));
            match rng.next() % 4 {
                0 => b.and(p, q, s),
                1 => b.or(p, q, s),
                2 => b.xor(p, q, s),
                _ => b.not(p, q),
            };
        }
    }
}

/// A straight-line kernel: random instructions over registers seeded from
/// the thread's id and an input buffer, then every register stored to the
/// thread's slice of `out`.
fn random_kernel(seed: u64, warp: u32, len: usize) -> kernels_ir::Kernel {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut b = KernelBuilder::new(format!("random_{seed}"));
    let src = b.param("src", ParamType::U64);
    let out = b.param("out", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let regs = Regs {
        r: b.regs32(6),
        d: (0..3).map(|_| b.reg64()).collect(),
        p: (0..3).map(|_| b.pred()).collect(),
    };
    let (tid, off, base) = (b.reg32(), b.reg64(), b.reg64());
    b.mad_tid(tid);
    b.cvt_u64_u32(off, tid);
    b.mul(off, off, 64);
    b.add(base, src, off);
    for (i, &r) in regs.r.iter().enumerate() {
        b.ld_global_b32(r, base, 4 * i as i32);
    }
    for (i, &d) in regs.d.iter().enumerate() {
        b.load(Opcode::LdGlobalB64, d, Some(base), 24 + 8 * i as i32);
    }
    for (i, &p) in regs.p.iter().enumerate() {
        b.setp_lt_u(p, regs.r[i], regs.r[i + 3]);
    }
    for _ in 0..len {
        random_inst(&mut b, &regs, &mut rng, warp, n);
    }
    b.add(base, out, off);
    for (i, &r) in regs.r.iter().enumerate() {
        b.st_global_b32(base, 4 * i as i32, r);
    }
    for (i, &d) in regs.d.iter().enumerate() {
        b.store(Opcode::StGlobalB64, Some(base), 24 + 8 * i as i32, d);
    }
    let flags = b.reg32();
    b.mov(flags, 0);
    for (i, &p) in regs.p.iter().enumerate() {
        b.when(p).or(flags, flags, 1 << i);
    }
    b.st_global_b32(base, 48, flags);
    b.exit();
    b.build()
}

trait TidExt {
    fn mad_tid(&mut self, dst: Reg);
}

impl TidExt for KernelBuilder {
    /// `dst = %ctaid.x * %ntid.x + %tid.x`.
    fn mad_tid(&mut self, dst: Reg) {
        self.mul(dst, Special::CtaidX, Special::NtidX);
        self.add(dst, dst, Special::TidX);
    }
}

#[test]
fn random_straight_line_kernels_match_the_interpreter() {
    for (warp, cfg) in [(8, GpuConfig::tiny()), (32, GpuConfig::h200())] {
        let mut cfg = cfg;
        cfg.num_sms = 2;
        for seed in 0..60 {
            let k = verified(random_kernel(seed, warp, 40));
            let (_, sim, interp) = run_both(
                &cfg,
                &k,
                Dim3::x(2),
                Dim3::x(2 * warp - 3),
                64 * 4 * u64::from(warp),
                9,
                seed,
            );
            if sim != interp {
                let text = kernels_ir::printer::print_kernel(k.kernel());
                panic!("seed {seed}, warp {warp}: memory differs\n{text}");
            }
        }
    }
}

#[test]
fn registers_start_at_zero_in_reused_warp_slots() {
    // Lanes 0-3 write r0 under a guard, then every lane stores r0: the
    // others must see 0 even in a warp slot a previous block used, and
    // even after a first launch of a kernel that left other values there.
    let mut b = KernelBuilder::new("dirty");
    let out = b.param("out", ParamType::U64);
    // The same register shape as `zero` below, so warp slots are reused as is.
    let (r, _, _, _) = (b.regs32(2), b.pred(), b.reg64(), b.reg64());
    b.mov(r[0], 77);
    b.mov(r[1], 78);
    b.exit();
    let dirty = verified(b.build());
    let mut b = KernelBuilder::new("zero");
    let out2 = b.param("out", ParamType::U64);
    let (r0, p, t, off, a) = (b.reg32(), b.pred(), b.reg32(), b.reg64(), b.reg64());
    b.setp_lt_u(p, Special::LaneId, 4);
    b.when(p).mov(r0, 5);
    b.mad_tid(t);
    b.cvt_u64_u32(off, t);
    b.shl(off, off, 2);
    b.add(a, out2, off);
    b.st_global_b32(a, 0, r0);
    b.exit();
    let zero = verified(b.build());
    let _ = out;
    let mut g = super::util::gpu(GpuConfig::tiny());
    let buf = g.alloc(4 * 8 * 40);
    let params = [kernels_ir::ParamValue::U64(buf)];
    g.launch(&dirty, Dim3::x(40), Dim3::x(8), &params).unwrap();
    g.launch(&zero, Dim3::x(40), Dim3::x(8), &params).unwrap();
    let got = g.read_u32s(buf, 8 * 40).unwrap();
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, if i % 8 < 4 { 5 } else { 0 }, "thread {i}");
    }
}

#[test]
fn a_load_sees_its_own_sms_stores_of_the_same_quantum() {
    // Each thread stores to a word of its block's region, lanes scattered
    // (thread t to word 7t mod 64) or back to back, then loads back the word
    // its neighbour stored and stores it elsewhere: the stores are still in
    // the SM's log when the loads issue (after a barrier), so the loads
    // must read the log.
    for scattered in [false, true] {
        let mut b = KernelBuilder::new("forward");
        let out = b.param("out", ParamType::U64);
        let (t, x, w, v, off, a, base) = (
            b.reg32(),
            b.reg32(),
            b.reg32(),
            b.reg32(),
            b.reg64(),
            b.reg64(),
            b.reg64(),
        );
        b.mad_tid(t);
        b.mul(v, t, 3);
        if scattered {
            b.mul(w, t, 7);
            b.and(w, w, 63);
        } else {
            b.and(w, t, 63);
        }
        b.and(x, t, 63);
        b.sub(x, t, x); // the block's first thread (blocks of 64)
        b.cvt_u64_u32(off, x);
        b.shl(off, off, 3); // two words per thread: a region of 128 words
        b.add(base, out, off);
        b.cvt_u64_u32(off, w);
        b.shl(off, off, 2);
        b.add(a, base, off);
        b.st_global_b32(a, 0, v);
        b.bar_sync();
        b.xor(w, w, 1);
        b.cvt_u64_u32(off, w);
        b.shl(off, off, 2);
        b.add(a, base, off);
        b.ld_global_b32(v, a, 0);
        b.st_global_b32(a, 256, v);
        b.exit();
        let k = verified(b.build());
        for cfg in [GpuConfig::tiny(), GpuConfig::h200()] {
            let (_, sim, interp) = run_both(&cfg, &k, Dim3::x(5), Dim3::x(64), 5 * 512, 0, 3);
            assert_eq!(sim, interp, "scattered {scattered}");
        }
    }
}

/// A kernel in which every thread writes its per-warp specials, `order`
/// first (so kernels with the same registers can hold them in different
/// special slots), to `out[thread * 8 ..]`.
fn specials_kernel(order: &[Special]) -> kernels_ir::Kernel {
    let mut b = KernelBuilder::new("specials");
    let out = b.param("out", ParamType::U64);
    let (flat, t, off, addr) = (b.reg32(), b.reg32(), b.reg64(), b.reg64());
    // The decoder gives specials their slots in the order they are first read.
    for &s in order {
        b.mov(t, s);
    }
    // flat = ((ctaid.y * nctaid.x + ctaid.x) * ntid.z + tid.z) * ntid.y ...
    b.mul(flat, Special::CtaidY, Special::NctaidX);
    b.add(flat, flat, Special::CtaidX);
    b.mul(flat, flat, Special::NtidZ);
    b.add(flat, flat, Special::TidZ);
    b.mul(flat, flat, Special::NtidY);
    b.add(flat, flat, Special::TidY);
    b.mul(flat, flat, Special::NtidX);
    b.add(flat, flat, Special::TidX);
    b.cvt_u64_u32(off, flat);
    b.shl(off, off, 5);
    b.add(addr, out, off);
    let all = [
        Special::TidX,
        Special::TidY,
        Special::TidZ,
        Special::LaneId,
        Special::WarpId,
        Special::CtaidX,
        Special::CtaidY,
    ];
    let rest = all.iter().filter(|s| !order.contains(s));
    for (i, &s) in order.iter().chain(rest).enumerate() {
        b.mov(t, s);
        b.st_global_b32(addr, 4 * i as i32, t);
    }
    b.exit();
    b.build()
}

#[test]
fn per_warp_specials_are_right_in_reused_warp_slots_and_across_launches() {
    // More blocks than the machine holds, so warp slots are reused by
    // warps of other indices and blocks; blocks whose warps lie in one
    // row of x and blocks whose warps span rows and planes.
    let cfg = GpuConfig::tiny();
    let shapes = [
        (Dim3 { x: 4, y: 5, z: 1 }, Dim3::x(16)),
        (Dim3 { x: 3, y: 2, z: 1 }, Dim3 { x: 5, y: 3, z: 2 }),
        (Dim3::x(9), Dim3 { x: 8, y: 2, z: 1 }),
    ];
    for (grid, block) in shapes {
        let threads = grid.count() * block.count();
        let k = verified(specials_kernel(&[Special::LaneId, Special::TidX]));
        let (_, sim, interp) = run_both(&cfg, &k, grid, block, threads * 32, 0, 3);
        assert!(
            sim == interp,
            "grid {grid:?} block {block:?}: specials differ"
        );
    }
    // Two kernels of the same shape whose special slots hold different
    // specials: the second launch must not read the first one's rows.
    let (grid, block) = (Dim3::x(6), Dim3::x(16));
    let bytes = grid.count() * block.count() * 32;
    let mut sim = super::util::gpu(cfg.clone());
    let out = sim.alloc(bytes);
    for order in [
        [Special::LaneId, Special::TidX],
        [Special::TidX, Special::LaneId],
    ] {
        let k = verified(specials_kernel(&order));
        sim.launch(&k, grid, block, &[kernels_ir::ParamValue::U64(out)])
            .expect("launch");
        let words = sim.read_u32s(out, (bytes / 4) as usize).expect("read");
        for (thread, w) in words.chunks(8).enumerate() {
            let t = thread as u32 % 16;
            let want_first = [t % 8, t]; // %laneid (warp of 8), %tid.x
            let got = if order[0] == Special::LaneId {
                [w[0], w[1]]
            } else {
                [w[1], w[0]]
            };
            assert_eq!(got, want_first, "thread {thread}, order {order:?}");
        }
    }
}

#[test]
fn barriers_after_exits_and_a_reconverged_branch_match_the_interpreter() {
    // The issue stage's divergent-barrier check is an internal error
    // (`kernels-ir`'s `verify/barrier.rs` says why no verified kernel
    // trips it): exited lanes are not waited for, and a divergent branch
    // reconverges before the barrier after it.
    let mut b = KernelBuilder::new("exits");
    let out = b.param("out", ParamType::U64);
    let (tid, v, off, addr) = (b.reg32(), b.reg32(), b.reg64(), b.reg64());
    let (p, q) = (b.pred(), b.pred());
    let (els, join) = (b.label("else"), b.label("join"));
    b.mov(tid, Special::TidX);
    b.and(v, tid, 3);
    b.setp_eq(p, v, 3);
    b.when(p).exit();
    b.bar_sync();
    b.setp_eq(q, v, 1);
    b.when(q).bra(els);
    b.mov(v, 100);
    b.bra(join);
    b.bind(els);
    b.mov(v, 200);
    b.bind(join);
    b.bar_sync();
    b.add(v, v, tid);
    b.cvt_u64_u32(off, tid);
    b.shl(off, off, 2);
    b.add(addr, out, off);
    b.st_global_b32(addr, 0, v);
    let k = verified(b.build());
    for cfg in machines() {
        let block = 4 * cfg.warp_size;
        let (stats, sim, interp) = run_both(&cfg, &k, Dim3::x(2), Dim3::x(block), 4 * 512, 0, 5);
        assert_eq!(sim, interp, "W={}", cfg.warp_size);
        assert_eq!(stats.barriers, 2 * 2, "two barriers in each of two blocks");
    }
}
