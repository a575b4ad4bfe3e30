//! The entry points of the fuzz targets (`fuzz/`, nightly, coverage
//! guided) and of their replay on stable (`tests/fuzz.rs`, which runs every
//! committed corpus and crash input through these same functions, so CI
//! keeps what the fuzzers found). Each takes arbitrary bytes and must return
//! without a panic, a hang or an allocation failure, whatever they are.

use std::io::Cursor;

use clap::Parser;

use crate::buffer_spec::{buffer_cost, buffer_data, buffer_len};
use crate::experiment::options::SweepOptionArgs;
use crate::experiment::sweep;

/// Largest buffer the buffer-spec target builds (bigger specs are only
/// sized): the fuzzer's memory limit is for finding leaks, not for this.
const MAX_BUILT_BUFFER: u64 = 1 << 20;

/// Largest sweep grid the sweep-list target checks configuration by
/// configuration (bigger grids are only sized and refused).
const MAX_CHECKED_GRID: u64 = 16;

/// The IR parser and verifier on `data` as text: parse, verify, render the
/// diagnostics as `simsort check` does, and print-then-parse what parses.
pub fn ir(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match kernels_ir::parser::parse_and_verify("fuzz.kir", &text) {
        Ok(_) => {}
        Err(diagnostics) => {
            let _ = crate::diagnostics::render(&diagnostics, "fuzz.kir", &text, false);
        }
    }
    if let Ok((kernel, map)) = kernels_ir::parse_kernel(&text) {
        assert_eq!(map.insts.len(), kernel.insts.len());
        let printed = kernels_ir::print_kernel(&kernel);
        let (again, _) = kernels_ir::parse_kernel(&printed)
            .unwrap_or_else(|e| panic!("printed text does not parse: {e:?}\n{printed}"));
        assert_eq!(again, kernel, "print-then-parse changed the kernel");
        let _ = kernels_ir::verify_kernel(kernel);
    }
}

/// The trace reader on `data` as a trace file: open it, decode every chunk,
/// each launch's and block's events, and export it to Perfetto JSON.
pub fn trace(data: &[u8]) {
    let Ok(mut reader) = traces::TraceReader::new(Cursor::new(data)) else {
        return;
    };
    let _ = reader.header();
    let chunks = reader.chunks().len();
    for i in 0..chunks {
        if reader.read_chunk(i).is_err() {
            break;
        }
    }
    let _ = reader.chunk_at_cycle(0);
    let _ = reader.chunk_at_cycle(u64::MAX);
    for launch in 0..reader.launches().len().min(4) {
        for event in reader.launch_events(launch) {
            if event.is_err() {
                break;
            }
        }
        for event in reader.block_events(launch, 0) {
            if event.is_err() {
                break;
            }
        }
    }
    // In cycles: fuzzed headers rarely hold a clock, and the export must
    // still read every event.
    let opts = traces::ExportOptions {
        time: traces::TimeUnit::Cycles,
        ..traces::ExportOptions::default()
    };
    let _ = traces::export_perfetto_with(&mut reader, std::io::sink(), &opts);
}

/// A `--buffer NAME=SPEC` spec (`@FILE` specs are left out: they read the
/// host's files): size it, cost it, and build it when it is small.
pub fn buffer_spec(data: &[u8]) {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    if spec.starts_with('@') {
        return;
    }
    let len = buffer_len(spec);
    let cost = buffer_cost(spec);
    assert_eq!(len.is_ok(), cost.is_ok(), "`{spec}`: sized but not costed");
    if let Ok(len) = len {
        assert!(cost.unwrap() >= len, "`{spec}`: costs less than its size");
        if len <= MAX_BUILT_BUFFER {
            match buffer_data(spec).unwrap_or_else(|e| panic!("`{spec}`: sized, not built: {e}")) {
                crate::buffer_spec::BufferInit::Data(d) => assert_eq!(d.len() as u64, len),
                crate::buffer_spec::BufferInit::Zero(n) => assert_eq!(n, len),
            }
        }
    }
}

/// The sweep's lists as `simsort sweep` parses them.
#[derive(Debug, Parser)]
#[command(name = "sweep")]
struct SweepLists {
    #[command(flatten)]
    lists: SweepOptionArgs,
    /// Machine overrides, `FIELD=V1,V2` (the CLI's `--FIELD V1,V2`).
    #[arg(long = "set")]
    set: Vec<String>,
}

/// Sweep lists: `data` as whitespace-separated arguments of `simsort sweep`
/// (`--keys 1k,4k --seed 1,2 --set num_sms=2,4`): parse them, size the
/// grid, and check each configuration of a small one.
pub fn sweep_lists(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let args = std::iter::once("sweep").chain(text.split_whitespace());
    let Ok(parsed) = SweepLists::try_parse_from(args) else {
        return;
    };
    let overrides: Vec<(String, String)> = parsed
        .set
        .iter()
        .filter_map(|s| s.split_once('='))
        .map(|(f, v)| (f.to_string(), v.to_string()))
        .collect();
    let spec = parsed.lists.spec(&overrides);
    let size = spec.size();
    if size > sweep::MAX_CONFIGURATIONS {
        assert!(sweep::check(&spec).is_err(), "a grid of {size} is accepted");
        return;
    }
    if size > MAX_CHECKED_GRID {
        return;
    }
    assert_eq!(spec.expand().len() as u64, size);
    let _ = spec.axes();
    let _ = sweep::check(&spec);
}
