//! The code-generation context of the bitonic kernels: key registers,
//! vector loads and stores (global and shared), compare-exchanges inside a
//! vector and between two vectors, and the index arithmetic of a step.

use super::config::BitonicConfig;
use crate::KernelMarks;
use kernels_ir::{Kernel, KernelBuilder, Opcode, Param, ParamType, Reg, RegList, Special};

/// A kernel under construction.
pub struct Gen<'a> {
    /// The builder.
    pub b: KernelBuilder,
    /// The configuration.
    pub cfg: &'a BitonicConfig,
    /// The keys buffer parameter.
    pub keys: Param,
    /// The key registers and stage starts recorded so far.
    pub marks: KernelMarks,
    /// Two scratch registers, valid only inside one helper call.
    tmp: [Reg; 2],
}

impl<'a> Gen<'a> {
    /// A kernel called `name` with the keys buffer as its first parameter.
    pub fn new(name: &str, cfg: &'a BitonicConfig) -> Gen<'a> {
        let mut b = KernelBuilder::new(name);
        let keys = b.param("keys", ParamType::U64);
        let tmp = [b.reg32(), b.reg32()];
        Gen {
            b,
            cfg,
            keys,
            marks: KernelMarks::default(),
            tmp,
        }
    }

    /// `L`.
    pub fn l(&self) -> u32 {
        self.cfg.vector
    }

    /// `n` fresh key-class registers (32 or 64 bits, as the words).
    pub fn key_regs(&mut self, n: usize) -> Vec<Reg> {
        if self.cfg.key_bits == 32 {
            self.b.regs32(n)
        } else {
            (0..n).map(|_| self.b.reg64()).collect()
        }
    }

    /// The two vectors a thread holds, recorded as the kernel's key
    /// registers (first vector, then second).
    pub fn vectors(&mut self) -> (Vec<Reg>, Vec<Reg>) {
        let l = self.l() as usize;
        let (a, b) = (self.key_regs(l), self.key_regs(l));
        self.marks.key_regs = a.iter().chain(&b).copied().collect();
        (a, b)
    }

    /// Marks the next instruction as the start of stage `label` (a stage
    /// that emitted nothing is replaced by the next one).
    pub fn stage(&mut self, label: impl Into<String>) {
        let pc = self.b.next_pc();
        if self.marks.stages.last().is_some_and(|(at, _)| *at == pc) {
            self.marks.stages.pop();
        }
        self.marks.stages.push((pc, label.into()));
    }

    /// The finished kernel with its marks.
    pub fn finish(mut self) -> (Kernel, KernelMarks) {
        self.b.exit();
        (self.b.build(), self.marks)
    }

    /// The global thread index `ctaid.x * ntid.x + tid.x`.
    pub fn global_thread(&mut self) -> Reg {
        let (t, n) = (self.b.reg32(), self.b.reg32());
        self.b.mov(t, Special::CtaidX);
        self.b.mov(n, Special::NtidX);
        self.b.mul(t, t, n);
        self.b.mov(n, Special::TidX);
        self.b.add(t, t, n);
        t
    }

    /// The byte address of global vector `x` (a vector index).
    pub fn vector_addr(&mut self, x: Reg) -> Reg {
        let d = self.b.reg64();
        self.vector_addr_into(d, x);
        d
    }

    /// [`Gen::vector_addr`] into `d`.
    pub fn vector_addr_into(&mut self, d: Reg, x: Reg) {
        self.b.cvt_u64_u32(d, x);
        self.b.shl(d, d, self.cfg.vector_bytes().trailing_zeros());
        self.b.add(d, d, self.keys);
    }

    /// The registers of chunk `c` of vector `v`.
    fn chunk<'r>(&self, v: &'r [Reg], c: u32) -> &'r [Reg] {
        let per = (self.cfg.chunk_bytes() / self.cfg.key_bytes()) as usize;
        &v[c as usize * per..(c as usize + 1) * per]
    }

    /// The opcode of a vector chunk access.
    fn chunk_op(&self, global: bool, load: bool) -> Opcode {
        use Opcode::*;
        match (global, load, self.cfg.chunk_bytes()) {
            (true, true, 4) => LdGlobalB32,
            (true, true, 8) => LdGlobalB64,
            (true, true, _) => LdGlobalB128,
            (true, false, 4) => StGlobalB32,
            (true, false, 8) => StGlobalB64,
            (true, false, _) => StGlobalB128,
            (false, true, 4) => LdSharedB32,
            (false, true, 8) => LdSharedB64,
            (false, true, _) => LdSharedB128,
            (false, false, 4) => StSharedB32,
            (false, false, 8) => StSharedB64,
            (false, false, _) => StSharedB128,
        }
    }

    /// Loads the vector at global byte address `addr` into `v`.
    pub fn ld_global_vec(&mut self, v: &[Reg], addr: Reg) {
        let (cb, op) = (self.cfg.chunk_bytes(), self.chunk_op(true, true));
        for c in 0..self.cfg.chunks() {
            let regs = RegList::new(self.chunk(v, c));
            self.b.load(op, regs, Some(addr), (c * cb) as i32);
        }
    }

    /// Stores `v` at global byte address `addr`.
    pub fn st_global_vec(&mut self, addr: Reg, v: &[Reg]) {
        let (cb, op) = (self.cfg.chunk_bytes(), self.chunk_op(true, false));
        for c in 0..self.cfg.chunks() {
            let regs = RegList::new(self.chunk(v, c));
            self.b.store(op, Some(addr), (c * cb) as i32, regs);
        }
    }

    /// Bytes from one shared plane to the next: chunk `c` of every vector
    /// slot lies in plane `c`, so each access of a vector is one
    /// contiguous run across the lanes (no 2-way conflict from 32-byte
    /// vectors, `peers.md` 2.5).
    pub fn plane_bytes(&self) -> u32 {
        2 * self.cfg.block_threads * self.cfg.chunk_bytes()
    }

    /// The shared byte address of vector slot `slot` (chunk 0).
    pub fn slot_addr(&mut self, dst: Reg, slot: Reg) {
        self.b
            .shl(dst, slot, self.cfg.chunk_bytes().trailing_zeros());
    }

    /// Loads the vector in the shared slot at byte address `addr` into `v`.
    pub fn ld_shared_vec(&mut self, v: &[Reg], addr: Reg) {
        let (pb, op) = (self.plane_bytes(), self.chunk_op(false, true));
        for c in 0..self.cfg.chunks() {
            let regs = RegList::new(self.chunk(v, c));
            self.b.load(op, regs, Some(addr), (c * pb) as i32);
        }
    }

    /// Stores `v` to the shared slot at byte address `addr`.
    pub fn st_shared_vec(&mut self, addr: Reg, v: &[Reg]) {
        let (pb, op) = (self.plane_bytes(), self.chunk_op(false, false));
        for c in 0..self.cfg.chunks() {
            let regs = RegList::new(self.chunk(v, c));
            self.b.store(op, Some(addr), (c * pb) as i32, regs);
        }
    }

    /// `x1 = insert0(t, s)`: `t` with a zero bit inserted at bit `s` (the
    /// lower vector of thread `t`'s pair at vector stride `2^s`), for a
    /// stride known when generating.
    pub fn insert0(&mut self, dst: Reg, t: Reg, s: u32) {
        if s == 0 {
            self.b.shl(dst, t, 1u32);
            return;
        }
        let lo = self.tmp[0];
        self.b.shr(dst, t, s);
        self.b.shl(dst, dst, s + 1);
        self.b.and(lo, t, (1u32 << s) - 1);
        self.b.add(dst, dst, lo);
    }

    /// The partner `x2` of `x1` at vector stride `2^s`: `x1 + 2^s` for a
    /// half step, the mirror `x1 ^ (2^(s+1) - 1)` for a flip.
    pub fn partner(&mut self, dst: Reg, x1: Reg, s: u32, flip: bool) {
        if flip {
            self.b.xor(dst, x1, (2u32 << s) - 1);
        } else {
            self.b.add(dst, x1, 1u32 << s);
        }
    }

    /// One compare-exchange per key of the vector pair: key `j` of `a`
    /// against key `j` of `b` (half step) or key `L-1-j` (flip: `b` is the
    /// mirror of `a`). `a` takes the minima.
    pub fn cmpx_vectors(&mut self, a: &[Reg], b: &[Reg], flip: bool) {
        let l = a.len();
        for (j, &lo) in a.iter().enumerate() {
            let k = if flip { l - 1 - j } else { j };
            self.b.cmpx_u(lo, b[k]);
        }
    }

    /// The in-vector steps of stage `k` (runs of `2^k` keys) on `v`: the
    /// flip at distance `2^(k-1)` when the stage's runs fit the vector,
    /// then the half steps `min(2^(k-2), L/2) .. 1`.
    pub fn vector_stage(&mut self, v: &[Reg], k: u32) {
        let l = v.len() as u32;
        let span = 1u32 << k;
        if span <= l {
            for j in 0..l {
                if j & (span / 2) == 0 {
                    self.b.cmpx_u(v[j as usize], v[(j ^ (span - 1)) as usize]);
                }
            }
        }
        let mut d = (span / 4).min(l / 2);
        while d >= 1 {
            for j in 0..l {
                if j & d == 0 {
                    self.b.cmpx_u(v[j as usize], v[(j + d) as usize]);
                }
            }
            d /= 2;
        }
    }
}
