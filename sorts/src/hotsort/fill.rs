//! `fill_in` and `fill_out`: write the maximum key to `keys[start..end]`,
//! one key per thread. `fill_in` pads the input to whole `bs` blocks;
//! `fill_out` pads the merge area to a power-of-two number of blocks. Both
//! are the same code under two names, so the report shows the two costs
//! apart (the real HotSort's `pad_vin` and `pad_vout`).
//!
//! Launch: grid `(ceil((end - start) / T))`, block `(T)` with `T` from
//! [`threads_per_block`]; parameters `keys`, `start`, `end`.

use super::config::HotSortConfig;
use super::emit::Gen;
use kernels_ir::{Kernel, ParamType, Special};

/// Threads per `fill` block: 8 warps, or as many threads as the machine
/// allows per block if that is fewer.
pub fn threads_per_block(cfg: &HotSortConfig) -> u32 {
    (cfg.warp * 8).min(cfg.max_block_threads).max(1)
}

/// Generates the fill kernel called `name` (`fill_in` or `fill_out`).
pub fn generate(cfg: &HotSortConfig, name: &str) -> Kernel {
    let mut g = Gen::new(name, cfg);
    let start = g.b.param("start", ParamType::U32);
    let end = g.b.param("end", ParamType::U32);
    let (i, t) = (g.b.reg32(), g.b.reg32());
    g.b.mov(i, Special::CtaidX);
    g.b.mov(t, Special::NtidX);
    g.b.mul(i, i, t);
    g.b.mov(t, Special::TidX);
    g.b.add(i, i, t);
    g.b.add(i, i, start);
    g.b.setp_lt_u(g.p, i, end);
    let addr = g.key_addr_only(i);
    // The sentinel: the largest key of the key width (every bit set). It
    // carries no value: a padding key's value is never read back.
    let max = if g.kb() == 4 {
        g.b.reg32()
    } else {
        g.b.reg64()
    };
    if g.kb() == 4 {
        g.b.mov(max, u32::MAX);
    } else {
        g.b.mov(max, -1i64);
    }
    let p = g.p;
    g.b.when(p);
    g.st_global_key(addr, 0, max);
    g.finish()
}
