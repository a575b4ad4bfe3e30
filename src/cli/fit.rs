//! `simsort calibrate --suite S --data DIR --fit OUT.toml`: fits the
//! timing fields of a machine to a suite measured on a GPU and writes the
//! fitted machine file.
//!
//! The suite's entries are split before anything runs: every `k`-th
//! (`--hold-out K`) is held out and never seen by the search; the others
//! are fitted. The search ([`simsort::calib::fit`]) starts at `--gpu`
//! (default `h200`) and minimises the fitted entries' cycle MAPE; each of
//! its points simulates every fitted entry, spread over `--threads`
//! threads (one entry a thread: the results do not depend on the count).
//! At the end the held-out entries are simulated on the starting machine,
//! the fitted one and `--reference` (if given), and both MAPEs are
//! printed: the fitted one says how well the search did, the held-out one
//! how well the fitted machine predicts what it never saw.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Parser;
use simsort::calib::compare::{self, Pair};
use simsort::calib::fit::{self, Ended, Eval, Field};
use simsort::calib::ncu::NcuLaunch;
use simsort::experiment::machine_file::{self, Machine};

use super::bundle::record_sort;
use super::calibrate::{
    CalibrateArgs, SuiteRun, SuiteSort, hw_launches, interrupted, read, suite_entries,
};
use super::{Failure, output_error};

/// One suite entry of a fit: its words and its hardware launches.
struct Entry {
    name: String,
    kind: String,
    words: Vec<String>,
    hw: Vec<NcuLaunch>,
}

/// Runs `simsort calibrate --fit OUT`.
pub fn run(args: &CalibrateArgs, out_path: &Path, out: &mut dyn Write) -> Result<(), Failure> {
    let bad = |why: String| Failure::input(format!("error: {why}"));
    let Some(suite) = &args.suite else {
        return Err(bad(
            "--fit needs a suite: give --suite FILE and --data DIR (the suite's ncu CSVs)"
                .to_string(),
        ));
    };
    let start_name = args.gpu.clone().unwrap_or_else(|| "h200".to_string());
    let start = machine_file::resolve(&start_name).map_err(|p| bad(p.join("\nerror: ")))?;
    let reference = match &args.reference {
        Some(r) => Some(machine_file::resolve(r).map_err(|p| bad(p.join("\nerror: ")))?),
        None => None,
    };
    let names: Vec<&str> = match &args.fit_fields {
        Some(list) => list.split(',').map(str::trim).collect(),
        None => fit::DEFAULT_FIELDS.to_vec(),
    };
    let fields = fit::fields(&names, &start.config)
        .map_err(|p| bad(format!("--fit-fields: {}", p.join("; "))))?;
    if args.max_evals < fit::min_evals(fields.len()) {
        return Err(bad(format!(
            "--max-evals {} cannot fit {} field(s): the search's first simplex alone simulates \
             {} points; give --max-evals {} or more, or fewer --fit-fields",
            args.max_evals,
            fields.len(),
            fit::min_evals(fields.len()),
            fit::min_evals(fields.len())
        )));
    }
    check_output(args, suite, out_path)?;
    let threads = super::threads::host_threads(args.threads)?;
    let entries = load_entries(args, suite, &fields)?;
    let held = fit::held_out(entries.len(), args.hold_out);
    let (held_out, fitted): (Vec<&Entry>, Vec<&Entry>) = {
        let (h, f): (Vec<_>, Vec<_>) = entries.iter().zip(&held).partition(|(_, h)| **h);
        (
            h.into_iter().map(|(e, _)| e).collect(),
            f.into_iter().map(|(e, _)| e).collect(),
        )
    };
    if held_out.is_empty() || fitted.is_empty() {
        return Err(bad(format!(
            "--hold-out {} of {} suite entries leaves {} to fit and {} held out: a fit needs \
             both; give a --hold-out from 2 to {}",
            args.hold_out,
            entries.len(),
            fitted.len(),
            held_out.len(),
            entries.len().max(2)
        )));
    }

    let bar = super::progress::fit_bar(args.max_evals as u64);
    let lines = super::progress::lines_asked();
    let gpu = start_name.as_str();
    let result = fit::fit(
        &start.config,
        &fields,
        args.max_evals,
        |cfg| {
            let pairs = simulate(&fitted, gpu, &fields, cfg, threads)?;
            Ok::<f64, Failure>(compare::summarize(&pairs).cycle_mape_percent)
        },
        |e: &Eval| {
            bar.set_position(e.n as u64);
            bar.set_message(format!("MAPE {:.2}%, best {:.2}%", e.value, e.best));
            if lines {
                eprintln!(
                    "fit: evaluation {} of {}: fitted-set MAPE {:.2}%, best {:.2}%",
                    e.n, e.max, e.value, e.best
                );
            }
        },
    );
    bar.finish_and_clear();
    let fitted_result = result?;
    let held_at = |cfg: &sim::GpuConfig| -> Result<Vec<Pair>, Failure> {
        simulate(&held_out, gpu, &fields, cfg, threads)
    };
    let held_start = compare::summarize(&held_at(&start.config)?);
    let held_fit = compare::summarize(&held_at(&fitted_result.config)?);
    let held_ref = match &reference {
        Some(r) => Some(compare::summarize(&simulate(
            &held_out,
            args.reference.as_deref().unwrap_or_default(),
            &[],
            &r.config,
            threads,
        )?)),
        None => None,
    };
    let fitted_launches: usize = fitted.iter().map(|e| e.hw.len()).sum();

    let stem = out_path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("fitted")
        .to_string();
    let machine = Machine {
        name: stem,
        description: format!(
            "{} fitted to {} ({} of its entries, {} held out) from {}: cycle MAPE {:.1}% fitted, \
             {:.1}% held out",
            start.description.split(" (").next().unwrap_or_default(),
            args.data.display(),
            fitted.len(),
            held_out.len(),
            start.name,
            fitted_result.objective,
            held_fit.cycle_mape_percent
        ),
        config: fitted_result.config.clone(),
    };
    let command = command_line();
    let body = if out_path.extension().is_some_and(|e| e == "json") {
        machine_file::to_json(&machine)
    } else {
        format!(
            "# Written by `{command}`\n# ({} evaluations; {}).\n{}",
            fitted_result.evals,
            match fitted_result.ended {
                Ended::Converged => "the search converged",
                Ended::Budget => "the budget was spent",
            },
            machine_file::to_toml(&machine)
        )
    };
    if sim::stop_requested() {
        return Err(interrupted_fit());
    }
    simsort::atomic::write_file(out_path, body.as_bytes()).map_err(|e| {
        Failure::run(format!(
            "error: cannot write the machine file (--fit {}): {e}",
            out_path.display()
        ))
    })?;

    let mut s = String::new();
    s += &format!(
        "fit: {} of {} on {} of {}'s {} entries ({}), {} ({})\n",
        count(fields.len(), "field"),
        start.name,
        fitted.len(),
        suite.display(),
        entries.len(),
        count(fitted_launches, "launch"),
        count(fitted_result.evals, "evaluation"),
        match fitted_result.ended {
            Ended::Converged => "converged",
            Ended::Budget => "budget spent",
        }
    );
    s += &format!(
        "held out (every {} entry, never fitted): {}\n\n",
        ordinal(args.hold_out),
        held_out
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let w = fields
        .iter()
        .map(|f| f.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    s += &format!("{:<w$} {:>10} {:>10}\n", "field", start.name, "fitted");
    for (f, (_, v)) in fields.iter().zip(&fitted_result.values) {
        s += &format!("{:<w$} {:>10} {:>10}\n", f.name, f.start, v);
    }
    s += &format!("\n{:<34} {:>10} {:>10}", "cycle MAPE", start.name, "fitted");
    if let Some(r) = &reference {
        s += &format!(" {:>10}", r.name);
    }
    s += "\n";
    s += &format!(
        "{:<34} {:>9.2}% {:>9.2}%\n",
        format!("fitted set ({})", count(fitted_launches, "launch")),
        fitted_result.start_objective,
        fitted_result.objective
    );
    s += &format!(
        "{:<34} {:>9.2}% {:>9.2}%",
        format!("held out ({})", count(held_fit.launches, "launch")),
        held_start.cycle_mape_percent,
        held_fit.cycle_mape_percent
    );
    if let Some(r) = &held_ref {
        s += &format!(" {:>9.2}%", r.cycle_mape_percent);
    }
    s += &format!(
        "\nheld-out Pearson r {:.4} (start {:.4}); wrote {}\n",
        held_fit.cycle_pearson_r,
        held_start.cycle_pearson_r,
        out_path.display()
    );
    out.write_all(s.as_bytes()).map_err(output_error)
}

/// "4th", "2nd": the held-out split's name.
fn ordinal(k: usize) -> String {
    let suffix = match (k % 10, k % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{k}{suffix}")
}

/// This command line as a shell takes it back, `simsort` first.
fn command_line() -> String {
    let mut words: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if !words.is_empty() {
        words[0] = "simsort".into();
    }
    simsort::report_html::Provenance::of_args(words).command
}

fn interrupted_fit() -> Failure {
    Failure {
        status: 130,
        message: format!(
            "error: interrupted ({}): the fit stopped; no machine file was written",
            simsort::signals::reason()
        ),
    }
}

/// Refuses a `--fit` output that cannot be written or that is one of the
/// fit's inputs (the suite, a CSV, the starting machine file), before any
/// simulation.
fn check_output(args: &CalibrateArgs, suite: &Path, out_path: &Path) -> Result<(), Failure> {
    let ext = out_path.extension().and_then(|e| e.to_str());
    if !matches!(ext, Some("toml" | "json")) {
        return Err(Failure::input(format!(
            "error: cannot write the machine file (--fit {}): the file name must end in .toml \
             or .json",
            out_path.display()
        )));
    }
    let mut inputs: Vec<(&str, PathBuf)> = vec![("--suite", suite.to_path_buf())];
    let text = std::fs::read_to_string(suite).unwrap_or_default();
    for (name, _, _) in suite_entries(&text, suite).unwrap_or_default() {
        inputs.push(("--data", args.data.join(format!("{name}.csv"))));
    }
    for (flag, gpu) in [("--gpu", &args.gpu), ("--reference", &args.reference)] {
        if let Some(g) = gpu
            && machine_file::is_file(g)
        {
            inputs.push((flag, PathBuf::from(g)));
        }
    }
    let named: Vec<(&str, &Path)> = inputs.iter().map(|(f, p)| (*f, p.as_path())).collect();
    simsort::atomic::check_distinct(&[("--fit", out_path)], &named)
        .map_err(|why| Failure::input(format!("error: {why}")))?;
    simsort::atomic::check_output(out_path).map_err(|why| {
        Failure::input(format!(
            "error: cannot write the machine file (--fit {}): {why}",
            out_path.display()
        ))
    })
}

/// The suite's entries (those `--only` selects) with their hardware
/// launches. Unlike a comparison, a fit refuses a suite with any entry's
/// data missing: a fit on what happens to be there would be another fit.
fn load_entries(
    args: &CalibrateArgs,
    suite: &Path,
    fields: &[Field],
) -> Result<Vec<Entry>, Failure> {
    let mut entries = Vec::new();
    let mut missing = Vec::new();
    for (name, kind, words) in suite_entries(&read(suite, "--suite")?, suite)? {
        if args.only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        for w in &words {
            let flag = w.split('=').next().unwrap_or_default();
            let fitted = fields
                .iter()
                .any(|f| flag == format!("--{}", f.name.replace('_', "-")));
            if flag == "--gpu" || fitted {
                return Err(Failure::input(format!(
                    "error: suite entry {name} sets {flag} itself (--suite {}): a fit sets the \
                     machine of every entry; drop it from the entry{}",
                    suite.display(),
                    if fitted { " or from --fit-fields" } else { "" }
                )));
            }
        }
        match hw_launches(&args.data.join(format!("{name}.csv")), "--data") {
            Ok(hw) => entries.push(Entry {
                name,
                kind,
                words,
                hw,
            }),
            Err(e) => missing.push(format!(
                "suite entry {name}: {}",
                e.message.strip_prefix("error: ").unwrap_or(&e.message)
            )),
        }
    }
    if !missing.is_empty() {
        let shown: Vec<&String> = missing.iter().take(3).collect();
        return Err(Failure::input(format!(
            "error: cannot fit: {} of the suite's entries have no hardware data (--data {}): {}{}",
            missing.len(),
            args.data.display(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            if missing.len() > 3 { "; ..." } else { "" }
        )));
    }
    if entries.is_empty() {
        return Err(Failure::input(match &args.only {
            Some(only) => {
                format!("error: nothing to fit (--only {only}): no suite entry's name contains it")
            }
            None => format!(
                "error: nothing to fit: the suite has no entries (--suite {})",
                suite.display()
            ),
        }));
    }
    Ok(entries)
}

/// Every entry of `entries` simulated on `gpu` with `fields` set as in
/// `cfg`, paired with its hardware launches, in the entries' order
/// whatever the thread count.
fn simulate(
    entries: &[&Entry],
    gpu: &str,
    fields: &[Field],
    cfg: &sim::GpuConfig,
    threads: usize,
) -> Result<Vec<Pair>, Failure> {
    let mut extra = vec!["--gpu".to_string(), gpu.to_string()];
    for f in fields {
        extra.push(format!("--{}", f.name.replace('_', "-")));
        extra.push(cfg.get(f.name).unwrap_or_default());
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<EntryResult>>> =
        Mutex::new((0..entries.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, entries.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = entries.get(i) else { break };
                    let r = if sim::stop_requested() {
                        Err(interrupted_fit())
                    } else {
                        simulate_entry(entry, &extra)
                    };
                    let failed = r.is_err();
                    results.lock().expect("no panics hold it")[i] = Some(r);
                    if failed {
                        // The first failure ends the evaluation.
                        next.store(entries.len(), Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let mut pairs = Vec::new();
    for r in results.into_inner().expect("no panics hold it").into_iter() {
        match r {
            Some(r) => pairs.extend(r?),
            // Skipped after an earlier entry failed; that failure comes first.
            None => continue,
        }
    }
    Ok(pairs)
}

/// One entry's launches paired with the hardware's, or why not.
type EntryResult = Result<Vec<Pair>, Failure>;

/// One entry simulated with `extra` machine words, paired.
fn simulate_entry(entry: &Entry, extra: &[String]) -> EntryResult {
    let name = &entry.name;
    let words: Vec<&String> = entry.words.iter().chain(extra).collect();
    let bad = |e: clap::Error| {
        let e = e.to_string();
        let first = e.lines().next().unwrap_or_default();
        Failure::input(format!(
            "error: bad suite entry {name}: {}",
            first.strip_prefix("error: ").unwrap_or(first)
        ))
    };
    let recorded = if entry.kind == "bundle" {
        record_sort(&SuiteSort::try_parse_from(&words).map_err(bad)?.sort, true)
    } else {
        SuiteRun::try_parse_from(&words).map_err(bad)?.record()
    }
    .map_err(|e| {
        if sim::stop_requested() {
            interrupted_fit()
        } else {
            interrupted(name).unwrap_or(e)
        }
    })?;
    let sim = recorded.sim_launches();
    compare::pair(name, &entry.hw, &sim).map_err(|e| {
        Failure::input(format!(
            "error: suite entry {name} does not pair with its hardware launches: {e}"
        ))
    })
}

/// `n` and `noun`, plural unless `n` is 1 (`1 launch`, `3 launches`).
fn count(n: usize, noun: &str) -> String {
    match (n, noun.ends_with(['s', 'h'])) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_the_rest_plural() {
        assert_eq!(count(1, "launch"), "1 launch");
        assert_eq!(count(147, "launch"), "147 launches");
        assert_eq!(count(6, "field"), "6 fields");
        assert_eq!(count(0, "evaluation"), "0 evaluations");
    }
}
