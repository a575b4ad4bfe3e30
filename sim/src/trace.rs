//! Trace emission: the simulator reports what happens to a [`TraceSink`]
//! as `traces` events.
//!
//! Tracing costs nothing when off: every hook first checks whether a sink
//! is attached and wants the event (the sink decides per block and warp,
//! e.g. through a [`traces::TraceWriter`]'s level and focus), and only then
//! builds it.

use std::io::Write;

use kernels_ir::Kernel;
use traces::{CounterSample, Event, KernelSource, StallReason, TraceError, TraceWriter};

use crate::counters::SmSamples;

use crate::shared_mem::Wavefronts;
use crate::sm::Sm;

/// Where trace events go.
pub trait TraceSink {
    /// A launch of `kernel` begins: returns its launch number (0, 1, 2, ...
    /// over the whole trace) and the kernel's index in the trace's kernel list.
    fn begin_launch(&mut self, kernel: &Kernel) -> (u32, u32);
    /// Whether issue, stall, memory and barrier events of `block` are wanted.
    fn wants_detail(&self, block: u32) -> bool;
    /// Whether register writes of `warp` of `block` are wanted.
    fn wants_registers(&self, block: u32, warp: u32) -> bool;
    /// Records one event.
    fn record(&mut self, event: &Event) -> Result<(), TraceError>;
    /// Names the next launch (what the host calls it: `level 2:
    /// find_buckets (61 buckets)`); a sink that keeps labels holds it until
    /// [`TraceSink::take_launch_label`].
    fn label_next_launch(&mut self, label: &str) {
        let _ = label;
    }
    /// The label given for the launch beginning now, if any (empty
    /// otherwise); taken, so a launch the host did not name gets none.
    fn take_launch_label(&mut self) -> String {
        String::new()
    }
    /// Cycles between per-SM counter samples ([`Event::Counters`]); `None`
    /// for no samples.
    fn counter_interval(&self) -> Option<u64> {
        None
    }
}

/// A sink that keeps every event in memory (for tests and small tools).
#[derive(Clone, Debug, Default)]
pub struct VecSink {
    /// The events, in the order they were recorded.
    pub events: Vec<Event>,
    /// The kernels launched, by name, in the order first seen.
    pub kernels: Vec<String>,
    /// Launches begun so far.
    pub launches: u32,
    /// Register writes are kept for this `(block, warp)` only.
    pub focus: Option<(u32, u32)>,
    /// Cycles between counter samples, if any are wanted.
    pub counter_interval: Option<u64>,
    /// The label given for the next launch.
    pub next_label: String,
}

impl TraceSink for VecSink {
    fn begin_launch(&mut self, kernel: &Kernel) -> (u32, u32) {
        let index = match self.kernels.iter().position(|k| *k == kernel.name) {
            Some(i) => i,
            None => {
                self.kernels.push(kernel.name.clone());
                self.kernels.len() - 1
            }
        };
        self.launches += 1;
        (self.launches - 1, index as u32)
    }

    fn wants_detail(&self, _block: u32) -> bool {
        true
    }

    fn wants_registers(&self, block: u32, warp: u32) -> bool {
        self.focus == Some((block, warp))
    }

    fn record(&mut self, event: &Event) -> Result<(), TraceError> {
        self.events.push(event.clone());
        Ok(())
    }

    fn label_next_launch(&mut self, label: &str) {
        self.next_label = label.to_string();
    }

    fn take_launch_label(&mut self) -> String {
        std::mem::take(&mut self.next_label)
    }

    fn counter_interval(&self) -> Option<u64> {
        self.counter_interval
    }
}

/// Records into a [`TraceWriter`], adding each kernel (its printed IR) the
/// first time it is launched unless the header already lists it by name.
pub struct Recorder<W: Write> {
    writer: TraceWriter<W>,
    kernels: Vec<String>,
    launches: u32,
    next_label: String,
}

impl<W: Write> Recorder<W> {
    /// Wraps `writer`; `header_kernels` are the names of the kernels its
    /// header lists, in order.
    pub fn new(writer: TraceWriter<W>, header_kernels: Vec<String>) -> Recorder<W> {
        Recorder {
            writer,
            kernels: header_kernels,
            launches: 0,
            next_label: String::new(),
        }
    }

    /// Finishes the trace (writes its index) and returns the output.
    pub fn finish(self) -> Result<W, TraceError> {
        self.writer.finish()
    }
}

impl<W: Write> TraceSink for Recorder<W> {
    fn begin_launch(&mut self, kernel: &Kernel) -> (u32, u32) {
        let index = match self.kernels.iter().position(|k| *k == kernel.name) {
            Some(i) => i as u32,
            None => {
                let (text, lines) = kernels_ir::printer::print_with_lines(kernel);
                self.kernels.push(kernel.name.clone());
                self.writer
                    .add_kernel(KernelSource::with_inst_lines(&kernel.name, &text, &lines))
            }
        };
        self.launches += 1;
        (self.launches - 1, index)
    }

    fn wants_detail(&self, block: u32) -> bool {
        self.writer.wants_detail(block)
    }

    fn wants_registers(&self, block: u32, warp: u32) -> bool {
        self.writer.wants_registers(block, warp)
    }

    fn record(&mut self, event: &Event) -> Result<(), TraceError> {
        self.writer.record(event)
    }

    fn label_next_launch(&mut self, label: &str) {
        self.next_label = label.to_string();
    }

    fn take_launch_label(&mut self) -> String {
        std::mem::take(&mut self.next_label)
    }

    fn counter_interval(&self) -> Option<u64> {
        let n = self.writer.options().counter_interval_cycles;
        (n > 0).then_some(n)
    }
}

/// The simulator's side of tracing during one launch.
pub(crate) struct Tracer<'a> {
    sink: Option<&'a mut dyn TraceSink>,
    /// The first error the sink reported; later events are dropped.
    pub error: Option<TraceError>,
    /// Cycles per counter sample (0: none) and each SM's open samples.
    pub interval: u64,
    samples: Vec<SmSamples>,
}

impl<'a> Tracer<'a> {
    pub fn new(sink: Option<&'a mut (dyn TraceSink + '_)>) -> Tracer<'a> {
        // Shortens the trait object's lifetime to the borrow's.
        let sink = sink.map(|s| -> &'a mut dyn TraceSink { s });
        let interval = sink
            .as_ref()
            .and_then(|s| s.counter_interval())
            .unwrap_or(0);
        Tracer {
            sink,
            error: None,
            interval,
            samples: Vec::new(),
        }
    }

    /// Whether a sink is attached: the hot paths skip their hooks without.
    #[inline]
    pub fn on(&self) -> bool {
        self.sink.is_some()
    }

    /// Whether per-SM counter samples are kept.
    #[inline]
    pub fn sampling(&self) -> bool {
        self.interval > 0
    }

    /// Prepares counter samples for `sms` SMs.
    pub fn start_samples(&mut self, sms: usize) {
        if self.interval > 0 {
            self.samples = vec![SmSamples::default(); sms];
        }
    }

    /// Adds `n` warp-cycles of `reason` from `from` on to SM `sm`'s samples.
    #[inline]
    pub fn sample_stall(&mut self, sm: u32, reason: StallReason, from: u64, n: u64) {
        if self.interval > 0 {
            self.samples[sm as usize].stall(self.interval, reason, from, n);
        }
    }

    /// Adds to SM `sm`'s sample at cycle `t` whatever `f` adds.
    #[inline]
    pub fn sample(&mut self, sm: u32, t: u64, f: impl FnOnce(&mut CounterSample)) {
        if self.interval > 0 {
            self.samples[sm as usize].count(self.interval, t, f);
        }
    }

    /// Emits SM `sm`'s samples that end at or before `complete`.
    pub fn flush_samples(&mut self, sm: u32, complete: u64) {
        if self.interval == 0 {
            return;
        }
        for (cycle, sample) in self.samples[sm as usize].take_complete(self.interval, complete) {
            self.emit(Event::Counters { cycle, sm, sample });
        }
    }

    /// The first cycle after the next sample boundary of SM `sm`, if sampling.
    pub fn next_sample_end(&self, sm: u32) -> Option<u64> {
        (self.interval > 0).then(|| (self.samples[sm as usize].emitted + 1) * self.interval)
    }

    fn emit(&mut self, event: Event) {
        if self.error.is_some() {
            return;
        }
        if let Some(sink) = self.sink.as_deref_mut()
            && let Err(e) = sink.record(&event)
        {
            self.error = Some(e);
        }
    }

    #[inline]
    fn detail(&self, block: u64) -> bool {
        match &self.sink {
            Some(s) => self.error.is_none() && s.wants_detail(block as u32),
            None => false,
        }
    }

    /// Whether register writes of this warp are wanted.
    #[inline]
    pub fn registers(&self, block: u64, warp: u32) -> bool {
        match &self.sink {
            Some(s) => self.error.is_none() && s.wants_registers(block as u32, warp),
            None => false,
        }
    }

    pub fn begin(&mut self, kernel: &Kernel, grid: [u32; 3], block: [u32; 3]) -> u32 {
        let Some(sink) = self.sink.as_deref_mut() else {
            return 0;
        };
        let (launch, kernel) = sink.begin_launch(kernel);
        let label = sink.take_launch_label();
        self.emit(Event::KernelLaunch {
            cycle: 0,
            launch,
            kernel,
            grid,
            block,
            label,
        });
        launch
    }

    pub fn end(&mut self, cycle: u64, launch: u32) {
        if self.sink.is_some() {
            self.emit(Event::KernelEnd { cycle, launch });
        }
    }

    pub fn block_start(&mut self, cycle: u64, sm: u32, block: u64) {
        if self.sink.is_some() {
            self.emit(Event::BlockStart {
                cycle,
                sm,
                block: block as u32,
            });
        }
    }

    pub fn block_end(&mut self, cycle: u64, sm: u32, block: u64) {
        if self.sink.is_some() {
            self.emit(Event::BlockEnd {
                cycle,
                sm,
                block: block as u32,
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn issue(
        &mut self,
        cycle: u64,
        sm: u32,
        sched: u32,
        block: u64,
        warp: u32,
        pc: u32,
        active: u64,
        slots: u64,
    ) {
        if self.detail(block) {
            let block = block as u32;
            self.emit(Event::Issue {
                cycle,
                sm,
                sched,
                block,
                warp,
                pc,
                active,
                slots: slots as u32,
            });
        }
    }

    /// The warp in `slot` of `sm`, waiting to issue `pc`, is charged `n`
    /// cycles of `reason` from `cycle` on: called beside every per-warp
    /// charge of the stall counters ([`crate::launch::Ctx::charge`] and
    /// its halves), with the same arguments, so the trace's charges are
    /// the report's.
    #[inline]
    pub fn stall(&mut self, cycle: u64, sm: &Sm, slot: u16, pc: u32, reason: StallReason, n: u64) {
        if self.sink.is_none() || n == 0 {
            return;
        }
        let w = &sm.warps[slot as usize];
        let block = sm.blocks[w.block as usize].id;
        if self.detail(block) {
            let (sm, block, warp) = (sm.id, block as u32, w.index);
            self.emit(Event::Stall {
                cycle,
                sm,
                block,
                warp,
                pc,
                reason,
                cycles: n,
            });
        }
    }

    pub fn barrier_arrive(&mut self, cycle: u64, sm: u32, block: u64, warp: u32) {
        if self.detail(block) {
            self.emit(Event::BarrierArrive {
                cycle,
                sm,
                block: block as u32,
                warp,
            });
        }
    }

    pub fn barrier_release(&mut self, cycle: u64, sm: u32, block: u64) {
        if self.detail(block) {
            self.emit(Event::BarrierRelease {
                cycle,
                sm,
                block: block as u32,
            });
        }
    }

    /// A shared access, recorded with its lanes' addresses (traced as
    /// they are, so the replay can show which lanes meet in which bank).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn shared_access(
        &mut self,
        cycle: u64,
        sm: u32,
        block: u64,
        warp: u32,
        pc: u32,
        kind: traces::AccessKind,
        wf: Wavefronts,
        lanes: SharedLanes<'_>,
        words_per_bank: impl FnOnce() -> Vec<u8>,
    ) {
        if self.detail(block) {
            // Inactive lanes' addresses are not part of the access.
            let addrs = (0..lanes.addrs.len())
                .map(|l| {
                    if lanes.exec >> l & 1 == 1 {
                        lanes.addrs[l]
                    } else {
                        0
                    }
                })
                .collect();
            self.emit(Event::SharedAccess {
                cycle,
                sm,
                block: block as u32,
                warp,
                pc,
                kind,
                wavefronts: wf.wavefronts,
                conflicts: wf.conflicts,
                words_per_bank: words_per_bank(),
                bytes: lanes.bytes,
                active: lanes.exec,
                addrs,
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn global_request(
        &mut self,
        cycle: u64,
        sm: u32,
        block: u64,
        warp: u32,
        pc: u32,
        is_store: bool,
        sectors: u32,
    ) {
        if self.detail(block) {
            let block = block as u32;
            self.emit(Event::GlobalRequest {
                cycle,
                sm,
                block,
                warp,
                pc,
                is_store,
                sectors,
            });
        }
    }

    /// A focused warp's register write, visible from `cycle`.
    pub fn reg_write(
        &mut self,
        cycle: u64,
        block: u64,
        warp: u32,
        reg: traces::RegRef,
        mask: u64,
        values: Vec<u64>,
    ) {
        self.emit(Event::RegWrite {
            cycle,
            block: block as u32,
            warp,
            reg,
            mask,
            values,
        });
    }
}

/// The lanes of one shared access, as a trace records them.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SharedLanes<'a> {
    /// Each lane's byte address.
    pub addrs: &'a [u64],
    /// The lanes that take part.
    pub exec: u64,
    /// Bytes per lane.
    pub bytes: u32,
}
