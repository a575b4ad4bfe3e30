//! The compact binary encoding of events inside a chunk.
//!
//! Each event is a tag byte followed by its fields as LEB128 varints; the
//! cycle is stored as the zig-zag difference from the previous event's cycle
//! in the same chunk (usually 0 or 1, so one byte). Chunks are then LZ4
//! compressed by the writer. Decoding checks every tag, length and range,
//! so corrupt bytes give [`TraceError::Corrupt`], never a panic or a huge
//! allocation.

use crate::format::MAX_LABEL_BYTES;
use crate::{AccessKind, CounterSample, Event, RegClass, RegRef, StallReason, TraceError};

/// The widest warp the format holds (lane masks are `u64`).
pub const MAX_LANES: usize = 64;

/// The most banks a shared access may list (a sanity bound for readers).
pub const MAX_BANKS: usize = 4096;

const KERNEL_LAUNCH: u8 = 0;
const KERNEL_END: u8 = 1;
const BLOCK_START: u8 = 2;
const BLOCK_END: u8 = 3;
const ISSUE: u8 = 4;
const STALL: u8 = 5;
const SHARED: u8 = 6;
const GLOBAL: u8 = 7;
const BAR_ARRIVE: u8 = 8;
const BAR_RELEASE: u8 = 9;
const REG_WRITE: u8 = 10;
const COUNTERS: u8 = 11;

/// Checks that an event can be encoded and read back unchanged.
pub fn validate(e: &Event) -> Result<(), TraceError> {
    let bad = |m: String| Err(TraceError::InvalidEvent(m));
    match e {
        Event::KernelLaunch { label, .. } if label.len() > MAX_LABEL_BYTES => bad(format!(
            "a launch label of {} bytes (at most {MAX_LABEL_BYTES})",
            label.len()
        )),
        Event::SharedAccess { words_per_bank, .. } if words_per_bank.len() > MAX_BANKS => {
            bad(format!(
                "{} banks in a shared access (at most {MAX_BANKS})",
                words_per_bank.len()
            ))
        }
        Event::SharedAccess { addrs, active, .. } if addrs.len() > MAX_LANES => bad(format!(
            "{} lanes in a shared access (at most {MAX_LANES}, mask {active:#x})",
            addrs.len()
        )),
        Event::SharedAccess { addrs, active, .. }
            if addrs.len() < MAX_LANES && active >> addrs.len() != 0 =>
        {
            bad(format!(
                "shared access mask {active:#x} names lanes beyond {}",
                addrs.len()
            ))
        }
        Event::RegWrite { values, mask, .. } => {
            if values.len() > MAX_LANES {
                return bad(format!(
                    "{} lanes in a register write (at most {MAX_LANES})",
                    values.len()
                ));
            }
            if values.len() < MAX_LANES && mask >> values.len() != 0 {
                return bad(format!(
                    "write mask {mask:#x} names lanes beyond {}",
                    values.len()
                ));
            }
            Ok(())
        }
        Event::Counters { sample, .. } if sample.stall_warp_cycles.len() > StallReason::COUNT => {
            bad(format!(
                "{} stall counters (there are {} reasons)",
                sample.stall_warp_cycles.len(),
                StallReason::COUNT
            ))
        }
        Event::Stall { reason, cycles, .. } if *reason == StallReason::Selected || *cycles == 0 => {
            bad(format!(
                "a stall charge of {cycles} cycles of {reason} (issues are Issue events; a charge \
                 is at least 1 cycle)"
            ))
        }
        _ => Ok(()),
    }
}

/// Appends events to a chunk buffer.
#[derive(Debug, Default)]
pub struct Encoder {
    prev_cycle: u64,
}

impl Encoder {
    /// Starts a new chunk (cycle deltas restart from 0).
    pub fn reset(&mut self) {
        self.prev_cycle = 0;
    }

    /// Appends `e` (already validated) to `out`.
    pub fn encode(&mut self, e: &Event, out: &mut Vec<u8>) {
        let cycle = e.cycle();
        let delta = cycle.wrapping_sub(self.prev_cycle) as i64;
        self.prev_cycle = cycle;
        let tag = match e {
            Event::KernelLaunch { .. } => KERNEL_LAUNCH,
            Event::KernelEnd { .. } => KERNEL_END,
            Event::BlockStart { .. } => BLOCK_START,
            Event::BlockEnd { .. } => BLOCK_END,
            Event::Issue { .. } => ISSUE,
            Event::Stall { .. } => STALL,
            Event::SharedAccess { .. } => SHARED,
            Event::GlobalRequest { .. } => GLOBAL,
            Event::BarrierArrive { .. } => BAR_ARRIVE,
            Event::BarrierRelease { .. } => BAR_RELEASE,
            Event::RegWrite { .. } => REG_WRITE,
            Event::Counters { .. } => COUNTERS,
        };
        out.push(tag);
        put(out, ((delta << 1) ^ (delta >> 63)) as u64);
        match e {
            Event::KernelLaunch {
                launch,
                kernel,
                grid,
                block,
                label,
                ..
            } => {
                put_all(out, &[*launch, *kernel]);
                put_all(out, grid);
                put_all(out, block);
                put(out, label.len() as u64);
                out.extend_from_slice(label.as_bytes());
            }
            Event::KernelEnd { launch, .. } => put(out, u64::from(*launch)),
            Event::BlockStart { sm, block, .. } | Event::BlockEnd { sm, block, .. } => {
                put_all(out, &[*sm, *block])
            }
            Event::Issue {
                sm,
                sched,
                block,
                warp,
                pc,
                active,
                slots,
                ..
            } => {
                put_all(out, &[*sm, *sched, *block, *warp, *pc]);
                // Full warps are the common case: store the inactive lanes.
                put(out, !*active);
                put(out, u64::from(*slots));
            }
            Event::Stall {
                sm,
                block,
                warp,
                pc,
                reason,
                cycles,
                ..
            } => {
                put_all(out, &[*sm, *block, *warp, *pc]);
                out.push(reason.index() as u8);
                put(out, *cycles);
            }
            Event::SharedAccess {
                sm,
                block,
                warp,
                pc,
                kind,
                wavefronts,
                conflicts,
                words_per_bank,
                bytes,
                active,
                addrs,
                ..
            } => {
                put_all(out, &[*sm, *block, *warp, *pc, kind.code()]);
                put_all(out, &[*wavefronts, *conflicts]);
                put(out, words_per_bank.len() as u64);
                out.extend_from_slice(words_per_bank);
                // Version 3: the width, then the active lanes' addresses
                // (as a register write stores its values).
                put(out, u64::from(*bytes));
                put(out, addrs.len() as u64);
                put(out, *active);
                for (lane, a) in addrs.iter().enumerate() {
                    if active >> lane & 1 == 1 {
                        put(out, *a);
                    }
                }
            }
            Event::GlobalRequest {
                sm,
                block,
                warp,
                pc,
                is_store,
                sectors,
                ..
            } => {
                put_all(
                    out,
                    &[*sm, *block, *warp, *pc, u32::from(*is_store), *sectors],
                );
            }
            Event::BarrierArrive {
                sm, block, warp, ..
            } => put_all(out, &[*sm, *block, *warp]),
            Event::BarrierRelease { sm, block, .. } => put_all(out, &[*sm, *block]),
            Event::RegWrite {
                block,
                warp,
                reg,
                mask,
                values,
                ..
            } => {
                put_all(out, &[*block, *warp]);
                out.push(reg.class.code());
                put(out, u64::from(reg.index));
                put(out, values.len() as u64);
                put(out, *mask);
                for (lane, v) in values.iter().enumerate() {
                    if mask >> lane & 1 == 1 {
                        put(out, *v);
                    }
                }
            }
            Event::Counters { sm, sample, .. } => {
                put(out, u64::from(*sm));
                for v in [
                    sample.inst_issued,
                    sample.smem_wavefronts,
                    sample.smem_bank_conflicts,
                    sample.gmem_requests,
                    sample.gmem_sectors,
                ] {
                    put(out, v);
                }
                put(out, sample.stall_warp_cycles.len() as u64);
                for v in &sample.stall_warp_cycles {
                    put(out, *v);
                }
            }
        }
    }
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_all(out: &mut Vec<u8>, vs: &[u32]) {
    for v in vs {
        put(out, u64::from(*v));
    }
}

/// Reads events back from a decompressed chunk.
#[derive(Debug)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    prev_cycle: u64,
    /// The file's format version: version 1 launches have no label.
    version: u32,
}

impl<'a> Decoder<'a> {
    /// A decoder over one chunk's bytes of the newest format.
    #[cfg(test)]
    pub fn new(buf: &'a [u8]) -> Self {
        Decoder::resume(buf, (0, 0), crate::FORMAT_VERSION)
    }

    /// A decoder of format `version` continuing at `state` (from
    /// [`Decoder::state`]).
    pub fn resume(buf: &'a [u8], (pos, prev_cycle): (usize, u64), version: u32) -> Self {
        Decoder {
            buf,
            pos,
            prev_cycle,
            version,
        }
    }

    /// Where the decoder is: byte position and previous event's cycle.
    pub fn state(&self) -> (usize, u64) {
        (self.pos, self.prev_cycle)
    }

    /// Whether every byte has been read.
    #[cfg(test)]
    pub fn is_done(&self) -> bool {
        self.pos >= self.buf.len()
    }

    fn corrupt(&self, what: &str) -> TraceError {
        TraceError::corrupt(format!("{what} at byte {} of an event chunk", self.pos))
    }

    fn byte(&mut self) -> Result<u8, TraceError> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| self.corrupt("event cut short"))?;
        self.pos += 1;
        Ok(b)
    }

    #[inline]
    fn u64(&mut self) -> Result<u64, TraceError> {
        // Fast paths: most fields are below 128 and take one byte; cycle
        // deltas within one block's chunk (format 4) often take two.
        match self.buf.get(self.pos..self.pos + 2) {
            Some(&[b, _]) if b < 0x80 => {
                self.pos += 1;
                return Ok(u64::from(b));
            }
            Some(&[b0, b1]) if b1 < 0x80 => {
                self.pos += 2;
                return Ok(u64::from(b0 & 0x7f) | (u64::from(b1) << 7));
            }
            _ => {}
        }
        self.u64_slow()
    }

    fn u64_slow(&mut self) -> Result<u64, TraceError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(self.corrupt("varint overflows 64 bits"));
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.corrupt("varint longer than 10 bytes"))
    }

    fn u32(&mut self) -> Result<u32, TraceError> {
        let v = self.u64()?;
        u32::try_from(v).map_err(|_| self.corrupt(&format!("value {v} does not fit 32 bits")))
    }

    fn u32s<const N: usize>(&mut self) -> Result<[u32; N], TraceError> {
        let mut a = [0; N];
        for x in &mut a {
            *x = self.u32()?;
        }
        Ok(a)
    }

    fn bool(&mut self) -> Result<bool, TraceError> {
        match self.u64()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(self.corrupt(&format!("flag value {v}"))),
        }
    }

    /// A lane count (at most [`MAX_LANES`]). Unlike [`Self::len`] it is not
    /// bounded by the bytes left: only the lanes in the mask that follows
    /// carry a value, so an access of 8 lanes near a chunk's end may
    /// rightly be followed by fewer than 8 bytes.
    fn lanes(&mut self) -> Result<usize, TraceError> {
        let n = self.u64()?;
        if n > MAX_LANES as u64 {
            return Err(self.corrupt(&format!("lane count {n}")));
        }
        Ok(n as usize)
    }

    fn len(&mut self, max: usize, what: &str) -> Result<usize, TraceError> {
        let n = self.u64()?;
        if n > max as u64 || n as usize > self.buf.len() - self.pos {
            return Err(self.corrupt(&format!("{what} count {n}")));
        }
        Ok(n as usize)
    }

    /// A launch label: none before format version 2, else a length and
    /// UTF-8 bytes.
    fn label(&mut self) -> Result<String, TraceError> {
        if self.version < 2 {
            return Ok(String::new());
        }
        let n = self.len(MAX_LABEL_BYTES, "label byte")?;
        let bytes = &self.buf[self.pos..self.pos + n];
        let label = std::str::from_utf8(bytes)
            .map_err(|_| self.corrupt("a launch label that is not UTF-8"))?
            .to_string();
        self.pos += n;
        Ok(label)
    }

    /// Decodes the next event; call only while `!is_done()`.
    #[cfg(test)]
    pub fn next_event(&mut self) -> Result<Event, TraceError> {
        loop {
            if let Some(e) = self.next_record()? {
                return Ok(e);
            }
        }
    }

    /// Decodes the next record: an event, or `None` for a record this
    /// crate reads but no longer yields (a stall-reason change of a trace
    /// before format version 3, which is not a charge: see
    /// [`Event::Stall`]). Call only while `!is_done()`.
    pub fn next_record(&mut self) -> Result<Option<Event>, TraceError> {
        let tag = self.byte()?;
        let z = self.u64()?;
        let delta = ((z >> 1) as i64) ^ -((z & 1) as i64);
        let cycle = self.prev_cycle.wrapping_add(delta as u64);
        self.prev_cycle = cycle;
        Ok(Some(match tag {
            KERNEL_LAUNCH => {
                let [launch, kernel] = self.u32s()?;
                Event::KernelLaunch {
                    cycle,
                    launch,
                    kernel,
                    grid: self.u32s()?,
                    block: self.u32s()?,
                    label: self.label()?,
                }
            }
            KERNEL_END => Event::KernelEnd {
                cycle,
                launch: self.u32()?,
            },
            BLOCK_START => {
                let [sm, block] = self.u32s()?;
                Event::BlockStart { cycle, sm, block }
            }
            BLOCK_END => {
                let [sm, block] = self.u32s()?;
                Event::BlockEnd { cycle, sm, block }
            }
            ISSUE => {
                let [sm, sched, block, warp, pc] = self.u32s()?;
                Event::Issue {
                    cycle,
                    sm,
                    sched,
                    block,
                    warp,
                    pc,
                    active: !self.u64()?,
                    slots: if self.version < 3 { 1 } else { self.u32()? },
                }
            }
            STALL if self.version < 3 => {
                let _sm_block_warp: [u32; 3] = self.u32s()?;
                self.reason()?;
                return Ok(None);
            }
            STALL => {
                let [sm, block, warp, pc] = self.u32s()?;
                let reason = self.reason()?;
                let cycles = self.u64()?;
                if reason == StallReason::Selected || cycles == 0 {
                    return Err(self.corrupt(&format!("a stall charge of {cycles} {reason}")));
                }
                Event::Stall {
                    cycle,
                    sm,
                    block,
                    warp,
                    pc,
                    reason,
                    cycles,
                }
            }
            SHARED => self.shared(cycle)?,
            GLOBAL => {
                let [sm, block, warp, pc] = self.u32s()?;
                let is_store = self.bool()?;
                Event::GlobalRequest {
                    cycle,
                    sm,
                    block,
                    warp,
                    pc,
                    is_store,
                    sectors: self.u32()?,
                }
            }
            BAR_ARRIVE => {
                let [sm, block, warp] = self.u32s()?;
                Event::BarrierArrive {
                    cycle,
                    sm,
                    block,
                    warp,
                }
            }
            BAR_RELEASE => {
                let [sm, block] = self.u32s()?;
                Event::BarrierRelease { cycle, sm, block }
            }
            REG_WRITE => self.reg_write(cycle)?,
            COUNTERS => self.counters(cycle)?,
            t => return Err(self.corrupt(&format!("unknown event tag {t}"))),
        }))
    }

    fn reason(&mut self) -> Result<StallReason, TraceError> {
        let code = self.byte()?;
        StallReason::from_index(code.into())
            .ok_or_else(|| self.corrupt(&format!("stall reason code {code}")))
    }

    fn shared(&mut self, cycle: u64) -> Result<Event, TraceError> {
        let [sm, block, warp, pc] = self.u32s()?;
        let code = self.u64()?;
        let kind = AccessKind::from_code(code)
            .ok_or_else(|| self.corrupt(&format!("shared access kind {code}")))?;
        let [wavefronts, conflicts] = self.u32s()?;
        let n = self.len(MAX_BANKS, "bank")?;
        let words_per_bank = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        let (mut bytes, mut active, mut addrs) = (0, 0, Vec::new());
        if self.version >= 3 {
            bytes = self.u32()?;
            let lanes = self.lanes()?;
            active = self.u64()?;
            if lanes < MAX_LANES && active >> lanes != 0 {
                return Err(self.corrupt(&format!("access mask {active:#x} beyond {lanes} lanes")));
            }
            addrs = vec![0; lanes];
            for (lane, a) in addrs.iter_mut().enumerate() {
                if active >> lane & 1 == 1 {
                    *a = self.u64()?;
                }
            }
        }
        Ok(Event::SharedAccess {
            cycle,
            sm,
            block,
            warp,
            pc,
            kind,
            wavefronts,
            conflicts,
            words_per_bank,
            bytes,
            active,
            addrs,
        })
    }

    fn reg_write(&mut self, cycle: u64) -> Result<Event, TraceError> {
        let [block, warp] = self.u32s()?;
        let code = self.byte()?;
        let class = RegClass::from_code(code)
            .ok_or_else(|| self.corrupt(&format!("register class code {code}")))?;
        let index = self.u32()?;
        let n = self.lanes()?;
        let mask = self.u64()?;
        if n < MAX_LANES && mask >> n != 0 {
            return Err(self.corrupt(&format!("write mask {mask:#x} beyond {n} lanes")));
        }
        let mut values = vec![0; n];
        for (lane, v) in values.iter_mut().enumerate() {
            if mask >> lane & 1 == 1 {
                *v = self.u64()?;
            }
        }
        Ok(Event::RegWrite {
            cycle,
            block,
            warp,
            reg: RegRef { class, index },
            mask,
            values,
        })
    }

    fn counters(&mut self, cycle: u64) -> Result<Event, TraceError> {
        let sm = self.u32()?;
        let mut s = CounterSample {
            inst_issued: self.u64()?,
            smem_wavefronts: self.u64()?,
            smem_bank_conflicts: self.u64()?,
            gmem_requests: self.u64()?,
            gmem_sectors: self.u64()?,
            stall_warp_cycles: Vec::new(),
        };
        let n = self.len(StallReason::COUNT, "stall counter")?;
        for _ in 0..n {
            s.stall_warp_cycles.push(self.u64()?);
        }
        Ok(Event::Counters {
            cycle,
            sm,
            sample: s,
        })
    }
}

#[cfg(test)]
mod tests;
