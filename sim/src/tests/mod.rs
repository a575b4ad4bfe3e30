//! The simulator's tests that need whole launches: functional agreement with
//! the reference interpreter and a plain per-thread evaluator, exact counter
//! figures, exact cycle counts on `tiny`, faults, and stall accounting.

mod atomics;
mod calibration;
mod counters;
mod faults;
mod first_wave;
mod functional;
mod icache;
mod l1;
mod l1_fill;
mod launch_cost;
mod load_order;
mod occupancy;
mod ops;
mod partial_stores;
mod port_hits;
mod renames;
mod s2r;
mod slice_hash;
mod smem_width;
mod stalls;
mod store_drain;
mod store_staging;
mod timing;
mod tracing;
pub(crate) mod util;
pub(crate) mod values;
mod yields;
