//! Recording a sort into a replay trace (`--trace FILE`).

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

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
    let file = File::create(&spec.path).map_err(|e| {
        ExperimentError::Invalid(vec![format!("--trace {}: {e}", spec.path.display())])
    })?;
    let writer = TraceWriter::new(BufWriter::new(file), &header)
        .map_err(|e| ExperimentError::Trace(e.to_string()))?;
    let mut recorder = sim::Recorder::new(writer, Vec::new());
    let outcome = prepared.run_traced(progress, Some(&mut recorder))?;
    let mut out = recorder
        .finish()
        .map_err(|e| ExperimentError::Trace(e.to_string()))?;
    std::io::Write::flush(&mut out).map_err(|e| ExperimentError::Trace(e.to_string()))?;
    Ok(outcome)
}
