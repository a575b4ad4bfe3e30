//! Shared-memory addresses in the IR for each layout.
//!
//! A physical address is `region + key_bytes * phys_offset(o)` (see
//! [`super::layout`]). The generic path computes it at run time from a
//! register holding `o` (up to four instructions). The two access shapes the
//! kernels use most have cheaper forms, valid because a region starts at a
//! whole `B`-word row and the compile-time part of `o` never carries into the
//! run-time part:
//! - row-major `o = r*W + lane` with `r` known: one precomputed base per
//!   lane, the row as an immediate (plus, for `xor`, one `xor` per distinct
//!   row hash, cached);
//! - slab-linear `o = lane*H + r` with `H` a power of two: one base per lane,
//!   `r` as an immediate (`pad`) or one `xor` (`xor`).

use super::config::Layout;
use super::emit::Gen;
use kernels_ir::Reg;

/// A per-lane base for row-major accesses `o = r*W + lane_value`.
#[derive(Clone, Debug)]
pub struct RowBase {
    base: Reg,
    /// `(xor value, register holding base ^ value)`.
    cache: Vec<(u32, Reg)>,
}

/// A handle on a cached [`RowBase`] (see [`Gen::rows`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RowsId(usize);

/// A per-lane base for slab-linear accesses `o = lane*H + r`.
pub struct LinearBase {
    /// The lane's `lane*H` (words), for the generic path.
    lh: Reg,
    /// The fast-path base (bytes), when the layout has one.
    base: Option<Reg>,
    region: Reg,
}

impl Gen<'_> {
    /// `dst = hash(q)` for the `xor` layout (see [`super::layout::SmemLayout::hash`]);
    /// `dst` must differ from `q`.
    ///
    /// A shift of 0 emits no shift (ptxas emits none either: the H200's SASS
    /// of the `xor` layout's `bs` hashes a row in one SHL and one LOP3).
    pub fn emit_hash(&mut self, dst: Reg, q: Reg) {
        let l = self.smem;
        let s = if l.shift > 0 {
            self.b.shr(dst, q, l.shift);
            dst
        } else {
            q
        };
        if l.fold > 0 {
            let t = self.pool("hash", 1)[0];
            self.b.shl(t, s, l.fold);
            self.b.xor(dst, s, t);
            self.b.and(dst, dst, l.banks - 1);
        } else {
            self.b.and(dst, s, l.banks - 1);
        }
    }

    /// `dst = region + key_bytes * phys_offset(o)`: the generic path.
    pub fn phys_addr(&mut self, dst: Reg, region: Reg, o: Reg) {
        let l = self.smem;
        let k = l.log2_banks();
        match l.kind {
            Layout::Plain => {
                self.b.shl(dst, o, self.kb_log2());
            }
            Layout::Pad => {
                self.b.shr(dst, o, k);
                self.b.add(dst, dst, o);
                self.b.shl(dst, dst, self.kb_log2());
            }
            Layout::Xor => {
                let q = self.pool("phys", 1)[0];
                self.b.shr(q, o, k);
                self.emit_hash(dst, q);
                self.b.xor(dst, dst, o);
                self.b.shl(dst, dst, self.kb_log2());
            }
        }
        self.b.add(dst, dst, region);
    }

    /// The row-major accessor for lane value `lane` (the lane itself or its
    /// mirror `W-1-lane`) in the region at byte address `region`, built once
    /// per kernel and reused.
    pub fn rows(&mut self, region: Reg, lane: Reg) -> RowsId {
        if let Some(i) = self
            .row_bases
            .iter()
            .position(|(r, l, _)| *r == region && *l == lane)
        {
            return RowsId(i);
        }
        let rb = self.row_base(region, lane);
        self.row_bases.push((region, lane, rb));
        RowsId(self.row_bases.len() - 1)
    }

    /// The address of row `r` through accessor `id`.
    pub fn row(&mut self, id: RowsId, r: u32) -> (Reg, i32) {
        let mut rb = self.row_bases[id.0].2.clone();
        let at = self.row_addr(&mut rb, r);
        self.row_bases[id.0].2 = rb;
        at
    }

    fn row_base(&mut self, region: Reg, lane: Reg) -> RowBase {
        let l = self.smem;
        let (k, w) = (l.log2_banks(), self.w());
        let base = self.b.reg32();
        match l.kind {
            Layout::Pad if w > l.banks => {
                self.b.shr(base, lane, k);
                self.b.add(base, base, lane);
                self.b.shl(base, base, self.kb_log2());
            }
            Layout::Xor if w > l.banks => {
                let q = self.pool("phys", 1)[0];
                self.b.shr(q, lane, k);
                self.emit_hash(base, q);
                self.b.xor(base, base, lane);
                self.b.shl(base, base, self.kb_log2());
            }
            _ => {
                self.b.shl(base, lane, self.kb_log2());
            }
        }
        self.b.add(base, base, region);
        RowBase {
            base,
            cache: Vec::new(),
        }
    }

    /// The address of row `r` for `rb`'s lane: a register and an immediate.
    fn row_addr(&mut self, rb: &mut RowBase, r: u32) -> (Reg, i32) {
        let l = self.smem;
        let (k, w, banks) = (l.log2_banks(), self.w(), l.banks);
        let kb = self.kb();
        let rw = r * w;
        match l.kind {
            Layout::Plain => (rb.base, (kb * rw) as i32),
            Layout::Pad => (rb.base, (kb * (rw + (rw >> k))) as i32),
            Layout::Xor => {
                let hash = l.hash(rw >> k);
                let (x, imm) = if w >= banks {
                    (hash, rw)
                } else {
                    let col = rw & (banks - 1);
                    let high = hash & !(w - 1);
                    (hash & (w - 1), rw - col + (col ^ high))
                };
                (self.xor_cached(rb, x), (kb * imm) as i32)
            }
        }
    }

    fn xor_cached(&mut self, rb: &mut RowBase, x: u32) -> Reg {
        if x == 0 {
            return rb.base;
        }
        if let Some(&(_, reg)) = rb.cache.iter().find(|(v, _)| *v == x) {
            return reg;
        }
        let reg = self.b.reg32();
        self.b.xor(reg, rb.base, self.kb() * x);
        rb.cache.push((x, reg));
        reg
    }

    /// The base for slab-linear accesses `o = lane*H + r` in `region`.
    pub fn linear_base(&mut self, region: Reg) -> LinearBase {
        let l = self.smem;
        let (k, h) = (l.log2_banks(), self.h());
        let lh = self.b.reg32();
        self.b.mul(lh, self.lane, h);
        let base = match l.kind {
            Layout::Plain => {
                let base = self.b.reg32();
                self.b.shl(base, lh, self.kb_log2());
                self.b.add(base, base, region);
                Some(base)
            }
            Layout::Pad if h.is_power_of_two() => {
                let base = self.b.reg32();
                self.b.shr(base, lh, k);
                self.b.add(base, base, lh);
                self.b.shl(base, base, self.kb_log2());
                self.b.add(base, base, region);
                Some(base)
            }
            Layout::Xor if h.is_power_of_two() => {
                // base = region + 4 * (lh ^ hash(row of lh)).
                let base = self.b.reg32();
                let q = self.pool("phys", 1)[0];
                self.b.shr(q, lh, k);
                self.emit_hash(base, q);
                self.b.xor(base, base, lh);
                self.b.shl(base, base, self.kb_log2());
                self.b.add(base, base, region);
                Some(base)
            }
            _ => None,
        };
        LinearBase { lh, base, region }
    }

    /// The address of register `r` for `lb`'s lane: a register and an
    /// immediate. The register may be `scratch`-pool storage, valid until
    /// the next call.
    pub fn linear_addr(&mut self, lb: &LinearBase, r: u32) -> (Reg, i32) {
        let l = self.smem;
        let (k, h, banks) = (l.log2_banks(), self.h(), l.banks);
        let kb = self.kb();
        match (l.kind, lb.base) {
            (Layout::Plain, Some(base)) => (base, (kb * r) as i32),
            (Layout::Pad, Some(base)) => (base, (kb * (r + (r >> k))) as i32),
            (Layout::Xor, Some(base)) => {
                let t = self.pool("linear", 1)[0];
                if h <= banks {
                    self.b.xor(t, base, kb * r);
                    (t, 0)
                } else {
                    let hash = l.hash(r >> k);
                    let col = r & (banks - 1);
                    self.b.xor(t, base, kb * (col ^ hash));
                    (t, (kb * (r - col)) as i32)
                }
            }
            _ => {
                let t = self.pool("linear", 2);
                self.b.add(t[1], lb.lh, r);
                self.phys_addr(t[0], lb.region, t[1]);
                (t[0], 0)
            }
        }
    }
}
