//! The cross-slab part of the block merges: a group of `G` slabs (one per
//! warp) merged column by column through shared memory.
//!
//! Key `(lane, row)` of every slab of the group forms a *column* of `G`
//! keys; for a flip merge the upper half of the group contributes its
//! mirrored key `(W-1-lane, H-1-row)` instead, so the two runs form a bitonic
//! sequence ("read back reversed for the upper half"). Every column is closed
//! under the flip and half steps across slabs, so one thread can run the
//! whole cross-slab network on a column in registers. Warp `j` of the group
//! takes rows `j, j+G, j+2G, ...`, lane `l` takes column `l`: each load and
//! store is a whole row, conflict-free in every layout. Each warp then
//! reloads its own slab and cleans it across lanes.

use super::emit::Gen;
use super::networks;
use kernels_ir::Reg;

/// Where the group's columns come from.
#[derive(Copy, Clone, Debug)]
pub enum Source {
    /// Shared memory: the warps stored their slabs to their regions.
    Shared,
    /// Global memory: `addr` is this lane's address of row `j` of the
    /// group's first slab (slabs follow each other).
    Global {
        /// `keys + 4*(first_slab*W*H + j*W + lane)`.
        addr: Reg,
    },
}

/// The values a warp's lanes hold in the column phase, for slab height `h`
/// and groups of `group` slabs.
pub fn column_regs(h: u32, group: u32) -> usize {
    (h.div_ceil(group) * group) as usize
}

/// The cross-slab network for group `group` of warp `j` (register `jreg`),
/// ending with the results in shared memory: `flip` merges two sorted runs
/// of `group/2` slabs, otherwise the group is half-cleaned. `base` is the
/// byte address of the group's first region.
pub fn cross_slab(
    g: &mut Gen<'_>,
    keys: &[Reg],
    group: u32,
    flip: bool,
    jreg: Reg,
    base: Reg,
    source: Source,
) {
    let (w, h) = (g.w(), g.h());
    let region_bytes = (g.smem.region_phys * g.kb()) as i32;
    let nm = h.div_ceil(group);
    let n = column_regs(h, group);
    // The keys are free while the slabs are in shared memory; only columns
    // beyond them need extra registers.
    let extra = g.key_pool("columns", n.saturating_sub(keys.len()));
    let vals: Vec<Reg> = (0..n)
        .map(|i| {
            if i < keys.len() {
                keys[i]
            } else {
                extra[i - keys.len()]
            }
        })
        .collect();
    let net = if flip {
        networks::flip_merge(group as usize)
    } else {
        networks::bitonic_merge(group as usize)
    };
    // Per m: the physical shared address of (row j + G*m, lane) and of the
    // mirrored (H-1-row, W-1-lane), region 0 of the group.
    let addr = g.pool("columns_addr", 2 * nm as usize + 3);
    let (mirror_lane, o) = (addr[2 * nm as usize], addr[2 * nm as usize + 1]);
    if flip {
        g.b.sub(mirror_lane, (w - 1) as i64, g.lane);
    }
    for m in 0..nm {
        let row = addr[2 * nm as usize + 2];
        g.b.add(row, jreg, group * m);
        g.b.mul(o, row, w);
        g.b.add(o, o, g.lane);
        g.phys_addr(addr[2 * m as usize], base, o);
        if flip {
            g.b.sub(o, (h - 1) as i64, row);
            g.b.mul(o, o, w);
            g.b.add(o, o, mirror_lane);
            g.phys_addr(addr[2 * m as usize + 1], base, o);
        }
    }
    let partial = |m: u32| (m + 1) * group > h;
    let guard = |g: &mut Gen<'_>, m: u32| {
        if partial(m) {
            g.b.setp_lt_u(g.q, jreg, h - group * m);
            true
        } else {
            false
        }
    };
    let shared_at = |m: u32, i: u32| -> (Reg, i32) {
        let mirrored = flip && i >= group / 2;
        (
            addr[2 * m as usize + usize::from(mirrored)],
            region_bytes * i as i32,
        )
    };
    for m in 0..nm {
        let guarded = guard(g, m);
        for i in 0..group {
            let v = vals[(m * group + i) as usize];
            if guarded {
                g.b.when(g.q);
            }
            match source {
                Source::Shared => {
                    let (a, off) = shared_at(m, i);
                    g.ld_shared_key(v, Some(a), off);
                }
                Source::Global { addr: ga } => {
                    let off = g.kb() * (i * h * w + group * m * w);
                    g.ld_global_key(v, ga, off as i32);
                }
            }
        }
    }
    for m in 0..nm {
        let regs = &vals[(m * group) as usize..((m + 1) * group) as usize];
        g.network(regs, &net);
        let guarded = guard(g, m);
        for (i, &v) in regs.iter().enumerate() {
            let (a, off) = shared_at(m, i as u32);
            if guarded {
                g.b.when(g.q);
            }
            g.st_shared_key(Some(a), off, v);
        }
    }
}

/// Stores the warp's slab to its region (row-major), then waits for the
/// block.
pub fn park_slab(g: &mut Gen<'_>, keys: &[Reg], region: Reg) {
    let rows = g.rows(region, g.lane);
    for (r, &k) in keys.iter().enumerate() {
        let (a, off) = g.row(rows, r as u32);
        g.st_shared_key(Some(a), off, k);
    }
}

/// Reloads the warp's slab from its region.
pub fn reload_slab(g: &mut Gen<'_>, keys: &[Reg], region: Reg) {
    let rows = g.rows(region, g.lane);
    for (r, &k) in keys.iter().enumerate() {
        let (a, off) = g.row(rows, r as u32);
        g.ld_shared_key(k, Some(a), off);
    }
}
