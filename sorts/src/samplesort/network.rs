//! The slot addresses of the shared bitonic network
//! ([`super::emit::Gen::shared_bitonic`]), computed as ptxas computes
//! them: each distance's lower slot of pair `tid` once, in a register of
//! its own, and every other address in one of two spare sets while the
//! comparator before it waits for its loads.

use super::emit::Gen;
use kernels_ir::Reg;

/// Where one comparator's two keys lie: byte addresses `lo + lo_off` and
/// `hi + hi_off` in shared memory.
#[derive(Clone, Copy, Debug)]
pub struct Slots {
    pub lo: Reg,
    pub lo_off: i32,
    pub hi: Reg,
    pub hi_off: i32,
}

/// The address registers of one network.
pub struct Network {
    tid: Reg,
    base: i32,
    threads: u32,
    shift: u32,
    /// Per distance exponent `d`: the byte offset of pair `tid`'s lower
    /// slot, `(2 tid - (tid & (2^d - 1))) * key_bytes`, once computed.
    lower: Vec<Option<Reg>>,
    /// Two sets of (lower, upper) registers for the addresses used by one
    /// comparator only: the mirror of a stage's first step, and the slots
    /// of pairs beyond the first at distances above `threads`. The next
    /// comparator's set is computed while this one's is still in use.
    spare: [[Reg; 2]; 2],
    next: usize,
    /// Two scratch registers of the arithmetic.
    i: Reg,
    t: Reg,
    /// The slots of the current step's pair 0.
    step: Option<Slots>,
}

impl Network {
    /// The registers for a network over `slots` keys at byte `base` of
    /// shared memory, `%tid.x` in `tid`, with `threads` threads.
    pub fn new(g: &mut Gen, tid: Reg, base: u32, slots: u32, threads: u32) -> Network {
        let lg = slots.trailing_zeros() as usize;
        Network {
            tid,
            base: base as i32,
            threads,
            shift: g.kb_shift(),
            lower: vec![None; lg],
            spare: [[g.b.reg32(), g.b.reg32()], [g.b.reg32(), g.b.reg32()]],
            next: 0,
            i: g.b.reg32(),
            t: g.b.reg32(),
            step: None,
        }
    }

    /// Emits what comparator `(s, d, r)` (stage `s`, distance `2^d`, pair
    /// `tid + r * threads`) needs beyond the registers it already has,
    /// and returns its slots.
    pub fn prepare(&mut self, g: &mut Gen, (s, d, r): (u32, u32, u32)) -> Slots {
        let dist = 1u32 << d;
        let flip = d + 1 == s;
        if dist <= self.threads && r > 0 {
            // 2 r threads slots after pair 0's, whose registers are live
            // for the whole step.
            let at = self.step.expect("pair 0 comes first");
            let off = ((2 * r * self.threads) << self.shift) as i32;
            return Slots {
                lo_off: at.lo_off + off,
                hi_off: at.hi_off + off,
                ..at
            };
        }
        let set = self.spare[self.next];
        let mut used = false;
        let lo = if r == 0 {
            self.lower(g, d)
        } else {
            let (i, t, lo) = (self.i, self.t, set[0]);
            g.b.add(i, self.tid, r * self.threads);
            g.b.and(t, i, dist - 1);
            g.b.shl(lo, i, 1u32);
            g.b.sub(lo, lo, t);
            g.b.shl(lo, lo, self.shift);
            used = true;
            lo
        };
        let at = if flip {
            // The mirror in the block of 2^s: lo ^ (2^s - 1), in bytes.
            let hi = set[1];
            g.b.xor(hi, lo, ((1u32 << s) - 1) << self.shift);
            used = true;
            Slots {
                lo,
                lo_off: self.base,
                hi,
                hi_off: self.base,
            }
        } else {
            let hi_off = self.base + (dist << self.shift) as i32;
            Slots {
                lo,
                lo_off: self.base,
                hi: lo,
                hi_off,
            }
        };
        if used {
            self.next ^= 1;
        }
        if r == 0 {
            self.step = Some(at);
        }
        at
    }

    /// The register of pair `tid`'s lower slot at distance `2^d`,
    /// computed at its first use.
    fn lower(&mut self, g: &mut Gen, d: u32) -> Reg {
        if let Some(lo) = self.lower[d as usize] {
            return lo;
        }
        let lo = g.b.reg32();
        if d == 0 {
            g.b.shl(lo, self.tid, 1 + self.shift);
        } else {
            g.b.and(self.t, self.tid, (1u32 << d) - 1);
            g.b.shl(lo, self.tid, 1u32);
            g.b.sub(lo, lo, self.t);
            g.b.shl(lo, lo, self.shift);
        }
        self.lower[d as usize] = Some(lo);
        lo
    }
}
