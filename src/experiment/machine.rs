//! The machine an experiment or a single kernel run uses: a preset or a
//! machine file (`--gpu`), then the warp width, then every `--FIELD VALUE`
//! override, validated. The one assembly the sort, the sweep and `simsort
//! run` share.

use sim::{ConfigError, GpuConfig};

/// A machine as the flags describe it, with every problem found in it.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The machine, as given (possibly invalid).
    pub config: GpuConfig,
    /// One line per bad field: `invalid machine (--FLAG VALUE): why`.
    pub problems: Vec<String>,
    /// The machine with each bad field at the preset's value: what an
    /// algorithm's own checks run against, so one bad machine value is one
    /// problem (`--warp 1000` is not also "not a power of two" to HotSort).
    pub checkable: GpuConfig,
}

/// The flag that sets machine field `field`.
pub fn flag(field: &str) -> String {
    match field {
        "warp_size" => "--warp".to_string(),
        other => format!("--{}", other.replace('_', "-")),
    }
}

/// `e` in the command line's words: the flag and value, then why.
fn problem(e: &ConfigError, value: &str) -> String {
    format!(
        "invalid machine ({} {value}): {}",
        flag(&e.field),
        e.message
    )
}

/// The machine config of `gpu` (a preset or a machine file) with `warp`
/// lanes per warp (the machine's when `None`) and `overrides` applied in
/// order, with every problem found in it. An unknown preset or a bad
/// machine file is an error of its own (every problem of the file, one line
/// each): nothing else can be checked without a machine.
pub fn assemble(
    gpu: &str,
    warp: Option<u32>,
    overrides: &[(String, String)],
) -> Result<Assembled, Vec<String>> {
    let base = super::machine_file::resolve(gpu)?.config;
    let mut cfg = base.clone();
    let mut problems = Vec::new();
    let mut bad_fields: Vec<String> = Vec::new();
    if let Some(w) = warp {
        cfg.warp_size = w;
    }
    for (name, value) in overrides {
        if let Err(e) = cfg.set(name, value) {
            problems.push(problem(&e, value));
            bad_fields.push(e.field.clone());
        }
    }
    let mut given: Vec<&str> = overrides.iter().map(|(n, _)| n.as_str()).collect();
    if warp.is_some() {
        given.push("warp_size");
    }
    if let Err(errors) = cfg.validate() {
        for e in errors {
            let value = cfg.get(&e.field).unwrap_or_default();
            // A rule between two fields broken by a flag the user gave is
            // that flag's problem, not the preset field's it is checked on.
            match culprit(&base, &cfg, &given, &e.field) {
                Some(g) => {
                    problems.push(format!(
                        "invalid machine ({} {}): with it the preset's {} {value} is invalid: {}",
                        flag(g),
                        cfg.get(g).unwrap_or_default(),
                        flag(&e.field),
                        e.message
                    ));
                    bad_fields.push(g.to_string());
                }
                None => {
                    problems.push(problem(&e, &value));
                    bad_fields.push(e.field.clone());
                }
            }
        }
    }
    let mut checkable = cfg.clone();
    for field in &bad_fields {
        if let Some(v) = base.get(field) {
            let _ = checkable.set(field, &v);
        }
    }
    Ok(Assembled {
        config: cfg,
        problems,
        checkable,
    })
}

/// The given field that makes `field` (which the user did not give)
/// invalid: the first whose preset value puts it right.
fn culprit<'a>(
    base: &GpuConfig,
    cfg: &GpuConfig,
    given: &[&'a str],
    field: &str,
) -> Option<&'a str> {
    if given.contains(&field) {
        return None;
    }
    given.iter().copied().find(|g| {
        let mut c = cfg.clone();
        let reset = base.get(g).is_some_and(|v| c.set(g, &v).is_ok());
        reset
            && c.validate()
                .map_or_else(|errors| !errors.iter().any(|e| e.field == field), |()| true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bad_value_is_one_problem_naming_its_flag() {
        let a = assemble("h200", Some(1000), &[]).unwrap();
        assert_eq!(a.problems.len(), 1, "{:?}", a.problems);
        assert!(
            a.problems[0].starts_with("invalid machine (--warp 1000): 1000 is outside"),
            "{:?}",
            a.problems
        );
        assert_eq!(
            a.checkable.warp_size, 32,
            "the preset's warp for the algorithm's checks"
        );
        for (field, value, flag) in [
            ("num_subpartitions", "100", "(--num-subpartitions 100)"),
            ("smem_bytes_per_sm", "0", "(--smem-bytes-per-sm 0)"),
        ] {
            let a = assemble("h200", None, &[(field.into(), value.into())]).unwrap();
            assert_eq!(a.problems.len(), 1, "{:?}", a.problems);
            assert!(a.problems[0].contains(flag), "{:?}", a.problems);
        }
        let a = assemble("h200", None, &[("sector_bytes".into(), "1".into())]).unwrap();
        assert_eq!(a.problems.len(), 1, "{:?}", a.problems);
        assert!(
            a.problems[0].contains("(--sector-bytes 1)"),
            "{:?}",
            a.problems
        );
    }
}
