//! The report of one sort (`simsort --report FILE.html`): what ran, the
//! per-kernel tables and where each kernel's cycles went.

use serde_json::Value;

use super::chart::{Bar, BarChart, Chart};
use super::kernels;
use super::page::{Block, Cell, Page, Provenance, Table};
use crate::experiment::report::{Report, group};

/// A config value as text (strings without quotes, null as `-`).
pub fn config_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".to_string(),
        other => other.to_string(),
    }
}

/// Every field of a run's configuration (sort options and machine), one
/// row each.
pub fn config_table(config: &serde_json::Map<String, Value>) -> Table {
    Table {
        caption: "every option and machine field of the run".into(),
        header: vec!["field".into(), "value".into()],
        rows: config
            .iter()
            .map(|(k, v)| vec![Cell::text(k), Cell::text(config_text(v))])
            .collect(),
    }
}

/// The page of one sort: `about` is the text report's account of what ran
/// (configuration lines), `legend` what the stall columns mean.
pub fn page(report: &Report, about: &str, legend: &str, provenance: Provenance) -> Page {
    let text = |k: &str| report.config.get(k).map_or("-".to_string(), config_text);
    let title = format!(
        "simsort: {} sort of {} keys on {}",
        text("algo"),
        group(report.keys),
        text("gpu")
    );
    let cycles = Chart::Bars(BarChart {
        title: "Simulated cycles per kernel (all launches)".into(),
        x_label: "cycles".into(),
        segments: vec!["cycles".into()],
        bars: report
            .kernels
            .iter()
            .map(|k| Bar {
                label: k.name.clone(),
                values: vec![k.cycles as f64],
                tip: kernels::counters(&k.stats, report.keys),
            })
            .collect(),
    });
    let mut blocks = vec![
        Block::Heading("What ran".into()),
        Block::Pre(about.to_string()),
        Block::Details(
            "every field of the configuration".into(),
            vec![Block::Table(config_table(&report.config))],
        ),
        Block::Heading("Kernels".into()),
    ];
    blocks.extend(kernels::tables(report));
    blocks.push(Block::Pre(legend.to_string()));
    blocks.push(Block::Heading("Where the time goes".into()));
    blocks.push(Block::Chart(cycles));
    blocks.push(Block::Chart(kernels::kernel_stall_chart(report)));
    Page {
        title,
        provenance,
        blocks,
    }
}
