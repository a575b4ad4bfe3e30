//! The shared-memory step protocol of the tile kernels (`head`, `tail`):
//! a thread holds two vectors with their logical indices `x1 < x2` in the
//! tile; to reach the next step's pair it writes each result where the next
//! step reads it (the seed's read-contiguous write-back), so that thread
//! `t` then reads slots `t` and `t + G`:
//!
//! `P(x) = ((y >> (s+1)) << s) + (y & (2^s - 1)) + ((x >> s) & 1) * G`
//!
//! for a next step at vector stride `2^s`, with `y = x` for a half step and
//! `y` = `x` with its low `s+1` bits complemented when bit `s` is set for a
//! flip (the mirror, `peers.md` 2.3; the seed's rule (a) and (b)). Rule (c),
//! natural order (`P(x) = x`), precedes storing the tile. Two barriers per
//! step: one before the write (every thread has read the previous step),
//! one after it.
//!
//! The store-order swizzle (the seed's claims 6 and 7: when the addresses
//! of the vectors stored first are not contiguous, swap halves so they
//! are). At a write-back from one half step to the next, a lane whose
//! vectors go to the upper half of the slots (`b = 1` below) stores its
//! second vector first: the first store then covers slots `t + b G` and the
//! second `t ^ 2^s` (plus `b G`), each a permutation of the lanes, so
//! neither conflicts. At the other write-backs (to a stage's first step,
//! to natural order) the lanes one shared wavefront serves together are
//! split in halves and the back half stores its second vector first (the
//! patent's rule for consecutive pairs).

use super::emit::Gen;
use kernels_ir::{Reg, Special};

/// What a thread holds between steps.
pub struct Held {
    /// `%tid.x`.
    pub t: Reg,
    /// The lower vector's logical index in the tile.
    pub x1: Reg,
    /// The upper vector's.
    pub x2: Reg,
    /// The lower vector's keys.
    pub a: Vec<Reg>,
    /// The upper vector's keys.
    pub b: Vec<Reg>,
    /// Scratch for the swizzle: the vector stored first and second.
    sw: (Vec<Reg>, Vec<Reg>),
    /// Shared byte addresses (scratch).
    addr: (Reg, Reg),
    /// Scratch for the permuted addresses and the swizzled ones.
    tmp: [Reg; 5],
    /// The swizzle predicate: this lane is in the back half of its group.
    back: Option<Reg>,
    /// The swizzle predicate of a half step's write-back: this lane's
    /// vectors go to the upper half of the slots.
    upper: Reg,
    /// A predicate for uniform tests.
    pub p: Reg,
    /// Where the pair came from, known when generating: `None` for the
    /// loaded vectors (`x1`, `x2` hold their indices), else the step
    /// (vector stride `2^s`, flip) that last compared them (`x1`, `x2`
    /// are computed only when a write-back needs them).
    at: Option<(u32, bool)>,
    /// The shared byte addresses of slots `t` and `t + G`, where every
    /// step reads.
    read: (Reg, Reg),
}

impl Held {
    /// Registers for a tile kernel: `%tid.x`, indices, the two vectors and
    /// the swizzle's predicate and scratch.
    pub fn new(g: &mut Gen) -> Held {
        let t = g.b.reg32();
        g.b.mov(t, Special::TidX);
        let (a, b) = g.vectors();
        let (x1, x2) = (g.b.reg32(), g.b.reg32());
        let l = g.l() as usize;
        let sw = (g.key_regs(l), g.key_regs(l));
        let addr = (g.b.reg32(), g.b.reg32());
        let tmp = [
            g.b.reg32(),
            g.b.reg32(),
            g.b.reg32(),
            g.b.reg32(),
            g.b.reg32(),
        ];
        let (p, upper) = (g.b.pred(), g.b.pred());
        let read = (g.b.reg32(), g.b.reg32());
        g.slot_addr(read.0, t);
        g.b.add(read.1, t, g.cfg.block_threads);
        g.slot_addr(read.1, read.1);
        let half = g.cfg.lanes_served() / 2;
        let back = if g.cfg.swizzle && half >= 1 {
            let (lane, q) = (g.b.reg32(), g.b.pred());
            g.b.mov(lane, Special::LaneId);
            g.b.and(lane, lane, half);
            g.b.setp_ne(q, lane, 0u32);
            Some(q)
        } else {
            None
        };
        Held {
            t,
            x1,
            x2,
            a,
            b,
            sw,
            addr,
            tmp,
            back,
            upper,
            p,
            at: None,
            read,
        }
    }

    /// Marks the held pair as that of a step at vector stride `2^s` (the
    /// tail's loaded pair, `t` and `t + G`, is the step at `s = lg G`).
    pub fn set_step(&mut self, s: u32, flip: bool) {
        self.at = Some((s, flip));
    }

    /// `dst = P(x)` for a next step at vector stride `2^s` (a flip or a
    /// half step).
    fn permuted(&self, g: &mut Gen, dst: Reg, x: Reg, s: u32, flip: bool) {
        let [bit, y, lo, ..] = self.tmp;
        // Shifts by 0 and masks of 0 are left out (s = 0 at every stage's
        // last step).
        if s == 0 {
            g.b.and(bit, x, 1u32);
        } else {
            g.b.shr(bit, x, s);
            g.b.and(bit, bit, 1u32);
        }
        let y = if flip {
            g.b.sub(y, 0u32, bit);
            g.b.and(y, y, (2u32 << s) - 1);
            g.b.xor(y, y, x);
            y
        } else {
            x
        };
        g.b.shr(dst, y, s + 1);
        if s > 0 {
            g.b.shl(dst, dst, s);
            g.b.and(lo, y, (1u32 << s) - 1);
            g.b.add(dst, dst, lo);
        }
        g.b.shl(bit, bit, g.cfg.block_threads.trailing_zeros());
        g.b.add(dst, dst, bit);
    }

    /// Writes both vectors to their slots for the next step (`None`:
    /// natural order), with the swizzle when configured.
    pub fn write(&mut self, g: &mut Gen, next: Option<(u32, bool)>) {
        let (s1, s2) = self.addr;
        let mut swap = self.back;
        match (self.at, next) {
            // The common case, a half step after a half step of the same
            // stage, in closed form: with b = bit s of t,
            // P(x1) = t + b (G - 2^s) and P(x2) = P(x1) + 2^s.
            (Some((sa, false)), Some((s, false))) if sa == s + 1 => {
                let b = self.tmp[0];
                if s == 0 {
                    g.b.and(b, self.t, 1u32);
                } else {
                    g.b.shr(b, self.t, s);
                    g.b.and(b, b, 1u32);
                }
                if swap.is_some() {
                    g.b.setp_ne(self.upper, b, 0u32);
                    swap = Some(self.upper);
                }
                g.b.mul(b, b, g.cfg.block_threads - (1 << s));
                g.b.add(s1, self.t, b);
                g.b.add(s2, s1, 1u32 << s);
            }
            (at, next) => {
                if let Some((sa, flip)) = at {
                    g.insert0(self.x1, self.t, sa);
                    g.partner(self.x2, self.x1, sa, flip);
                }
                match next {
                    Some((s, flip)) => {
                        self.permuted(g, s1, self.x1, s, flip);
                        self.permuted(g, s2, self.x2, s, flip);
                    }
                    None => {
                        g.b.mov(s1, self.x1);
                        g.b.mov(s2, self.x2);
                    }
                }
            }
        }
        g.slot_addr(s1, s1);
        g.slot_addr(s2, s2);
        match swap {
            Some(q) => {
                let (f, s) = (self.sw.0.clone(), self.sw.1.clone());
                for j in 0..self.a.len() {
                    g.b.selp(f[j], self.b[j], self.a[j], q);
                    g.b.selp(s[j], self.a[j], self.b[j], q);
                }
                let [.., fa, sa] = self.tmp;
                g.b.selp(fa, s2, s1, q);
                g.b.selp(sa, s1, s2, q);
                g.st_shared_vec(fa, &f);
                g.st_shared_vec(sa, &s);
            }
            None => {
                let (a, b) = (self.a.clone(), self.b.clone());
                g.st_shared_vec(s1, &a);
                g.st_shared_vec(s2, &b);
            }
        }
    }

    /// One shared step at vector stride `2^s`: barrier (unless `first`:
    /// nothing was read from shared memory yet), write-back for it,
    /// barrier, read slots `t` and `t + G`, compare-exchange.
    pub fn shared_step(&mut self, g: &mut Gen, s: u32, flip: bool, first: bool) {
        if !first {
            g.b.bar_sync();
        }
        self.write(g, Some((s, flip)));
        g.b.bar_sync();
        let (a, b) = (self.a.clone(), self.b.clone());
        g.ld_shared_vec(&a, self.read.0);
        g.ld_shared_vec(&b, self.read.1);
        self.at = Some((s, flip));
        g.cmpx_vectors(&a, &b, flip);
    }

    /// The in-vector steps ending stage `k` on both vectors.
    pub fn vector_steps(&mut self, g: &mut Gen, k: u32) {
        let (a, b) = (self.a.clone(), self.b.clone());
        g.vector_stage(&a, k);
        g.vector_stage(&b, k);
    }

    /// Writes the tile back in natural order and stores it to global
    /// memory (coalesced: thread `t` stores vectors `t` and `t + ntid`),
    /// `base` the tile's first global vector.
    pub fn store_tile(&mut self, g: &mut Gen, base: Reg) {
        g.b.bar_sync();
        self.write(g, None);
        g.b.bar_sync();
        let (s1, s2) = self.addr;
        let nt = self.tmp[0];
        g.b.mov(nt, Special::NtidX);
        g.b.add(self.x2, self.t, nt);
        g.slot_addr(s1, self.t);
        g.slot_addr(s2, self.x2);
        let (a, b) = (self.a.clone(), self.b.clone());
        g.ld_shared_vec(&a, s1);
        g.ld_shared_vec(&b, s2);
        let x = g.b.reg32();
        g.b.add(x, base, self.t);
        let addr = g.vector_addr(x);
        g.st_global_vec(addr, &a);
        g.b.add(x, base, self.x2);
        g.vector_addr_into(addr, x);
        g.st_global_vec(addr, &b);
    }

    /// Loads vectors `t` and `t + ntid` of the tile starting at global
    /// vector `base` (coalesced) and sets `x1`, `x2` to them.
    pub fn load_tile(&mut self, g: &mut Gen, base: Reg) {
        let nt = g.b.reg32();
        g.b.mov(nt, Special::NtidX);
        g.b.mov(self.x1, self.t);
        g.b.add(self.x2, self.t, nt);
        let x = g.b.reg32();
        g.b.add(x, base, self.x1);
        let addr = g.vector_addr(x);
        let (a, b) = (self.a.clone(), self.b.clone());
        g.ld_global_vec(&a, addr);
        g.b.add(x, base, self.x2);
        g.vector_addr_into(addr, x);
        g.ld_global_vec(&b, addr);
    }
}
