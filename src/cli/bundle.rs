//! `simsort emit bundle` and `simsort emit bundle-run`: record a sort's (or
//! one kernel's) launch sequence and write it as a bundle that a real GPU
//! replays and profiles (`simsort::calib::bundle`). The sequence runs on the
//! simulator meanwhile (its per-launch report goes in the bundle, for
//! `simsort calibrate`), or with `--no-simulate` on no device at all (a
//! sort, whose schedule depends only on the key count) or on the reference
//! interpreter (a kernel, whose results the bundle checks).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use kernels_ir::interp::Interp;
use kernels_ir::{Device, VerifiedKernel};
use sim::{Gpu, KernelStats, RunOptions};
use simsort::calib::bundle::Bundle;
use simsort::calib::recorder::{DryDevice, Event, Recorder};
use simsort::experiment::check::check_pairs;
use simsort::experiment::check_sorted;
use simsort::experiment::report::KernelRow;
use simsort::experiment::sort::{Input, Prepared, config_json, input, prepare};
use sorts::Key;

use super::run::RunArgs;
use super::sort::SortArgs;
use super::{Failure, output_error};

/// Arguments of `simsort emit bundle`.
#[derive(Debug, Args)]
pub struct BundleArgs {
    /// The bundle's directory (new, or empty).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// Record without simulating: no report.json (faster for large sorts).
    #[arg(long)]
    pub no_simulate: bool,
    /// The sort to record.
    #[command(flatten)]
    pub sort: SortArgs,
}

/// Arguments of `simsort emit bundle-run`.
#[derive(Debug, Args)]
pub struct BundleRunArgs {
    /// The bundle's directory (new, or empty).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// Record on the reference interpreter instead of the simulator: no
    /// report.json.
    #[arg(long)]
    pub no_simulate: bool,
    /// Zero shared memory at entry, as the IR promises; `false` for kernels
    /// that write shared memory before reading it (then the PTX does only
    /// the kernel's own work).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub zero_shared: bool,
    /// The kernel and its launch, as `simsort run` takes them.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Emits a kernel as PTX for the bundle (kernels of a sort write every
/// shared word they read, so their shared memory is not zeroed first).
pub type Emit = dyn Fn(&VerifiedKernel) -> Result<String, String>;

fn command_line() -> String {
    let args: Vec<String> = std::env::args().collect();
    let mut line = args.join(" ");
    line.push('\n');
    line
}

/// The per-launch report: the machine config and one row per launch.
fn launch_report(config: serde_json::Map<String, serde_json::Value>, rows: &[KernelRow]) -> String {
    let value = serde_json::json!({ "config": config, "launches": rows });
    let mut text = serde_json::to_string_pretty(&value).expect("a report always serialises");
    text.push('\n');
    text
}

fn rows(kernels_by_launch: &[String], stats: Vec<KernelStats>) -> Vec<KernelRow> {
    kernels_by_launch
        .iter()
        .zip(stats)
        .map(|(n, s)| KernelRow::new(n, s))
        .collect()
}

fn launch_names(kernels: &[VerifiedKernel], events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Launch { kernel, .. } => Some(kernels[*kernel].kernel().name.clone()),
            _ => None,
        })
        .collect()
}

/// A recorded launch sequence: the kernels, every call, and the
/// simulator's per-launch report (when simulated).
pub struct Recorded {
    /// The distinct kernels.
    pub kernels: Vec<VerifiedKernel>,
    /// Every call, in order.
    pub events: Vec<Event>,
    /// One row per launch, when the sequence was simulated.
    pub rows: Option<Vec<KernelRow>>,
    /// The machine config and the options.
    pub config: serde_json::Map<String, serde_json::Value>,
    /// Why the bundle checks less than usual, if it does (said when written).
    pub note: Option<String>,
}

impl Recorded {
    /// The simulator's launches (none when not simulated), as
    /// `calibrate` pairs them with the hardware's.
    pub fn sim_launches(&self) -> Vec<simsort::calib::compare::SimLaunch> {
        self.rows
            .iter()
            .flatten()
            .map(|r| simsort::calib::compare::SimLaunch {
                name: r.name.clone(),
                metrics: r.metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            })
            .collect()
    }

    /// The per-launch report as JSON text.
    pub fn report(&self) -> Option<String> {
        self.rows
            .as_ref()
            .map(|rows| launch_report(self.config.clone(), rows))
    }
}

/// Records a sort: simulated unless `simulate` is false (then on no
/// device: the sorts' schedules depend only on the key count). The reads
/// after the sort's last launch are its result, and the bundle checks them
/// and no other read: against the reference sort where the result is the
/// keys themselves, else (GPUTeraSort's records, 64-bit keys with their
/// values) against what the simulator read back, which the sort's own
/// check compared with its input.
pub fn record_sort(sort: &SortArgs, simulate: bool) -> Result<Recorded, Failure> {
    let opts = sort.options();
    let prepared = prepare(&opts).map_err(|e| Failure {
        status: e.exit_status(),
        message: e.to_string(),
    })?;
    if !simulate && prepared.sorter.schedule_reads_keys() {
        return Err(Failure::input(format!(
            "error: cannot record {} without simulating (--no-simulate): its launches depend \
             on the keys it reads back; leave out --no-simulate",
            opts.algo.name()
        )));
    }
    match input(&opts) {
        Input::U32(keys) => record_keys(&prepared, &keys, simulate),
        Input::U64(keys) => record_keys(&prepared, &keys, simulate),
        Input::Pairs(keys, values) if simulate => record_pairs(&prepared, &keys, &values),
        Input::Pairs(..) => Err(Failure::input(
            "error: cannot record 64-bit keys with values (--key-bits 64 --values) without \
             simulating (--no-simulate): values under equal keys come out in the sort's own \
             order, which the bundle takes from the simulated result; leave out --no-simulate"
                .to_string(),
        )),
    }
}

/// The recorded calls of a sort on the simulator, and its per-launch
/// rows; `sort` runs it on the recording device and checks its result.
fn simulated<F>(prepared: &Prepared, sort: F) -> Result<Simulated, Failure>
where
    F: FnOnce(&mut Recorder<Gpu>) -> Result<(), Failure>,
{
    let gpu = Gpu::new(prepared.gpu.clone(), RunOptions::default())
        .map_err(|e| Failure::input(e.to_string()))?;
    let mut rec = Recorder::new(gpu);
    sort(&mut rec)?;
    let (k, e, stats) = rec.into_events();
    let names = launch_names(&k, &e);
    let rows = rows(&names, stats);
    Ok((k, e, rows))
}

/// A simulated recording: the kernels, every call, one row per launch.
type Simulated = (Vec<VerifiedKernel>, Vec<Event>, Vec<KernelRow>);

fn record_keys<K: Key>(
    prepared: &Prepared,
    input: &[K],
    simulate: bool,
) -> Result<Recorded, Failure> {
    let fail = |e: String| Failure::run(e);
    let config = config_json(&prepared.opts, &prepared.gpu);
    let (kernels, mut events, rows) = if simulate {
        let (k, e, rows) = simulated(prepared, |rec| {
            let run = prepared
                .sorter
                .sort(rec, input)
                .map_err(|e| fail(e.to_string()))?;
            check_sorted(input, &run.sorted).map_err(|e| fail(e.to_string()))
        })?;
        (k, e, Some(rows))
    } else {
        let mut rec = Recorder::new(DryDevice::new(prepared.gpu.warp_size));
        prepared
            .sorter
            .sort(&mut rec, input)
            .map_err(|e| fail(e.to_string()))?;
        let (k, e, _) = rec.into_events();
        (k, e, None)
    };
    let keep = if prepared.sorter.result_is_records() {
        // Records, not keys: the simulated bytes, which the sort checked
        // (its sort checks the output records against the input's).
        result_reads(&events)
    } else {
        // The simulated run was checked against the reference sort; a dry
        // run read zeros: either way the result must hold the reference
        // sort.
        let mut expected = input.to_vec();
        expected.sort_unstable();
        let width = (K::BITS / 8) as usize;
        let expected_bytes: Vec<u8> = expected
            .iter()
            .flat_map(|&k| Into::<u64>::into(k).to_le_bytes().into_iter().take(width))
            .collect();
        let last = events.iter().rposition(|e| matches!(e, Event::Read { .. }));
        match last.map(|i| (i, &mut events[i])) {
            Some((i, Event::Read { data, .. })) if data.len() == expected_bytes.len() => {
                *data = expected_bytes;
                vec![i]
            }
            _ => Vec::new(),
        }
    };
    Ok(Recorded {
        kernels,
        events: checking_only(events, &keep, input.is_empty())?,
        rows,
        config,
        note: None,
    })
}

/// 64-bit keys with their values, simulated: the bundle checks the keys
/// and values the simulator read back (every read after the last launch),
/// which hold the input's pairs with the keys ascending.
fn record_pairs(prepared: &Prepared, keys: &[u64], values: &[u32]) -> Result<Recorded, Failure> {
    let fail = |e: String| Failure::run(e);
    let (kernels, events, rows) = simulated(prepared, |rec| {
        let mut run = prepared
            .sorter
            .sort_pairs(rec, keys, values)
            .map_err(|e| fail(e.to_string()))?;
        check_pairs(keys, values, &mut run.sorted).map_err(|e| fail(e.to_string()))
    })?;
    let keep = result_reads(&events);
    Ok(Recorded {
        kernels,
        events: checking_only(events, &keep, keys.is_empty())?,
        rows: Some(rows),
        config: config_json(&prepared.opts, &prepared.gpu),
        note: None,
    })
}

/// The indices of the reads after the last launch: a sort's result.
fn result_reads(events: &[Event]) -> Vec<usize> {
    let after = events
        .iter()
        .rposition(|e| matches!(e, Event::Launch { .. }))
        .map_or(0, |i| i + 1);
    (after..events.len())
        .filter(|&i| matches!(events[i], Event::Read { .. }))
        .collect()
}

/// The events without any read but those at `keep` (the reads a schedule
/// makes to steer itself are not checks). A sort of no keys may check
/// nothing; any other must check its result.
fn checking_only(events: Vec<Event>, keep: &[usize], empty: bool) -> Result<Vec<Event>, Failure> {
    if keep.is_empty() && !empty {
        return Err(Failure::run(
            "the sort's result read was not found".to_string(),
        ));
    }
    Ok(events
        .into_iter()
        .enumerate()
        .filter(|(i, e)| !matches!(e, Event::Read { .. }) || keep.contains(i))
        .map(|(_, e)| e)
        .collect())
}

/// Why a kernel's bundle checks no buffer: its shared atomics leave the
/// order of the additions to one word to the GPU, so old values it writes
/// out may legitimately differ from the simulator's (which adds in lane
/// order, `kernels-ir`'s README). `None` for kernels without atomics.
fn unchecked_because(vk: &VerifiedKernel) -> Option<String> {
    let atomic = vk
        .kernel()
        .insts
        .iter()
        .find(|i| i.data.opcode().is_atomic())?;
    Some(format!(
        "no buffer is checked: kernel `{}` uses `{}`, and the GPU, not lane order, decides \
         the order of additions to one word (old values may differ)",
        vk.kernel().name,
        atomic.data.opcode()
    ))
}

/// Records one kernel launch, simulated, or on the reference interpreter
/// when `simulate` is false; every buffer's final contents become checks,
/// unless the kernel uses atomics ([`unchecked_because`]). With `zeroing`
/// the launch first runs the shared-memory zeroing loop a bundle's PTX
/// runs ([`simsort::calib::zero_shared`]): for comparing with hardware,
/// not for writing a bundle (its PTX brings its own).
pub fn record_kernel(run: &RunArgs, simulate: bool, zeroing: bool) -> Result<Recorded, Failure> {
    let cfg = super::run::machine(run)?;
    let vk = super::run::kernel(&run.file)?;
    let vk = if zeroing {
        simsort::calib::zero_shared::with_zeroing(&vk).map_err(Failure::input)?
    } else {
        vk
    };
    let note = unchecked_because(&vk);
    let check = note.is_none();
    let config = match serde_json::to_value(&cfg) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    if simulate {
        let gpu =
            Gpu::new(cfg, RunOptions::default()).map_err(|e| Failure::input(e.to_string()))?;
        let (kernels, events, stats) = launch_once(run, &vk, Recorder::new(gpu), check)?;
        let names = launch_names(&kernels, &events);
        let rows = Some(rows(&names, stats));
        Ok(Recorded {
            kernels,
            events,
            rows,
            config,
            note,
        })
    } else {
        let interp = Interp::new(cfg.warp_size).map_err(|e| Failure::input(e.to_string()))?;
        let (kernels, events, _) = launch_once(run, &vk, Recorder::new(interp), check)?;
        Ok(Recorded {
            kernels,
            events,
            rows: None,
            config,
            note,
        })
    }
}

type Record<S> = (Vec<VerifiedKernel>, Vec<Event>, Vec<S>);

fn launch_once<D: Device>(
    run: &RunArgs,
    vk: &VerifiedKernel,
    mut rec: Recorder<D>,
    check: bool,
) -> Result<Record<D::Stats>, Failure> {
    let (params, _) = super::run::parameters(run, vk, &mut rec)?;
    rec.launch(vk, run.grid, run.block, &params)
        .map_err(|e| Failure::run(e.to_string()))?;
    if check {
        rec.read_all_buffers()
            .map_err(|e| Failure::run(e.to_string()))?;
    }
    Ok(rec.into_events())
}

/// Runs `simsort emit bundle`.
pub fn run_sort(args: &BundleArgs, emit: &Emit, out: &mut dyn Write) -> Result<(), Failure> {
    simsort::calib::bundle::check_target(&args.output).map_err(Failure::input)?;
    let opts = args.sort.options();
    // The record keeps the input and the result beside the sort's own
    // memory: the sort's estimate bounds it.
    simsort::host_memory::check(
        &simsort::host_memory::sort_flag(&opts),
        simsort::host_memory::sort_bytes_of(&opts),
    )
    .map_err(Failure::input)?;
    let recorded = record_sort(&args.sort, !args.no_simulate).map_err(interrupted)?;
    write(&args.output, &recorded, emit, out)
}

/// Runs `simsort emit bundle-run`.
pub fn run_kernel(args: &BundleRunArgs, emit: &Emit, out: &mut dyn Write) -> Result<(), Failure> {
    simsort::calib::bundle::check_target(&args.output).map_err(Failure::input)?;
    let recorded = record_kernel(&args.run, !args.no_simulate, false).map_err(interrupted)?;
    write(&args.output, &recorded, emit, out)
}

/// A recording stopped by Ctrl-C (or SIGTERM, SIGHUP) ends with status
/// 130 and says so, whatever error the stopped launch gave.
fn interrupted(failure: Failure) -> Failure {
    if sim::stop_requested() {
        Failure {
            status: 130,
            message: format!(
                "error: interrupted ({}): the recording stopped part way; no bundle was written",
                simsort::signals::reason()
            ),
        }
    } else {
        failure
    }
}

fn write(
    dir: &std::path::Path,
    recorded: &Recorded,
    emit: &Emit,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let kernels = &recorded.kernels;
    let mut bundle =
        Bundle::from_events(kernels, &recorded.events, emit).map_err(Failure::input)?;
    bundle.put("command.txt", command_line().into_bytes());
    if let Some(report) = recorded.report() {
        bundle.put("report.json", report.into_bytes());
    }
    bundle
        .write(dir)
        .map_err(|e| interrupted(Failure::run(e)))?;
    writeln!(
        out,
        "wrote {} ({} kernels, {} launches); on a machine with an NVIDIA GPU run {}/profile.sh",
        dir.display(),
        kernels.len(),
        bundle.launches,
        dir.display()
    )
    .map_err(output_error)?;
    if let Some(note) = &recorded.note {
        writeln!(out, "note: {note}").map_err(output_error)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use kernels_ir::interp::Interp;
    use simsort::calib::recorder::{Event, replay};

    use super::*;

    #[derive(Parser)]
    struct Sort {
        #[command(flatten)]
        sort: SortArgs,
    }

    fn recorded(args: &[&str]) -> Recorded {
        let sort = Sort::try_parse_from([&["simsort"], args].concat())
            .unwrap()
            .sort;
        match record_sort(&sort, true) {
            Ok(r) => r,
            Err(f) => panic!("{}", f.message),
        }
    }

    /// The reads a bundle checks, by index into its events.
    fn checks(r: &Recorded) -> Vec<usize> {
        (0..r.events.len())
            .filter(|&i| matches!(r.events[i], Event::Read { .. }))
            .collect()
    }

    /// Replays the record on the reference interpreter, as the GPU replays
    /// the bundle: every check holds, and there is at least one.
    fn replays_on_the_interpreter(r: &Recorded) {
        assert!(!checks(r).is_empty(), "the bundle checks its result");
        let mut interp = Interp::new(32).unwrap();
        let differ = replay(&r.kernels, &r.events, &mut interp).unwrap();
        assert!(differ.is_empty(), "reads {differ:?} differ on replay");
    }

    #[test]
    fn terasort_bundles_its_records_and_they_replay_with_the_launches_it_chose() {
        // Runs of 512 records, merged on the GPU: the schedule reads the
        // runs' keys back to choose its launches.
        for extra in [
            &[][..],
            &["--run-records", "512", "--terasort-merge", "gpu"],
        ] {
            let args = [&["--algo", "terasort", "--keys", "1500"][..], extra].concat();
            let r = recorded(&args);
            let [check] = checks(&r)[..] else {
                panic!("one result read, got {:?}", checks(&r))
            };
            let Event::Read { len, .. } = r.events[check] else {
                unreachable!()
            };
            assert!(len > 1500 * 4, "records, not keys: {len} bytes");
            replays_on_the_interpreter(&r);
        }
    }

    #[test]
    fn sixty_four_bit_keys_with_values_bundle_keys_and_values_and_replay() {
        // Few unique keys: the values under equal keys keep the sort's own
        // order, which the replay must reproduce.
        let r = recorded(&[
            "--key-bits",
            "64",
            "--values",
            "--keys",
            "3000",
            "--dist",
            "few-unique",
        ]);
        assert_eq!(checks(&r).len(), 2, "keys and values");
        replays_on_the_interpreter(&r);
    }

    #[test]
    fn a_replay_notices_a_result_that_differs_from_the_record() {
        let mut r = recorded(&["--keys", "700"]);
        let check = checks(&r)[0];
        if let Event::Read { data, .. } = &mut r.events[check] {
            data.swap(0, 4);
        }
        let mut interp = Interp::new(32).unwrap();
        let differ = replay(&r.kernels, &r.events, &mut interp).unwrap();
        assert_eq!(differ, vec![check]);
    }
}
