//! Warp merges through shared memory (the `shared` merge exchange): the
//! patent's transposed merge.
//!
//! The warp stores its rows to its own shared region. A *pass* takes a run
//! of consecutive lane stages whose masks generate units of `U` lanes; each
//! lane then loads whole units (one key from each of `U` lanes, of one row,
//! or for a flip the mirrored row for the upper half), runs the stages as an
//! in-register network, and writes the unit back. Loading a unit is a
//! *transposing* read: lanes of one instruction read keys `U` columns apart,
//! `U`-way bank conflicts under `plain`, none under `pad` or `xor`. After the
//! last pass the warp reloads its rows.

use super::config::Layout;
use super::emit::{Gen, LaneStage, clean_stages, flip_stages};
use kernels_ir::Reg;

/// The most per-element shared addresses one pass keeps from its loads to
/// its stores (one register each): 32 covers every slab up to `H = 32`;
/// keeping them for `H = 48` or `64` would take those slabs past the IR's
/// 255-word register limit (279 and 311 words for `bs`), which they fit
/// when the stores recompute them.
const MAX_KEPT_ADDRESSES: u32 = 32;

/// Splits `stages` into passes of at most `log2(max_unit)` stages.
pub fn passes(stages: &[LaneStage], max_unit: u32) -> Vec<Vec<LaneStage>> {
    let per_pass = max_unit.max(2).trailing_zeros().max(1) as usize;
    stages.chunks(per_pass).map(<[LaneStage]>::to_vec).collect()
}

/// The largest unit one pass uses: a power of two, at least 2 (a pair), at
/// most the slab height (so a lane's units fit in its key registers) and the
/// warp width.
pub fn max_unit(warp: u32, height: u32) -> u32 {
    let h_pow2 = 1u32 << (31 - height.max(1).leading_zeros());
    h_pow2.max(2).min(warp)
}

/// Runs `stages` on the slab in `keys` through the warp's shared region at
/// byte address `region`.
pub fn shared_stages(g: &mut Gen<'_>, keys: &[Reg], stages: &[LaneStage], region: Reg) {
    let lane = g.lane;
    let rows = g.rows(region, lane);
    for (r, &k) in keys.iter().enumerate() {
        let (a, off) = g.row(rows, r as u32);
        g.st_shared_key(Some(a), off, k);
    }
    g.b.warp_sync();
    for pass in passes(stages, max_unit(g.w(), g.h())) {
        run_pass(g, keys, &pass, region);
        g.b.warp_sync();
    }
    for (r, &k) in keys.iter().enumerate() {
        let (a, off) = g.row(rows, r as u32);
        g.ld_shared_key(k, Some(a), off);
    }
}

/// One unit element: its lane relative to the unit's base lane, and whether
/// it is on the flipped (upper, mirrored-row) side.
#[derive(Copy, Clone, Debug)]
struct Element {
    /// XOR of the half masks in this element (added to, or for the flipped
    /// side subtracted from, the side's base lane).
    halves: u32,
    flipped: bool,
}

fn elements(pass: &[LaneStage]) -> Vec<Element> {
    let n = 1usize << pass.len();
    (0..n)
        .map(|e| {
            let mut el = Element {
                halves: 0,
                flipped: false,
            };
            for (b, stage) in pass.iter().enumerate() {
                if e >> b & 1 == 1 {
                    match stage {
                        LaneStage::Flip(_) => el.flipped = true,
                        LaneStage::Half(m) => el.halves |= m,
                    }
                }
            }
            el
        })
        .collect()
}

/// The comparators of `pass` on unit elements, lower element first.
fn unit_network(pass: &[LaneStage], els: &[Element]) -> Vec<(usize, usize)> {
    let mut net = Vec::new();
    for (b, stage) in pass.iter().enumerate() {
        for e in (0..els.len()).filter(|e| e >> b & 1 == 0) {
            let f = e | 1 << b;
            // On the flipped side the half masks are subtracted, so the
            // element with the mask bit set is the lower lane.
            match stage {
                LaneStage::Half(_) if els[e].flipped => net.push((f, e)),
                _ => net.push((e, f)),
            }
        }
    }
    net
}

fn run_pass(g: &mut Gen<'_>, keys: &[Reg], pass: &[LaneStage], region: Reg) {
    let (w, h) = (g.w(), g.h());
    let u = 1u32 << pass.len();
    let groups_log2 = (w / u).trailing_zeros();
    let pivots: Vec<u32> = pass.iter().map(|s| s.pivot().trailing_zeros()).collect();
    let (lo, hi) = (*pivots.iter().min().unwrap(), *pivots.iter().max().unwrap());
    let flip = pass.iter().find_map(|s| match s {
        LaneStage::Flip(f) => Some(*f),
        _ => None,
    });

    // rr: the unit's row for j = 0; lane0: the unit's base lane (pivot bits
    // clear), from the lane's index among the W/U units of a row.
    let t = g.pool("lanes", 7);
    let (rr, lane0, base_lo, base_hi, tmp) = (t[0], t[1], t[2], t[3], t[4]);
    g.b.shr(rr, g.lane, groups_log2);
    g.b.and(tmp, g.lane, (w / u) - 1);
    g.b.shr(lane0, tmp, lo);
    g.b.shl(lane0, lane0, hi + 1);
    g.b.and(tmp, tmp, (1u32 << lo) - 1);
    g.b.or(lane0, lane0, tmp);

    // Fast bases: plain always, pad when rows are whole bank rows.
    let pad_rows = g.smem.kind == Layout::Pad && w >= g.smem.banks;
    let fast = g.smem.kind == Layout::Plain || pad_rows;
    let k = g.smem.log2_banks();
    let row_words = if pad_rows { w + w / g.smem.banks } else { w };
    let pad = |x: u32| if pad_rows { x + (x >> k) } else { x };
    // base = row * row_words + lane', with lane' padded for `pad`.
    let side_base = |g: &mut Gen<'_>, dst: Reg, mirrored: bool| {
        let lane_v = t[5];
        if mirrored {
            g.b.xor(lane_v, lane0, flip.unwrap() - 1);
            g.b.sub(dst, (h - 1) as i64, rr);
        } else {
            g.b.mov(lane_v, lane0);
            g.b.mov(dst, rr);
        }
        g.b.mul(dst, dst, row_words);
        if pad_rows {
            g.b.shr(t[4], lane_v, k);
            g.b.add(lane_v, lane_v, t[4]);
        }
        g.b.add(dst, dst, lane_v);
        if fast {
            g.b.shl(dst, dst, g.kb_log2());
            g.b.add(dst, dst, region);
        }
    };
    let xor_rows = g.smem.kind == Layout::Xor && w == g.smem.banks;
    if !xor_rows {
        side_base(g, base_lo, false);
        if flip.is_some() {
            side_base(g, base_hi, true);
        }
    }

    let els = elements(pass);
    let net = unit_network(pass, &els);
    let nj = h.div_ceil(u);
    // Units beyond the key registers (when U does not divide H) need extra
    // registers; the keys themselves are free while the slab is in shared.
    let total = (nj * u) as usize;
    let wide = g.key_pool("lanes_wide", total.saturating_sub(keys.len()));
    let vals: Vec<Reg> = (0..total)
        .map(|i| {
            if i < keys.len() {
                keys[i]
            } else {
                wide[i - keys.len()]
            }
        })
        .collect();

    // `xor` with rows exactly one bank row wide: unit `j`'s row on a side
    // is the side's first row `row0` (`rr`, or `H-1-rr` mirrored) plus or
    // minus `j*U`, so its address is
    // `(region + kb*(W*row0 + lane)) ^ kb*hash(row)` plus `±kb*W*j*U` as an
    // immediate (a region starts at a whole bank row, so the sum leaves the
    // column bits to the XOR). Per (j, side) that is the row, the hash, one
    // shift and one XOR: six instructions, as ptxas computes the same
    // bases (an add, IMAD.SHL, two LOP3, two IMAD in the H200's SASS of
    // `hs64k_h16_xor_shared`'s `bs`); an element XORs in its half masks
    // (they only touch the column bits).
    let xbases = if xor_rows {
        let xb = g.pool("lanes_xor", 2 * nj as usize);
        let n_sides = 1 + usize::from(flip.is_some());
        let sides = &g.pool("lanes_xor_side", 2)[..n_sides];
        let (row, lane_hi, hash) = (t[4], t[6], t[5]);
        let (log2_w, kb_log2) = (w.trailing_zeros(), g.kb_log2());
        for (side, &b) in sides.iter().enumerate() {
            if side == 0 {
                g.b.shl(b, rr, log2_w);
                g.b.add(b, b, lane0);
            } else {
                g.b.xor(lane_hi, lane0, flip.expect("a second side flips") - 1);
                g.b.sub(b, i64::from(h - 1), rr);
                g.b.shl(b, b, log2_w);
                g.b.add(b, b, lane_hi);
            }
            g.b.shl(b, b, kb_log2);
            g.b.add(b, b, region);
        }
        for j in 0..nj {
            for (side, &b) in sides.iter().enumerate() {
                if side == 0 {
                    g.b.add(row, rr, j * u);
                } else {
                    g.b.sub(row, i64::from(h - 1 - j * u), rr);
                }
                g.emit_hash(hash, row);
                g.b.shl(hash, hash, kb_log2);
                g.b.xor(xb[2 * j as usize + side], b, hash);
            }
        }
        xb
    } else {
        Vec::new()
    };

    // `xor`: element `e` of unit `j` has its own address register, computed
    // at the unit's load and reused by its store, as ptxas does (the H200's
    // SASS of `hs64k_h16_xor_shared`'s `bs` has one LOP3 per element and
    // pass, its STS reuse the LDS's registers). Up to
    // [`MAX_KEPT_ADDRESSES`] of them: taller slabs recompute them at the
    // store, as before, so they still fit the IR's register limit.
    let keep = xor_rows && nj * u <= MAX_KEPT_ADDRESSES;
    let xaddrs = if keep {
        g.pool("lanes_xaddr", (nj * u) as usize)
    } else {
        Vec::new()
    };
    let access = |g: &mut Gen<'_>, j: u32, e: usize, el: Element, load: bool| -> (Reg, i32) {
        if xor_rows {
            let y = xbases[2 * j as usize + usize::from(el.flipped)];
            let rows = i64::from(w * j * u) * if el.flipped { -1 } else { 1 };
            let off = (i64::from(g.kb()) * rows) as i32;
            if el.halves == 0 {
                return (y, off);
            }
            // A kept address is computed at the load only; a fresh one at
            // every access.
            let a = if keep {
                xaddrs[(j * u) as usize + e]
            } else {
                g.pool("lanes_addr", 1)[0]
            };
            if load || !keep {
                g.b.xor(a, y, g.kb() * el.halves);
            }
            return (a, off);
        }
        let (base, sign) = if el.flipped {
            (base_hi, -1i64)
        } else {
            (base_lo, 1i64)
        };
        let c = sign * i64::from(j * u * row_words + pad(el.halves));
        if fast {
            (base, (i64::from(g.kb()) * c) as i32)
        } else {
            let t2 = g.pool("lanes_addr", 2);
            g.b.add(t2[1], base, c);
            g.phys_addr(t2[0], region, t2[1]);
            (t2[0], 0)
        }
    };

    for load in [true, false] {
        for j in 0..nj {
            let partial = (j + 1) * u > h;
            if partial {
                g.b.setp_lt_u(g.q, rr, h - j * u);
            }
            if !load {
                let ju = (j * u) as usize;
                let regs = &vals[ju..ju + u as usize];
                g.network(regs, &net);
            }
            for (e, &el) in els.iter().enumerate() {
                let (a, off) = access(g, j, e, el, load);
                let v = vals[(j * u) as usize + e];
                if partial {
                    g.b.when(g.q);
                }
                if load {
                    g.ld_shared_key(v, Some(a), off);
                } else {
                    g.st_shared_key(Some(a), off, v);
                }
            }
        }
    }
}

/// Every pass of the warp merges and the slab clean for `w x h`.
pub fn all_passes(w: u32, h: u32) -> Vec<Vec<LaneStage>> {
    let mut stage_lists: Vec<Vec<LaneStage>> = Vec::new();
    let mut f = 2;
    while f <= w {
        stage_lists.push(flip_stages(f));
        f *= 2;
    }
    stage_lists.push(clean_stages(w));
    stage_lists
        .iter()
        .flat_map(|s| passes(s, max_unit(w, h)))
        .collect()
}

/// The logical region offset lane `lane` accesses for element `e` of its
/// `j`-th unit in `pass` (`None` where the lane is guarded off): the address
/// arithmetic of [`shared_stages`], as a model for the bank-conflict tests.
pub fn unit_offset(w: u32, h: u32, pass: &[LaneStage], j: u32, e: usize, lane: u32) -> Option<u32> {
    let u = 1u32 << pass.len();
    let pivots: Vec<u32> = pass.iter().map(|s| s.pivot().trailing_zeros()).collect();
    let (lo, hi) = (*pivots.iter().min()?, *pivots.iter().max()?);
    let rr = lane >> (w / u).trailing_zeros();
    let ri = lane & (w / u - 1);
    let lane0 = ((ri >> lo) << (hi + 1)) | (ri & ((1 << lo) - 1));
    let row = rr + j * u;
    if row >= h {
        return None;
    }
    let el = elements(pass)[e];
    if el.flipped {
        let f = pass.iter().find_map(|s| match s {
            LaneStage::Flip(f) => Some(*f),
            _ => None,
        })?;
        Some((h - 1 - row) * w + ((lane0 ^ (f - 1)) - el.halves))
    } else {
        Some(row * w + lane0 + el.halves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotsort::config::{HotSortConfig, Layout};
    use crate::hotsort::emit::flip_stages;
    use crate::hotsort::layout::{SmemLayout, wavefronts_b32};

    #[test]
    fn units_cover_every_key_once_per_pass() {
        for (w, h) in [(32u32, 16u32), (8, 3), (4, 1), (64, 8), (16, 32)] {
            for pass in all_passes(w, h) {
                let u = 1usize << pass.len();
                let mut seen = vec![0u32; (w * h) as usize];
                for j in 0..h.div_ceil(u as u32) {
                    for e in 0..u {
                        for lane in 0..w {
                            if let Some(o) = unit_offset(w, h, &pass, j, e, lane) {
                                seen[o as usize] += 1;
                            }
                        }
                    }
                }
                assert!(
                    seen.iter().all(|&c| c == 1),
                    "W={w} H={h} {pass:?}: {seen:?}"
                );
            }
        }
    }

    /// Excess wavefronts of all unit loads (the same for the stores) of the
    /// shared warp merge in one slab, under `layout`.
    fn unit_conflicts(w: u32, h: u32, layout: Layout) -> u32 {
        let cfg = HotSortConfig {
            layout,
            merge: crate::hotsort::config::MergeExchange::Shared,
            ..HotSortConfig::new(w, h)
        };
        let l = SmemLayout::new(&cfg);
        let mut excess = 0;
        for pass in all_passes(w, h) {
            for j in 0..h.div_ceil(1 << pass.len()) {
                for e in 0..1usize << pass.len() {
                    let words: Vec<u32> = (0..w)
                        .filter_map(|lane| unit_offset(w, h, &pass, j, e, lane))
                        .map(|o| l.phys(1, o))
                        .collect();
                    let (total, min) = wavefronts_b32(&words, l.banks);
                    excess += total - min;
                }
            }
        }
        excess
    }

    /// The patent's claim, for the transposed warp merge: the searched `xor`
    /// hash reads and writes every merge unit without a bank conflict in
    /// every shape here; `plain` puts the `U` lanes of a unit row on one bank.
    /// One pad word per bank row removes most conflicts but not all: at
    /// W=32, H=16 the first pass of the last flip merge has units of 16 lanes
    /// (only two per row), so rows one pad word apart still collide 2-way:
    /// one extra wavefront on each of its 32 unit loads (and as many stores).
    /// A row pad of W/U words would fix that pass
    /// and break the passes with units of 2 (they need an odd row shift).
    #[test]
    fn transposed_unit_reads_are_conflict_free_with_xor() {
        let shapes = [
            (32u32, 16u32),
            (32, 8),
            (32, 32),
            (16, 16),
            (64, 16),
            (64, 8),
            (8, 4),
        ];
        for (w, h) in shapes {
            let plain = unit_conflicts(w, h, Layout::Plain);
            assert_eq!(unit_conflicts(w, h, Layout::Xor), 0, "xor W={w} H={h}");
            assert!(
                unit_conflicts(w, h, Layout::Pad) <= plain / 4,
                "pad W={w} H={h}"
            );
        }
        assert_eq!(
            [Layout::Plain, Layout::Pad, Layout::Xor].map(|l| unit_conflicts(32, 16, l)),
            [928, 32, 0]
        );
    }

    #[test]
    fn passes_respect_the_unit_size() {
        let p = passes(&flip_stages(32), 16);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].len(), 4);
        assert_eq!(passes(&clean_stages(32), 2).len(), 5);
        assert_eq!(max_unit(32, 16), 16);
        assert_eq!(max_unit(32, 3), 2);
        assert_eq!(max_unit(4, 32), 4);
        assert_eq!(max_unit(32, 1), 2);
    }

    #[test]
    fn unit_networks_put_the_minimum_on_the_lower_lane() {
        let pass = flip_stages(8);
        let els = elements(&pass);
        let net = unit_network(&pass, &els);
        // Model a unit of lanes 0..8 for base lane 0: lane of each element.
        let lane = |e: usize| {
            let el = els[e];
            if el.flipped { 7 - el.halves } else { el.halves }
        };
        for (a, b) in net {
            assert!(
                lane(a) < lane(b),
                "{a} -> lane {}, {b} -> lane {}",
                lane(a),
                lane(b)
            );
        }
    }
}
