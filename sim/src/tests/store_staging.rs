//! Stores that wait for the port and for their staging quads
//! ([`crate::store_staging`], `store_port_hold`, `store_staging_quads`).

use kernels_ir::ParamValue;

use super::util::{at_loads, launch_ir};
use crate::{GpuConfig, KernelStats, StallReason};

/// One block of 256 threads, each loading 8 16-byte chunks of its own
/// line and storing them back plus one: 64 store requests of 32 half
/// sectors, which the L1 holds (`tests/kernels/stage.kir`).
fn stage(cfg: GpuConfig) -> KernelStats {
    let text = include_str!("../../../tests/kernels/stage.kir");
    launch_ir(cfg, "stage.kir", text, 1, 256, |g| {
        vec![ParamValue::U64(g.alloc(256 * 128))]
    })
}

/// The warp-cycles charged to `reason` at the kernel's stores (its last 8
/// instructions before `exit`).
fn at_stores(s: &KernelStats, reason: StallReason) -> u64 {
    let n = s.per_pc.len();
    (s.per_pc[n - 9..n - 1].iter())
        .map(|p| p.stalls[reason.index()])
        .sum()
}

/// `stage` on one SM of the H200 with the two fields set so: the
/// warp-cycles its stores wait in `lg_throttle` and in `long_scoreboard`,
/// and the launch's cycles.
fn waits(hold: u32, quads: u32) -> (u64, u64, u64) {
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 1;
    cfg.store_port_hold = hold;
    cfg.store_staging_quads = quads;
    let s = stage(cfg);
    (
        at_stores(&s, StallReason::LgThrottle),
        at_stores(&s, StallReason::LongScoreboard),
        s.cycles.0,
    )
}

#[test]
fn held_stores_fill_the_queue_and_staged_ones_wait_for_their_quads() {
    let h200 = GpuConfig::h200();
    assert_eq!((h200.store_port_hold, h200.store_staging_quads), (1, 2));
    // Neither: a store leaves the queue within the LSU's tag cycles.
    let (lg, long, cycles) = waits(0, 0);
    assert_eq!((lg, long), (0, 0));
    // Held until the port takes them (64 cycles a store), the stores fill
    // each sub-partition's queue of 8: GPUTeraSort's `tail`.
    let (lg, long, held) = waits(1, 0);
    assert!(lg > 1000 && long == 0, "held: lg {lg}, long {long}");
    // Staged in two quads as well, a warp waits for its store two before
    // to leave: at most two a warp queued, four a sub-partition, the queue
    // never full (GPUTeraSort's `step`: `long_scoreboard`).
    let (lg, long, staged) = waits(1, 2);
    assert!(lg == 0 && long > 10_000, "staged: lg {lg}, long {long}");
    // Not held, a staged store reads its quad at once: no wait.
    let (lg, long, _) = waits(0, 2);
    assert_eq!((lg, long), (0, 0));
    // The port sends the same writes in the same time either way.
    assert_eq!((held, staged), (cycles, cycles));
}

/// The warp-cycles the loads of `hw/calib/kernels/xbar.kir` wait in
/// `long_scoreboard` over two rounds of GPUTeraSort's fused `step` in
/// place (8 16-byte loads, then 8 stores of what they loaded, a line a
/// lane) on one SM, `store_port_hold` set to `hold`.
fn reloads_wait(hold: u32) -> u64 {
    let text = include_str!("../../../hw/calib/kernels/xbar.kir");
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 1;
    cfg.store_port_hold = hold;
    let s = launch_ir(cfg, "xbar.kir", text, 1, 256, |g| {
        // buf, s, kstride, istride (0: the same lines), iters, ld, st
        let mut p = vec![ParamValue::U64(g.alloc(256 * 128))];
        p.extend([7, 16, 0, 2, 1, 1].map(ParamValue::U32));
        p
    });
    at_loads("xbar.kir", text, &s, StallReason::LongScoreboard)
}

#[test]
fn a_held_store_reads_its_registers_when_the_port_takes_it() {
    // The second round's loads rewrite the registers the first round's
    // stores read: held until the port takes them (64 cycles a store, 64
    // stores), the stores read them late, and the loads wait for that.
    let (held, not) = (reloads_wait(1), reloads_wait(0));
    assert!(held > not + 64 * 64, "held {held}, not held {not}");
}
