//! `--<field> VALUE` flags for every machine config field, made from
//! `GpuConfig::field_names()` so a new field gets its flag for free.

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use sim::GpuConfig;

/// Short names `cli.md` promises for the most used fields.
const ALIASES: &[(&str, &str)] = &[("num_sms", "sms"), ("smem_banks", "banks")];

/// Fields with a dedicated sort option instead (`--warp`).
const EXCLUDED: &[&str] = &["warp_size"];

/// Machine config fields set on the command line, in field order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MachineOverrides(pub Vec<(String, String)>);

fn flag(field: &str) -> String {
    field.replace('_', "-")
}

fn fields() -> impl Iterator<Item = &'static str> {
    GpuConfig::field_names()
        .iter()
        .copied()
        .filter(|f| !EXCLUDED.contains(f))
}

fn leak(s: String) -> &'static str {
    // Clap wants 'static ids; the set of fields is fixed, so this runs once
    // per field per process.
    Box::leak(s.into_boxed_str())
}

impl FromArgMatches for MachineOverrides {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut out = MachineOverrides::default();
        out.update_from_arg_matches(m)?;
        Ok(out)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for field in fields() {
            if let Some(value) = m.get_one::<String>(field) {
                self.0.retain(|(f, _)| f != field);
                self.0.push((field.to_string(), value.clone()));
            }
        }
        Ok(())
    }
}

/// A machine flag's help: the field's doc (meaning, unit, range) and its
/// value in each preset.
fn help(field: &str) -> String {
    let doc = GpuConfig::field_doc(field).unwrap_or_default();
    let doc = doc.strip_suffix('.').unwrap_or(doc);
    let presets: Vec<String> = simsort::experiment::machine_file::presets()
        .iter()
        .filter_map(|m| Some(format!("{}: {}", m.name, m.config.get(field)?)))
        .collect();
    format!("{doc} [{}]", presets.join(", "))
}

impl Args for MachineOverrides {
    fn augment_args(mut cmd: Command) -> Command {
        for field in fields() {
            let mut arg = Arg::new(field)
                .long(leak(flag(field)))
                .value_name("VALUE")
                .help_heading("Machine (override the --gpu preset)")
                .help(help(field));
            if let Some((_, alias)) = ALIASES.iter().find(|(f, _)| *f == field) {
                arg = arg.visible_alias(*alias);
            }
            cmd = cmd.arg(arg);
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
