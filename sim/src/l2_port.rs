//! The SM's port to L2 (`l1tex2xbar`): every request that leaves the SM
//! for L2 passes it, one after another.
//!
//! **Why.** `hw/calib/suite_xbar.txt` (`hw/calib/kernels/xbar.kir`, 8
//! warps on each of 8 SMs, measured on the H200 with the port's counters,
//! `hw/data/h200/ncu/xbar_port.csv`) counts the cycles an SM's port is busy
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
//! `hw/data/h200/ncu/ts64k_head_step_tail_full.csv`). So a write takes a
//! cycle a whole sector and two a sector written in part, a read request
//! half a cycle a line, whatever the number of SMs (one SM alone,
//! `xb_s_p_b1`, takes the same 32,770). Where it is the bound the SM's
//! time follows it: `xb_s_p` runs 35,089 active cycles, `xb_s_c` 8,731.
//! The model charged the stores only the LSU's 4 sectors a cycle, and ran
//! the ts64k `step` 32% fast.
//!
//! **The model.** The SM keeps when its port is next free, in
//! half-cycles. A request that sends anything to L2 (a store's sectors
//! after the store-combining buffer; a load's sectors that missed L1)
//! leaves when the LSU sends it or when the port is free, whichever is
//! later, and holds the port for its cost: the partitions see its
//! sectors from then.

use crate::global_mem::PARTIAL;

/// Half-cycles a read request of one line holds the port.
const READ_LINE: u64 = 1;
/// Half-cycles a write of a whole sector holds the port.
const WRITE_SECTOR: u64 = 2;
/// Half-cycles a write of part of a sector holds the port.
const WRITE_PART: u64 = 4;

/// The port's cost of a store's `sectors` (marked [`PARTIAL`] where
/// written in part), in half-cycles.
#[inline]
pub(crate) fn store_cost(sectors: &[u64]) -> u64 {
    sectors
        .iter()
        .map(|&s| if s & PARTIAL != 0 { WRITE_PART } else { WRITE_SECTOR })
        .sum()
}

/// The port's cost of a load's read requests to `lines` lines.
#[inline]
pub(crate) fn load_cost(lines: u32) -> u64 {
    u64::from(lines) * READ_LINE
}

/// The cycle a request the LSU sends at `start` leaves through the port
/// of an SM that is free from `free_at` (half-cycles), which it then holds
/// for `cost` half-cycles.
#[inline]
pub(crate) fn send(free_at: &mut u64, start: u64, cost: u64) -> u64 {
    let at = (*free_at).max(start * 2);
    *free_at = at + cost;
    at.div_ceil(2)
}
