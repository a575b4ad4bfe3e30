//! Experiments: input generation, running a sort on the simulated GPU, the
//! reference check, and the report.

pub mod check;
pub mod compare;
pub mod compare_plot;
pub mod glossary;
pub mod input;
pub mod kernel_stalls;
pub mod machine;
pub mod machine_file;
pub mod options;
pub mod plan;
pub mod plot;
pub mod plot_axes;
pub mod plot_metric;
pub mod report;
pub mod run_plot;
pub mod shard;
pub mod sort;
pub mod stall_bars;
pub mod sweep;
pub mod sweep_out;
pub mod trace;

pub use check::{CheckError, check_sorted};
pub use input::{Distribution, generate_u32, generate_u64};
pub use plan::{PlannedLaunch, Progress};
pub use report::{KernelRow, Report, TotalRow, aggregate};
pub use sort::{
    Algo, ExperimentError, Outcome, Prepared, SortOptions, prepare, run_sort, run_sort_with,
};
