//! What a calibration compares: the GPU its hardware data were measured
//! on (the `gpu.txt` beside them, [`simsort::calib::measured_on`]) and the
//! machine the simulator ran. `simsort calibrate` notes on stderr when the
//! two differ, and its reports name both.

use std::path::PathBuf;

use super::calibrate::CalibrateArgs;

/// The two GPUs of a comparison, as far as they are known: where the
/// hardware data are (`--data` with `--suite`, else the bundle
/// directory), the GPU they were measured on (its `gpu.txt`:
/// [`simsort::calib::measured_on`]), and the machine the simulator ran
/// (`--gpu`, default `h200`, with `--suite`; the bundle report's
/// otherwise). Reports carry both, so a comparison says what it compares.
#[derive(Debug, Default, serde::Serialize)]
pub(super) struct Gpus {
    /// The measured GPU's name (`NVIDIA H200`).
    measured: Option<String>,
    /// The simulated machine's name (a preset's, or a machine file's).
    simulated: Option<String>,
    #[serde(skip)]
    data: Option<(PathBuf, &'static str)>,
}

pub(super) fn gpus(args: &CalibrateArgs) -> Gpus {
    use simsort::calib::measured_on;
    use simsort::experiment::machine_file;
    let (dir, flag, simulated) = match (&args.suite, args.inputs.as_slice()) {
        (Some(_), []) => {
            let gpu = args.gpu.clone().unwrap_or_else(|| "h200".to_string());
            (
                args.data.clone(),
                "--data",
                Some(machine_file::report_name(&gpu)),
            )
        }
        (None, [dir]) => {
            let report = std::fs::read_to_string(dir.join("report.json")).unwrap_or_default();
            let value: serde_json::Value = serde_json::from_str(&report).unwrap_or_default();
            let gpu = value["config"]["gpu"].as_str().map(str::to_string);
            (dir.clone(), "DIR", gpu)
        }
        _ => return Gpus::default(),
    };
    Gpus {
        measured: measured_on::device(&dir),
        simulated,
        data: Some((dir, flag)),
    }
}

impl Gpus {
    /// A note when the hardware data were measured on another GPU than
    /// the preset that simulates them. Nothing when either side is
    /// unknown or the machine is a file (the user's own).
    pub(super) fn across(&self) -> Option<String> {
        use simsort::calib::measured_on;
        let (device, gpu, (dir, flag)) = (
            self.measured.as_ref()?,
            self.simulated.as_ref()?,
            self.data.as_ref()?,
        );
        let machine = simsort::experiment::machine_file::preset(gpu)?;
        (!measured_on::is_preset_of(gpu, device)).then(|| {
            format!(
                "note: the hardware data ({flag} {}) were measured on an {device} (its {}), and \
                 the simulator ran preset {gpu}, an {}: the comparison is across GPUs (give \
                 --gpu a machine of the measured GPU to compare like with like)",
                dir.display(),
                measured_on::FILE,
                machine.description
            )
        })
    }

    /// One sentence for a report: what was measured on what, and
    /// simulated on what.
    pub(super) fn sentence(&self) -> String {
        let measured = match (&self.measured, &self.data) {
            (Some(d), Some((dir, _))) => format!(
                "Measured on an {d} ({}/{})",
                dir.display(),
                simsort::calib::measured_on::FILE
            ),
            (None, Some((dir, _))) => format!(
                "Measured on a GPU that {} does not name (it has no {})",
                dir.display(),
                simsort::calib::measured_on::FILE
            ),
            _ => "Measured on a GPU the inputs do not name".to_string(),
        };
        match &self.simulated {
            Some(g) => format!("{measured}; simulated on machine {g}."),
            None => format!("{measured}."),
        }
    }
}
