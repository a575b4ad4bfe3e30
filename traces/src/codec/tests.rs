//! Encoding round trips and the decoder's behaviour on cut chunks.

use super::*;

/// One event of every kind, with awkward values.
pub(crate) fn sample_events() -> Vec<Event> {
    vec![
        Event::KernelLaunch {
            cycle: 5,
            launch: 0,
            kernel: 1,
            grid: [4, 1, 1],
            block: [64, 1, 1],
            label: "run 1: stage 14 step 3 \u{2192} ok".to_string(),
        },
        Event::BlockStart {
            cycle: 5,
            sm: 3,
            block: 2,
        },
        Event::Issue {
            cycle: 9,
            sm: 3,
            sched: 1,
            block: 2,
            warp: 1,
            pc: 17,
            active: u64::MAX,
            slots: 2,
        },
        Event::Issue {
            cycle: 8,
            sm: 3,
            sched: 0,
            block: 2,
            warp: 0,
            pc: 0,
            active: 0xf0,
            slots: 1,
        },
        Event::Stall {
            cycle: 10,
            sm: 3,
            block: 2,
            warp: 1,
            pc: 18,
            reason: StallReason::ShortScoreboard,
            cycles: 1234,
        },
        Event::SharedAccess {
            cycle: 12,
            sm: 3,
            block: 2,
            warp: 1,
            pc: 20,
            kind: AccessKind::Store,
            wavefronts: 4,
            conflicts: 3,
            words_per_bank: vec![4, 0, 1, 255],
            bytes: 8,
            active: 0b1011,
            addrs: vec![0, 4096, 0, 1 << 40],
        },
        Event::GlobalRequest {
            cycle: 13,
            sm: 3,
            block: 2,
            warp: 0,
            pc: 2,
            is_store: false,
            sectors: 32,
        },
        Event::BarrierArrive {
            cycle: 14,
            sm: 3,
            block: 2,
            warp: 0,
        },
        Event::BarrierRelease {
            cycle: 15,
            sm: 3,
            block: 2,
        },
        Event::RegWrite {
            cycle: u64::MAX,
            block: 2,
            warp: 1,
            reg: RegRef {
                class: RegClass::B64,
                index: 7,
            },
            mask: 0b101,
            values: vec![u64::MAX, 0, 3, 0],
        },
        Event::Counters {
            cycle: 0,
            sm: 131,
            sample: CounterSample {
                inst_issued: 100,
                smem_wavefronts: 7,
                smem_bank_conflicts: 3,
                gmem_requests: 2,
                gmem_sectors: 64,
                stall_warp_cycles: vec![1, 2, 3],
            },
        },
        Event::BlockEnd {
            cycle: 20,
            sm: 3,
            block: 2,
        },
        Event::KernelEnd {
            cycle: 21,
            launch: 0,
        },
    ]
}

#[test]
fn every_event_kind_round_trips() {
    let mut enc = Encoder::default();
    let mut buf = Vec::new();
    for e in sample_events() {
        validate(&e).unwrap();
        enc.encode(&e, &mut buf);
    }
    let mut dec = Decoder::new(&buf);
    let mut back = Vec::new();
    while !dec.is_done() {
        back.push(dec.next_event().unwrap());
    }
    assert_eq!(back, sample_events());
}

#[test]
fn a_full_warp_issue_takes_a_few_bytes() {
    let mut enc = Encoder::default();
    let mut buf = Vec::new();
    let e = Event::Issue {
        cycle: 0,
        sm: 1,
        sched: 2,
        block: 3,
        warp: 4,
        pc: 5,
        active: !0,
        slots: 1,
    };
    enc.encode(&e, &mut buf);
    // Tag, cycle, five fields, the inactive lanes and the slots: a byte each.
    assert_eq!(buf.len(), 9);
}

#[test]
fn invalid_events_are_refused() {
    let too_wide = Event::RegWrite {
        cycle: 0,
        block: 0,
        warp: 0,
        reg: RegRef {
            class: RegClass::B32,
            index: 0,
        },
        mask: 1,
        values: vec![0; 65],
    };
    assert!(validate(&too_wide).is_err());
    let bad_mask = Event::RegWrite {
        cycle: 0,
        block: 0,
        warp: 0,
        reg: RegRef {
            class: RegClass::B32,
            index: 0,
        },
        mask: 0b100,
        values: vec![0; 2],
    };
    assert!(validate(&bad_mask).is_err());
}

#[test]
fn every_truncation_inside_an_event_is_an_error_not_a_panic() {
    let mut enc = Encoder::default();
    let mut buf = Vec::new();
    let mut boundaries = vec![0];
    for e in sample_events() {
        enc.encode(&e, &mut buf);
        boundaries.push(buf.len());
    }
    for cut in 0..buf.len() {
        let mut dec = Decoder::new(&buf[..cut]);
        let mut failed = false;
        while !dec.is_done() {
            if dec.next_event().is_err() {
                failed = true;
                break;
            }
        }
        assert_eq!(failed, !boundaries.contains(&cut), "cut at {cut}");
    }
}

#[test]
fn a_version_2_shared_access_reads_without_width_or_addresses() {
    // Version 2 wrote a shared access without the three trailing fields
    // version 3 added; with them empty (width 0, no lanes, mask 0) they
    // take one byte each, so cutting those gives the version 2 bytes.
    let e = Event::SharedAccess {
        cycle: 7,
        sm: 1,
        block: 2,
        warp: 3,
        pc: 4,
        kind: AccessKind::Load,
        wavefronts: 2,
        conflicts: 1,
        words_per_bank: vec![2, 1],
        bytes: 0,
        active: 0,
        addrs: Vec::new(),
    };
    let mut buf = Vec::new();
    Encoder::default().encode(&e, &mut buf);
    let v2 = &buf[..buf.len() - 3];
    let mut dec = Decoder::resume(v2, (0, 0), 2);
    assert_eq!(dec.next_event().unwrap(), e);
    assert!(dec.is_done());
    // A version 3 reader of the same bytes runs out: the fields are needed.
    assert!(Decoder::resume(v2, (0, 0), 3).next_event().is_err());
}

#[test]
fn shared_access_lanes_beyond_the_warp_are_refused() {
    let e = Event::SharedAccess {
        cycle: 0,
        sm: 0,
        block: 0,
        warp: 0,
        pc: 0,
        kind: AccessKind::Store,
        wavefronts: 1,
        conflicts: 0,
        words_per_bank: vec![1],
        bytes: 4,
        active: 0b100,
        addrs: vec![0, 4],
    };
    assert!(matches!(validate(&e), Err(TraceError::InvalidEvent(_))));
}

/// Format version 2 recorded stall-reason changes (sm, block, warp,
/// reason), which are not charges: a reader skips them, and its issues
/// read back with one slot.
#[test]
fn version_2_stall_changes_are_skipped_and_issues_take_one_slot() {
    // A v2 stall record (tag 5, cycle delta +3, sm 1, block 2, warp 3,
    // reason 4), then a v2 issue (tag 4, delta 0, sm, sched, block, warp,
    // pc, inactive lanes 0).
    let bytes = [5u8, 6, 1, 2, 3, 4, 4, 0, 1, 0, 2, 3, 9, 0];
    let mut dec = Decoder::resume(&bytes, (0, 0), 2);
    assert_eq!(dec.next_record().unwrap(), None);
    assert_eq!(
        dec.next_record().unwrap(),
        Some(Event::Issue {
            cycle: 3,
            sm: 1,
            sched: 0,
            block: 2,
            warp: 3,
            pc: 9,
            active: u64::MAX,
            slots: 1,
        })
    );
    assert!(dec.is_done());
}

#[test]
fn a_stall_charge_of_nothing_is_corrupt() {
    let mut enc = Encoder::default();
    let mut buf = Vec::new();
    let charge = |reason, cycles| Event::Stall {
        cycle: 1,
        sm: 0,
        block: 0,
        warp: 0,
        pc: 0,
        reason,
        cycles,
    };
    for bad in [
        charge(StallReason::Barrier, 0),
        charge(StallReason::Selected, 3),
    ] {
        buf.clear();
        enc.reset();
        enc.encode(&bad, &mut buf);
        assert!(Decoder::new(&buf).next_event().is_err(), "{bad:?}");
    }
}

/// Only the lanes in an access's mask carry an address, so an access of
/// eight lanes with one active takes fewer than eight bytes after its lane
/// count: a reader must not take the count for a byte count (it did, and
/// refused W=8 traces whose sparse access ended a chunk).
#[test]
fn a_sparse_access_at_the_end_of_a_chunk_reads_back() {
    let e = Event::SharedAccess {
        cycle: 5,
        sm: 0,
        block: 0,
        warp: 1,
        pc: 2,
        kind: AccessKind::Store,
        wavefronts: 1,
        conflicts: 0,
        words_per_bank: vec![1],
        bytes: 4,
        active: 0b1,
        addrs: vec![0, 0, 0, 0, 0, 0, 0, 0],
    };
    let mut buf = Vec::new();
    Encoder::default().encode(&e, &mut buf);
    let mut dec = Decoder::new(&buf);
    assert_eq!(dec.next_event().unwrap(), e);
    assert!(dec.is_done());
}
