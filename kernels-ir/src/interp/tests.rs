//! Whole-kernel tests of the reference interpreter.

use super::*;
use crate::{KernelBuilder, Opcode, ParamType, Reg, Special, verify_kernel};

fn verified(b: KernelBuilder) -> VerifiedKernel {
    verify_kernel(b.build()).expect("kernel verifies")
}

/// `out[tid] = f(tid)` scaffolding: returns (builder, tid, address of out[tid]).
fn per_thread(name: &str) -> (KernelBuilder, Reg, Reg) {
    let mut b = KernelBuilder::new(name);
    let out = b.param("out", ParamType::U64);
    let (tid, off, addr) = (b.reg32(), b.reg64(), b.reg64());
    b.mov(tid, Special::TidX);
    b.cvt_u64_u32(off, tid);
    b.shl(off, off, 2);
    b.add(addr, out, off);
    (b, tid, addr)
}

fn run(kernel: &VerifiedKernel, warp: u32, threads: u32) -> Vec<u32> {
    let mut dev = Interp::new(warp).unwrap();
    let out = dev.alloc(threads as u64 * 4);
    dev.launch(
        kernel,
        Dim3::x(1),
        Dim3::x(threads),
        &[ParamValue::U64(out)],
    )
    .unwrap();
    dev.read_u32s(out, threads as usize).unwrap()
}

#[test]
fn divergent_if_else_runs_both_sides_and_reconverges() {
    let (mut b, tid, addr) = per_thread("ifelse");
    let (v, p) = (b.reg32(), b.pred());
    let (els, join) = (b.label("else"), b.label("join"));
    b.and(v, tid, 1);
    b.setp_eq(p, v, 1);
    b.when(p).bra(els);
    b.mov(v, 100);
    b.bra(join);
    b.bind(els);
    b.mov(v, 200);
    b.bind(join);
    b.add(v, v, tid); // runs once, reconverged, for every lane
    b.st_global_b32(addr, 0, v);
    let got = run(&verified(b), 8, 16);
    let want: Vec<u32> = (0..16)
        .map(|t| t + if t % 2 == 1 { 200 } else { 100 })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn loops_with_lane_dependent_trip_counts_terminate() {
    let (mut b, tid, addr) = per_thread("loop");
    let (i, acc, p) = (b.reg32(), b.reg32(), b.pred());
    let (top, done) = (b.label("top"), b.label("done"));
    b.mov(i, 0);
    b.mov(acc, 0);
    b.bind(top);
    b.setp_ge_u(p, i, tid);
    b.when(p).bra(done);
    b.add(acc, acc, i);
    b.add(i, i, 1);
    b.bra(top);
    b.bind(done);
    b.st_global_b32(addr, 0, acc);
    let got = run(&verified(b), 4, 12);
    let want: Vec<u32> = (0..12).map(|t| (0..t).sum()).collect();
    assert_eq!(got, want);
}

#[test]
fn shuffle_xor_swaps_partners() {
    let (mut b, tid, addr) = per_thread("shfl");
    let v = b.reg32();
    b.shfl_xor(v, tid, 1, 4);
    b.st_global_b32(addr, 0, v);
    assert_eq!(run(&verified(b), 8, 8), vec![1, 0, 3, 2, 5, 4, 7, 6]);
}

#[test]
fn block_reduction_through_shared_memory_and_barriers() {
    // Every thread adds its tid into warp 0's slot via shared memory, in
    // two barrier-separated phases.
    let (mut b, tid, addr) = per_thread("reduce");
    let smem = b.shared(64 * 4, 4);
    let (soff, v, i, p, acc) = (b.reg32(), b.reg32(), b.reg32(), b.pred(), b.reg32());
    b.shl(soff, tid, 2);
    b.mul(v, tid, 3);
    b.st_shared_b32(Some(soff), smem as i32, v);
    b.bar_sync();
    let (top, done) = (b.label("top"), b.label("done"));
    b.mov(i, 0);
    b.mov(acc, 0);
    b.bind(top);
    b.setp_ge_u(p, i, Special::NtidX);
    b.when(p).bra(done);
    b.shl(soff, i, 2);
    b.ld_shared_b32(v, Some(soff), smem as i32);
    b.add(acc, acc, v);
    b.add(i, i, 1);
    b.bra(top);
    b.bind(done);
    b.st_global_b32(addr, 0, acc);
    let got = run(&verified(b), 4, 20);
    assert_eq!(got, vec![(0..20).map(|t| 3 * t).sum::<u32>(); 20]);
}

#[test]
fn out_of_bounds_store_faults_with_its_location() {
    let (mut b, _tid, addr) = per_thread("oob");
    let v = b.reg32();
    b.st_global_b32(addr, 4096, v);
    let k = verified(b);
    let mut dev = Interp::new(8).unwrap();
    let out = dev.alloc(32);
    let err = dev
        .launch(&k, Dim3::x(1), Dim3::x(8), &[ParamValue::U64(out)])
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("out of bounds") && msg.contains("warp 0") && msg.contains("pc 4"),
        "{msg}"
    );
}

#[test]
fn misaligned_access_faults() {
    let (mut b, _tid, addr) = per_thread("mis");
    let v = b.reg32();
    b.load(Opcode::LdGlobalB32, v, Some(addr), 2);
    let k = verified(b);
    let mut dev = Interp::new(4).unwrap();
    let out = dev.alloc(64);
    let err = dev
        .launch(&k, Dim3::x(1), Dim3::x(4), &[ParamValue::U64(out)])
        .unwrap_err();
    assert!(err.to_string().contains("misaligned"), "{err}");
}

#[test]
fn a_barrier_behind_a_guarded_write_is_rejected_statically() {
    // A value made lane-dependent by a guarded write, then branched on
    // around a barrier: the verifier's uniformity analysis rejects it, so
    // no run can reach the barrier with part of a warp (the runtime check
    // is an internal error: `verify/barrier.rs` says why).
    let (mut b, tid, _addr) = per_thread("divbar");
    let (p, q, r) = (b.pred(), b.pred(), b.reg32());
    let skip = b.label("skip");
    b.setp_eq(p, tid, 0);
    b.mov(r, 0);
    b.when(p).mov(r, 1);
    b.setp_eq(q, r, 1);
    b.when(q).bra(skip);
    b.bar_sync();
    b.bind(skip);
    b.exit();
    let err = verify_kernel(b.build()).expect_err("a divergent barrier");
    let text = err.to_string();
    assert!(
        text.contains("`bar.sync` may be reached by only some threads of the block"),
        "{text}"
    );
}

#[test]
fn barriers_after_exits_and_a_reconverged_branch_wait_for_the_live_lanes() {
    // What the argument in `verify/barrier.rs` rests on: lanes that exited
    // are not waited for, and a divergent branch reconverges before the
    // barrier after it, so neither is a divergent barrier.
    let (mut b, tid, addr) = per_thread("exits");
    let (v, p, q) = (b.reg32(), b.pred(), b.pred());
    let (els, join) = (b.label("else"), b.label("join"));
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
    b.st_global_b32(addr, 0, v);
    let got = run(&verified(b), 8, 16);
    let want: Vec<u32> = (0..16)
        .map(|t| match t % 4 {
            3 => 0,
            1 => t + 200,
            _ => t + 100,
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn infinite_loop_hits_the_step_limit() {
    let mut b = KernelBuilder::new("spin");
    b.param("out", ParamType::U64);
    let top = b.label("top");
    b.bind(top);
    b.bra(top);
    let k = verified(b);
    let mut dev = Interp::new(4).unwrap();
    dev.step_limit = 1000;
    let err = dev
        .launch(&k, Dim3::x(1), Dim3::x(4), &[ParamValue::U64(0)])
        .unwrap_err();
    assert!(matches!(err, InterpError::StepLimit { .. }), "{err}");
}

#[test]
fn partial_warps_and_guarded_exit() {
    let (mut b, tid, addr) = per_thread("partial");
    let p = b.pred();
    b.setp_ge_u(p, tid, 5);
    b.when(p).exit();
    b.st_global_b32(addr, 0, tid);
    let got = run(&verified(b), 4, 7);
    assert_eq!(got, vec![0, 1, 2, 3, 4, 0, 0]);
}

#[test]
fn wide_loads_fill_registers_lowest_address_first() {
    let (mut b, _tid, addr) = per_thread("wide");
    let (x, y) = (b.reg32(), b.reg32());
    b.load(
        Opcode::LdGlobalB64,
        crate::RegList::new(&[x, y]),
        Some(addr),
        0,
    );
    b.sub(x, y, x);
    b.st_global_b32(addr, 0, x);
    let k = verified(b);
    let mut dev = Interp::new(4).unwrap();
    let out = dev.alloc(64);
    dev.write_u32s(out, &[1, 10, 2, 20, 3, 30, 4, 40]).unwrap();
    // Thread t reads words t and t+1 (stride 4 bytes, 8-byte loads need 8-byte
    // alignment, so only even threads are valid): launch 1 thread per pair.
    let err = dev.launch(&k, Dim3::x(1), Dim3::x(2), &[ParamValue::U64(out)]);
    assert!(err.is_err(), "thread 1's 8-byte load at +4 is misaligned");
    dev.launch(&k, Dim3::x(1), Dim3::x(1), &[ParamValue::U64(out)])
        .unwrap();
    assert_eq!(dev.read_u32s(out, 2).unwrap(), vec![9, 10]);
}

/// A shared histogram: every thread adds `tid + 1` to bin `tid % 4` and
/// keeps the old value; after a barrier the first four threads add 1000
/// to their bins' totals.
fn histogram_kernel(guard_odd: bool) -> VerifiedKernel {
    let (mut b, tid, addr) = per_thread("hist");
    let bins = b.shared(4 * 4, 4);
    let (bin, inc, old, p, q) = (b.reg32(), b.reg32(), b.reg32(), b.pred(), b.pred());
    let (tmp, done) = (b.reg32(), b.label("done"));
    b.and(bin, tid, 3);
    b.shl(bin, bin, 2);
    b.add(inc, tid, 1);
    b.mov(old, 7); // seen unchanged in lanes the guard turns off
    b.and(tmp, tid, 1);
    b.setp_eq(p, tmp, 1);
    if guard_odd {
        b.unless(p);
    }
    b.atom_shared_add_u32(old, Some(bin), bins as i32, inc);
    b.bar_sync();
    b.setp_ge_u(q, tid, 4);
    b.when(q).bra(done);
    b.shl(tmp, tid, 2);
    b.atom_shared_add_u32(tmp, Some(tmp), bins as i32, 1000);
    b.add(old, tmp, 0);
    b.bind(done);
    b.st_global_b32(addr, 0, old);
    verified(b)
}

#[test]
fn shared_atomics_apply_in_lane_order_and_return_the_old_value() {
    // 12 threads in warps of 8: warp 0 runs first, and within a warp the
    // lanes add in ascending order, so thread t sees the sum of t' + 1 over
    // the earlier threads t' of its bin.
    let got = run(&histogram_kernel(false), 8, 12);
    let before = |t: u32| -> u32 { (0..t).filter(|u| u % 4 == t % 4).map(|u| u + 1).sum() };
    let want: Vec<u32> = (0..12)
        .map(|t| {
            if t < 4 {
                // The second atomic returns the bin's total.
                (0..12).filter(|u| u % 4 == t).map(|u| u + 1).sum()
            } else {
                before(t)
            }
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn guarded_off_lanes_neither_add_nor_write_their_destination() {
    let got = run(&histogram_kernel(true), 8, 12);
    let odd_before = |t: u32| -> u32 {
        (0..t)
            .filter(|u| u % 4 == t % 4 && u % 2 == 0)
            .map(|u| u + 1)
            .sum()
    };
    for (t, &v) in got.iter().enumerate().skip(4) {
        let t = t as u32;
        let want = if t % 2 == 1 { 7 } else { odd_before(t) };
        assert_eq!(v, want, "thread {t}");
    }
    // Bins 1 and 3 received nothing but the second pass's own addition.
    assert_eq!(got[1], 0);
    assert_eq!(got[3], 0);
    assert_eq!(got[0], 1 + 5 + 9);
}

#[test]
fn shared_atomics_fault_like_shared_loads() {
    for (offset, what) in [(2, "misaligned 4-byte access"), (64, "out of bounds")] {
        let (mut b, _tid, _addr) = per_thread("atomfault");
        b.shared(64, 4);
        let (base, old) = (b.reg32(), b.reg32());
        b.mov(base, 0);
        b.atom_shared_add_u32(old, Some(base), offset, 1);
        let k = verified(b);
        let mut dev = Interp::new(4).unwrap();
        let out = dev.alloc(64);
        let err = dev
            .launch(&k, Dim3::x(1), Dim3::x(4), &[ParamValue::U64(out)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(what) && err.contains("`atomfault`") && err.contains("pc 5"),
            "{err}"
        );
    }
}
