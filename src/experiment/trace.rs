//! Recording a sort into a replay trace (`--trace FILE`).

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

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

/// Runs `prepared` and records it into `spec.path`.
pub fn run_recorded(
    prepared: &Prepared,
    spec: &TraceSpec,
    progress: &mut dyn FnMut(Progress),
) -> Result<Outcome, ExperimentError> {
    let options = TraceOptions {
        level: spec.level,
        focus: spec.focus,
        counter_interval_cycles: spec.counter_interval_cycles,
    };
    let mut header = TraceHeader::new(options)
        .with_config(&prepared.gpu)
        .map_err(|e| ExperimentError::Trace(e.to_string()))?;
    header.sort_options = sort_options(&prepared.opts);
    header.kernels = prepared
        .sorter
        .marked_kernels()
        .into_iter()
        .map(|(k, marks)| kernel_source(k, marks))
        .collect();
    let names = header.kernels.iter().map(|k| k.name.clone()).collect();
    let file = File::create(&spec.path).map_err(|e| {
        ExperimentError::Invalid(vec![format!("--trace {}: {e}", spec.path.display())])
    })?;
    let writer = TraceWriter::new(BufWriter::new(file), &header)
        .map_err(|e| ExperimentError::Trace(e.to_string()))?;
    let mut recorder = sim::Recorder::new(writer, names);
    let outcome = prepared.run_traced(progress, Some(&mut recorder))?;
    let mut out = recorder
        .finish()
        .map_err(|e| ExperimentError::Trace(e.to_string()))?;
    std::io::Write::flush(&mut out).map_err(|e| ExperimentError::Trace(e.to_string()))?;
    Ok(outcome)
}
