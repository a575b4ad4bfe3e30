//! Host memory: the estimate of what a run needs, checked before anything
//! large is allocated, so that a too-large request is refused with a
//! message (exit status 2) instead of being killed by the operating system
//! or aborting on a failed allocation.
//!
//! The limit is the machine's available memory (`MemAvailable` in
//! `/proc/meminfo`), or the value of `--max-host-memory` when given. Where
//! the available memory cannot be read, only `--max-host-memory` limits.

use std::sync::OnceLock;

/// The limit set by `--max-host-memory`, for the whole process.
static LIMIT: OnceLock<u64> = OnceLock::new();

/// Sets the limit in bytes (`--max-host-memory`); the first call wins.
pub fn set_limit(bytes: u64) {
    let _ = LIMIT.set(bytes);
}

/// The memory the machine has available now, in bytes: `MemAvailable` of
/// `/proc/meminfo`, or `None` where there is no such file.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line
        .trim_start_matches("MemAvailable:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// A byte count for people: `1.5 GiB`, `12.0 MiB`, `300 bytes`.
pub fn human(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            return format!("{:.1} {unit}", bytes as f64 / size as f64);
        }
    }
    format!("{bytes} bytes")
}

/// Checks that `need` bytes fit the limit. `flag` names what asked for the
/// memory (`--keys 2147483648`); the error is the whole message, in the
/// style `error: <what> (<flag>): <why>; <what is allowed>`.
pub fn check(flag: &str, need: u64) -> Result<(), String> {
    let (limit, source) = match LIMIT.get() {
        Some(&limit) => (limit, "is the limit set by --max-host-memory"),
        None => match available() {
            Some(avail) => (avail, "are available on this machine"),
            None => return Ok(()),
        },
    };
    if need <= limit {
        return Ok(());
    }
    Err(format!(
        "error: not enough host memory ({flag}): the run needs about {}, {} {source}; \
         ask for less, or set --max-host-memory to run anyway",
        human(need),
        human(limit),
    ))
}

/// Host bytes per key a sort needs, measured: the input, the reference
/// sort's copy, the device buffers (keys and the merge's second buffer,
/// padded to whole slabs) and the copy read back, with room to spare
/// (a 1 Mi-key sort peaks at about 64 MiB above the program's own).
pub const SORT_BYTES_PER_KEY: u64 = 64;

/// The host memory a sort of `keys` keys needs, in bytes.
pub fn sort_bytes(keys: u64) -> u64 {
    keys.saturating_mul(SORT_BYTES_PER_KEY)
        .saturating_add(16 << 20)
}

/// GPUTeraSort's record size when `--record-bytes` is not given.
pub const DEFAULT_RECORD_BYTES: u64 = 100;

/// The host memory GPUTeraSort's records take beyond [`sort_bytes`]: four
/// copies of `keys` records of `record_bytes` (the input, the device copy,
/// the reference sort's copy and the copy read back; measured: 262,144
/// records of 4,000 bytes peak at 4.18 GB).
pub fn record_bytes(keys: u64, record_bytes: u64) -> u64 {
    keys.saturating_mul(record_bytes).saturating_mul(4)
}

/// The host memory one sort of `opts` needs: [`sort_bytes`], plus the
/// records for GPUTeraSort.
pub fn sort_bytes_of(opts: &crate::experiment::SortOptions) -> u64 {
    let records = match opts.algo {
        crate::experiment::sort::Algo::Terasort => record_bytes(
            opts.keys,
            opts.record_bytes.map_or(DEFAULT_RECORD_BYTES, u64::from),
        ),
        _ => 0,
    };
    sort_bytes(opts.keys).saturating_add(records)
}

/// What names the memory a sort of `opts` asks for, for
/// [`check`]'s message: `--keys N`, with `--record-bytes R` for GPUTeraSort.
pub fn sort_flag(opts: &crate::experiment::SortOptions) -> String {
    match opts.algo {
        crate::experiment::sort::Algo::Terasort => format!(
            "--keys {} --record-bytes {}",
            opts.keys,
            opts.record_bytes.map_or(DEFAULT_RECORD_BYTES, u64::from)
        ),
        _ => format!("--keys {}", opts.keys),
    }
}

/// A vector of `len` elements made by `f`, or `None` when the host cannot
/// provide the memory (instead of aborting).
pub fn try_collect<T>(len: u64, f: impl FnMut(u64) -> T) -> Option<Vec<T>> {
    let len = usize::try_from(len).ok()?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.extend((0..len as u64).map(f));
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_gives_bytes() {
        let text = "MemTotal:       32000000 kB\nMemAvailable:   23360708 kB\n";
        assert_eq!(parse_meminfo(text), Some(23_360_708 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human(300), "300 bytes");
        assert_eq!(human(3 << 29), "1.5 GiB");
        assert_eq!(human(12 << 20), "12.0 MiB");
    }

    #[test]
    fn gpu_terasort_counts_its_records() {
        use crate::experiment::SortOptions;
        use crate::experiment::sort::Algo;
        let hotsort = SortOptions {
            keys: 1 << 20,
            ..SortOptions::default()
        };
        assert_eq!(sort_bytes_of(&hotsort), sort_bytes(1 << 20));
        let tera = SortOptions {
            algo: Algo::Terasort,
            record_bytes: Some(1_000_000_000),
            ..hotsort
        };
        assert_eq!(
            sort_bytes_of(&tera),
            sort_bytes(1 << 20) + (1 << 20) * 4_000_000_000
        );
        assert_eq!(sort_flag(&tera), "--keys 1048576 --record-bytes 1000000000");
    }

    #[test]
    fn a_vector_too_large_for_the_host_is_none_not_an_abort() {
        assert!(try_collect(u64::MAX / 2, |i| i).is_none());
        assert_eq!(try_collect(3, |i| i * 2), Some(vec![0, 2, 4]));
    }
}
