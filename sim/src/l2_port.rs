//! The SM's port to L2 (`l1tex2xbar`): every request that leaves the SM
//! for L2 passes it, one after another.
//!
//! **Why.** `hw/calib/suite_xbar.txt` (`hw/calib/kernels/xbar.kir`, 8
//! warps on each of 8 SMs, measured on the H200 with the port's counters,
//! `hw/data/h200/ncu/xbar_port/`) counts the cycles an SM's port is busy
//! (`l1tex__m_l1tex2xbar_req_cycles_active.max`) against what it sent
//! (`l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st`,
//! `l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld`): 8,194 cycles for
//! 8,192 whole sectors written (`xb_s_c`), 32,770 for 16,384 sectors
//! written in half (`xb_s_p`: 16 bytes a lane, lanes a line apart, as
//! GPUTeraSort's fused `step` stores), 1,026 for reads of 2,048 lines
//! (`xb_l_c`) and 4,098 for 8,192 lines of one sector each (`xb_l_p`);
//! the mixes add up (`xb_ls_c` 9,218 = 1,024 + 8,192; `xb_ls_p` 36,866 =
//! 4,096 + 32,768; the ts64k `step`, `tail` and `head` 9,216 an SM each
//! for 2,048 read lines and 4,096 half sectors,
//! `hw/data/h200/ncu/ts64k_head_step_tail_full.csv`). So a write holds
//! the port a cycle a whole sector and two a line written in part (every
//! part measured here had a line of its own in its request), a read
//! request half a cycle a line, whatever the number of SMs (one SM
//! alone, `xb_s_p_b1`, takes the same 32,770). Where it is the bound the
//! SM's time follows it: `xb_s_p` runs 35,089 active cycles, `xb_s_c`
//! 8,731. Charged only the LSU's 4 sectors a cycle, stores ran 43-77% fast
//! there and the ts64k `step` 32%.
//!
//! **The model.** Each SM keeps when its port is next free, in ticks of
//! `1 / l2_port_reads_per_cycle` cycles. A request that sends anything to
//! L2 (a store's sectors after the store-combining buffer, a load's lines
//! that missed L1) waits for the port from when the LSU passes it and
//! then holds it for its writes (`l2_port_write_cycles` a whole sector,
//! `l2_port_partial_write_cycles` a part) and read requests
//! (`l2_port_reads_per_cycle`). What it waited (`Pending::delay`) comes
//! after the partitions' timing: a load's data land that much later, and
//! the launch ends no earlier than its last store has left the port. The
//! warps go on meanwhile, as on the H200, whose `step` warps wait on
//! their loads (`long_scoreboard`) and at exit (`drain`), not in
//! `lg_throttle`. Tried and left: holding the LSU until the port had
//! sent the request before (warps then queued in `lg_throttle`: the
//! terasort suite's top stall agreed in 401 launches, not 430, and
//! `suite_parts.txt` went from 38.3% to 41.1%), and handing the
//! partitions the request's sectors only when the port sent them (the
//! partitions time requests in issue order, so a request issued early
//! and sent late held their queues for other SMs' requests sent before
//! it: `sw_1m_b1024` of `hw/calib/suite_stores.txt` went from +9% to
//! +39%, `suite_parts.txt` from 38.3% to 39.1%).
//!
//! **The L2's share.** One SM alone sends its whole lines at its port's
//! pace, 4.0 cycles a line; with all 132 SMs storing at once the H200's
//! L2 takes 2,170 bytes a cycle over the GPU, 7.8 cycles a line an SM,
//! and the ports wait for it (`hw/store_queue.cu`,
//! `hw/data/h200/store_queue/`). So for a launch a whole sector's write
//! holds the port at least `sector_bytes x busy SMs /
//! l2_store_bytes_per_cycle` cycles, the busy SMs being those its grid
//! fills (`min(num_sms, blocks)`), rounded up to a tick: 2 cycles from
//! 102 SMs (1.95 at 132), 1.5 from 68, the port's own 1 up to 67. A line
//! written in part still takes `l2_port_partial_write_cycles` at least.
//! It is the SM's share whether or not the others store at that moment,
//! which the model does not follow: whole sectors stored from every SM at
//! once (`xb_s_c_b132` of `hw/calib/suite_xbar.txt`) run 12.9% long, the
//! H200's L2 taking them faster there. Over the H200's sort suites it
//! took `suite.txt` from 4.37% to 3.89% cycle MAPE and the kept-apart
//! `suite_wide.txt` from 5.30% to 4.87%; charging every launch 2 cycles a
//! sector instead (`l2_port_write_cycles = 2`) slowed HotSort's 64K-key
//! sorts, whose few blocks never share the L2 with 132 SMs, by up to 13%
//! (docs/calibration.md, "The L2's share of stores").
//!
//! **Loads that hit L1 hold it.** A load whose lanes hit in L1 in more
//! data-stage wavefronts than its tag cycles (lanes on one bank in many
//! lines, as GPUTeraSort's fused `step` reads) holds the port a cycle a
//! wavefront ([`Port::hits`]): the data stage that passes them is the one
//! that reads the stores' data out to the port, which sends nothing
//! meanwhile. `hw/data/h200/ncu/xbar_mix/` (its README has the table)
//! tells it from the alternatives: the step's loads and stores on the
//! same lines every round, so that from the second round every load hits
//! L1 (`xb_ls_p_r0`), run 51,483 active cycles an SM on the H200 while
//! the port is busy 33,570 and the data stage 33,182: the hits'
//! wavefronts (14,336 after the first round) and the stores' sends
//! (32,768) in turn. Stores on lines no load reads (`xa_ls_p`) take as
//! long as on the lines the round loaded (48,157 and 48,569 cycles), so
//! it is not stores meeting fills in flight; 4 warps an SM (`xb_ls_p_w4`)
//! take half the time of 8, so it is a rate, not a latency. Loads that
//! miss do not hold the port (their data come in through the fills):
//! booking every load's wavefronts on the port as its data landed made
//! `xb_l_p`, loads alone, 3.8 times slower.
//! With the hits `xb_ls_p` of `hw/calib/suite_xbar.txt` went from -14.5%
//! to +1.0% (the half of its loads that hit the sectors the other half
//! fetch) and `xb_ls_p_r0` from -30.5% to -3.6%; `xb_ls_c`, whose loads
//! all miss, stays at -12.5%.
//!
//! **The next store waits for them, not the port at once.** A hit's data
//! pass the stage when the fetch it hit has landed (`engine::land_load`),
//! not when the load is sent, and a load's request carries no data for
//! the stage to read. Held from the load's issue, the hits of a kernel
//! that loads everything before it stores (GPUTeraSort's fused `step`:
//! 16 loads a warp, then 16 stores, one round) took the port while it
//! was idle, waiting for the first loads' data from DRAM, and held back
//! the other warps' load requests instead of the stores. So the hits'
//! wavefronts are owed to the port and paid by the next store it sends
//! (which waits that long before it leaves); an SM that stores nothing
//! after them loses nothing. Where the rounds alternate (`xb_ls_p`, the
//! `xb_ls_p_r0` above) a round's stores pay its hits as before. On the
//! H200 the ts64k `step` keeps its 8 SMs active 13,774 cycles at most
//! (`sm__cycles_active.max`, `hw/data/h200/ncu/ts64k_head_step_tail_full.csv`):
//! about its 9,216 port cycles, the 2,048 of its hits and a DRAM latency
//! in turn; the model's blocks were done at 11,338 cycles with the hits
//! held from issue, and are at 13,366 now (docs/calibration.md,
//! "GPUTeraSort").

use crate::config::GpuConfig;
use crate::global_mem::PARTIAL;

/// One SM's port to L2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Port {
    /// The tick the port is next free.
    free_at: u64,
    /// Ticks a cycle (at least 1).
    ticks: u64,
    /// Ticks a read request of one line holds it.
    read: u64,
    /// Ticks a write of a whole sector holds it in this launch: the
    /// machine's `l2_port_write_cycles`, or the SM's share of the L2's
    /// store rate if longer ([`Port::reset`]).
    write: u64,
    /// Ticks a write of a whole sector holds it alone
    /// (`l2_port_write_cycles`).
    own_write: u64,
    /// A sector's bytes times ticks a cycle: the numerator of the share.
    sector_ticks: u64,
    /// Bytes a cycle the L2 takes in whole sectors over the GPU
    /// (`l2_store_bytes_per_cycle`; 0: no limit).
    l2_store_rate: u64,
    /// Ticks a write to a line with a part holds it at least.
    part: u64,
    /// Ticks of loads' hits passing the data stage that the next store
    /// waits for before it leaves ([`Port::hits`]).
    owed: u64,
    /// `log2` of sectors a line.
    line_shift: u32,
    /// Whether the machine has a port (any of its costs above 0).
    on: bool,
}

impl Port {
    /// The port of an SM of `cfg`, free.
    pub fn new(cfg: &GpuConfig) -> Port {
        let reads = u64::from(cfg.l2_port_reads_per_cycle);
        let ticks = reads.max(1);
        let write = u64::from(cfg.l2_port_write_cycles) * ticks;
        let l2_store_rate = u64::from(cfg.l2_store_bytes_per_cycle);
        Port {
            free_at: 0,
            ticks,
            read: u64::from(reads > 0),
            write,
            own_write: write,
            sector_ticks: u64::from(cfg.sector_bytes) * ticks,
            l2_store_rate,
            part: u64::from(cfg.l2_port_partial_write_cycles) * ticks,
            owed: 0,
            line_shift: cfg.line_sector_shift(),
            on: reads > 0
                || cfg.l2_port_write_cycles > 0
                || cfg.l2_port_partial_write_cycles > 0
                || l2_store_rate > 0,
        }
    }

    /// Frees the port for a new launch whose grid keeps `busy_sms` SMs
    /// busy (`min(num_sms, blocks)`): a whole sector's write holds it at
    /// least the SM's share of the L2's store rate among them, rounded up
    /// to a tick (see the module's doc, "The L2's share").
    pub fn reset(&mut self, busy_sms: u64) {
        self.free_at = 0;
        self.owed = 0;
        self.write = self.own_write;
        if self.l2_store_rate > 0 {
            let share = (busy_sms * self.sector_ticks).div_ceil(self.l2_store_rate);
            self.write = self.write.max(share);
        }
    }

    /// The cycle a store the LSU sends at `start`, writing `sectors`
    /// (ascending, marked [`PARTIAL`] where it writes them in part),
    /// leaves. Each line it writes holds the port a write's time a sector,
    /// and at least a part's where it writes a sector of it in part; it
    /// leaves only after the hits owed to the port have passed.
    #[inline]
    pub fn store(&mut self, start: u64, sectors: &[u64]) -> u64 {
        let (mut cost, mut line, mut n, mut part) = (0, u64::MAX, 0, false);
        for &s in sectors {
            let l = (s & !PARTIAL) >> self.line_shift;
            if l != line {
                cost += self.line_cost(n, part);
                (line, n, part) = (l, 0, false);
            }
            n += 1;
            part |= s & PARTIAL != 0;
        }
        cost += self.line_cost(n, part);
        let owed = std::mem::take(&mut self.owed);
        self.send_after(start, owed, cost)
    }

    /// Ticks a line's write of `n` sectors (`part`: one of them in part)
    /// holds the port.
    #[inline]
    fn line_cost(&self, n: u64, part: bool) -> u64 {
        let whole = n * self.write;
        if part { whole.max(self.part) } else { whole }
    }

    /// The cycle a load the LSU sends at `start`, reading `lines` lines
    /// from L2, leaves.
    #[inline]
    pub fn load(&mut self, start: u64, lines: u32) -> u64 {
        self.send(start, u64::from(lines) * self.read)
    }

    /// A load whose lanes hit in L1 in `wavefronts` data-stage wavefronts
    /// (more than its tag cycles): the next store waits that many cycles
    /// before it leaves, the stage that passes them being the one that
    /// reads the stores' data out to the port (see the module's doc); load
    /// requests do not. Nothing on a machine without a port.
    #[inline]
    pub fn hits(&mut self, wavefronts: u64) {
        if self.on {
            self.owed += wavefronts * self.ticks;
        }
    }

    /// The cycle a request sent at `start` leaves, holding the port for
    /// `cost` ticks from then.
    #[inline]
    fn send(&mut self, start: u64, cost: u64) -> u64 {
        if cost == 0 {
            return start;
        }
        self.send_after(start, 0, cost)
    }

    /// The cycle a request sent at `start` leaves, once the port is free
    /// and `wait` more ticks have passed, holding it for `cost` ticks from
    /// then.
    #[inline]
    fn send_after(&mut self, start: u64, wait: u64, cost: u64) -> u64 {
        let at = self.free_at.max(start * self.ticks) + wait;
        self.free_at = at + cost;
        at.div_ceil(self.ticks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200() -> Port {
        Port::new(&GpuConfig::h200())
    }

    #[test]
    fn a_free_port_sends_at_once() {
        let mut p = h200();
        assert_eq!(p.store(100, &[1, 2, 3]), 100);
        assert_eq!(p.load(100, 4), 103);
    }

    #[test]
    fn writes_queue_a_cycle_a_whole_sector_and_two_a_line_in_part() {
        let mut p = h200();
        let whole: Vec<u64> = (0..32).collect();
        // One part in each of 32 lines (4 sectors a line).
        let parts: Vec<u64> = (0..32).map(|l| (l * 4) | PARTIAL).collect();
        assert_eq!(p.store(0, &whole), 0);
        assert_eq!(p.store(0, &parts), 32);
        assert_eq!(p.store(0, &whole), 96);
        assert_eq!(p.store(200, &whole), 200);
    }

    #[test]
    fn a_launch_on_every_sm_writes_at_its_share_of_the_l2() {
        // 132 busy SMs: 132 x 32 bytes / 2,170 = 1.95 cycles a sector,
        // 4 ticks of half a cycle; 68 SMs 1.003, 3 ticks; 67 SMs 0.99,
        // the port's own cycle.
        let mut p = h200();
        let whole: Vec<u64> = (0..32).collect();
        p.reset(132);
        assert_eq!(p.store(0, &whole), 0);
        assert_eq!(p.store(0, &whole), 64);
        // A part alone in its line keeps its own price, two cycles.
        let parts: Vec<u64> = (0..8).map(|l| (l * 4) | PARTIAL).collect();
        assert_eq!(p.store(0, &parts), 128);
        assert_eq!(p.store(0, &[0]), 144);
        for (busy, second) in [(67, 32), (68, 48), (1, 32)] {
            p.reset(busy);
            assert_eq!(p.store(0, &whole), 0, "{busy}");
            assert_eq!(p.store(0, &whole), second, "{busy}");
        }
        // Off (`l2_store_bytes_per_cycle` 0): the port's own cycle.
        let mut cfg = GpuConfig::h200();
        cfg.l2_store_bytes_per_cycle = 0;
        let mut p = Port::new(&cfg);
        p.reset(132);
        assert_eq!(p.store(0, &whole), 0);
        assert_eq!(p.store(0, &whole), 32);
    }

    #[test]
    fn parts_that_share_a_line_take_a_cycle_a_sector() {
        let mut p = h200();
        // Four parts in each of 8 lines: 4 cycles a line, as whole ones.
        let parts: Vec<u64> = (0..32).map(|s| s | PARTIAL).collect();
        assert_eq!(p.store(0, &parts), 0);
        assert_eq!(p.store(0, &[0]), 32);
        // One part alone in its line: two cycles.
        assert_eq!(p.store(0, &[8 | PARTIAL]), 33);
        assert_eq!(p.store(0, &[0]), 35);
    }

    #[test]
    fn reads_take_half_a_cycle_a_line() {
        let mut p = h200();
        assert_eq!(p.load(0, 32), 0);
        assert_eq!(p.load(0, 32), 16);
        assert_eq!(p.load(0, 1), 32);
        // Half a cycle into the next: it leaves on the next whole cycle.
        assert_eq!(p.load(0, 1), 33);
    }

    #[test]
    fn hits_hold_the_port_a_cycle_a_wavefront() {
        let mut p = h200();
        let parts: Vec<u64> = (0..32).map(|l| (l * 4) | PARTIAL).collect();
        assert_eq!(p.store(0, &parts), 0);
        p.hits(32);
        assert_eq!(p.store(10, &parts), 96);
        // Behind nothing, from when the store is sent.
        p.hits(32);
        assert_eq!(p.store(500, &[0]), 532);
        p.hits(0);
        assert_eq!(p.store(600, &[0]), 600);
    }

    #[test]
    fn hits_hold_back_the_next_store_not_load_requests() {
        let mut p = h200();
        p.hits(32);
        // A load's request carries no data for the stage: it goes at once.
        assert_eq!(p.load(0, 32), 0);
        assert_eq!(p.load(100, 2), 100);
        // The store sent after the hits leaves once they have passed, and
        // pays them once.
        assert_eq!(p.store(1000, &[0]), 1032);
        assert_eq!(p.store(2000, &[0]), 2000);
    }

    #[test]
    fn a_new_launch_owes_nothing() {
        let mut p = h200();
        p.hits(32);
        p.reset(1);
        assert_eq!(p.store(0, &[0]), 0);
    }

    #[test]
    fn a_new_launch_finds_the_port_free() {
        let mut p = h200();
        let parts: Vec<u64> = (0..32).map(|s| s | PARTIAL).collect();
        p.store(0, &parts);
        p.reset(1);
        assert_eq!(p.store(0, &parts), 0);
    }

    #[test]
    fn a_machine_without_a_port_never_waits() {
        let mut p = Port::new(&GpuConfig::tiny());
        let parts: Vec<u64> = (0..32).map(|s| s | PARTIAL).collect();
        assert_eq!(p.store(5, &parts), 5);
        assert_eq!(p.store(5, &parts), 5);
        assert_eq!(p.load(5, 32), 5);
        p.hits(32);
        assert_eq!(p.store(5, &parts), 5);
    }
}
