//! Writes a synthetic block-sort trace: `cargo run -p tui --example
//! synthetic_trace -- OUT.trace [LANES REGS WARPS BLOCKS]`, for trying
//! `simsort replay` and `simsort trace export` without a simulator run.

use std::fs::File;
use std::io::BufWriter;
use std::process::ExitCode;

use tui::synthetic::Synthetic;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: synthetic_trace OUT.trace [LANES REGS WARPS BLOCKS]");
        return ExitCode::from(2);
    };
    let num = |i: usize, default: u32| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let s = Synthetic {
        lanes: num(1, 32),
        regs: num(2, 16),
        warps: num(3, 4),
        blocks: num(4, 4),
        banks: 32,
        sms: 2,
        ..Synthetic::default()
    };
    let result = File::create(path)
        .map_err(traces::TraceError::from)
        .and_then(|f| s.write(BufWriter::new(f)).map(drop));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cannot write {path}: {e}");
            ExitCode::FAILURE
        }
    }
}
