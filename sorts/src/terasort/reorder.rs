//! `reorder`: gathers whole records by pointer into the sorted run, shaped
//! so that a warp moves consecutive words of the output.
//!
//! A record is `u` units of `v` bytes, `v` the widest access (16, 8 or 4
//! bytes) that divides `R`: buffers are 256-byte aligned and runs start at
//! whole records, so every unit is aligned (100-byte records are 4-byte
//! units only). A block of `x * k` threads (`x = min(u, block)` units per
//! record, `k` records per row) owns `k * rows` consecutive output records
//! (at most `x` rows, see [`rows`]):
//!
//! 1. each thread reads at most one key-pointer word of the block's
//!    records (coalesced) and puts its record's source address in a shared
//!    table;
//! 2. the block copies row after row: in row `j`, thread `(tx, ty)` copies
//!    unit `tx` of output record `j k + ty`, whose source address it reads
//!    from the table (a broadcast). Linear thread `ty x + tx` then copies
//!    unit `j x k + ty x + tx` of the block's output, so every warp stores
//!    consecutive units (whole sectors) and loads from the one to three
//!    records they belong to: the gathers stay random, by pointer.
//!
//! Records of more than `block` units take `ceil(u / x)` copies per row
//! (`k = 1`). Where the old reorder ran one row per thread (every thread
//! re-read its pointer and ran the loop's arithmetic for one word), a
//! thread now reads one pointer and loops over `x` rows: 100-byte records
//! on `h200` cost about 8 warp instructions each instead of 27.

use super::config::TeraSortConfig;
use crate::KernelMarks;
use kernels_ir::{Kernel, KernelBuilder, Opcode, ParamType, Reg, RegList, Special};

/// The copy unit: the widest access (16, 8 or 4 bytes) dividing `R`.
pub fn unit_bytes(cfg: &TeraSortConfig) -> u32 {
    [16, 8, 4]
        .into_iter()
        .find(|&v| cfg.record_bytes.is_multiple_of(v))
        .unwrap_or(4)
}

/// The block of `reorder`: `x` threads per record (its units, at most
/// the block), `y` records per row; the block owns `x * y` records.
pub fn block(cfg: &TeraSortConfig) -> (u32, u32) {
    let units = (cfg.record_bytes / unit_bytes(cfg)).max(1);
    let x = units.min(cfg.block_threads).max(1);
    (x, (cfg.block_threads / x).max(1))
}

/// Rows per block for `n` records: as many rows as blocks (the square
/// root of the rows the input needs), at most `x` (the table's size). One
/// row a block leaves every thread's pointer work for one unit; `x` rows
/// (1M records: 25 on `h200`) amortise it over the record's units, but a
/// small input then has few blocks, each copying its rows one after the
/// other on one SM.
pub fn rows(cfg: &TeraSortConfig, n: u64) -> u32 {
    let (x, k) = block(cfg);
    let needed = n.div_ceil(u64::from(k));
    (needed.isqrt().max(1)).min(u64::from(x)) as u32
}

/// `reorder`: parameters `records`, `pairs`, `out`, `n`, `owned` (records
/// per block: `y` times [`rows`], at most `x * y`); a grid of
/// `ceil(n / owned)` blocks of [`block`].
pub fn reorder(cfg: &TeraSortConfig) -> (Kernel, KernelMarks) {
    let v = unit_bytes(cfg);
    let units = cfg.record_bytes / v;
    let (x, k) = block(cfg);
    let table_entries = x * k;
    let r = i64::from(cfg.record_bytes);
    let mut b = KernelBuilder::new("reorder");
    let records = b.param("records", ParamType::U64);
    let pairs = b.param("pairs", ParamType::U64);
    let out = b.param("out", ParamType::U64);
    let n = b.param("n", ParamType::U32);
    let owned = b.param("owned", ParamType::U32);
    let table = b.shared(table_entries * 8, 8);
    // first = ctaid.x * owned; lim = min(n - first, owned); t = ty x + tx.
    let (first, lim, t, tx, ty) = (b.reg32(), b.reg32(), b.reg32(), b.reg32(), b.reg32());
    b.mov(first, Special::CtaidX);
    b.mul(first, first, owned);
    b.sub(lim, n, first);
    b.min_u(lim, lim, owned);
    b.mov(tx, Special::TidX);
    b.mov(ty, Special::TidY);
    b.mul(t, ty, x);
    b.add(t, t, tx);

    // 1. The table: thread t holds record first + t's source address.
    let (p, rec, word, ptr, src, at) = (
        b.pred(),
        b.reg32(),
        b.reg64(),
        b.reg32(),
        b.reg64(),
        b.reg32(),
    );
    let filled = b.label("filled");
    b.setp_ge_u(p, t, lim);
    b.when(p).bra(filled);
    b.add(rec, first, t);
    let slot = b.reg64();
    b.cvt_u64_u32(slot, rec);
    b.shl(slot, slot, 3);
    b.add(slot, slot, pairs);
    b.load(Opcode::LdGlobalB64, word, Some(slot), 0);
    b.cvt_u32_u64(ptr, word);
    b.cvt_u64_u32(src, ptr);
    b.mul(src, src, r);
    b.add(src, src, records);
    b.shl(at, t, 3);
    b.store(Opcode::StSharedB64, Some(at), table as i32, src);
    b.bind(filled);
    b.bar_sync();

    // 2. Rows: `at` walks the table from entry ty in steps of k, `dst`
    // the output from record first + ty in steps of k records.
    let copy = b.next_pc();
    let (end, off, dst) = (b.reg32(), b.reg64(), b.reg64());
    b.shl(end, lim, 3);
    b.shl(at, ty, 3);
    b.cvt_u64_u32(off, tx);
    b.mul(off, off, i64::from(v));
    b.add(rec, first, ty);
    b.cvt_u64_u32(dst, rec);
    b.mul(dst, dst, r);
    b.add(dst, dst, out);
    b.add(dst, dst, off);
    let (ld, st) = unit_ops(v);
    let (row, done) = (b.label("row"), b.label("done"));
    if units <= x {
        // UNROLL rows at a time: their loads are in flight together, then
        // the stores; row i of the group is skipped where `at + 8 k i`
        // reaches `end`, that is `at >= end - 8 k i` (signed: may be < 0).
        let group = UNROLL.min(x);
        let regs: Vec<Vec<Reg>> = (0..group).map(|_| unit_regs(&mut b, v)).collect();
        let srcs: Vec<Reg> = (0..group).map(|_| b.reg64()).collect();
        let skip: Vec<Reg> = (0..group).map(|_| b.pred()).collect();
        let ends: Vec<Reg> = (0..group).map(|_| b.reg32()).collect();
        for (i, &e) in ends.iter().enumerate() {
            b.sub(e, end, 8 * k * i as u32);
        }
        b.bind(row);
        b.setp_ge_u(p, at, end);
        b.when(p).bra(done);
        for i in 0..group as usize {
            let (q, a) = (skip[i], srcs[i]);
            if i > 0 {
                b.setp_ge_s(q, at, ends[i]);
            }
            let guard = if i > 0 { Some(q) } else { None };
            let row_at = table as i32 + (8 * k * i as u32) as i32;
            guarded_unless(&mut b, guard).load(Opcode::LdSharedB64, a, Some(at), row_at);
            guarded_unless(&mut b, guard).add(a, a, off);
            guarded_unless(&mut b, guard).load(ld, RegList::new(&regs[i]), Some(a), 0);
        }
        for i in 0..group as usize {
            let guard = if i > 0 { Some(skip[i]) } else { None };
            let to = (i64::from(k) * r * i as i64) as i32;
            guarded_unless(&mut b, guard).store(st, Some(dst), to, RegList::new(&regs[i]));
        }
        b.add(at, at, 8 * k * group);
        b.add(dst, dst, r * i64::from(k * group));
    } else {
        // Records longer than the block: one row at a time, x units at a
        // time.
        let unit = unit_regs(&mut b, v);
        b.bind(row);
        b.setp_ge_u(p, at, end);
        b.when(p).bra(done);
        b.load(Opcode::LdSharedB64, src, Some(at), table as i32);
        b.add(src, src, off);
        let (w, to, q) = (b.reg32(), b.reg64(), b.pred());
        let (more, next) = (b.label("more"), b.label("next"));
        b.mov(w, tx);
        b.mov(to, dst);
        b.bind(more);
        b.setp_ge_u(q, w, units);
        b.when(q).bra(next);
        b.load(ld, RegList::new(&unit), Some(src), 0);
        b.store(st, Some(to), 0, RegList::new(&unit));
        b.add(w, w, x);
        b.add(src, src, i64::from(x * v));
        b.add(to, to, i64::from(x * v));
        b.bra(more);
        b.bind(next);
        b.add(at, at, 8 * k);
        b.add(dst, dst, r * i64::from(k));
    }
    b.bra(row);
    b.bind(done);
    b.exit();
    let marks = KernelMarks {
        key_regs: vec![word],
        stages: vec![
            (0, "pointer table".to_string()),
            (copy, "gather rows".to_string()),
        ],
    };
    (b.build(), marks)
}

/// Rows a thread copies per loop iteration (loads first, then stores), so
/// that their gathers wait on memory together.
const UNROLL: u32 = 4;

/// `b` guarded by `@!q` where `q` is given.
fn guarded_unless(b: &mut KernelBuilder, q: Option<Reg>) -> &mut KernelBuilder {
    match q {
        Some(q) => b.unless(q),
        None => b,
    }
}

/// The registers of one unit: one 32- or 64-bit register, or two 64-bit
/// ones for 16 bytes.
fn unit_regs(b: &mut KernelBuilder, v: u32) -> Vec<Reg> {
    match v {
        4 => vec![b.reg32()],
        8 => vec![b.reg64()],
        _ => vec![b.reg64(), b.reg64()],
    }
}

/// The global load and store of one unit.
fn unit_ops(v: u32) -> (Opcode, Opcode) {
    match v {
        4 => (Opcode::LdGlobalB32, Opcode::StGlobalB32),
        8 => (Opcode::LdGlobalB64, Opcode::StGlobalB64),
        _ => (Opcode::LdGlobalB128, Opcode::StGlobalB128),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_the_widest_access_dividing_the_record() {
        let cfg = |r| TeraSortConfig {
            record_bytes: r,
            ..TeraSortConfig::new(32, 32)
        };
        let widths: Vec<u32> = [4, 8, 12, 16, 100, 200, 1024]
            .map(|r| unit_bytes(&cfg(r)))
            .to_vec();
        assert_eq!(widths, [4, 8, 4, 16, 4, 8, 16]);
        // 256 threads: 25 units x 10 records of 100 bytes (6 idle), one
        // unit x 256 records of 16 bytes, 256 units x 1 record of 4 KB+.
        assert_eq!(block(&cfg(100)), (25, 10));
        assert_eq!(block(&cfg(16)), (1, 256));
        assert_eq!(block(&cfg(4100)), (256, 1));
        // Rows: as many as blocks, at most 25 (the table of 250 records).
        assert_eq!(rows(&cfg(100), 1 << 20), 25);
        assert_eq!(rows(&cfg(100), 300), 5);
        assert_eq!(rows(&cfg(100), 1), 1);
    }
}
