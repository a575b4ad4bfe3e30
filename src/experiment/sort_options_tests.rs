//! The options table is the one declaration of who takes which option and
//! which field of the algorithm's options struct it fills: these tests fail
//! when an entry names no algorithm, when an algorithm takes an option its
//! [`Selected::options`] (the table's mapping) never reads, or when the
//! kernel flags and the main job's flags disagree.

use clap::{Parser, ValueEnum};

use super::*;
use crate::experiment::options::{KernelOptionArgs, SortOptionArgs, algorithm_options, changed};

#[derive(Parser)]
struct Main {
    #[command(flatten)]
    opts: SortOptionArgs,
}

#[derive(Parser)]
struct Kernels {
    #[command(flatten)]
    opts: KernelOptionArgs,
}

/// The options `--flag value` describes on the main job's command line,
/// for the first candidate value that parses and differs from the default.
fn changed_by(name: &str) -> SortOptions {
    let flag = format!("--{}", name.replace('_', "-"));
    for value in [
        "3",
        "7",
        "64",
        "false",
        "true",
        "xor",
        "shared",
        "full-block",
        "gpu",
        "steps",
        "per-bucket",
    ] {
        if let Ok(m) = Main::try_parse_from(["simsort", flag.as_str(), value]) {
            let opts = m.opts.options(Vec::new());
            if changed(&opts).contains(&name) {
                return opts;
            }
        }
    }
    panic!("no candidate value changes {flag}");
}

#[test]
fn every_algorithm_option_is_taken_and_read_by_its_algorithms() {
    let options = algorithm_options();
    assert!(!options.is_empty());
    for (name, takers) in options {
        assert!(!takers.is_empty(), "{name}: its entry names no algorithm");
        let opts = changed_by(name);
        for &algo in Algo::value_variants() {
            // A taker's own options change with the option (its
            // `Selected::options` reads it); another algorithm refuses it.
            let (read, refused) = with_algo!(algo, A => (
                format!("{:?}", A::options(&opts))
                    != format!("{:?}", A::options(&SortOptions::default())),
                !foreign_options::<A>(&opts).is_empty(),
            ));
            let takes = takers.contains(&algo);
            assert_eq!(read, takes, "{name}: read by {}", algo.name());
            assert_eq!(refused, !takes, "{name}: refused by {}", algo.name());
        }
    }
}

#[test]
fn the_algorithms_take_the_options_their_docs_name() {
    let taken = |algo: Algo| -> Vec<&str> {
        algorithm_options()
            .into_iter()
            .filter(|(_, takers)| takers.contains(&algo))
            .map(|(name, _)| name)
            .collect()
    };
    assert_eq!(
        taken(Algo::Hotsort),
        [
            "merge",
            "smem_layout",
            "slab_height",
            "block_slabs",
            "schedule"
        ]
    );
    assert_eq!(
        taken(Algo::Mergesort),
        ["block_threads", "items_per_thread"]
    );
    assert_eq!(
        taken(Algo::Samplesort),
        [
            "block_threads",
            "items_per_thread",
            "buckets",
            "oversample",
            "small_size",
            "counter_copies",
            "level_launches"
        ]
    );
    assert_eq!(
        taken(Algo::Bitonic),
        [
            "block_threads",
            "vector",
            "bitonic_fused",
            "bitonic_swizzle"
        ]
    );
    assert_eq!(
        taken(Algo::Terasort),
        [
            "terasort_merge",
            "terasort_network",
            "record_bytes",
            "key_bytes",
            "run_records",
            "per_output"
        ]
    );
    // An option of every experiment is no algorithm's.
    assert!(option_applies(Algo::Terasort, "keys"));
    assert!(!option_applies(Algo::Terasort, "slab_height"));
}

#[test]
fn kernel_flags_are_the_main_job_s_flags() {
    // Every kernel flag parses as on the main job and sets the same option.
    let args = [
        "--algo",
        "bitonic",
        "--warp",
        "16",
        "--key-bits",
        "64",
        "--vector",
        "8",
        "--block-threads",
        "64",
        "--bitonic-swizzle",
        "false",
        "--gpu",
        "tiny",
    ];
    let main = Main::try_parse_from(std::iter::once("simsort").chain(args)).unwrap();
    let kernels = Kernels::try_parse_from(std::iter::once("simsort").chain(args)).unwrap();
    assert_eq!(kernels.opts.options(), main.opts.options(Vec::new()));
    // The input's options are not kernel flags.
    assert!(Kernels::try_parse_from(["simsort", "--keys", "5"]).is_err());
}

#[test]
fn the_table_fills_the_fields_its_entries_name() {
    let parse = |args: &[&str]| {
        let m = Main::try_parse_from(std::iter::once("simsort").chain(args.iter().copied()));
        m.unwrap().opts.options(Vec::new())
    };
    let opts = parse(&[
        "--warp",
        "16",
        "--smem-layout",
        "xor",
        "--slab-height",
        "8",
        "--key-bits",
        "64",
    ]);
    let h = HotSort::options(&opts);
    assert_eq!((h.warp, h.key_bits, h.slab_height), (16, 64, Some(8)));
    assert_eq!(h.layout, sorts::hotsort::Layout::Xor);
    // Without the option, a `with or_base` field keeps the algorithm's
    // default; with it, the value; `with on_gpu` converts the choice.
    let t = TeraSort::options(&SortOptions::default());
    let d = sorts::terasort::TeraSortConfig::new(32, 32);
    assert_eq!(
        (t.record_bytes, t.key_bytes, t.gpu_merge),
        (d.record_bytes, d.key_bytes, false)
    );
    let t = TeraSort::options(&parse(&["--record-bytes", "16", "--terasort-merge", "gpu"]));
    assert_eq!(
        (t.record_bytes, t.key_bytes, t.gpu_merge),
        (16, d.key_bytes, true)
    );
    // One option fills the same-named field of every algorithm it lists.
    let opts = parse(&["--block-threads", "64"]);
    assert_eq!(Mergesort::options(&opts).block_threads, Some(64));
    assert_eq!(Bitonic::options(&opts).block_threads, Some(64));
    assert_eq!(Samplesort::options(&opts).block_threads, Some(64));
}
