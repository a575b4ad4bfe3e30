//! Properties of the whole sort on the simulated GPU: for random key counts,
//! distributions and valid configurations its output is the sorted input;
//! and the same inputs give byte-identical JSON reports and traces, in one
//! process and across processes (`simsort --json --trace`).

use proptest::prelude::*;
use sim::{Gpu, GpuConfig, RunOptions};
use simsort::experiment::{Distribution, ExperimentError, SortOptions, generate_u32, prepare};
use sorts::hotsort::{HotSortConfig, Layout, MergeExchange};

use crate::util::simsort_bin;

/// Random sort options: any warp width, slab heights of every shape (odd
/// ones too), a machine-sized or explicit block, every layout, exchange and
/// distribution, key counts up to 100,000 (small ones often, where the
/// padding paths are), and machines of 1, 3 or 132 SMs. Some are invalid
/// (a block over the machine's limits); the test skips those.
fn sort_options() -> impl Strategy<Value = SortOptions> {
    let shape = (
        prop::sample::select(vec![4u32, 8, 16, 32, 64]),
        1u32..=32,
        prop::option::weighted(0.3, (0u32..=5).prop_map(|k| 1 << k)),
        prop::sample::select(Layout::ALL.to_vec()),
        prop::sample::select(MergeExchange::ALL.to_vec()),
    );
    let input = (
        prop_oneof![0u64..=300, 0u64..=100_000],
        prop::sample::select(Distribution::ALL.to_vec()),
        any::<u64>(),
        prop::sample::select(vec![1u32, 3, 132]),
    );
    (shape, input).prop_map(
        |((warp, slab_height, block_slabs, layout, merge), (keys, dist, seed, sms))| SortOptions {
            warp,
            slab_height: Some(slab_height),
            block_slabs,
            keys,
            dist,
            seed,
            gpu: "h200".to_string(),
            overrides: vec![("num_sms".to_string(), sms.to_string())],
            smem_layout: layout,
            merge,
            ..SortOptions::default()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        // A failing case is a whole simulated sort: shrink for a minute at most.
        max_shrink_time: 60_000,
        ..ProptestConfig::default()
    })]

    /// The property is checked here, not by the experiment's own reference
    /// check: the kernels run straight on the simulator and the keys read
    /// back must equal the input sorted by the standard library.
    #[test]
    fn sort_output_is_the_sorted_input(opts in sort_options()) {
        let prepared = match prepare(&opts) {
            Ok(p) => p,
            Err(ExperimentError::Invalid(reasons)) => {
                return Err(TestCaseError::reject(reasons.join("; ")));
            }
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        let input = generate_u32(opts.dist, opts.keys as usize, opts.seed);
        let mut gpu = Gpu::new(prepared.gpu.clone(), RunOptions::default())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let run = prepared
            .sorter
            .sort(&mut gpu, &input)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut want = input.clone();
        want.sort_unstable();
        prop_assert_eq!(run.sorted.len(), want.len());
        if let Some(i) = (0..want.len()).find(|&i| run.sorted[i] != want[i]) {
            return Err(TestCaseError::fail(format!(
                "first wrong key at index {i} of {}: got {:#x}, want {:#x}",
                want.len(), run.sorted[i], want[i]
            )));
        }
    }
}

/// Runs `simsort` with `args` and returns its stdout; the run must succeed.
fn simsort_stdout(args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new(simsort_bin())
        .args(args)
        .output()
        .expect("run simsort");
    assert!(
        out.status.success(),
        "simsort {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Sort options of the cross-process runs: an odd slab height, the XOR
/// layout with the shared-memory exchange, Zipf keys, 4 SMs.
const CLI_SORT: &[&str] = &[
    "--keys",
    "3000",
    "--warp",
    "16",
    "--slab-height",
    "5",
    "--smem-layout",
    "xor",
    "--merge",
    "shared",
    "--dist",
    "zipf",
    "--sms",
    "4",
    "-q",
    "--json",
];

/// The JSON report and the full-level trace of `simsort` with [`CLI_SORT`]
/// and `--seed seed`, the trace written to `trace`.
fn cli_report_and_trace(seed: &str, trace: &std::path::Path) -> (Vec<u8>, Vec<u8>) {
    let mut args = CLI_SORT.to_vec();
    let path = trace.to_str().expect("a UTF-8 scratch path");
    args.extend(["--seed", seed, "--trace", path, "--trace-level", "full"]);
    let report = simsort_stdout(&args);
    let trace = std::fs::read(trace).unwrap_or_else(|e| panic!("{path}: {e}"));
    (report, trace)
}

#[test]
fn the_same_options_give_byte_identical_reports_and_traces_across_processes() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("properties-cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let (report, trace) = cli_report_and_trace("9", &dir.join("a.trace"));
    let (report2, trace2) = cli_report_and_trace("9", &dir.join("b.trace"));
    assert!(
        report == report2,
        "two runs printed different reports:\n{}\n----\n{}",
        String::from_utf8_lossy(&report),
        String::from_utf8_lossy(&report2)
    );
    assert!(trace.len() > 10_000, "a trace of {} bytes", trace.len());
    assert!(trace == trace2, "two runs recorded different traces");
    let json: serde_json::Value = serde_json::from_slice(&report).expect("the report is JSON");
    assert_eq!(json["keys"], 3000);
    // The comparisons can fail: another seed gives another report and trace.
    let (report3, trace3) = cli_report_and_trace("10", &dir.join("c.trace"));
    assert!(report != report3, "the seed should change the report");
    assert!(trace != trace3, "the seed should change the trace");
}

#[test]
fn the_same_options_give_byte_identical_json_reports_in_process() {
    let configs = [
        (
            8,
            4,
            Layout::Plain,
            MergeExchange::Shuffle,
            Distribution::FewUnique,
        ),
        (
            32,
            7,
            Layout::Pad,
            MergeExchange::Shared,
            Distribution::Uniform,
        ),
        (
            64,
            16,
            Layout::Xor,
            MergeExchange::Shuffle,
            Distribution::Reverse,
        ),
    ];
    for (warp, slab_height, layout, merge, dist) in configs {
        let opts = SortOptions {
            warp,
            slab_height: Some(slab_height),
            smem_layout: layout,
            merge,
            dist,
            keys: 20_000,
            ..SortOptions::default()
        };
        let run = || match simsort::experiment::run_sort(&opts) {
            Ok(outcome) => outcome.report.to_json(),
            Err(e) => panic!("{opts:?}: {e}"),
        };
        let (first, second) = (run(), run());
        assert!(first == second, "{opts:?}: two runs gave different reports");
    }
}

/// The bytes of a full-detail trace (every block, every warp's registers
/// in block 1) of a HotSort run of `keys` on an 8-SM H200.
fn trace_bytes(keys: &[u32]) -> Vec<u8> {
    use traces::{Focus, TraceHeader, TraceLevel, TraceOptions, TraceWriter};

    let mut cfg = GpuConfig::h200();
    cfg.num_sms = 8;
    cfg.warp_size = 16;
    let hs = HotSortConfig {
        block_slabs: 4,
        layout: Layout::Plain,
        merge: MergeExchange::Shared,
        ..HotSortConfig::new(16, 4)
    };
    let options = TraceOptions {
        level: TraceLevel::Full,
        focus: Focus {
            block: 1,
            warp: None,
        },
        ..TraceOptions::default()
    };
    let header = TraceHeader::new(options)
        .with_config(&cfg)
        .expect("the config serialises");
    let writer = TraceWriter::new(Vec::new(), &header).expect("a trace header");
    let mut gpu = Gpu::new(cfg, RunOptions::default()).expect("a valid machine");
    let mut recorder = sim::Recorder::new(writer, Vec::new());
    let mut dev = sim::traced(&mut gpu, Some(&mut recorder));
    let run = sorts::hotsort::sort(&mut dev, &hs, keys).expect("the sort runs");
    let mut want = keys.to_vec();
    want.sort_unstable();
    assert_eq!(run.sorted, want);
    recorder.finish().expect("the trace is written")
}

#[test]
fn the_same_run_gives_a_byte_identical_trace() {
    let keys = generate_u32(Distribution::Uniform, 2500, 3);
    let first = trace_bytes(&keys);
    let second = trace_bytes(&keys);
    assert!(first.len() > 10_000, "a trace of {} bytes", first.len());
    assert!(first == second, "two recordings of one run differ");
    // The comparison can fail: other keys give another trace.
    let other = generate_u32(Distribution::Uniform, 2500, 4);
    assert!(
        first != trace_bytes(&other),
        "other keys should change the trace"
    );
}
