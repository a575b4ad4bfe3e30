//! Which GPU a set of Nsight Compute CSVs was measured on, and whether it
//! is the GPU a preset simulates. The CSVs do not say (ncu's raw page has
//! no device column), so `hw/calib/measure.sh` and a bundle's
//! `profile.sh` write `gpu.txt` beside them: `nvidia-smi`'s name, driver,
//! clocks and memory on the first line, as every committed data directory
//! has. Why check: `--gpu` defaults to `h200`, and a user who measured
//! their own GPU and forgot `--gpu` would otherwise read the H200 model's
//! error against their GPU as the simulator's accuracy.

use std::path::Path;

/// The file beside the CSVs.
pub const FILE: &str = "gpu.txt";

/// The device name in `dir`'s `gpu.txt` (its first line up to the first
/// comma), if the file is there and names one.
pub fn device(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(FILE)).ok()?;
    let name = text.lines().next()?.split(',').next()?.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// Letters and digits only, lower case: `NVIDIA H100 80GB HBM3` is
/// `nvidiah10080gbhbm3`.
fn squeeze(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether the preset called `preset` (`h200`) simulates the GPU called
/// `device` (`NVIDIA H200`): the preset's name is in the device's, letters
/// and digits only, case aside.
pub fn is_preset_of(preset: &str, device: &str) -> bool {
    let p = squeeze(preset);
    !p.is_empty() && squeeze(device).contains(&p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_their_gpus_only() {
        assert!(is_preset_of("h200", "NVIDIA H200"));
        assert!(is_preset_of("h100", "NVIDIA H100 80GB HBM3"));
        assert!(!is_preset_of("h200", "NVIDIA H100 80GB HBM3"));
        assert!(!is_preset_of("h100", "NVIDIA GeForce RTX 4090"));
        assert!(!is_preset_of("", "NVIDIA H200"));
    }

    #[test]
    fn the_device_is_the_first_field_of_the_first_line() {
        let dir = std::env::temp_dir().join(format!("simsort-measured-on-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(device(&dir), None, "no gpu.txt");
        std::fs::write(
            dir.join(FILE),
            "NVIDIA H200, 580.159.04, 1980 MHz, 3201 MHz\nVersion 2025.3.1.0\n",
        )
        .unwrap();
        assert_eq!(device(&dir).as_deref(), Some("NVIDIA H200"));
        std::fs::write(dir.join(FILE), "\n").unwrap();
        assert_eq!(device(&dir), None, "an empty first line names nothing");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_committed_data_directory_says_its_gpu() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("hw/data");
        for (dir, preset) in [
            ("calib", "h200"),
            ("h100/calib", "h100"),
            ("h200/icache_warm/calib", "h200"),
        ] {
            let name = device(&root.join(dir)).unwrap_or_else(|| panic!("{dir} has no gpu.txt"));
            assert!(is_preset_of(preset, &name), "{dir}: {name}");
        }
    }
}
