//! `simsort gpu`: the machines `--gpu` accepts.
//!
//! - `simsort gpu list`: the presets, one a line, with what each is;
//! - `simsort gpu show NAME|FILE [--json]`: a machine as a machine file
//!   (a preset's compiled-in file as it is, sources and all; a file's
//!   machine with every field's doc), to start one's own from;
//! - `simsort gpu diff A B`: the fields where two machines differ.

use std::io::Write;

use clap::{Args, Subcommand};
use sim::GpuConfig;
use simsort::experiment::machine_file::{self, Machine};

use super::{Failure, output_error};

/// Arguments of `simsort gpu`.
#[derive(Debug, Args)]
pub struct GpuArgs {
    #[command(subcommand)]
    pub command: GpuCommand,
}

/// What `simsort gpu` does.
#[derive(Debug, Subcommand)]
pub enum GpuCommand {
    /// List the presets `--gpu NAME` accepts.
    List,
    /// Print a machine (a preset or a machine file) as a machine file.
    Show {
        /// A preset name or a machine file (.toml or .json).
        #[arg(value_name = "NAME | FILE")]
        gpu: String,
        /// Print it as JSON instead of TOML.
        #[arg(long)]
        json: bool,
    },
    /// Print the fields where two machines differ.
    Diff {
        /// A preset name or a machine file.
        #[arg(value_name = "A")]
        a: String,
        /// A preset name or a machine file.
        #[arg(value_name = "B")]
        b: String,
    },
}

/// Runs `simsort gpu`.
pub fn run(args: &GpuArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let text = match &args.command {
        GpuCommand::List => list(),
        GpuCommand::Show { gpu, json } => {
            let m = load(gpu)?;
            match (json, machine_file::preset_text(gpu)) {
                (false, Some(text)) => text.to_string(),
                (false, None) => machine_file::to_toml(&m),
                (true, _) => machine_file::to_json(&m),
            }
        }
        GpuCommand::Diff { a, b } => diff(&load(a)?, &load(b)?),
    };
    out.write_all(text.as_bytes()).map_err(output_error)
}

/// The machine `gpu` names, or every problem with it (exit 2).
fn load(gpu: &str) -> Result<Machine, Failure> {
    machine_file::resolve(gpu)
        .map_err(|problems| Failure::input(format!("error: {}", problems.join("\nerror: "))))
}

fn list() -> String {
    let presets = machine_file::presets();
    let width = presets.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let mut s = String::new();
    for m in presets {
        s += &format!("{:width$}  {}\n", m.name, m.description);
    }
    s += "\n`simsort gpu show NAME > mygpu.toml` writes one out; `--gpu mygpu.toml` loads it.\n";
    s
}

/// One line per differing field: the field, A's value, B's value, and the
/// field's meaning and unit; the machines' names first.
fn diff(a: &Machine, b: &Machine) -> String {
    let rows: Vec<(&str, String, String)> = GpuConfig::field_names()
        .iter()
        .filter_map(|f| {
            let (va, vb) = (a.config.get(f)?, b.config.get(f)?);
            (va != vb).then_some((*f, va, vb))
        })
        .collect();
    if rows.is_empty() {
        return format!("{} and {}: every field is equal\n", a.name, b.name);
    }
    let w0 = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(5);
    let w1 = rows
        .iter()
        .map(|r| r.1.len())
        .max()
        .unwrap_or(0)
        .max(a.name.len());
    let w2 = rows
        .iter()
        .map(|r| r.2.len())
        .max()
        .unwrap_or(0)
        .max(b.name.len());
    let mut s = format!("{:w0$}  {:>w1$}  {:>w2$}\n", "field", a.name, b.name);
    for (f, va, vb) in &rows {
        let doc = GpuConfig::field_doc(f).unwrap_or_default();
        let first = doc.split(". ").next().unwrap_or(doc);
        s += &format!(
            "{f:w0$}  {va:>w1$}  {vb:>w2$}  {}\n",
            first.trim_end_matches('.')
        );
    }
    s += &format!(
        "{} of {} fields differ\n",
        rows.len(),
        GpuConfig::field_names().len()
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_differs_from_itself_in_nothing_and_from_tiny_in_named_fields() {
        let h200 = machine_file::preset("h200").unwrap();
        let tiny = machine_file::preset("tiny").unwrap();
        assert_eq!(diff(&h200, &h200), "h200 and h200: every field is equal\n");
        let d = diff(&h200, &tiny);
        let num_sms = d.lines().find(|l| l.starts_with("num_sms ")).unwrap();
        assert_eq!(
            num_sms.split_whitespace().take(3).collect::<Vec<_>>(),
            ["num_sms", "132", "2"]
        );
        assert!(
            !d.contains("\nscheduler "),
            "equal fields are not listed:\n{d}"
        );
        assert!(d.ends_with(" fields differ\n"), "{d}");
    }
}
