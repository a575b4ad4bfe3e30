//! Traces: the events of a launch agree with its counters, and a
//! [`crate::Recorder`] writes a trace the `traces` reader reads back.

use kernels_ir::{Dim3, ParamValue};
use traces::{Event, StallReason, TraceHeader, TraceOptions, TraceReader, TraceWriter};

use super::util::{gpu, verified};
use crate::{GpuConfig, KernelStats, Recorder, VecSink};

fn reduce_traced(sink: &mut dyn crate::TraceSink) -> KernelStats {
    let k = verified(kernels_ir::kernels::examples::reduce(32));
    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 3;
    let mut g = gpu(cfg);
    let (src, dst) = (g.alloc(1 << 16), g.alloc(1 << 10));
    let data: Vec<u32> = (0..1 << 14).collect();
    g.write_u32s(src, &data).unwrap();
    let params = [
        ParamValue::U64(src),
        ParamValue::U64(dst),
        ParamValue::U32(1 << 14),
    ];
    g.launch_traced(&k, Dim3::x(16), Dim3::x(256), &params, sink)
        .unwrap()
}

#[test]
fn events_agree_with_the_counters() {
    let mut sink = VecSink {
        focus: Some((2, 0)),
        counter_interval: Some(64),
        ..VecSink::default()
    };
    let s = reduce_traced(&mut sink);
    let ev = &sink.events;
    assert!(matches!(
        ev.first(),
        Some(Event::KernelLaunch {
            launch: 0,
            kernel: 0,
            ..
        })
    ));
    assert_eq!(
        ev.last(),
        Some(&Event::KernelEnd {
            cycle: s.cycles.0,
            launch: 0
        })
    );
    let count = |f: &dyn Fn(&Event) -> bool| ev.iter().filter(|e| f(e)).count() as u64;
    assert_eq!(count(&|e| matches!(e, Event::BlockStart { .. })), 16);
    assert_eq!(count(&|e| matches!(e, Event::BlockEnd { .. })), 16);
    assert_eq!(
        count(&|e| matches!(e, Event::Issue { .. })),
        s.inst_executed,
        "no cmpx here"
    );
    assert_eq!(
        count(&|e| matches!(e, Event::BarrierRelease { .. })),
        s.barriers
    );
    let mut wavefronts = 0;
    let mut sectors = 0;
    let mut issued = 0;
    let mut stalls = [0u64; StallReason::COUNT];
    for e in ev {
        match e {
            Event::SharedAccess { wavefronts: w, .. } => wavefronts += u64::from(*w),
            Event::GlobalRequest { sectors: n, .. } => sectors += u64::from(*n),
            Event::Counters { sample, .. } => {
                issued += sample.inst_issued;
                for (a, b) in stalls.iter_mut().zip(&sample.stall_warp_cycles) {
                    *a += b;
                }
            }
            Event::RegWrite { block, warp, .. } => assert_eq!((*block, *warp), (2, 0)),
            _ => {}
        }
    }
    assert_eq!(
        wavefronts,
        s.smem_ld_wavefronts + s.smem_st_wavefronts + s.smem_atom_wavefronts
    );
    assert_eq!(sectors, s.gmem_ld_sectors + s.gmem_st_sectors);
    assert_eq!(issued, s.inst_executed);
    assert_eq!(
        stalls.to_vec(),
        s.stalls.to_vec(),
        "samples split every stall charge exactly"
    );
    assert!(count(&|e| matches!(e, Event::RegWrite { .. })) > 0);
    assert!(count(&|e| matches!(e, Event::Stall { .. })) > 0);
}

#[test]
fn tracing_does_not_change_the_run() {
    let plain = {
        let k = verified(kernels_ir::kernels::examples::reduce(32));
        let mut cfg = GpuConfig::h200();
        cfg.num_sms = 3;
        let mut g = gpu(cfg);
        let (src, dst) = (g.alloc(1 << 16), g.alloc(1 << 10));
        let data: Vec<u32> = (0..1 << 14).collect();
        g.write_u32s(src, &data).unwrap();
        let params = [
            ParamValue::U64(src),
            ParamValue::U64(dst),
            ParamValue::U32(1 << 14),
        ];
        g.launch(&k, Dim3::x(16), Dim3::x(256), &params).unwrap()
    };
    let mut sink = VecSink {
        counter_interval: Some(100),
        ..VecSink::default()
    };
    assert_eq!(reduce_traced(&mut sink), plain);
}

#[test]
fn a_recorded_trace_reads_back() {
    let header = TraceHeader::new(TraceOptions::default());
    let writer = TraceWriter::new(Vec::new(), &header).unwrap();
    let mut recorder = Recorder::new(writer, Vec::new());
    let s = reduce_traced(&mut recorder);
    let bytes = recorder.finish().unwrap();
    let mut reader = TraceReader::new(std::io::Cursor::new(bytes)).unwrap();
    assert_eq!(reader.kernels()[0].name, "reduce");
    assert_eq!(reader.launches()[0].end_cycle, Some(s.cycles.0));
    let samples = reader
        .events()
        .filter(|e| matches!(e, Ok(Event::Counters { .. })))
        .count();
    assert!(samples > 0, "the default options sample counters");
}
