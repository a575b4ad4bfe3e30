//! Writing files so that a reader never sees half of one and a failed
//! command never destroys the old one.
//!
//! Every file simsort writes goes through [`AtomicFile`] (or
//! [`write_file`]): the bytes go to a hidden temporary file beside the
//! target, and only [`AtomicFile::commit`] renames it over the target. If
//! the writer is dropped uncommitted (an error, a panic, Ctrl-C between
//! writes) the temporary file is removed and the target keeps its old
//! contents. [`check_output`] tells before any work starts whether a path
//! can be written this way.
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("simsort-atomic-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("result.csv");
//! simsort::atomic::check_output(&path).unwrap();
//! simsort::atomic::write_file(&path, b"a,b\n1,2\n").unwrap();
//! assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n1,2\n");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A file being written: a temporary file beside the target that becomes
/// the target on [`commit`](AtomicFile::commit) and disappears otherwise.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    file: Option<File>,
}

/// The path the bytes finally go to: a symbolic link is followed, so the
/// file it points to is replaced and the link kept.
fn resolve(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// A fresh hidden name beside `target`; the extension is kept last so that
/// writers that choose a format by extension (the plot) still work.
fn temp_beside(target: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = target
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let ext = target
        .extension()
        .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    let temp = format!(".{name}.simsort-{}-{n}.tmp{ext}", std::process::id());
    target.with_file_name(temp)
}

impl AtomicFile {
    /// Starts writing `target`: creates the temporary file beside it.
    /// Fails when [`check_output`] would.
    pub fn create(target: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let target = resolve(target.as_ref());
        if let Some(why) = not_regular(&target) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
        }
        let temp = temp_beside(&target);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        // A replaced file keeps its permissions.
        if let Ok(meta) = std::fs::metadata(&target) {
            let _ = file.set_permissions(meta.permissions());
        }
        Ok(AtomicFile {
            target,
            temp,
            file: Some(file),
        })
    }

    /// The temporary file, for writers that want a path rather than a
    /// [`Write`] (close this `AtomicFile`'s handle's writes first: it has
    /// written nothing unless you used it).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The file that [`commit`](AtomicFile::commit) replaces.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes the bytes to disk and renames the temporary file over the
    /// target. On an error the target is unchanged and the temporary file
    /// removed.
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(file) = self.file.take() {
            file.sync_all()?;
        }
        std::fs::rename(&self.temp, &self.target)?;
        // Nothing is left to remove: the drop finds no temporary file.
        self.temp = PathBuf::new();
        Ok(())
    }

    fn file(&mut self) -> io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("the file was already committed"))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file()?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file()?.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        self.file = None;
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Commits every file of one output set (a sweep's CSV and JSON, and its
/// plot) so that readers and other simsort processes see all of one run's
/// files, never one run's CSV beside another's JSON: the renames happen
/// while holding an exclusive lock on each target's directory (`flock`,
/// which a process holds only while it lives, so a killed run leaves no
/// stale lock). On an error the files not yet renamed are dropped.
pub fn commit_all(files: Vec<AtomicFile>) -> io::Result<()> {
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            f.target()
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf()
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    // In path order, so two sets over the same directories cannot deadlock.
    let _locks: Vec<DirLock> = dirs
        .iter()
        .map(|d| DirLock::take(d))
        .collect::<io::Result<_>>()?;
    for file in files {
        file.commit()?;
    }
    Ok(())
}

/// An exclusive lock on a directory, released when dropped.
struct DirLock(#[allow(dead_code)] File);

impl DirLock {
    fn take(dir: &Path) -> io::Result<DirLock> {
        let file = File::open(dir)?;
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            loop {
                // SAFETY: `flock` on a descriptor this `File` owns.
                if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                    break;
                }
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
        Ok(DirLock(file))
    }
}

/// Writes `bytes` to `path` completely or not at all (see the module doc).
pub fn write_file(path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// Why an existing `path` cannot be replaced by a file: it is a directory,
/// a device, a pipe or a socket.
fn not_regular(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        None
    } else if meta.is_dir() {
        Some("it is a directory".into())
    } else {
        Some("it is not a regular file (a device, pipe or socket)".into())
    }
}

/// Checks, before any work starts, that `path` can be written: it is new or
/// a regular file that this process may write, and its directory exists
/// and takes new files. The error says why not, in words.
pub fn check_output(path: &Path) -> Result<(), String> {
    let target = resolve(path);
    if let Some(why) = not_regular(&target) {
        return Err(format!(
            "{why}; give the name of a regular file, new or old"
        ));
    }
    if target.exists() {
        OpenOptions::new()
            .write(true)
            .open(&target)
            .map_err(|e| format!("it cannot be written: {e}"))?;
    }
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir.filter(|d| !d.is_dir()) {
        return Err(format!("the directory {} does not exist", dir.display()));
    }
    // Creating (and dropping) the temporary file proves the directory
    // takes new files, which the final rename needs.
    AtomicFile::create(&target)
        .map(drop)
        .map_err(|e| format!("no file can be created beside it: {e}"))
}

/// What makes two paths one file: an existing file is its device and
/// inode (so a symbolic or hard link to it is the same file); a file not
/// yet there is its directory's real path and its name.
#[derive(Debug, PartialEq, Eq)]
enum FileKey {
    Inode(u64, u64),
    New(PathBuf),
}

fn file_key(path: &Path) -> Option<FileKey> {
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return Some(FileKey::Inode(meta.dev(), meta.ino()));
    }
    let target = resolve(path);
    let name = target.file_name()?;
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = std::fs::canonicalize(dir.unwrap_or(Path::new("."))).ok()?;
    Some(FileKey::New(dir.join(name)))
}

/// Refuses, before any work starts, an output that is the same file as an
/// input (writing it would destroy what is being read) or as another
/// output (one would overwrite the other). Each path comes with the flag
/// or argument that named it, for the message; `-` (standard input or
/// output) is no file. One line per clash.
pub fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<(), String> {
    let key = |p: &Path| (p.as_os_str() != "-").then(|| file_key(p)).flatten();
    let mut problems = Vec::new();
    for (i, (flag, out)) in outputs.iter().enumerate() {
        let Some(k) = key(out) else { continue };
        if let Some((in_flag, input)) = inputs.iter().find(|(_, p)| key(p).as_ref() == Some(&k)) {
            problems.push(format!(
                "{flag} {} is the same file as the input {in_flag} {}: writing it would \
                 destroy the input; name another output file",
                out.display(),
                input.display()
            ));
        } else if let Some((other_flag, other)) = outputs[..i]
            .iter()
            .find(|(_, p)| key(p).as_ref() == Some(&k))
        {
            problems.push(format!(
                "{flag} {} is the same file as the output {other_flag} {}: one would \
                 overwrite the other; name two different files",
                out.display(),
                other.display()
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\nerror: "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("simsort-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_uncommitted_file_leaves_the_old_one_and_no_litter() {
        let dir = scratch("drop");
        let path = dir.join("res.csv");
        std::fs::write(&path, "old").unwrap();
        {
            let mut f = AtomicFile::create(&path).unwrap();
            f.write_all(b"half of the new").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(entries(&dir), ["res.csv"]);
        write_file(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(entries(&dir), ["res.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn devices_directories_and_missing_directories_are_refused() {
        let dir = scratch("refuse");
        assert!(
            check_output(Path::new("/dev/full"))
                .unwrap_err()
                .contains("regular file")
        );
        assert!(check_output(&dir).unwrap_err().contains("directory"));
        let missing = dir.join("nope/res.csv");
        assert!(
            check_output(&missing)
                .unwrap_err()
                .contains("does not exist")
        );
        assert!(write_file("/dev/full", b"x").is_err());
        check_output(&dir.join("new.csv")).unwrap();
        assert_eq!(
            entries(&dir),
            Vec::<String>::new(),
            "the check leaves nothing"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_link_is_followed_and_kept() {
        let dir = scratch("link");
        let real = dir.join("real.json");
        std::fs::write(&real, "old").unwrap();
        #[cfg(unix)]
        {
            let link = dir.join("link.json");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            write_file(&link, b"new").unwrap();
            assert!(
                std::fs::symlink_metadata(&link)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    #[test]
    fn an_output_that_is_an_input_or_another_output_is_refused() {
        let dir = scratch("distinct");
        let input = dir.join("in.trace");
        std::fs::write(&input, "data").unwrap();
        let other = dir.join("out.json");
        let err = check_distinct(&[("-o", &input)], &[("TRACE", &input)]).unwrap_err();
        assert!(err.contains("same file as the input TRACE"), "{err}");
        #[cfg(unix)]
        {
            let link = dir.join("link.trace");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(check_distinct(&[("-o", &link)], &[("TRACE", &input)]).is_err());
            let hard = dir.join("hard.trace");
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(check_distinct(&[("-o", &hard)], &[("TRACE", &input)]).is_err());
        }
        // Two outputs naming one new file, once through `dir/./`.
        let same = dir.join(".").join("out.json");
        let err = check_distinct(&[("--out", &other), ("--plot", &same)], &[]).unwrap_err();
        assert!(err.contains("same file as the output --out"), "{err}");
        check_distinct(
            &[("--out", &other), ("-o", Path::new("-"))],
            &[("TRACE", &input)],
        )
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
    #[test]
    fn output_sets_committed_at_once_are_never_mixed() {
        let dir = scratch("sets");
        let (csv, json) = (dir.join("r.csv"), dir.join("r.json"));
        for round in 0..200 {
            let barrier = std::sync::Barrier::new(2);
            std::thread::scope(|s| {
                for writer in ["a", "b"] {
                    let (csv, json, barrier) = (&csv, &json, &barrier);
                    s.spawn(move || {
                        let mut files = Vec::new();
                        for path in [csv, json] {
                            let mut f = AtomicFile::create(path).unwrap();
                            f.write_all(writer.as_bytes()).unwrap();
                            files.push(f);
                        }
                        barrier.wait();
                        commit_all(files).unwrap();
                    });
                }
            });
            assert_eq!(
                std::fs::read(&csv).unwrap(),
                std::fs::read(&json).unwrap(),
                "round {round}: one run's CSV beside the other's JSON"
            );
        }
        assert_eq!(entries(&dir), ["r.csv", "r.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
