//! The code-generation context the mergesort kernels share: the builder,
//! key-width-aware loads and stores, and the two device functions every
//! merge is made of, moderngpu's `MergePath` search and `SerialMerge`.

use super::config::MergesortConfig;
use crate::KernelMarks;
use kernels_ir::{Kernel, KernelBuilder, Opcode, Param, Reg, RegClass};

/// A kernel under construction.
pub struct Gen<'a> {
    /// The builder.
    pub b: KernelBuilder,
    /// The configuration.
    pub cfg: &'a MergesortConfig,
    /// The key registers and stage starts recorded so far.
    pub marks: KernelMarks,
    /// The merge helpers' registers, allocated at first use and shared by
    /// every call (a kernel may merge lg NT times; the IR allows 7
    /// predicates and 255 register words per thread).
    scratch: Option<Scratch>,
    /// A 64-bit address register for the global search.
    addr64: Option<Reg>,
}

/// Where the lists of a merge-path search lie.
#[derive(Copy, Clone)]
enum Lists {
    Shared,
    Global(Param),
}

/// The registers [`Gen::merge_path_shared`] and [`Gen::serial_merge`] use.
#[derive(Copy, Clone)]
struct Scratch {
    end: Reg,
    mid: Reg,
    t: Reg,
    ka: Reg,
    kb: Reg,
    next: Reg,
    p0: Reg,
    p1: Reg,
    p2: Reg,
}

impl<'a> Gen<'a> {
    /// An empty kernel called `name`.
    pub fn new(name: &str, cfg: &'a MergesortConfig) -> Gen<'a> {
        Gen {
            b: KernelBuilder::new(name),
            cfg,
            marks: KernelMarks::default(),
            scratch: None,
            addr64: None,
        }
    }

    fn scratch(&mut self) -> Scratch {
        if let Some(s) = self.scratch {
            return s;
        }
        let s = Scratch {
            end: self.b.reg32(),
            mid: self.b.reg32(),
            t: self.b.reg32(),
            ka: self.key_reg(),
            kb: self.key_reg(),
            next: self.key_reg(),
            p0: self.b.pred(),
            p1: self.b.pred(),
            p2: self.b.pred(),
        };
        self.scratch = Some(s);
        s
    }

    /// Bytes per key word.
    pub fn kb(&self) -> u32 {
        self.cfg.key_bytes()
    }

    /// log2 of [`Gen::kb`].
    fn kb_shift(&self) -> u32 {
        self.kb().trailing_zeros()
    }

    /// A fresh key register (32- or 64-bit by the key width).
    pub fn key_reg(&mut self) -> Reg {
        if self.cfg.key_bits == 64 {
            self.b.reg(RegClass::B64)
        } else {
            self.b.reg32()
        }
    }

    /// `n` fresh key registers.
    pub fn key_regs(&mut self, n: u32) -> Vec<Reg> {
        (0..n).map(|_| self.key_reg()).collect()
    }

    /// Marks the start of a stage at the next instruction.
    pub fn stage(&mut self, name: impl Into<String>) {
        let pc = self.b.next_pc();
        self.marks.stages.push((pc, name.into()));
    }

    /// `dst = buf + idx * key_bytes` (a 64-bit global address).
    pub fn global_addr(&mut self, dst: Reg, buf: Param, idx: Reg) {
        self.b.cvt_u64_u32(dst, idx);
        let shift = self.kb_shift();
        self.b.shl(dst, dst, shift);
        self.b.add(dst, dst, buf);
    }

    /// `dst = idx * key_bytes` (a shared byte address).
    pub fn shared_addr(&mut self, dst: Reg, idx: Reg) {
        let shift = self.kb_shift();
        self.b.shl(dst, idx, shift);
    }

    /// A global load of one key word.
    pub fn ld_global(&mut self, dst: Reg, addr: Reg, offset: i32) {
        let op = if self.kb() == 8 {
            Opcode::LdGlobalB64
        } else {
            Opcode::LdGlobalB32
        };
        self.b.load(op, dst, Some(addr), offset);
    }

    /// A global store of one key word.
    pub fn st_global(&mut self, addr: Reg, offset: i32, src: Reg) {
        let op = if self.kb() == 8 {
            Opcode::StGlobalB64
        } else {
            Opcode::StGlobalB32
        };
        self.b.store(op, Some(addr), offset, src);
    }

    /// A shared load of one key word.
    pub fn ld_shared(&mut self, dst: Reg, addr: Option<Reg>, offset: i32) {
        let op = if self.kb() == 8 {
            Opcode::LdSharedB64
        } else {
            Opcode::LdSharedB32
        };
        self.b.load(op, dst, addr, offset);
    }

    /// A shared store of one key word.
    pub fn st_shared(&mut self, addr: Option<Reg>, offset: i32, src: Reg) {
        let op = if self.kb() == 8 {
            Opcode::StSharedB64
        } else {
            Opcode::StSharedB32
        };
        self.b.store(op, addr, offset, src);
    }

    /// `p = bound < rem`, signed: with `rem = count - tid`, whether slot
    /// `tid + bound` lies below the count (one compare per slot of a
    /// strided loop, the strength reduction a compiler makes of
    /// `NT*i + tid < count`).
    pub fn below(&mut self, p: Reg, rem: Reg, bound: u32) {
        self.b.binary(Opcode::SetpGtS, p, rem, bound);
    }

    /// Reserves the block's shared memory ([`MergesortConfig::smem_bytes`]).
    pub fn reserve_shared(&mut self) {
        let bytes = self.cfg.smem_bytes() as u32;
        let kb = self.kb();
        self.b.shared(bytes, kb);
    }

    /// The byte address of the thread's first key in thread order,
    /// `VT * tid * key_bytes`.
    pub fn thread_order_base(&mut self, tid: Reg) -> Reg {
        let base = self.b.reg32();
        self.b.mul(base, tid, self.cfg.items_per_thread * self.kb());
        base
    }

    /// Stores `keys` in thread order, `s[VT*tid + i] = keys[i]` (the
    /// transposing access an odd `VT` keeps free of bank conflicts), with
    /// `base` from [`Gen::thread_order_base`].
    pub fn store_thread_order(&mut self, base: Reg, keys: &[Reg]) {
        let kb = self.kb() as i32;
        for (i, &k) in keys.iter().enumerate() {
            self.st_shared(Some(base), i as i32 * kb, k);
        }
    }

    /// Loads `keys` in thread order, `keys[i] = s[VT*tid + i]`.
    pub fn load_thread_order(&mut self, base: Reg, keys: &[Reg]) {
        let kb = self.kb() as i32;
        for (i, &k) in keys.iter().enumerate() {
            self.ld_shared(k, Some(base), i as i32 * kb);
        }
    }

    /// moderngpu's `MergePath` (lower bound) over two sorted lists in
    /// shared memory, A at word `a0` with `a_count` keys and B at word `b0`
    /// with `b_count`: the number of A keys among the first `diag` outputs,
    /// into `p`. Searches `[max(0, diag - b_count), min(diag, a_count))`;
    /// a probe at `mid` compares `B[diag-1-mid]` with `A[mid]` and moves
    /// right while `!(B < A)`, so equal keys come from A first (stable).
    /// A data-dependent loop: at most `ceil(lg(min(a, b) + 1))` probes.
    pub fn merge_path_shared(
        &mut self,
        p: Reg,
        a0: Reg,
        a_count: Reg,
        b0: Reg,
        b_count: Reg,
        diag: Reg,
    ) {
        self.merge_path(p, Lists::Shared, [a0, a_count, b0, b_count], diag);
    }

    /// [`Gen::merge_path_shared`] over lists in global memory (key words
    /// of `buf`): the coarse search of `partition`, a chain of dependent
    /// single-key loads.
    pub fn merge_path_global(&mut self, p: Reg, buf: Param, lists: [Reg; 4], diag: Reg) {
        self.merge_path(p, Lists::Global(buf), lists, diag);
    }

    fn merge_path(&mut self, p: Reg, space: Lists, lists: [Reg; 4], diag: Reg) {
        let [a0, a_count, b0, b_count] = lists;
        let s = self.scratch();
        let (end, mid, t, ka, kb, done) = (s.end, s.mid, s.t, s.ka, s.kb, s.p0);
        // begin = max(0, diag - b_count): counts are below 2^31, so signed.
        self.b.sub(p, diag, b_count);
        self.b.max_s(p, p, 0);
        self.b.min_u(end, diag, a_count);
        let top = self.b.label("search");
        let out = self.b.label("found");
        self.b.bind(top);
        self.b.setp_ge_u(done, p, end);
        self.b.when(done).bra(out);
        self.b.add(mid, p, end);
        self.b.shr(mid, mid, 1);
        self.b.add(t, a0, mid);
        self.load_key(space, ka, t, 0);
        self.b.add(t, b0, diag);
        self.b.sub(t, t, mid);
        self.load_key(space, kb, t, -1);
        // B[diag-1-mid] < A[mid]: the split lies left of mid + 1.
        self.b.setp_lt_u(done, kb, ka);
        self.b.add(t, mid, 1);
        self.b.selp(end, mid, end, done);
        self.b.selp(p, p, t, done);
        self.b.bra(top);
        self.b.bind(out);
    }

    /// Loads key word `idx + delta` of `space` into `dst` (clobbers `idx`).
    fn load_key(&mut self, space: Lists, dst: Reg, idx: Reg, delta: i32) {
        let off = delta * self.kb() as i32;
        match space {
            Lists::Shared => {
                self.shared_addr(idx, idx);
                self.ld_shared(dst, Some(idx), off);
            }
            Lists::Global(buf) => {
                let a = self.addr64();
                self.global_addr(a, buf, idx);
                self.ld_global(dst, a, off);
            }
        }
    }

    /// A 64-bit scratch register for global addresses, shared by helpers.
    fn addr64(&mut self) -> Reg {
        if let Some(r) = self.addr64 {
            return r;
        }
        let r = self.b.reg64();
        self.addr64 = Some(r);
        r
    }

    /// moderngpu's `SerialMerge`, branch-free and fully unrolled: merges
    /// `out.len()` keys from the shared cursors `a` (up to `a_end`) and `b`
    /// (up to `b_end`), all byte addresses, into `out`. The two head keys
    /// stay in registers; each step takes A when `b >= b_end || (a < a_end
    /// && !(B < A))`, advances the chosen cursor and reloads its head with
    /// one load at the selected address (no reload after the last step).
    /// Clobbers `a` and `b`.
    pub fn serial_merge(&mut self, out: &[Reg], a: Reg, a_end: Reg, b: Reg, b_end: Reg) {
        let s = self.scratch();
        let (ka, kb, next, idx) = (s.ka, s.kb, s.next, s.mid);
        let (take_a, a_left, b_done) = (s.p0, s.p1, s.p2);
        let step = self.kb();
        self.ld_shared(ka, Some(a), 0);
        self.ld_shared(kb, Some(b), 0);
        for (i, &o) in out.iter().enumerate() {
            // !(B < A) is A <= B.
            self.b.setp_le_u(take_a, ka, kb);
            self.b.setp_lt_u(a_left, a, a_end);
            self.b.and(take_a, take_a, a_left);
            self.b.setp_ge_u(b_done, b, b_end);
            self.b.or(take_a, take_a, b_done);
            self.b.selp(o, ka, kb, take_a);
            if i + 1 == out.len() {
                break;
            }
            self.b.selp(idx, a, b, take_a);
            self.b.add(idx, idx, step);
            self.b.selp(a, idx, a, take_a);
            self.b.selp(b, b, idx, take_a);
            self.ld_shared(next, Some(idx), 0);
            self.b.selp(ka, next, ka, take_a);
            self.b.selp(kb, kb, next, take_a);
        }
    }

    /// The finished kernel with its marks.
    pub fn finish(mut self) -> (Kernel, KernelMarks) {
        self.b.exit();
        (self.b.build(), self.marks)
    }
}
