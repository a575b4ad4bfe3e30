//! `fill`: writes the maximum key to words `start..end`, one word per
//! thread: the padding a tile or a vector needs in memory (padding past
//! it stays virtual, see [`super::host`]).
//!
//! Launch: grid `(ceil((end - start) / G))`, block `(G)`; parameters
//! `keys`, `start`, `end`.

use super::config::BitonicConfig;
use super::emit::Gen;
use crate::KernelMarks;
use kernels_ir::{Kernel, ParamType};

/// Generates `fill` for `cfg`.
pub fn generate(cfg: &BitonicConfig) -> (Kernel, KernelMarks) {
    let mut g = Gen::new("fill", cfg);
    let start = g.b.param("start", ParamType::U32);
    let end = g.b.param("end", ParamType::U32);
    let i = g.global_thread();
    g.b.add(i, i, start);
    let p = g.b.pred();
    g.b.setp_lt_u(p, i, end);
    let addr = g.b.reg64();
    g.b.cvt_u64_u32(addr, i);
    g.b.shl(addr, addr, cfg.key_bytes().trailing_zeros());
    g.b.add(addr, addr, g.keys);
    // The sentinel: every bit set, the largest word of either width.
    let max = g.key_regs(1)[0];
    if cfg.key_bits == 32 {
        g.b.mov(max, u32::MAX);
    } else {
        g.b.mov(max, -1i64);
    }
    let op = if cfg.key_bits == 32 {
        kernels_ir::Opcode::StGlobalB32
    } else {
        kernels_ir::Opcode::StGlobalB64
    };
    g.b.when(p).store(op, Some(addr), 0, max);
    g.finish()
}
