//! Checking the simulator's clock and counters against real hardware:
//! record a launch sequence ([`recorder`]), write it as a bundle a GPU can
//! replay and profile ([`bundle`]), read Nsight Compute's CSV ([`ncu`]) and
//! compare launch by launch ([`compare`]), sort by sort ([`whole`]) and stall
//! reason by stall reason ([`stall_shares`]); set a new GPU's machine fields
//! from its microbenchmarks ([`derive`]).

pub mod bundle;
pub mod compare;
pub mod derive;
pub mod fit;
pub mod measured_on;
pub mod ncu;
pub mod plot;
pub mod recorder;
pub mod stall_shares;
pub mod whole;
pub mod zero_shared;
