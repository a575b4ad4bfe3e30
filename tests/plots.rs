//! The plots, read back: for every kind (a sweep of each algorithm's own
//! options, a machine-field sweep, a distribution sweep, `compare` over
//! three sizes, `calibrate` on a suite, the single run), the outline of
//! the SVG (titles, axes with their ticks, legends, series with their
//! point counts, bars) is snapshotted, the picture is rasterised, and no
//! text may leave the canvas or overlap another. The PNGs are left in the
//! test's scratch directory (`plots/`) for looking at.

use std::path::PathBuf;

use simsort::calib::compare::Pair;
use simsort::chart::structure::{layout_problems, outline};
use simsort::chart::{Figure, register_font};
use simsort::experiment::compare;
use simsort::experiment::options::SweepSpec;
use simsort::experiment::plot_axes::PlotChoice;
use simsort::experiment::sweep::{self, Axis, SweepRun};
use simsort::experiment::{Algo, Distribution, compare_plot, plot, run_plot};
use sorts::hotsort::{Layout, MergeExchange};

use crate::util::{repo_root, simsort};

fn tiny() -> SweepSpec {
    SweepSpec {
        gpu: vec!["tiny".into()],
        keys: vec![700],
        warp: vec![8],
        ..SweepSpec::default()
    }
}

fn sweep_of(spec: &SweepSpec) -> (Vec<Axis>, Vec<SweepRun>) {
    let checked = sweep::check(spec).unwrap_or_else(|e| panic!("{e}"));
    let runs = sweep::run(checked, 2, &|_, _| {}).unwrap();
    (spec.axes(), runs)
}

fn png_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("plots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Renders `figure`, checks its text fits and stays apart, rasterises it
/// (left as NAME.png) and returns the outline of its SVG.
fn drawn(name: &str, figure: Figure) -> String {
    register_font().unwrap();
    let scene = figure.render();
    let problems = layout_problems(&scene);
    assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
    let pixels = scene.to_rgb().unwrap();
    let inked = pixels.chunks(3).filter(|p| p != &[255, 255, 255]).count();
    assert!(
        inked > pixels.len() / 3 / 50,
        "{name}: the picture is nearly blank"
    );
    scene
        .write_png(&png_dir().join(format!("{name}.png")))
        .unwrap();
    std::fs::write(png_dir().join(format!("{name}.svg")), scene.to_svg()).unwrap();
    outline(&scene.to_svg())
}

/// The points of every series of the outline, by series name.
fn series_points(outline: &str) -> Vec<(String, usize)> {
    outline
        .lines()
        .filter_map(|l| l.trim().strip_prefix("series: "))
        .map(|s| {
            let (name, rest) = s.rsplit_once(" (").unwrap_or((s, "0 points)"));
            let n = rest.trim_end_matches(" points)").parse().unwrap_or(0);
            (name.to_string(), n)
        })
        .collect()
}

fn line_with<'a>(outline: &'a str, prefix: &str) -> Vec<&'a str> {
    outline
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with(prefix))
        .collect()
}

#[test]
fn a_bitonic_sweep_plots_vector_width_across_with_fused_against_plain() {
    let spec = SweepSpec {
        algo: vec![Algo::Bitonic],
        keys: vec![3000],
        vector: vec![1, 2, 4, 8],
        bitonic_fused: vec![false, true],
        ..SweepSpec::default()
    };
    let (axes, runs) = sweep_of(&spec);
    let o = drawn(
        "sweep-bitonic",
        plot::figure(&axes, &runs, &PlotChoice::default()).unwrap(),
    );
    let title = line_with(&o, "figure: ")[0];
    assert!(title.starts_with("figure: bitonic sort on h200"), "{o}");
    assert!(!title.contains("HotSort"), "{o}");
    assert_eq!(
        line_with(&o, "panel:").len(),
        1,
        "one panel, none empty: {o}"
    );
    assert!(
        o.contains("axis-x: vector width L (keys per thread)"),
        "{o}"
    );
    assert!(o.contains("tick-x: 1 | 2 | 4 | 8"), "{o}");
    let series = series_points(&o);
    assert_eq!(
        series,
        [("plain".to_string(), 4), ("fused".to_string(), 4)],
        "{o}"
    );
    insta::assert_snapshot!("plot_sweep_bitonic", o);
}

#[test]
fn a_hotsort_sweep_compares_layouts_in_one_panel_per_warp_with_y_off_zero() {
    let spec = SweepSpec {
        warp: vec![4, 8],
        slab_height: vec![Some(2), Some(4), Some(8)],
        smem_layout: vec![Layout::Plain, Layout::Pad, Layout::Xor],
        ..tiny()
    };
    let (axes, runs) = sweep_of(&spec);
    let o = drawn(
        "sweep-hotsort",
        plot::figure(&axes, &runs, &PlotChoice::default()).unwrap(),
    );
    assert_eq!(
        line_with(&o, "panel: "),
        ["panel: warp 4", "panel: warp 8"],
        "{o}"
    );
    let names: Vec<String> = series_points(&o).into_iter().map(|s| s.0).collect();
    assert_eq!(names[..3], ["plain", "pad", "xor"], "{o}");
    // Cycles per key: the axis fits the data, it does not start at 0.
    let y = line_with(&o, "tick-y: ")[0];
    assert!(!y.starts_with("tick-y: 0 |"), "{o}");
    insta::assert_snapshot!("plot_sweep_hotsort", o);

    // Against plain, in percent: a zero line and the differences.
    let choice = PlotChoice {
        relative: Some("smem-layout=plain".into()),
        ..PlotChoice::default()
    };
    let o = drawn(
        "sweep-hotsort-relative",
        plot::figure(&axes, &runs, &choice).unwrap(),
    );
    assert!(
        o.contains("axis-y: cycles per key vs layout plain (%)"),
        "{o}"
    );
    assert!(
        line_with(&o, "figure: ")[0].contains("relative to layout plain"),
        "{o}"
    );
}

#[test]
fn a_mergesort_sweep_plots_its_own_options() {
    let spec = SweepSpec {
        algo: vec![Algo::Mergesort],
        keys: vec![3001],
        block_threads: vec![Some(64), Some(128)],
        items_per_thread: vec![Some(3), Some(5), Some(7)],
        ..SweepSpec::default()
    };
    let (axes, runs) = sweep_of(&spec);
    let o = drawn(
        "sweep-mergesort",
        plot::figure(&axes, &runs, &PlotChoice::default()).unwrap(),
    );
    assert!(
        line_with(&o, "figure: ")[0].starts_with("figure: mergesort on h200"),
        "{o}"
    );
    assert!(o.contains("axis-x: items per thread (keys)"), "{o}");
    assert_eq!(series_points(&o).len(), 2, "{o}");
    insta::assert_snapshot!("plot_sweep_mergesort", o);
}

#[test]
fn a_machine_field_sweep_plots_the_field_with_its_unit() {
    let spec = SweepSpec {
        slab_height: vec![Some(4)],
        smem_layout: vec![Layout::Plain, Layout::Pad],
        overrides: vec![(
            "dram_latency_cycles".into(),
            vec!["20".into(), "80".into(), "320".into()],
        )],
        ..tiny()
    };
    let (axes, runs) = sweep_of(&spec);
    let choice = PlotChoice {
        metric: Some("long_scoreboard".into()),
        ..PlotChoice::default()
    };
    let o = drawn("sweep-dram", plot::figure(&axes, &runs, &choice).unwrap());
    assert!(o.contains("axis-x: DRAM latency (cycles)"), "{o}");
    assert!(o.contains("tick-x: 20 | 80 | 320"), "{o}");
    assert!(
        o.contains("axis-y: long scoreboard (% of resident warp-cycles)"),
        "{o}"
    );
    insta::assert_snapshot!("plot_sweep_dram_latency", o);
}

#[test]
fn a_distribution_sweep_labels_every_category_and_keeps_titles_on_the_page() {
    let spec = SweepSpec {
        slab_height: vec![Some(4)],
        merge: vec![MergeExchange::Shuffle, MergeExchange::Shared],
        smem_layout: vec![Layout::Plain, Layout::Pad],
        dist: vec![Distribution::Uniform, Distribution::Sorted],
        ..tiny()
    };
    let (axes, runs) = sweep_of(&spec);
    let o = drawn(
        "sweep-dist",
        plot::figure(&axes, &runs, &PlotChoice::default()).unwrap(),
    );
    // Two values each, all categories: every point stands over a
    // labelled tick.
    for ticks in line_with(&o, "tick-x: ").iter().take(2) {
        assert_eq!(ticks.matches(" | ").count(), 1, "{o}");
    }
    assert_eq!(
        series_points(&o).iter().map(|s| s.1).sum::<usize>(),
        8,
        "{o}"
    );
    insta::assert_snapshot!("plot_sweep_dist", o);
}

#[test]
fn a_sample_sort_sweep_gives_each_of_its_many_kernels_a_legible_panel() {
    // Sample sort launches seven kernels or more; equal keys take the
    // three-way ones, which uniform keys never launch.
    let spec = SweepSpec {
        algo: vec![Algo::Samplesort],
        keys: vec![6000],
        dist: vec![Distribution::Uniform, Distribution::AllEqual],
        ..tiny()
    };
    let (axes, runs) = sweep_of(&spec);
    let figure = plot::figure(&axes, &runs, &PlotChoice::default()).unwrap();
    let o = drawn("sweep-samplesort-kernels", figure);
    assert!(
        o.contains("heading: where each kernel's warps' time goes, per configuration"),
        "{o}"
    );
    let kernel_panels: Vec<&str> = line_with(&o, "bars: ")
        .into_iter()
        .filter(|l| l.contains("% of cycles"))
        .collect();
    assert!(kernel_panels.len() >= 7, "{o}");
    for k in ["bars: find_buckets: ", "bars: scatter: "] {
        assert!(kernel_panels.iter().any(|l| l.starts_with(k)), "{k}: {o}");
    }
    // A kernel one distribution never launches says so in its row.
    assert!(o.contains("empty: not launched"), "{o}");
    insta::assert_snapshot!("plot_sweep_samplesort_kernels", o);
}

#[test]
fn a_hotsort_sweep_shows_where_each_kernels_time_goes_per_configuration() {
    let spec = SweepSpec {
        warp: vec![4, 8],
        smem_layout: vec![Layout::Plain, Layout::Pad],
        ..tiny()
    };
    let (axes, runs) = sweep_of(&spec);
    let o = drawn(
        "sweep-hotsort-kernels",
        plot::figure(&axes, &runs, &PlotChoice::default()).unwrap(),
    );
    let bs = o
        .split("\n  bars: ")
        .find(|b| b.starts_with("bs: "))
        .unwrap_or_else(|| panic!("a panel for bs: {o}"));
    // One row per configuration, named once, at the left of the first
    // kernel panel; every other panel's rows line up with it unnamed.
    assert_eq!(bs.matches("\n    bar: ").count(), 4, "{bs}");
    // Each row's name is drawn in the per-configuration bars and once per
    // line of kernel panels, not in every kernel panel.
    let svg = std::fs::read_to_string(png_dir().join("sweep-hotsort-kernels.svg")).unwrap();
    let names = svg.matches(">layout plain, warp 4</text>").count();
    let kernels = line_with(&o, "bars: ")
        .iter()
        .filter(|l| l.contains("% of cycles"))
        .count();
    assert!(kernels >= 3, "{o}");
    assert!(
        names >= 2 && names < 1 + kernels,
        "{names} names, {kernels} kernels"
    );
}

#[test]
fn every_metric_the_issue_names_plots_with_its_name_and_unit() {
    use simsort::experiment::plot_metric::{Metric, NAMES};
    let spec = SweepSpec {
        warp: vec![4, 8],
        ..tiny()
    };
    let (axes, runs) = sweep_of(&spec);
    let extra = [
        "long_scoreboard",
        "barrier",
        "selected",
        "smsp__inst_executed.sum",
    ];
    for name in NAMES.iter().chain(&extra) {
        let choice = PlotChoice {
            metric: Some(name.to_string()),
            ..PlotChoice::default()
        };
        let figure = plot::figure(&axes, &runs, &choice).unwrap();
        let o = drawn(&format!("metric-{}", name.replace(['/', ' '], "-")), figure);
        let label = Metric::parse(name).unwrap().label();
        assert!(o.contains(&format!("axis-y: {label}")), "{name}: {o}");
        assert_eq!(
            series_points(&o).iter().map(|s| s.1).sum::<usize>(),
            2,
            "{name}: a point per configuration: {o}"
        );
        let ticks = line_with(&o, "tick-y: ")[0];
        assert!(ticks.matches(" | ").count() >= 2, "{name}: {ticks}");
    }
    // DRAM bytes are bytes that moved: the tiny sort reads and writes its
    // keys (700 of 4 bytes) at least once.
    let dram = Metric::parse("DRAM bytes").unwrap();
    for run in &runs {
        let sweep::RunResult::Done(report) = &run.result else {
            panic!("the run failed")
        };
        assert!(dram.value(report).unwrap() >= 2.0 * 2800.0);
    }
}

#[test]
fn the_plot_flags_put_the_chosen_axes_across_in_lines_and_in_panels() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("plots-flags");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("flags.svg");
    let out = simsort(&[
        "sweep",
        "--gpu",
        "tiny",
        "--keys",
        "700",
        "--warp",
        "4,8",
        "--slab-height",
        "2,4",
        "--smem-layout",
        "plain,pad,xor",
        "-q",
        "--plot-x",
        "smem-layout",
        "--plot-series",
        "warp",
        "--plot-facet",
        "slab-height",
        "--plot-metric",
        "conflicts/key",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let o = outline(&std::fs::read_to_string(&svg).unwrap());
    assert!(o.contains("axis-x: shared-memory layout"), "{o}");
    assert!(o.contains("tick-x: plain | pad | xor"), "{o}");
    assert!(o.contains("legend: warp:"), "{o}");
    assert_eq!(
        line_with(&o, "panel: "),
        ["panel: slab height 2", "panel: slab height 4"],
        "{o}"
    );
    assert!(o.contains("axis-y: bank conflicts per key"), "{o}");
    let title = line_with(&o, "figure: ")[0];
    assert!(
        title.contains("bank conflicts per key by shared-memory layout"),
        "{title}"
    );
}

#[test]
fn bad_plot_choices_are_named() {
    let spec = SweepSpec {
        warp: vec![4, 8],
        ..tiny()
    };
    let axes = spec.axes();
    let bad = PlotChoice {
        x: Some("vector".into()),
        metric: Some("speed".into()),
        relative: Some("warp=16".into()),
        ..PlotChoice::default()
    };
    let problems = plot::check_choice(&axes, &bad);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems[0].starts_with("--plot-x vector: not an axis the sweep varies"));
    assert!(problems[1].starts_with("--plot-metric speed: not a metric"));
    assert!(problems[2].contains("`16` is not a value of --warp"));
}

#[test]
fn compare_over_three_sizes_labels_every_size_and_values_below_one() {
    let given = SweepSpec {
        keys: vec![1024, 4096, 16384],
        warp: vec![16],
        ..SweepSpec::default()
    };
    let spec = compare::spec(given, false);
    let axes = spec.axes();
    let lists: Vec<Axis> = axes.iter().filter(|a| a.name != "algo").cloned().collect();
    let checked = sweep::check_grid(compare::grid(&spec), &lists).unwrap();
    let runs = sweep::run_with(checked, 2, 1, &|_, _| {}).unwrap();
    let o = drawn("compare", compare_plot::figure(&axes, &runs).unwrap());
    assert!(o.contains("tick-x: 1,024 | 4,096 | 16,384"), "{o}");
    assert!(
        line_with(&o, "tick-y: ")[0].matches(" | ").count() >= 3,
        "{o}"
    );
    assert!(line_with(&o, "subtitle: ")[0].contains("warp 16"), "{o}");
    assert!(o.contains("axis-y2: time per key at"), "{o}");
    assert!(o.contains("bars: where the warps' time goes"), "{o}");
    insta::assert_snapshot!("plot_compare", o);
}

#[test]
fn a_single_run_plots_cycles_and_stalls_per_kernel() {
    let spec = SweepSpec {
        algo: vec![Algo::Mergesort],
        keys: vec![3001],
        ..tiny()
    };
    let (_, runs) = sweep_of(&spec);
    let sweep::RunResult::Done(report) = &runs[0].result else {
        panic!("the run failed");
    };
    let o = drawn("run", run_plot::figure(report).unwrap());
    assert!(o.contains("bar: blocksort"), "{o}");
    assert!(o.contains("bar: whole run"), "{o}");
    insta::assert_snapshot!("plot_run", o);
}

/// An ncu table from a bundle's report, with every launch's cycles off by
/// a known error (the "hardware" of the test).
fn profile(report: &std::path::Path, errors: &[f64]) -> String {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let launches = v["launches"].as_array().unwrap();
    let names: Vec<String> = launches[0]["metrics"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut csv = String::from("\"ID\",\"Kernel Name\"");
    for n in &names {
        csv += &format!(",\"{n}\"");
    }
    csv += "\n\"\",\"\"";
    for _ in &names {
        csv += ",\"unit\"";
    }
    csv += "\n";
    for (i, l) in launches.iter().enumerate() {
        csv += &format!("\"{i}\",\"{}\"", l["name"].as_str().unwrap());
        for n in &names {
            let mut value = l["metrics"][n].to_string();
            if n == "sm__cycles_elapsed.max" {
                let e = errors[i % errors.len()];
                value = format!("{:.0}", l["metrics"][n].as_f64().unwrap() / (1.0 + e));
            }
            csv += &format!(",\"{value}\"");
        }
        csv += "\n";
    }
    csv
}

#[test]
fn calibrate_on_a_suite_draws_bands_labels_the_worst_and_names_the_error() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("plots-calibrate");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("data")).unwrap();
    let entries: &[(&str, &str)] = &[
        ("hs_small", "--gpu tiny --keys 700 --warp 8 --slab-height 4"),
        (
            "ms_small",
            "--algo mergesort --gpu tiny --keys 3001 --warp 8",
        ),
        ("bi_small", "--algo bitonic --keys 3000"),
    ];
    let mut suite = String::new();
    for (i, (name, args)) in entries.iter().enumerate() {
        let bundle = dir.join(name);
        let mut cmd = vec!["emit", "bundle", "-o", bundle.to_str().unwrap()];
        cmd.extend(args.split(' '));
        let out = simsort(&cmd);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let errors = [[0.02, -0.08, 0.15], [0.3, -0.05, 0.01], [-0.12, 0.04, 0.22]][i];
        let csv = profile(&bundle.join("report.json"), &errors);
        std::fs::write(dir.join("data").join(format!("{name}.csv")), csv).unwrap();
        suite += &format!("{name} bundle {args}\n");
    }
    std::fs::write(dir.join("suite.txt"), suite).unwrap();
    let svg = dir.join("c.svg");
    let out = std::process::Command::new(crate::util::simsort_bin())
        .args(["calibrate", "--suite"])
        .arg(dir.join("suite.txt"))
        .arg("--data")
        .arg(dir.join("data"))
        .arg("--plot")
        .arg(&svg)
        .arg("--json")
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    let o = outline(&text);
    // The same figure from the launches `--json` lists, checked as drawn.
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pairs: Vec<Pair> = json["launches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| Pair {
            entry: l["entry"].as_str().unwrap().to_string(),
            index: l["index"].as_u64().unwrap() as usize,
            kernel: l["kernel"].as_str().unwrap().to_string(),
            hw_cycles: l["hw_cycles"].as_f64().unwrap(),
            sim_cycles: l["sim_cycles"].as_f64().unwrap(),
            hw_insts: 0.0,
            sim_insts: 0.0,
            exact: Default::default(),
            hw_top_stall: String::new(),
            sim_top_stall: String::new(),
            hw_stalls: Default::default(),
            sim_stalls: Default::default(),
        })
        .collect();
    let summary = simsort::calib::compare::summarize(&pairs);
    assert_eq!(
        drawn(
            "calibrate",
            simsort::calib::plot::figure(&pairs, &summary).unwrap()
        ),
        o
    );
    let title = line_with(&o, "figure: ")[0];
    assert!(title.contains("MAPE") && title.contains("r = "), "{o}");
    assert!(
        o.contains("within ±10%") && o.contains("within ±20%"),
        "{o}"
    );
    assert!(
        o.contains("ms_small blocksort +30%"),
        "the worst launch is labelled: {o}"
    );
    assert!(
        line_with(&o, "tick-y: ")[0].matches(" | ").count() >= 2,
        "{o}"
    );
    // The y = x entry of the key has a dashed line as its sample.
    let key = &text[text.find("data-label=\"key:\"").unwrap()..];
    let y_eq_x = key.find(">y = x</text>").unwrap();
    let sample = key[..y_eq_x]
        .rfind("<polyline class=\"legend-sample\"")
        .unwrap();
    assert!(
        key[sample..y_eq_x].contains("stroke-dasharray"),
        "{}",
        &key[..y_eq_x]
    );
    insta::assert_snapshot!("plot_calibrate", o);
}

#[test]
fn calibrate_labels_in_a_crowd_keep_off_every_point_and_each_other() {
    // A suite's launches crowd along y = x; the five worst sit among
    // them. Before, a label with no free place beside its point was set
    // on the other points anyway.
    let kernels = ["bs", "fm", "hm", "bc", "transpose", "fill_in"];
    let pairs: Vec<Pair> = (0..48)
        .map(|i| {
            let mut hw = 3000.0 * (1.0 + (i % 12) as f64 * 0.012);
            let mut error = [0.02, -0.05, 0.31, 0.08, -0.12, 0.27, -0.03, 0.22][i % 8]
                * (1.0 + (i / 8) as f64 * 0.05);
            // The five worst nearly on one spot: only four labels fit
            // beside it, the fifth needs a leader.
            if i < 5 {
                hw = 3300.0 + i as f64;
                error = 0.45 + 0.002 * i as f64;
            }
            Pair {
                entry: format!("hs64k_h{}", 4 << (i % 3)),
                index: i,
                kernel: kernels[i % kernels.len()].to_string(),
                hw_cycles: hw,
                sim_cycles: hw * (1.0 + error),
                hw_insts: 0.0,
                sim_insts: 0.0,
                exact: Default::default(),
                hw_top_stall: String::new(),
                sim_top_stall: String::new(),
                hw_stalls: Default::default(),
                sim_stalls: Default::default(),
            }
        })
        .collect();
    let summary = simsort::calib::compare::summarize(&pairs);
    let figure = simsort::calib::plot::figure(&pairs, &summary).unwrap();
    let scene = {
        register_font().unwrap();
        figure.render()
    };
    // `drawn` checks no label covers a point or another label.
    let o = drawn("calibrate-crowd", figure);
    assert_eq!(line_with(&o, "note: ").len(), 1, "{o}");
    assert_eq!(line_with(&o, "note: ")[0].matches(" | ").count(), 4, "{o}");
    let leaders = scene.to_svg().matches("class=\"leader\"").count();
    assert!(
        leaders >= 1,
        "a label moved away from its point has a leader"
    );
}

/// A finished run of `algo` on `keys` keys that took `cycles_per_key`.
fn made_up_run(algo: Algo, keys: u64, cycles_per_key: f64) -> SweepRun {
    use simsort::experiment::{KernelRow, Report, SortOptions};
    let mut stats = sim::KernelStats {
        launches: 1,
        cycles: sim::Cycle((cycles_per_key * keys as f64) as u64),
        ..sim::KernelStats::default()
    };
    stats.warp_cycles = 100;
    let mut config = serde_json::Map::new();
    config.insert("algo".into(), algo.name().into());
    config.insert("gpu".into(), "h200".into());
    config.insert("clock_mhz".into(), 1980.into());
    let report = Report::new(config, keys, vec![KernelRow::new("k", stats)]);
    SweepRun {
        opts: SortOptions {
            algo,
            keys,
            ..SortOptions::default()
        },
        result: sweep::RunResult::Done(Box::new(report)),
    }
}

#[test]
fn compare_labels_cycles_per_key_below_one() {
    // HotSort's 0.41 cycles per key at 262,144 keys (issue 30) had no
    // labelled tick: the log axis was labelled at 1, 2 and 3 only.
    let runs = vec![
        made_up_run(Algo::Hotsort, 65536, 0.9),
        made_up_run(Algo::Hotsort, 262144, 0.41),
        made_up_run(Algo::Mergesort, 65536, 2.6),
        made_up_run(Algo::Mergesort, 262144, 3.1),
    ];
    let axes = vec![
        Axis {
            name: "gpu".into(),
            values: vec!["h200".into()],
        },
        Axis {
            name: "algo".into(),
            values: vec!["hotsort".into(), "mergesort".into()],
        },
        Axis {
            name: "keys".into(),
            values: vec!["65536".into(), "262144".into()],
        },
    ];
    let o = drawn(
        "compare-below-one",
        compare_plot::figure(&axes, &runs).unwrap(),
    );
    let y = line_with(&o, "tick-y: ")[0];
    assert!(y.starts_with("tick-y: 0.5 | 0.7 | 1 | "), "{o}");
    assert!(o.contains("tick-x: 65,536 | 262,144"), "{o}");
}

#[test]
fn a_bad_plot_flag_is_refused_before_anything_runs() {
    let out = simsort(&[
        "sweep",
        "--gpu",
        "tiny",
        "--keys",
        "700",
        "--warp",
        "4,8",
        "--plot-x",
        "vector",
        "--plot-relative",
        "smem-layout=plain",
        "--plot",
        "/nonexistent-dir-for-simsort/x.svg",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error: --plot-x vector: not an axis the sweep varies (varied: warp)"),
        "{err}"
    );
    assert!(
        err.contains("error: --plot-relative smem-layout=plain: `smem-layout` is not an axis"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn no_plot_snapshot_is_left_without_its_test() {
    // The snapshot names this module's tests assert, one per plot kind.
    let produced: Vec<String> = [
        "plot_calibrate",
        "plot_compare",
        "plot_run",
        "plot_sweep_bitonic",
        "plot_sweep_dist",
        "plot_sweep_dram_latency",
        "plot_sweep_hotsort",
        "plot_sweep_mergesort",
        "plot_sweep_samplesort_kernels",
    ]
    .map(String::from)
    .to_vec();
    let stale = crate::snapshot_files::leftovers("plots", |_| true, &produced);
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}
