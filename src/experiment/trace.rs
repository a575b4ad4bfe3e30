//! Recording a sort into a replay trace (`--trace FILE`).

use std::io::BufWriter;
use std::path::PathBuf;

use crate::atomic::AtomicFile;
use traces::{Focus, TraceHeader, TraceLevel, TraceOptions, TraceWriter};

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

/// Runs `prepared` and records it into `spec.path`, which is replaced only
/// when the run and the trace are complete.
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
    let file = AtomicFile::create(&spec.path).map_err(|e| {
        ExperimentError::Invalid(vec![format!("--trace {}: {e}", spec.path.display())])
    })?;
    let writer = TraceWriter::new(BufWriter::new(file), &header)
        .map_err(|e| ExperimentError::Trace(e.to_string()))?;
    let mut recorder = sim::Recorder::new(writer, Vec::new());
    // A failed run drops the temporary file: an old trace stays as it was.
    let outcome = prepared.run_traced(progress, Some(&mut recorder))?;
    let out = recorder
        .finish()
        .map_err(|e| ExperimentError::Trace(e.to_string()))?;
    let file = out
        .into_inner()
        .map_err(|e| ExperimentError::Trace(e.error().to_string()))?;
    file.commit()
        .map_err(|e| ExperimentError::Trace(e.to_string()))?;
    Ok(outcome)
}
