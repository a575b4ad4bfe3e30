//! The machine an experiment or a single kernel run uses: a preset, then
//! the warp width, then every `--FIELD VALUE` override, validated. The one
//! assembly the sort, the sweep and `simsort run` share.

use sim::GpuConfig;

/// The machine config of preset `preset` with `warp` lanes per warp (the
/// preset's when `None`) and `overrides` applied in order, with every
/// problem found in it. An unknown preset is an error of its own: nothing
/// else can be checked without a machine.
pub fn assemble(
    preset: &str,
    warp: Option<u32>,
    overrides: &[(String, String)],
) -> Result<(GpuConfig, Vec<String>), String> {
    let mut cfg = GpuConfig::preset(preset).ok_or_else(|| {
        format!(
            "unknown --gpu preset `{preset}` (known: {})",
            GpuConfig::PRESETS.join(", ")
        )
    })?;
    let mut problems = Vec::new();
    if let Some(w) = warp {
        cfg.warp_size = w;
    }
    for (name, value) in overrides {
        if let Err(e) = cfg.set(name, value) {
            problems.push(e.to_string());
        }
    }
    if let Err(errors) = cfg.validate() {
        problems.extend(errors.iter().map(ToString::to_string));
    }
    Ok((cfg, problems))
}
