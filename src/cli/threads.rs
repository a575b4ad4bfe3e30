//! How many host threads simulate a launch's SMs: `--threads N`, else the
//! `SIMSORT_THREADS` environment variable, else one per core. The count
//! changes only the speed: reports and traces are the same for any.

use super::Failure;

/// The environment variable read when `--threads` is not given.
pub const ENV: &str = "SIMSORT_THREADS";

/// The thread count of `--threads` (`flag`) or `SIMSORT_THREADS`, or the
/// host's cores; a zero or unreadable count is an input error.
///
/// A count above the host's cores is used as given (the simulator runs at
/// most one thread per simulated SM), but it only makes the threads take
/// turns on the cores: a warning on stderr says so and what is used.
pub fn host_threads(flag: Option<usize>) -> Result<usize, Failure> {
    let env = std::env::var(ENV).ok();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = resolve(flag, env.as_deref(), || cores).map_err(Failure::input)?;
    if let Some(warning) = oversubscribed(flag, threads, cores) {
        eprintln!("{warning}");
    }
    Ok(threads)
}

/// The warning for `threads` above `cores`, naming where the count came
/// from (`--threads` or the environment).
fn oversubscribed(flag: Option<usize>, threads: usize, cores: usize) -> Option<String> {
    (threads > cores).then(|| {
        let source = match flag {
            Some(n) => format!("--threads {n}"),
            None => format!("{ENV}={threads}"),
        };
        format!(
            "warning: {source} is more than this machine's {cores} core(s): the simulation \
             uses {threads} host threads (at most one per simulated SM), which take turns on \
             the cores and run slower than {cores}; leave it out to use one per core"
        )
    })
}

fn resolve(
    flag: Option<usize>,
    env: Option<&str>,
    cores: impl Fn() -> usize,
) -> Result<usize, String> {
    match (flag, env) {
        (Some(0), _) => Err("error: --threads 0: at least one host thread must run".into()),
        (Some(n), _) => Ok(n),
        (None, Some(text)) => match text.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "error: {ENV}={text:?}: expected a whole number of host threads, at least 1"
            )),
        },
        (None, None) => Ok(cores()),
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn the_flag_beats_the_environment_which_beats_the_cores() {
        assert_eq!(resolve(Some(3), Some("5"), || 8), Ok(3));
        assert_eq!(resolve(None, Some("5"), || 8), Ok(5));
        assert_eq!(resolve(None, None, || 8), Ok(8));
    }

    #[test]
    fn more_threads_than_cores_are_warned_about() {
        use super::oversubscribed;
        assert_eq!(oversubscribed(Some(2), 2, 2), None);
        let w = oversubscribed(Some(10000), 10000, 2).unwrap();
        assert!(
            w.starts_with("warning: --threads 10000 is more than"),
            "{w}"
        );
        assert!(w.contains("uses 10000 host threads"), "{w}");
        let w = oversubscribed(None, 8, 2).unwrap();
        assert!(w.contains("SIMSORT_THREADS=8"), "{w}");
    }

    #[test]
    fn zero_or_garbage_is_refused_with_its_source_named() {
        assert!(
            resolve(Some(0), None, || 8)
                .unwrap_err()
                .contains("--threads 0")
        );
        for bad in ["0", "two", "-1", ""] {
            let e = resolve(None, Some(bad), || 8).unwrap_err();
            assert!(e.contains("SIMSORT_THREADS"), "{e}");
        }
    }
}
