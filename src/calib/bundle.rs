//! A bundle: everything needed to run a recorded launch sequence on a real
//! NVIDIA GPU and profile it. `manifest.txt` (the sequence, read by the
//! fixed host program `host.cu`), one PTX file per distinct kernel, the
//! input data, the bytes every checked buffer must hold at the end,
//! `metrics.txt` (the Nsight Compute counters simsort reports), `profile.sh`
//! (build, run, check, profile into `ncu.csv`), `report.json` (the
//! simulator's per-launch report, when the sequence was simulated) and
//! `command.txt` (the simsort command that made it).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use kernels_ir::VerifiedKernel;

use super::recorder::{Event, Param};

/// The host program every bundle carries (fixed code, written by us).
pub const HOST_CU: &str = include_str!("../../hw/bundle/host.cu");
/// The script that builds, checks and profiles a bundle.
pub const PROFILE_SH: &str = include_str!("../../hw/bundle/profile.sh");
/// The Nsight Compute metrics a profile collects, one a line.
pub const METRICS_TXT: &str = include_str!("../../hw/metrics.txt");

/// The shared-atomic counters a bundle with atomics also profiles (the
/// names the H200 measurement in `hw/atomics/` used).
pub const ATOMIC_METRICS: [&str; 6] = [
    "smsp__inst_executed_op_shared_atom.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
];

/// A bundle in memory: files by path relative to the bundle's directory.
#[derive(Debug, Default)]
pub struct Bundle {
    /// Every file of the bundle.
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// Launches in the sequence.
    pub launches: usize,
}

/// Turns a kernel into PTX, or says why it cannot.
pub type PtxFn<'a> = &'a dyn Fn(&VerifiedKernel) -> Result<String, String>;

impl Bundle {
    /// The bundle of a recorded sequence: every `Read` event becomes a
    /// check of the bytes it returned. `ptx` emits each kernel.
    pub fn from_events(
        kernels: &[VerifiedKernel],
        events: &[Event],
        ptx: PtxFn<'_>,
    ) -> Result<Bundle, String> {
        let mut bundle = Bundle::default();
        let mut manifest = String::from("simsort-bundle 1\n");
        for (i, k) in kernels.iter().enumerate() {
            let text = ptx(k).map_err(|e| format!("kernel `{}`: {e}", k.kernel().name))?;
            let file = format!("k{i}_{}.ptx", k.kernel().name);
            let shared = emit::shared_launch_bytes(k.kernel());
            writeln!(manifest, "module K{i} {file} {} {shared}", k.kernel().name).unwrap();
            bundle.files.push((PathBuf::from(file), text.into_bytes()));
        }
        let (mut writes, mut checks) = (0, 0);
        for event in events {
            match event {
                Event::Alloc { buf, bytes } => writeln!(manifest, "alloc B{buf} {bytes}").unwrap(),
                Event::Write { buf, offset, data } => {
                    let file = format!("data/w{writes}.bin");
                    writes += 1;
                    writeln!(manifest, "write {} {offset} {file}", buffer(*buf)?).unwrap();
                    bundle.files.push((PathBuf::from(file), data.clone()));
                }
                Event::Read {
                    buf, offset, data, ..
                } => {
                    let file = format!("data/expect{checks}.bin");
                    checks += 1;
                    writeln!(manifest, "check {} {offset} {file}", buffer(*buf)?).unwrap();
                    bundle.files.push((PathBuf::from(file), data.clone()));
                }
                Event::Launch {
                    kernel,
                    grid,
                    block,
                    params,
                } => {
                    bundle.launches += 1;
                    write!(
                        manifest,
                        "launch K{kernel} {} {} {} {} {} {} {}",
                        grid.x,
                        grid.y,
                        grid.z,
                        block.x,
                        block.y,
                        block.z,
                        params.len()
                    )
                    .unwrap();
                    for p in params {
                        match p {
                            Param::Ptr { buf, offset } => write!(manifest, " ptr B{buf} {offset}"),
                            Param::U32(v) => write!(manifest, " u32 {v}"),
                            Param::U64(v) => write!(manifest, " u64 {v}"),
                        }
                        .unwrap();
                    }
                    manifest.push('\n');
                }
            }
        }
        bundle
            .files
            .push(("manifest.txt".into(), manifest.into_bytes()));
        bundle
            .files
            .push(("host.cu".into(), HOST_CU.as_bytes().to_vec()));
        bundle
            .files
            .push(("profile.sh".into(), PROFILE_SH.as_bytes().to_vec()));
        let mut metrics = METRICS_TXT.to_string();
        if kernels
            .iter()
            .any(|k| k.kernel().insts.iter().any(|i| i.data.opcode().is_atomic()))
        {
            // Profiled only where a kernel has atomics, so other bundles
            // keep their metric list.
            for m in ATOMIC_METRICS {
                metrics.push_str(m);
                metrics.push('\n');
            }
        }
        bundle
            .files
            .push(("metrics.txt".into(), metrics.into_bytes()));
        Ok(bundle)
    }

    /// Adds (or replaces) a file.
    pub fn put(&mut self, path: &str, data: Vec<u8>) {
        self.files.retain(|(p, _)| p != Path::new(path));
        self.files.push((PathBuf::from(path), data));
    }

    /// Writes the bundle to `dir`, whole or not at all: into a temporary
    /// directory beside it, renamed into place at the end. `dir` must not
    /// exist, or be an empty directory.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        check_target(dir)?;
        let name = dir
            .file_name()
            .ok_or_else(|| format!("{} is not a directory name", dir.display()))?;
        let parent = dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let tmp = parent.join(format!(
            ".{}.tmp-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let result = self.write_into(&tmp).and_then(|()| {
            if dir.exists() {
                fs::remove_dir(dir)
                    .map_err(|e| format!("cannot replace {}: {e}", dir.display()))?;
            }
            fs::rename(&tmp, dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
        });
        if result.is_err() {
            let _ = fs::remove_dir_all(&tmp);
        }
        result
    }

    fn write_into(&self, tmp: &Path) -> Result<(), String> {
        let _ = fs::remove_dir_all(tmp);
        for (path, data) in &self.files {
            // Ctrl-C stops a large bundle between its files; the caller
            // removes the temporary directory.
            if sim::stop_requested() {
                return Err(format!("interrupted before {} was written", path.display()));
            }
            let full = tmp.join(path);
            if let Some(p) = full.parent() {
                fs::create_dir_all(p).map_err(|e| format!("cannot create {}: {e}", p.display()))?;
            }
            fs::write(&full, data).map_err(|e| format!("cannot write {}: {e}", full.display()))?;
        }
        set_executable(&tmp.join("profile.sh"))
    }
}

/// Refuses a target that exists and is not an empty directory, before any
/// work is done.
pub fn check_target(dir: &Path) -> Result<(), String> {
    match fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                Err(format!(
                    "error: the bundle directory (--output {}) exists and is not empty; \
                     name a new or empty directory",
                    dir.display()
                ))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => check_parent(dir),
        Err(e) => Err(format!(
            "error: cannot use the bundle directory (--output {}): {e}; \
             name a new or empty directory",
            dir.display()
        )),
    }
}

/// A new bundle directory goes into an existing directory that takes new
/// entries, as every other output of simsort: no parent is created.
fn check_parent(dir: &Path) -> Result<(), String> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let bad = |why: String| {
        Err(format!(
            "error: cannot create the bundle directory (--output {}): {why}; name a new \
             directory in an existing one",
            dir.display()
        ))
    };
    if !parent.is_dir() {
        return bad(format!("the directory {} does not exist", parent.display()));
    }
    let probe = parent.join(format!(".simsort-probe-{}", std::process::id()));
    match fs::create_dir(&probe) {
        Ok(()) => {
            let _ = fs::remove_dir(&probe);
            Ok(())
        }
        Err(e) => bad(format!("{} takes no new entries: {e}", parent.display())),
    }
}

fn buffer(buf: usize) -> Result<String, String> {
    if buf == usize::MAX {
        Err("the sequence touches memory outside every buffer".to_string())
    } else {
        Ok(format!("B{buf}"))
    }
}

#[cfg(unix)]
fn set_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", path.display()))
}

#[cfg(not(unix))]
fn set_executable(_path: &Path) -> Result<(), String> {
    Ok(())
}
