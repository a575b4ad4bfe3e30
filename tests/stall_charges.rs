//! At `--trace-level full`, a trace's per-warp issue slots and stall
//! charges are the report's stall accounting, for every algorithm: summed
//! over every warp of every launch of a kernel they give the report's
//! per-kernel `stalls` exactly, reason by reason, and each warp's charges
//! tile its resident life (from its block's start to its exit) with no gap
//! and no overlap, the last warp of a block ending where the block does.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use traces::{Event, StallReason, TraceReader};

use crate::util::{scratch_dir, simsort};

/// Warp-cycles per reason (`selected` = issue slots), by kernel name.
type PerKernel = BTreeMap<String, BTreeMap<String, u64>>;

/// The report's per-kernel `stalls`.
fn report_stalls(json: &[u8]) -> PerKernel {
    let v: serde_json::Value = serde_json::from_slice(json).expect("JSON report");
    let mut out = PerKernel::new();
    for k in v["kernels"].as_array().expect("kernels") {
        let name = k["name"].as_str().expect("kernel name").to_string();
        let stalls = k["stalls"].as_object().expect("stalls");
        let per = stalls
            .iter()
            .map(|(r, n)| (r.clone(), n.as_u64().expect("a count")))
            .collect();
        assert!(out.insert(name.clone(), per).is_none(), "{name} twice");
    }
    out
}

/// The trace's charges summed per kernel, after checking that every
/// warp's charges tile its resident life.
fn traced_stalls(path: &Path) -> PerKernel {
    let mut r = TraceReader::open(path).expect("open trace");
    let names: Vec<String> = r.kernels().iter().map(|k| k.name.clone()).collect();
    let mut out = PerKernel::new();
    // (launch, block, warp) -> charges (first cycle, cycles).
    let mut warps: HashMap<(u32, u32, u32), Vec<(u64, u64)>> = HashMap::new();
    // (launch, block) -> (start, end).
    let mut blocks: HashMap<(u32, u32), (Option<u64>, Option<u64>)> = HashMap::new();
    let mut launch = (0, String::new());
    for e in r.events() {
        let e = e.expect("event");
        let mut charge = |block, warp, reason: StallReason, from, n| {
            assert!(n > 0, "an empty charge in {}", launch.1);
            *out.entry(launch.1.clone())
                .or_default()
                .entry(reason.name().to_string())
                .or_default() += n;
            warps
                .entry((launch.0, block, warp))
                .or_default()
                .push((from, n));
        };
        match e {
            Event::KernelLaunch {
                launch: l, kernel, ..
            } => launch = (l, names[kernel as usize].clone()),
            Event::Issue {
                cycle,
                block,
                warp,
                slots,
                ..
            } => charge(block, warp, StallReason::Selected, cycle, u64::from(slots)),
            Event::Stall {
                cycle,
                block,
                warp,
                reason,
                cycles,
                ..
            } => charge(block, warp, reason, cycle, cycles),
            Event::BlockStart { cycle, block, .. } => {
                blocks.entry((launch.0, block)).or_default().0 = Some(cycle);
            }
            Event::BlockEnd { cycle, block, .. } => {
                blocks.entry((launch.0, block)).or_default().1 = Some(cycle);
            }
            _ => {}
        }
    }
    assert!(!warps.is_empty(), "no charges in {}", path.display());
    let mut last_exit: HashMap<(u32, u32), u64> = HashMap::new();
    for ((launch, block, warp), mut charges) in warps {
        let (start, end) = blocks[&(launch, block)];
        let (start, end) = (start.expect("block start"), end.expect("block end"));
        charges.sort_unstable();
        let mut at = start;
        for (from, n) in charges {
            assert_eq!(
                from, at,
                "launch {launch} block {block} warp {warp}: a charge from {from}, but its \
                 charges so far reach {at} (a gap or an overlap)"
            );
            at = from + n;
        }
        assert!(
            at <= end,
            "warp {warp} of block {block} charged past its block's end"
        );
        let exit = last_exit.entry((launch, block)).or_default();
        *exit = (*exit).max(at);
    }
    for ((launch, block), exit) in last_exit {
        let end = blocks[&(launch, block)].1.unwrap();
        assert_eq!(
            exit, end,
            "launch {launch} block {block}: the last warp's exit"
        );
    }
    out
}

fn check(algo: &str, extra: &[&str]) {
    check_on("tiny", algo, extra);
}

fn check_on(gpu: &str, algo: &str, extra: &[&str]) {
    let dir = scratch_dir(&format!("stall-charges-{gpu}-{algo}"));
    let trace = dir.join("full.trace");
    let mut args = vec!["--algo", algo, "--gpu", gpu, "--keys", "2048"];
    args.extend(extra);
    args.extend(["-q", "--json", "--trace-level", "full", "--trace"]);
    args.push(trace.to_str().unwrap());
    let out = simsort(&args);
    assert!(
        out.status.success(),
        "{algo}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = report_stalls(&out.stdout);
    let mut got = PerKernel::new();
    for (kernel, reasons) in traced_stalls(&trace) {
        // Sample sort launches every `small_sort_P` kernel as the report's
        // `small_sort` row.
        let row = match want.contains_key(&kernel) {
            true => kernel.clone(),
            false => want
                .keys()
                .find(|r| kernel.starts_with(&format!("{r}_")))
                .cloned()
                .unwrap_or(kernel),
        };
        let sums = got.entry(row).or_default();
        for (reason, n) in reasons {
            *sums.entry(reason).or_default() += n;
        }
    }
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (kernel, reasons) in &want {
        for (reason, n) in reasons {
            let traced = got[kernel].get(reason).copied().unwrap_or(0);
            assert_eq!(
                traced, *n,
                "{algo}: kernel {kernel}, {reason}: the trace's warps sum to {traced}, the \
                 report says {n}"
            );
        }
    }
}

#[test]
fn hotsort_warps_sum_to_the_report() {
    check("hotsort", &[]);
}

#[test]
fn mergesort_warps_sum_to_the_report() {
    check("mergesort", &["--warp", "8"]);
}

#[test]
fn bitonic_warps_sum_to_the_report() {
    check("bitonic", &[]);
}

#[test]
fn samplesort_warps_sum_to_the_report() {
    check("samplesort", &[]);
}

#[test]
fn terasort_warps_sum_to_the_report() {
    check("terasort", &[]);
}

/// `h200` charges a warp's start, which `tiny` does not: the first wave's
/// wait for its first instructions and the special-register reads. Each
/// must be charged to the warp that waits, in a block whose slot held
/// another block before (a stale block id once put them on block 0).
#[test]
fn warps_starting_on_the_h200_sum_to_the_report() {
    check_on("h200", "hotsort", &[]);
    check_on("h200", "mergesort", &[]);
}
