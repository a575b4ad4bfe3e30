//! Machine files: a GPU described by every [`GpuConfig`] field (each with
//! its unit in its name and its doc comment), in TOML or JSON, loaded
//! wherever `--gpu NAME` is accepted. The presets are such files compiled
//! in, so `simsort gpu show h200 > mygpu.toml` starts a user's machine from
//! exactly what `--gpu h200` simulates.
//!
//! A file holds `name` (what reports call the machine; the file's stem when
//! absent), an optional `description`, and every field of the machine. A
//! missing field, an unknown one, a value of the wrong type and a value out
//! of its range are each one problem naming the field, and every problem of
//! a file is reported at once.

use std::path::Path;

use sim::GpuConfig;

/// The presets: each name with its file's text.
const PRESETS: &[(&str, &str)] = &[
    ("h200", include_str!("machines/h200.toml")),
    ("h100", include_str!("machines/h100.toml")),
    ("tiny", include_str!("machines/tiny.toml")),
];

/// Keys of a machine file that are not machine fields.
const META: &[&str] = &["name", "description"];

/// A machine: what reports call it, what it is, and its config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// The name reports give the machine (`config.gpu`).
    pub name: String,
    /// One line saying what the machine is (may be empty).
    pub description: String,
    /// Every field (validated).
    pub config: GpuConfig,
}

/// The names of the compiled-in presets, in the order `simsort gpu list`
/// shows them.
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}

/// The machine file of preset `name`, as compiled in.
pub fn preset_text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Every preset, parsed once from its compiled-in file.
pub fn presets() -> &'static [Machine] {
    static PARSED: std::sync::OnceLock<Vec<Machine>> = std::sync::OnceLock::new();
    PARSED.get_or_init(|| {
        PRESETS
            .iter()
            // The presets are checked by this module's tests: a bad one is a bug.
            .map(|(name, text)| {
                parse(text, name).unwrap_or_else(|e| panic!("preset {name}: {e:?}"))
            })
            .collect()
    })
}

/// Preset `name`, parsed from its compiled-in file.
pub fn preset(name: &str) -> Option<Machine> {
    presets().iter().find(|m| m.name == name).cloned()
}

/// Whether `gpu` (a `--gpu` value) names a file rather than a preset.
pub fn is_file(gpu: &str) -> bool {
    preset_text(gpu).is_none()
        && (gpu.contains(std::path::MAIN_SEPARATOR)
            || gpu.contains('/')
            || gpu.ends_with(".toml")
            || gpu.ends_with(".json")
            || Path::new(gpu).is_file())
}

/// The machine `gpu` names: a preset, or a machine file. Every problem
/// found, one line each, when it is neither or the file is bad.
pub fn resolve(gpu: &str) -> Result<Machine, Vec<String>> {
    if let Some(m) = preset(gpu) {
        return Ok(m);
    }
    if !is_file(gpu) {
        return Err(vec![format!(
            "unknown preset (--gpu {gpu}): no such machine; give one of {} or a machine \
             file (.toml or .json; `simsort gpu show h200 > mygpu.toml` starts one)",
            preset_names().join(", ")
        )]);
    }
    let text = std::fs::read_to_string(gpu)
        .map_err(|e| vec![format!("cannot read machine file (--gpu {gpu}): {e}")])?;
    let stem = Path::new(gpu)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(gpu);
    parse(&text, stem).map_err(|problems| {
        problems
            .into_iter()
            .map(|p| format!("invalid machine file (--gpu {gpu}): {p}"))
            .collect()
    })
}

/// The name reports give the machine of `gpu`: a preset's name, a file's
/// `name` (so a preset written out with `simsort gpu show` and loaded back
/// reports byte for byte as the preset), or `gpu` itself when the file
/// cannot be read.
pub fn report_name(gpu: &str) -> String {
    if preset_text(gpu).is_some() {
        return gpu.to_string();
    }
    resolve(gpu).map_or_else(|_| gpu.to_string(), |m| m.name)
}

/// A value of a machine file, whichever format it came in.
enum Value {
    Int(String),
    Str(String),
    Other(&'static str),
}

/// Parses a machine file (JSON when its first character is `{`, TOML
/// otherwise); `stem` is its name when it gives none. Every problem, one
/// line each, naming the field (`field `num_sms`: 0 is outside 1..=65536`).
pub fn parse(text: &str, stem: &str) -> Result<Machine, Vec<String>> {
    let entries = if text.trim_start().starts_with('{') {
        json_entries(text)?
    } else {
        toml_entries(text)?
    };
    let mut problems = Vec::new();
    let mut name = stem.to_string();
    let mut description = String::new();
    let mut cfg = GpuConfig::h200();
    let mut bad: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let field = |f: &str, m: String| format!("field `{f}`: {m}");
    for (key, value) in entries {
        seen.push(key.clone());
        if META.contains(&key.as_str()) {
            match value {
                Value::Str(s) if key == "name" && s.trim().is_empty() => {
                    problems.push(field(&key, "is empty; give the machine a name".into()))
                }
                Value::Str(s) if key == "name" => name = s,
                Value::Str(s) => description = s,
                _ => problems.push(field(&key, "expected a string".into())),
            }
            continue;
        }
        if !GpuConfig::field_names().contains(&key.as_str()) {
            problems.push(field(
                &key,
                "no such field (`simsort gpu show h200` lists every field)".into(),
            ));
            continue;
        }
        let text = match value {
            Value::Int(s) => s,
            Value::Str(s) if key == "scheduler" => s,
            Value::Str(s) => {
                problems.push(field(
                    &key,
                    format!("expected a number, found the string \"{s}\""),
                ));
                bad.push(key);
                continue;
            }
            Value::Other(what) => {
                let want = if key == "scheduler" {
                    "a string (lrr or gto)"
                } else {
                    "a whole number"
                };
                problems.push(field(&key, format!("expected {want}, found {what}")));
                bad.push(key);
                continue;
            }
        };
        if let Err(e) = cfg.set(&key, &text) {
            problems.push(field(&key, e.message));
            bad.push(key);
        }
    }
    let missing: Vec<&str> = GpuConfig::field_names()
        .iter()
        .copied()
        .filter(|f| !seen.iter().any(|s| s == f))
        .collect();
    for f in &missing {
        problems.push(field(
            f,
            "missing; a machine file gives every field (`simsort gpu show h200` lists them)".into(),
        ));
    }
    if let Err(errors) = cfg.validate() {
        // A field already wrong or missing is not blamed again.
        for e in errors {
            if !bad.contains(&e.field) && !missing.contains(&e.field.as_str()) {
                problems.push(field(&e.field, e.message));
            }
        }
    }
    if problems.is_empty() {
        Ok(Machine {
            name,
            description,
            config: cfg,
        })
    } else {
        Err(problems)
    }
}

/// The key-value pairs of a TOML machine file, in file order.
fn toml_entries(text: &str) -> Result<Vec<(String, Value)>, Vec<String>> {
    use toml_edit::{Item, Value as V};
    let doc = toml_edit::Document::parse(text.to_string())
        .map_err(|e| vec![format!("not TOML: {}", one_line(&e.to_string()))])?;
    let mut out = Vec::new();
    for (key, item) in doc.as_table().iter() {
        let value = match item {
            Item::Value(V::Integer(i)) => Value::Int(i.value().to_string()),
            Item::Value(V::String(s)) => Value::Str(s.value().clone()),
            Item::Value(V::Float(f)) => Value::Other(if f.value().fract() == 0.0 {
                "a decimal number (write it without `.0`)"
            } else {
                "a fraction"
            }),
            Item::Value(V::Boolean(_)) => Value::Other("a boolean"),
            Item::Value(V::Datetime(_)) => Value::Other("a date"),
            Item::Value(V::Array(_)) | Item::ArrayOfTables(_) => Value::Other("an array"),
            Item::Value(V::InlineTable(_)) | Item::Table(_) => Value::Other("a table"),
            Item::None => continue,
        };
        out.push((key.to_string(), value));
    }
    Ok(out)
}

/// The key-value pairs of a JSON machine file (one flat object).
fn json_entries(text: &str) -> Result<Vec<(String, Value)>, Vec<String>> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| vec![format!("not JSON: {e}")])?;
    let serde_json::Value::Object(map) = v else {
        return Err(vec!["not a machine: expected one JSON object".to_string()]);
    };
    let mut out = Vec::new();
    for (key, value) in map {
        let value = match value {
            serde_json::Value::Number(n) if n.is_u64() || n.is_i64() => Value::Int(n.to_string()),
            serde_json::Value::Number(_) => Value::Other("a fraction"),
            serde_json::Value::String(s) => Value::Str(s),
            serde_json::Value::Bool(_) => Value::Other("a boolean"),
            serde_json::Value::Null => Value::Other("null"),
            serde_json::Value::Array(_) => Value::Other("an array"),
            serde_json::Value::Object(_) => Value::Other("an object"),
        };
        out.push((key, value));
    }
    Ok(out)
}

/// `text` on one line (TOML's errors quote the line over several).
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A machine as a TOML machine file: every field with its doc comment
/// (meaning, unit, range), in field order. Parsing it gives `m` back.
pub fn to_toml(m: &Machine) -> String {
    let mut s = String::from(
        "# simsort machine file: every field of the simulated machine, with its\n\
         # unit (docs/hardware.md). Load it with `--gpu FILE`; every field is\n\
         # required and an unknown one is refused.\n",
    );
    s += &format!("name = {}\n", quote(&m.name));
    s += &format!("description = {}\n", quote(&m.description));
    for f in GpuConfig::field_names() {
        s += "\n";
        for line in wrap(GpuConfig::field_doc(f).unwrap_or_default(), 76) {
            s += &format!("# {line}\n");
        }
        let value = m.config.get(f).unwrap_or_default();
        if *f == "scheduler" {
            s += &format!("{f} = {}\n", quote(&value));
        } else {
            s += &format!("{f} = {value}\n");
        }
    }
    s
}

/// A machine as a JSON machine file: `name`, `description`, then every
/// field in field order. Parsing it gives `m` back.
pub fn to_json(m: &Machine) -> String {
    let mut lines = vec![
        format!("  \"name\": {}", quote(&m.name)),
        format!("  \"description\": {}", quote(&m.description)),
    ];
    for f in GpuConfig::field_names() {
        let value = m.config.get(f).unwrap_or_default();
        let value = if *f == "scheduler" {
            quote(&value)
        } else {
            value
        };
        lines.push(format!("  \"{f}\": {value}"));
    }
    format!("{{\n{}\n}}\n", lines.join(",\n"))
}

/// `s` as a quoted string, valid in TOML and JSON alike.
fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// `text` broken at spaces into lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preset_files_are_the_simulators_presets() {
        // The h200 preset's file must simulate exactly what the simulator's
        // default does: every committed figure and snapshot depends on it.
        assert_eq!(preset("h200").unwrap().config, GpuConfig::h200());
        assert_eq!(preset("tiny").unwrap().config, GpuConfig::tiny());
        for name in preset_names() {
            let m = preset(name).unwrap();
            assert_eq!(m.name, name);
            assert!(!m.description.is_empty(), "{name}");
        }
    }

    #[test]
    fn a_machine_written_out_reads_back_the_same_in_both_formats() {
        for name in preset_names() {
            let m = preset(name).unwrap();
            assert_eq!(parse(&to_toml(&m), "x").unwrap(), m, "{name} toml");
            assert_eq!(parse(&to_json(&m), "x").unwrap(), m, "{name} json");
        }
    }

    #[test]
    fn every_problem_is_reported_at_once_naming_its_field() {
        let text = preset_text("h200")
            .unwrap()
            .replace("num_sms = 132", "num_sms = 0")
            .replace("warp_size = 32", "warp_size = 3")
            .replace("scheduler = \"gto\"", "scheduler = 7")
            .replace("clock_mhz = 1980", "clock_mhz = 1.5")
            .replace("l2_ways = 16\n", "")
            + "l2_size = 5\n";
        let problems = parse(&text, "mine").unwrap_err();
        let joined = problems.join("\n");
        for want in [
            "field `num_sms`: 0 is outside 1..=65536",
            "field `warp_size`: 3 is not a power of two",
            "field `clock_mhz`: expected a whole number, found a fraction",
            "field `l2_ways`: missing",
            "field `l2_size`: no such field",
            "field `scheduler`: cannot parse `7`",
        ] {
            assert!(joined.contains(want), "{want} not in:\n{joined}");
        }
        assert_eq!(problems.len(), 6, "{joined}");
    }

    #[test]
    fn a_file_that_is_no_toml_names_where() {
        let problems = parse("num_sms = = 3\n", "x").unwrap_err();
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("not TOML: "), "{problems:?}");
        assert!(problems[0].contains("line 1"), "{problems:?}");
        let problems = parse("{\"num_sms\": }", "x").unwrap_err();
        assert!(problems[0].starts_with("not JSON: "), "{problems:?}");
    }

    #[test]
    fn a_name_is_a_preset_or_a_file() {
        assert!(!is_file("h200"));
        assert!(is_file("mygpu.toml") && is_file("dir/x") && is_file("m.json"));
        let e = resolve("h300").unwrap_err();
        assert!(
            e[0].starts_with("unknown preset (--gpu h300): no such machine; give one of h200, h100, tiny or a machine file"),
            "{e:?}"
        );
        let e = resolve("no/such/file.toml").unwrap_err();
        assert!(
            e[0].starts_with("cannot read machine file (--gpu no/such/file.toml): "),
            "{e:?}"
        );
    }
}
