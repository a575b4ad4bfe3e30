//! How long one global request holds the SM's L1TEX pipe.
//!
//! **Why.** The L1 data cache and shared memory are one banked SRAM
//! (`smem_banks` banks of `smem_bank_width_bytes`), and a global load or
//! store goes through its data stage as a shared access does: a wavefront
//! delivers one word from each bank, and lanes reading different words of
//! one bank take a wavefront each (Nsight Compute counts these as
//! `l1tex__data_bank_conflicts_pipe_lsu_mem_global_*`). A 128-byte line
//! covers every bank once, so lanes of one line never conflict, but lanes
//! reading the same offset of different lines do. GPUTeraSort's fused
//! `step` reads and writes 16-byte chunks of lines 128 bytes apart (32
//! lines a request, every lane on the same four banks: 32 wavefronts where
//! its 32 sectors pass the tag stage in 8 cycles). On the H200 it runs one
//! block on each of 8 SMs in about 12,000 cycles beyond the launch, with
//! `lg_throttle` and `drain` behind `long_scoreboard`
//! (`hw/data/calib/ts64k.csv`): 256 such requests a SM at 32 cycles each,
//! 8,192 cycles of the SM's pipe. Charged only the tag stage's cycles, the
//! model ran it in about 3,000 (-58%).
//!
//! **The model.** A request passes the tag stage at `lsu_sectors_per_cycle`
//! sectors a cycle, which holds the SM's LSU pipe at issue (warps queue
//! behind it in `lg_throttle`). A load's data stage then takes its
//! wavefronts, one a cycle, SM-wide, as its data returns: from its first
//! line's arrival, after the loads landed before it ([`Sm::data_stage`]),
//! which the H200 shows as `long_scoreboard` (ncu on the ts64k `step`:
//! 8,206 data-stage wavefronts an SM, 32 a request, and 8 tag-stage
//! wavefronts a request). A load whose wavefronts are no more than its tag
//! cycles adds nothing there, the issue having held the pipe that long:
//! coalesced and random accesses are unchanged (a random gather of 32
//! words rarely puts more than three or four on one bank, below its 8
//! tag-stage cycles); only loads whose lanes share offsets across lines
//! pay more.
//!
//! A store's data go through the banks as the LSU sends them, and only
//! where the SM's L1 holds their sectors ([`crate::l1::L1::holds`]): a
//! store that misses L1 writes through to L2 without touching them. The
//! step's stores hit the lines it just loaded (ncu: 100% of its store
//! sectors hit, and the data stage counts 32 wavefronts for each store
//! request as for each load, 8,206 an SM for 128 of each). So a store's
//! wavefronts over the lanes it hits hold the LSU pipe at issue where they
//! are more than its tag cycles ([`Pipe::l1_hits`]). Booking them on the
//! SM-wide data stage instead, where only later loads' returns would wait,
//! moved nothing: the step's loads had landed before its stores issued.
//! Charging every store its conflicts, hit or miss, had made the store
//! suite's random scatters (`sw_1m_b1024`, `sw_64k`, whose lines no load
//! fetched) 3-6 points slower, MAPE 7.9% to 8.4%.

use crate::line_return::Arrivals;
use crate::shared_mem::Banks;
use crate::sm::Sm;

/// What one global request costs the SM's L1TEX pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pipe {
    /// Cycles in the tag stage.
    pub tag: u64,
    /// Wavefronts through the data stage (at least `tag`).
    pub data: u64,
}

impl Pipe {
    /// The cost of a request of `sectors` (ascending, as
    /// [`crate::coalescer::sectors`] gives them; `line_shift` is `log2` of
    /// sectors a line), `bytes` a lane at `addrs` for the lanes of `exec`.
    #[inline]
    pub fn of(
        sectors: &[u64],
        line_shift: u32,
        per_cycle: u64,
        banks: &Banks,
        (addrs, exec, bytes): (&[u64], u64, u32),
    ) -> Pipe {
        let tag = (sectors.len() as u64).div_ceil(per_cycle).max(1);
        // Lanes of one line never conflict: a request needs at most a
        // wavefront a line, so one of no more lines than tag-stage cycles
        // (a coalesced one) is not looked at further.
        if sectors.len() as u64 <= tag
            || u64::from(crate::line_return::lines(sectors, line_shift)) <= tag
        {
            return Pipe { tag, data: tag };
        }
        let data = u64::from(banks.wavefronts(addrs, exec, bytes).wavefronts);
        Pipe {
            tag,
            data: tag.max(data),
        }
    }

    /// Cycles the request holds the LSU pipe at issue: its tag stage.
    #[inline]
    pub fn at_issue(&self) -> u64 {
        self.tag
    }

    /// The wavefronts a request's lanes that hit in the SM's L1 pass
    /// through the data stage: those of its lanes whose sectors the L1
    /// holds (`held`, of a sector number of `sector_bytes`), where they are
    /// more than its tag-stage cycles; 0 otherwise. A store that misses L1
    /// writes through without touching the banks (ncu on the ts64k `step`:
    /// its stores hit 100% in L1, and the data stage counts 32 wavefronts
    /// for each of its load and store requests alike, 8,206 an SM for 128
    /// of each); a load's hits are what `l2_port::Port::hits` charges.
    #[inline]
    pub fn l1_hits(
        &self,
        banks: &Banks,
        (addrs, exec, bytes): (&[u64], u64, u32),
        sector_bytes: u32,
        held: impl Fn(u64) -> bool,
    ) -> u64 {
        if self.data <= self.tag {
            return 0;
        }
        let mut hit = 0u64;
        for (l, &a) in addrs.iter().enumerate() {
            if (exec >> l) & 1 != 0 && held(a / u64::from(sector_bytes)) {
                hit |= 1 << l;
            }
        }
        let data = match hit {
            0 => return 0,
            h if h == exec => self.data,
            h => u64::from(banks.wavefronts(addrs, h, bytes).wavefronts),
        };
        if data > self.tag { data } else { 0 }
    }

    /// The wavefronts a load's data stage adds when its data returns: none
    /// where they are no more than its tag-stage cycles, which the issue
    /// already charged the pipe (every coalesced or random access); none
    /// for a store.
    #[inline]
    pub fn at_return(&self, store: bool) -> u8 {
        if store || self.data <= self.tag {
            0
        } else {
            self.data.min(u64::from(u8::MAX)) as u8
        }
    }
}

impl Sm {
    /// When a load whose lines arrived as `seen` says, and whose last line
    /// is written back at `done`, can be read: its `wavefronts` pass the
    /// SM's data stage one a cycle, from its first arrival or when the
    /// loads landed before it are through.
    #[inline]
    pub(crate) fn data_stage(&mut self, done: u64, seen: &Arrivals, wavefronts: u8) -> u64 {
        if wavefronts == 0 {
            return done;
        }
        let start = self.data_free_at.max(seen.first.min(done));
        self.data_free_at = start + u64::from(wavefronts);
        done.max(self.data_free_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: Banks = Banks {
        banks: 32,
        width: 4,
    };
    const FULL: u64 = 0xFFFF_FFFF;

    /// The data-stage wavefronts of a request (the tag stage's cycles at
    /// least).
    fn pipe(sectors: &[u64], shift: u32, per: u64, banks: &Banks, a: (&[u64], u64, u32)) -> u64 {
        Pipe::of(sectors, shift, per, banks, a).data
    }

    /// The request's 32-byte sectors, as the coalescer gives them.
    fn secs(addrs: &[u64], exec: u64, bytes: u32) -> Vec<u64> {
        let mut out = Vec::new();
        crate::coalescer::sectors(addrs, exec, bytes, 32, &mut out);
        out
    }

    #[test]
    fn sixteen_bytes_a_lane_at_one_offset_of_32_lines_take_32_cycles() {
        let addrs: Vec<u64> = (0..32).map(|l| l * 128 + 0x10).collect();
        assert_eq!(
            pipe(&secs(&addrs, FULL, 16), 2, 4, &H200, (&addrs, FULL, 16)),
            32
        );
    }

    #[test]
    fn coalesced_and_spread_accesses_cost_the_tag_stage() {
        // 32 consecutive 16-byte chunks: 16 sectors, 4 wavefronts.
        let addrs: Vec<u64> = (0..32).map(|l| l * 16).collect();
        assert_eq!(
            pipe(&secs(&addrs, FULL, 16), 2, 4, &H200, (&addrs, FULL, 16)),
            4
        );
        // 32 words in 32 lines at 32 different offsets: no two lanes on
        // one bank, so the tag stage's 8 cycles.
        let addrs: Vec<u64> = (0..32).map(|l| l * 132).collect();
        assert_eq!(
            pipe(&secs(&addrs, FULL, 4), 2, 4, &H200, (&addrs, FULL, 4)),
            8
        );
        // One sector.
        assert_eq!(
            pipe(
                &secs(&[0, 4, 8], 0b111, 4),
                2,
                4,
                &H200,
                (&[0, 4, 8], 0b111, 4)
            ),
            1
        );
    }

    #[test]
    fn words_of_one_bank_in_many_lines_take_a_wavefront_each() {
        // 32-bit words 128 bytes apart: one bank, 32 words.
        let addrs: Vec<u64> = (0..32).map(|l| l * 128).collect();
        assert_eq!(
            pipe(&secs(&addrs, FULL, 4), 2, 4, &H200, (&addrs, FULL, 4)),
            32
        );
        // Only half the lanes active: 16.
        assert_eq!(
            pipe(&secs(&addrs, 0xFFFF, 4), 2, 4, &H200, (&addrs, 0xFFFF, 4)),
            16
        );
    }

    #[test]
    fn only_a_conflicting_load_adds_wavefronts_when_its_data_returns() {
        let step: Vec<u64> = (0..32).map(|l| l * 128).collect();
        let p = Pipe::of(&secs(&step, FULL, 16), 2, 4, &H200, (&step, FULL, 16));
        assert_eq!((p.at_issue(), p.at_return(false)), (8, 32));
        assert_eq!(p.at_return(true), 0, "a store pays its tag stage only");
        let coalesced: Vec<u64> = (0..32).map(|l| l * 4).collect();
        let p = Pipe::of(
            &secs(&coalesced, FULL, 4),
            2,
            4,
            &H200,
            (&coalesced, FULL, 4),
        );
        assert_eq!((p.at_issue(), p.at_return(false)), (1, 0));
    }

    #[test]
    fn a_conflicting_store_passes_the_data_stage_only_for_lanes_held_in_l1() {
        // The fused step's store: 16 bytes at one offset of 32 lines.
        let step: Vec<u64> = (0..32).map(|l| l * 128 + 0x10).collect();
        let p = Pipe::of(&secs(&step, FULL, 16), 2, 4, &H200, (&step, FULL, 16));
        let a = (&step[..], FULL, 16);
        assert_eq!(p.l1_hits(&H200, a, 32, |_| true), 32);
        assert_eq!(p.l1_hits(&H200, a, 32, |_| false), 0, "a miss");
        // Half the lines held: 16 wavefronts, more than the 8 tag cycles.
        assert_eq!(p.l1_hits(&H200, a, 32, |s| s % 8 < 4), 16);
        // A quarter: 8, no more than the tag stage took.
        assert_eq!(p.l1_hits(&H200, a, 32, |s| s % 16 < 4), 0);
        // A coalesced store adds nothing, held or not.
        let c: Vec<u64> = (0..32).map(|l| l * 4).collect();
        let p = Pipe::of(&secs(&c, FULL, 4), 2, 4, &H200, (&c, FULL, 4));
        assert_eq!(p.l1_hits(&H200, (&c, FULL, 4), 32, |_| true), 0);
    }
}
