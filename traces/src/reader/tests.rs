//! Writer/reader round trips and the reader's behaviour on damaged files.

use std::io::Cursor;

use proptest::prelude::*;

use crate::{
    AccessKind, CounterSample, Event, FORMAT_VERSION, Focus, KernelSource, RegClass, RegRef,
    StallReason, TraceError, TraceHeader, TraceLevel, TraceOptions, TraceReader, TraceWriter,
};

fn header(level: TraceLevel) -> TraceHeader {
    let mut h = TraceHeader::new(TraceOptions {
        level,
        focus: Focus {
            block: 1,
            warp: Some(0),
        },
        counter_interval_cycles: 100,
    });
    h.config = vec![
        ("warp_size".into(), 4.into()),
        ("smem_banks".into(), 8.into()),
    ];
    h.sort_options = vec![("keys".into(), "64".into())];
    h.kernels.push(KernelSource::from_text(
        "bs",
        "block0:\n    mov r0, 1\n    exit\n",
    ));
    h
}

/// Two launches over two blocks; the second long enough to span chunks.
fn run_events(issues: u64) -> Vec<Event> {
    let mut v = vec![Event::KernelLaunch {
        cycle: 0,
        launch: 0,
        kernel: 0,
        grid: [2, 1, 1],
        block: [8, 1, 1],
        label: "first".to_string(),
    }];
    for block in 0..2 {
        v.push(Event::BlockStart {
            cycle: 0,
            sm: block,
            block,
        });
    }
    v.push(Event::KernelEnd {
        cycle: 10,
        launch: 0,
    });
    v.push(Event::KernelLaunch {
        cycle: 10,
        launch: 1,
        kernel: 0,
        grid: [2, 1, 1],
        block: [8, 1, 1],
        label: String::new(),
    });
    for c in 0..issues {
        let cycle = 10 + c;
        for block in 0..2 {
            let warp = (c % 2) as u32;
            let pc = (c % 7) as u32;
            v.push(Event::Issue {
                cycle,
                sm: block,
                sched: warp,
                block,
                warp,
                pc,
                active: 0xf,
                slots: 1,
            });
            v.push(Event::RegWrite {
                cycle: cycle + 1,
                block,
                warp,
                reg: RegRef {
                    class: RegClass::B32,
                    index: pc,
                },
                mask: 0b1011,
                values: vec![c, c * 3, 0, u64::from(u32::MAX)],
            });
            if c % 5 == 0 {
                v.push(Event::SharedAccess {
                    cycle,
                    sm: block,
                    block,
                    warp,
                    pc,
                    kind: AccessKind::ALL[(c % 3) as usize],
                    wavefronts: 2,
                    conflicts: 1,
                    words_per_bank: vec![2, 1, 0, 0, 1, 1, 0, 0],
                    bytes: 4,
                    active: 0b11,
                    addrs: vec![0, 32],
                });
                v.push(Event::Stall {
                    cycle,
                    sm: block,
                    block,
                    warp,
                    pc,
                    reason: StallReason::MioThrottle,
                    cycles: 3,
                });
            }
        }
        if c % 100 == 99 {
            v.push(Event::Counters {
                cycle,
                sm: 0,
                sample: CounterSample {
                    inst_issued: 100,
                    ..CounterSample::default()
                },
            });
        }
    }
    v.push(Event::KernelEnd {
        cycle: 10 + issues,
        launch: 1,
    });
    v
}

fn write(level: TraceLevel, events: &[Event]) -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new(), &header(level)).unwrap();
    for e in events {
        w.record(e).unwrap();
    }
    w.finish().unwrap()
}

fn read_all(bytes: &[u8]) -> Result<Vec<Event>, TraceError> {
    let mut r = TraceReader::new(Cursor::new(bytes))?;
    r.events().collect()
}

#[test]
fn full_level_keeps_everything_but_unfocused_registers() {
    let events = run_events(30_000);
    let bytes = write(TraceLevel::Full, &events);
    let expected: Vec<Event> = events
        .iter()
        .filter(|e| !matches!(e, Event::RegWrite { block, warp, .. } if (*block, *warp) != (1, 0)))
        .cloned()
        .collect();
    let r = TraceReader::new(Cursor::new(&bytes)).unwrap();
    assert!(r.chunks().len() > 2, "{} chunks", r.chunks().len());
    assert_eq!(r.header(), &header(TraceLevel::Full));
    assert_eq!(r.event_count(), expected.len() as u64);
    assert_eq!(streams(&read_all(&bytes).unwrap()), streams(&expected));
}

/// Events by the stream the writer keeps them in (see `writer.rs`): each
/// block's per-block events, and the launch-wide ones (`None`), each in
/// the order recorded; the format keeps that order, not the interleaving.
fn streams(v: &[Event]) -> std::collections::BTreeMap<Option<u32>, Vec<Event>> {
    let mut m: std::collections::BTreeMap<Option<u32>, Vec<Event>> = Default::default();
    for e in v {
        let b = e.detail_block().or(e.warp().map(|w| w.0));
        m.entry(b).or_default().push(e.clone());
    }
    m
}

/// One launch of `blocks` blocks all resident at once, their events
/// interleaved cycle by cycle as a simulator records them; block `b`'s
/// shared accesses conflict `(b * 7 + c) % 13` ways.
fn resident_launch(blocks: u32, cycles: u64) -> Vec<Event> {
    let mut v = vec![Event::KernelLaunch {
        cycle: 0,
        launch: 0,
        kernel: 0,
        grid: [blocks, 1, 1],
        block: [8, 1, 1],
        label: "all resident".into(),
    }];
    for block in 0..blocks {
        v.push(Event::BlockStart {
            cycle: 0,
            sm: block,
            block,
        });
    }
    for c in 0..cycles {
        for block in 0..blocks {
            let warp = (c % 2) as u32;
            v.push(Event::Issue {
                cycle: c + 1,
                sm: block,
                sched: 0,
                block,
                warp,
                pc: (c % 3) as u32,
                active: 0xf,
                slots: 1,
            });
            if c % 50 == 0 {
                let conflicts = ((u64::from(block) * 7 + c) % 13) as u32;
                v.push(Event::SharedAccess {
                    cycle: c + 1,
                    sm: block,
                    block,
                    warp,
                    pc: 1,
                    kind: AccessKind::Store,
                    wavefronts: conflicts + 1,
                    conflicts,
                    words_per_bank: vec![1; 8],
                    bytes: 4,
                    active: 0b11,
                    addrs: vec![0, 4],
                });
            }
        }
        if c % 100 == 0 {
            v.push(Event::Counters {
                cycle: c + 1,
                sm: 0,
                sample: CounterSample {
                    inst_issued: 100,
                    ..CounterSample::default()
                },
            });
        }
    }
    for block in 0..blocks {
        v.push(Event::BlockEnd {
            cycle: cycles + 1,
            sm: block,
            block,
        });
    }
    v.push(Event::KernelEnd {
        cycle: cycles + 2,
        launch: 0,
    });
    v
}

#[test]
fn each_block_has_chunks_of_its_own_so_reading_one_block_decodes_only_it() {
    let events = resident_launch(64, 4000);
    let bytes = write(TraceLevel::Full, &events);
    let mut r = TraceReader::new(Cursor::new(&bytes)).unwrap();
    assert!(r.has_block_chunks());
    // One chunk per block or none: with one time-ordered stream, every
    // chunk held all 64 blocks and reading one block decoded them all.
    assert!(r.chunks().len() > 64, "{} chunks", r.chunks().len());
    assert!(
        r.chunks()
            .iter()
            .all(|c| c.blocks.is_none_or(|(lo, hi)| lo == hi))
    );
    let got: Vec<Event> = r.block_events(0, 5).collect::<Result<_, _>>().unwrap();
    let (mine, want) = (streams(&got), streams(&events));
    assert_eq!(mine.keys().collect::<Vec<_>>(), [&None, &Some(5)]);
    assert_eq!(mine[&Some(5)], want[&Some(5)]);
    assert_eq!(
        mine[&None], want[&None],
        "every block start, end and sample"
    );
    assert!(
        got.len() * 20 < events.len(),
        "{} of {}",
        got.len(),
        events.len()
    );
    // A damaged byte in one of the block's chunks is an error, not a panic.
    let list = r.block_chunks(0, 5);
    let mut bad = bytes.clone();
    let c = &r.chunks()[list[list.len() / 2]];
    bad[(c.offset + 17 + u64::from(c.compressed_len) / 2) as usize] ^= 0x55;
    let mut rb = TraceReader::new(Cursor::new(&bad)).unwrap();
    let err = rb
        .block_events(0, 5)
        .collect::<Result<Vec<_>, _>>()
        .unwrap_err()
        .to_string();
    assert!(err.contains("checksum"), "{err}");
    // Read in order, a launch still begins with its launch event and ends
    // with its end event; only launch-wide events come without detail.
    let all: Vec<Event> = r.launch_events(0).collect::<Result<_, _>>().unwrap();
    assert!(matches!(all[0], Event::KernelLaunch { .. }));
    assert!(matches!(all.last(), Some(Event::KernelEnd { .. })));
    assert_eq!(streams(&all), want);
    let wide: Vec<Event> = r.launch_wide_events(0).collect::<Result<_, _>>().unwrap();
    assert_eq!(wide, want[&None]);
}

#[test]
fn the_index_names_the_launchs_worst_conflict_over_every_block() {
    let events = resident_launch(16, 400);
    let r = TraceReader::new(Cursor::new(write(TraceLevel::Full, &events))).unwrap();
    let worst = events
        .iter()
        .filter_map(|e| match *e {
            Event::SharedAccess {
                cycle,
                block,
                warp,
                pc,
                conflicts,
                ..
            } => Some(crate::ConflictMark {
                block,
                warp,
                cycle,
                pc,
                conflicts,
            }),
            _ => None,
        })
        .min_by_key(|m| (std::cmp::Reverse(m.conflicts), m.cycle, m.block, m.warp))
        .unwrap();
    // 12 conflicts, first at cycle 1 in block 11 ((11 * 7 + 0) % 13 = 12),
    // not the focus block.
    assert_eq!((worst.block, worst.cycle, worst.conflicts), (11, 1, 12));
    assert_eq!(r.launches()[0].worst_conflict, Some(worst));
    // A launch without conflicts has none.
    let quiet = write(TraceLevel::Full, &run_events(10));
    let q = TraceReader::new(Cursor::new(quiet)).unwrap();
    assert_eq!(q.launches()[0].worst_conflict, None);
}

#[test]
fn a_full_block_buffer_writes_its_largest_block_and_the_file_stays_the_same() {
    let events = resident_launch(32, 3000);
    let write_limited = |limit| {
        let mut w = TraceWriter::new(Vec::new(), &header(TraceLevel::Full)).unwrap();
        w.limit_block_buffers(limit);
        for e in &events {
            w.record(e).unwrap();
        }
        w.finish().unwrap()
    };
    let roomy = write_limited(usize::MAX);
    let tight = write_limited(4096);
    assert_eq!(
        tight,
        write_limited(4096),
        "the same events, the same bytes"
    );
    let (a, b) = (
        TraceReader::new(Cursor::new(&roomy)).unwrap(),
        TraceReader::new(Cursor::new(&tight)).unwrap(),
    );
    assert!(b.chunks().len() > a.chunks().len() * 4);
    assert!(
        b.chunks()
            .iter()
            .all(|c| c.blocks.is_none_or(|(lo, hi)| lo == hi))
    );
    assert_eq!(
        streams(&read_all(&tight).unwrap()),
        streams(&read_all(&roomy).unwrap())
    );
}

#[test]
fn counters_only_keeps_detail_for_the_focused_block() {
    let events = run_events(300);
    let bytes = write(TraceLevel::CountersOnly, &events);
    let back = read_all(&bytes).unwrap();
    assert!(back.iter().all(|e| e.detail_block().is_none_or(|b| b == 1)));
    assert!(
        back.iter()
            .any(|e| matches!(e, Event::Issue { block: 1, .. }))
    );
    assert!(
        back.iter()
            .any(|e| matches!(e, Event::BlockStart { block: 0, .. }))
    );
    assert!(back.iter().any(|e| matches!(e, Event::Counters { .. })));
}

#[test]
fn the_index_describes_launches_and_seeks_by_cycle() {
    let bytes = write(TraceLevel::Full, &run_events(30_000));
    let mut r = TraceReader::new(Cursor::new(&bytes)).unwrap();
    let l = r.launches().to_vec();
    assert_eq!(l.len(), 2);
    assert_eq!((l[0].start_cycle, l[0].end_cycle), (0, Some(10)));
    assert_eq!((l[1].start_cycle, l[1].end_cycle), (10, Some(30_010)));
    assert_eq!(l[0].end_chunk, l[1].first_chunk);
    let first_of_1: Vec<_> = r
        .launch_events(1)
        .take(1)
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(matches!(
        first_of_1[0],
        Event::KernelLaunch { launch: 1, .. }
    ));
    let i = r.chunk_at_cycle(20_000);
    let c = &r.chunks()[i];
    assert!(c.first_cycle <= 20_000 && c.last_cycle >= 20_000, "{c:?}");
    assert_eq!(r.chunk_at_cycle(u64::MAX), r.chunks().len());
}

#[test]
fn the_index_knows_detail_blocks_counters_and_block_ranges() {
    let bytes = write(TraceLevel::CountersOnly, &run_events(30_000));
    let mut r = TraceReader::new(Cursor::new(&bytes)).unwrap();
    let l = r.launches()[1].clone();
    assert_eq!(l.detail_blocks, [(1, 1)]);
    assert!(l.has_detail(1) && !l.has_detail(0));
    assert_eq!(l.counters.inst_issued, 300 * 100);
    let full = write(TraceLevel::Full, &run_events(300));
    let rf = TraceReader::new(Cursor::new(&full)).unwrap();
    assert_eq!(rf.launches()[1].detail_blocks, [(0, 1)]);
    // Every per-block event of block 1 is in a chunk that says it may be.
    let all: Vec<Event> = r.launch_events(1).collect::<Result<_, _>>().unwrap();
    let via_index: Vec<Event> = r.block_events(1, 1).collect::<Result<_, _>>().unwrap();
    let of_block = |v: &[Event]| -> Vec<Event> {
        v.iter()
            .filter(|e| e.warp().map(|w| w.0) == Some(1))
            .cloned()
            .collect()
    };
    assert_eq!(of_block(&via_index), of_block(&all));
    assert!(
        r.chunks()
            .iter()
            .all(|c| c.blocks.is_none_or(|(lo, hi)| lo <= hi))
    );
}

#[test]
fn writer_refuses_launches_out_of_order_and_unknown_kernels() {
    let mut w = TraceWriter::new(Vec::new(), &header(TraceLevel::Full)).unwrap();
    let launch = |launch, kernel| Event::KernelLaunch {
        cycle: 0,
        launch,
        kernel,
        grid: [1; 3],
        block: [1; 3],
        label: String::new(),
    };
    assert!(matches!(
        w.record(&launch(1, 0)),
        Err(TraceError::InvalidEvent(_))
    ));
    assert!(matches!(
        w.record(&launch(0, 5)),
        Err(TraceError::InvalidEvent(_))
    ));
    let k = w.add_kernel(KernelSource::from_text("late", "exit\n"));
    assert_eq!(k, 1);
    w.record(&launch(0, 1)).unwrap();
    assert!(w.record(&launch(1, 0)).is_err(), "overlapping launches");
    let err = w
        .record(&Event::KernelEnd {
            cycle: 1,
            launch: 3,
        })
        .unwrap_err();
    assert!(err.to_string().contains("end of launch 3"), "{err}");
    w.record(&Event::KernelEnd {
        cycle: 1,
        launch: 0,
    })
    .unwrap();
    let bytes = w.finish().unwrap();
    let r = TraceReader::new(Cursor::new(bytes)).unwrap();
    assert_eq!(r.kernels()[1].name, "late");
}

#[test]
fn a_dropped_writer_still_leaves_a_readable_trace() {
    let mut buf = Vec::new();
    {
        let mut w = TraceWriter::new(&mut buf, &header(TraceLevel::Full)).unwrap();
        for e in &run_events(10)[..6] {
            w.record(e).unwrap();
        }
    }
    let mut r = TraceReader::new(Cursor::new(&buf)).unwrap();
    assert_eq!(r.launches()[1].end_cycle, None);
    assert_eq!(r.events().count(), 6);
}

#[test]
fn other_files_and_newer_versions_are_named_as_such() {
    let good = write(TraceLevel::Full, &run_events(10));
    assert!(matches!(
        read_all(b"hello, world, this is text"),
        Err(TraceError::NotATrace)
    ));
    assert!(matches!(read_all(b""), Err(TraceError::Truncated(_))));
    // A version field above ours in a file this simsort wrote is damaged.
    let mut damaged = good.clone();
    damaged[8] = (FORMAT_VERSION + 1) as u8;
    let err = read_all(&damaged).unwrap_err();
    assert!(err.to_string().contains("the field is damaged"), "{err}");
    // From another simsort it is a newer format.
    let mut h = header(TraceLevel::Full);
    h.simsort_version = "99.0.0".into();
    let mut w = TraceWriter::new(Vec::new(), &h).unwrap();
    for e in &run_events(10) {
        w.record(e).unwrap();
    }
    let mut newer = w.finish().unwrap();
    newer[8] = (FORMAT_VERSION + 1) as u8;
    let err = read_all(&newer).unwrap_err();
    assert!(
        matches!(
            err,
            TraceError::NewerVersion { found, supported }
                if found == FORMAT_VERSION + 1 && supported == FORMAT_VERSION
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains(&format!("version {}", FORMAT_VERSION + 1))
    );
}

#[test]
fn launch_labels_round_trip_and_a_truncated_run_keeps_its_label() {
    let bytes = write(TraceLevel::Full, &run_events(10));
    let mut r = TraceReader::new(Cursor::new(&bytes)).unwrap();
    assert_eq!(r.format_version(), FORMAT_VERSION);
    let labels: Vec<&str> = r.launches().iter().map(|l| l.label.as_str()).collect();
    assert_eq!(labels, ["first", ""]);
    // Without a label, a launch is called by its kernel's name.
    let titles: Vec<&str> = r.launches().iter().map(|l| l.title(r.kernels())).collect();
    assert_eq!(titles, ["first", "bs"]);
    let launch_labels: Vec<String> = r
        .events()
        .filter_map(|e| match e.unwrap() {
            Event::KernelLaunch { label, .. } => Some(label),
            _ => None,
        })
        .collect();
    assert_eq!(launch_labels, ["first", ""]);

    // A run that stops inside a labelled launch (no KernelEnd) keeps it.
    let mut w = TraceWriter::new(Vec::new(), &header(TraceLevel::Full)).unwrap();
    w.record(&Event::KernelLaunch {
        cycle: 0,
        launch: 0,
        kernel: 0,
        grid: [1; 3],
        block: [1; 3],
        label: "pass 1: merge 8 -> 16".into(),
    })
    .unwrap();
    let unfinished = w.finish().unwrap();
    let r = TraceReader::new(Cursor::new(&unfinished)).unwrap();
    assert_eq!(r.launches()[0].end_cycle, None);
    assert_eq!(r.launches()[0].label, "pass 1: merge 8 -> 16");
}

#[test]
fn a_label_too_long_for_readers_is_refused() {
    let mut w = TraceWriter::new(Vec::new(), &header(TraceLevel::Full)).unwrap();
    let err = w
        .record(&Event::KernelLaunch {
            cycle: 0,
            launch: 0,
            kernel: 0,
            grid: [1; 3],
            block: [1; 3],
            label: "x".repeat(crate::format::MAX_LABEL_BYTES + 1),
        })
        .unwrap_err();
    assert!(matches!(err, TraceError::InvalidEvent(_)), "{err}");
}

/// A trace written by simsort at commit 20b3b25 (format version 1, before
/// launch labels): `simsort --gpu tiny --warp 4 --slab-height 2 --keys 8
/// -q --trace v1.trace --trace-level counters-only`. It must stay readable,
/// every launch without a label, its 3539 stall-reason changes (not
/// charges: see `Event::Stall`) skipped.
#[test]
fn a_version_1_trace_reads_with_empty_labels() {
    let bytes = include_bytes!("../../testdata/v1_hotsort_tiny.trace");
    let mut r = TraceReader::new(Cursor::new(&bytes[..])).unwrap();
    assert_eq!(r.format_version(), 1);
    let titles: Vec<&str> = r.launches().iter().map(|l| l.title(r.kernels())).collect();
    assert_eq!(titles, ["fill_in", "bs", "transpose"]);
    assert!(r.launches().iter().all(|l| l.label.is_empty()));
    let mut launches = 0;
    let mut events = 0;
    for e in r.events() {
        let e = e.unwrap();
        assert!(
            !matches!(e, Event::Stall { .. }),
            "a version 1 stall change read as a charge"
        );
        if let Event::KernelLaunch { label, .. } = e {
            assert_eq!(label, "");
            launches += 1;
        }
        events += 1;
    }
    assert_eq!((launches, events), (3, 7900 - 3539));
    assert_eq!(r.event_count(), 7900, "the index counts every record");
    assert!(!r.has_stall_charges());
}

#[test]
fn every_truncation_is_an_error() {
    let good = write(TraceLevel::Full, &run_events(50));
    for cut in 0..good.len() {
        let err = read_all(&good[..cut]).unwrap_err();
        assert!(
            matches!(err, TraceError::Truncated(_)),
            "cut at {cut}: {err}"
        );
    }
}

#[test]
fn every_single_byte_change_is_detected() {
    let good = write(TraceLevel::Full, &run_events(50));
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x41;
        assert!(
            read_all(&bad).is_err(),
            "change at byte {at} went unnoticed"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn mutated_files_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        do_cut in any::<bool>(),
    ) {
        let mut bytes = write(TraceLevel::Full, &run_events(40));
        for (i, b) in edits {
            let at = i.index(bytes.len());
            bytes[at] = b;
        }
        if do_cut {
            bytes.truncate(cut.index(bytes.len()));
        }
        let _ = read_all(&bytes);
    }
}
