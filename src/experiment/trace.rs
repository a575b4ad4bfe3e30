//! Recording a sort into a replay trace (`--trace FILE`).

use std::io::BufWriter;
use std::path::PathBuf;

use crate::atomic::AtomicFile;
use kernels_ir::{RegClass, VerifiedKernel};
use sorts::KernelMarks;
use traces::{
    Focus, KernelSource, RegRef, StageMark, TraceHeader, TraceLevel, TraceOptions, TraceWriter,
};

use super::plan::Progress;
use super::sort::{ExperimentError, Outcome, Prepared, SortOptions};

/// What to record and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceSpec {
    /// The trace file to write.
    pub path: PathBuf,
    /// The block (and warps) recorded in detail.
    pub focus: Focus,
    /// How much of the rest is kept.
    pub level: TraceLevel,
    /// Cycles between per-SM counter samples.
    pub counter_interval_cycles: u64,
}

/// The sort options as `(name, value)` text pairs for the trace header.
fn sort_options(opts: &SortOptions) -> Vec<(String, String)> {
    match serde_json::to_value(opts) {
        Ok(serde_json::Value::Object(map)) => map
            .into_iter()
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The trace header's entry for `kernel`: its printed IR, and from the
/// generator's `marks` the registers that hold keys and the merge stages.
pub fn kernel_source(kernel: &VerifiedKernel, marks: &KernelMarks) -> KernelSource {
    let k = kernel.kernel();
    let (text, lines) = kernels_ir::printer::print_with_lines(k);
    let mut source = KernelSource::with_inst_lines(&k.name, &text, &lines);
    source.slab_regs = marks
        .key_regs
        .iter()
        .map(|r| RegRef {
            class: match r.class() {
                RegClass::B32 => traces::RegClass::B32,
                RegClass::B64 => traces::RegClass::B64,
                RegClass::Pred => traces::RegClass::Pred,
            },
            index: r.index(),
        })
        .collect();
    source.stages = marks
        .stages
        .iter()
        .map(|(pc, label)| StageMark {
            pc: *pc,
            label: label.clone(),
        })
        .collect();
    source
}

/// The focus must name a block (and warp) that some launch has: a focus
/// outside every grid would record nothing in detail.
fn check_focus(prepared: &Prepared, focus: Focus) -> Result<(), ExperimentError> {
    let count = |d: kernels_ir::Dim3| u64::from(d.x) * u64::from(d.y) * u64::from(d.z);
    let blocks = prepared
        .plan
        .iter()
        .map(|l| count(l.grid))
        .max()
        .unwrap_or(0);
    let warp = u64::from(prepared.gpu.warp_size.max(1));
    let warps = prepared
        .plan
        .iter()
        .map(|l| count(l.block).div_ceil(warp))
        .max()
        .unwrap_or(0);
    let mut problems = Vec::new();
    if u64::from(focus.block) >= blocks {
        problems.push(format!(
            "no such block (--trace-focus block={}): the largest grid of this sort has \
             {blocks} blocks; give block=0..={}",
            focus.block,
            blocks.saturating_sub(1)
        ));
    }
    if let Some(w) = focus.warp.filter(|&w| u64::from(w) >= warps) {
        problems.push(format!(
            "no such warp (--trace-focus warp={w}): the largest block of this sort has \
             {warps} warps; give warp=0..={}",
            warps.saturating_sub(1)
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ExperimentError::Invalid(problems))
    }
}

/// Runs `prepared` and records it into `spec.path`, which is replaced only
/// when the run and the trace are complete.
pub fn run_recorded(
    prepared: &Prepared,
    spec: &TraceSpec,
    progress: &mut dyn FnMut(Progress),
) -> Result<Outcome, ExperimentError> {
    check_focus(prepared, spec.focus)?;
    let options = TraceOptions {
        level: spec.level,
        focus: spec.focus,
        counter_interval_cycles: spec.counter_interval_cycles,
    };
    // Every failure names the file: a full disk shows here first.
    let failed =
        |e: &dyn std::fmt::Display| ExperimentError::Trace(format!("{}: {e}", spec.path.display()));
    let mut header = TraceHeader::new(options)
        .with_config(&prepared.gpu)
        .map_err(|e| failed(&e))?;
    header.sort_options = sort_options(&prepared.opts);
    header.kernels = prepared
        .sorter
        .marked_kernels()
        .into_iter()
        .map(|(k, marks)| kernel_source(k, marks))
        .collect();
    let names = header.kernels.iter().map(|k| k.name.clone()).collect();
    let file = AtomicFile::create(&spec.path).map_err(|e| {
        ExperimentError::Invalid(vec![format!("--trace {}: {e}", spec.path.display())])
    })?;
    let writer = TraceWriter::new(BufWriter::new(file), &header).map_err(|e| failed(&e))?;
    let mut recorder = sim::Recorder::new(writer, names);
    // A failed run drops the temporary file: an old trace stays as it was.
    let outcome = prepared.run_traced(progress, Some(&mut recorder))?;
    let out = recorder.finish().map_err(|e| failed(&e))?;
    let file = out.into_inner().map_err(|e| failed(e.error()))?;
    file.commit().map_err(|e| failed(&e))?;
    Ok(outcome)
}
