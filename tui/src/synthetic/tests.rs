//! The synthetic block sort really sorts, and its stage marks are right.

use std::io::Cursor;

use traces::TraceReader;

use super::*;

/// Rebuilds each focused warp's slab from the register writes.
fn final_slabs(s: &Synthetic) -> Vec<Vec<Vec<u64>>> {
    let bytes = s.write(Vec::new()).unwrap();
    let mut r = TraceReader::new(Cursor::new(bytes)).unwrap();
    let mut slabs = vec![vec![vec![0; s.lanes as usize]; s.regs as usize]; s.warps as usize];
    for e in r.launch_events(0) {
        if let Event::RegWrite {
            warp, reg, values, ..
        } = e.unwrap()
        {
            slabs[warp as usize][reg.index as usize] = values;
        }
    }
    slabs
}

#[test]
fn the_block_sort_really_sorts_each_slab_in_lane_major_order() {
    for (lanes, regs) in [(8, 4), (4, 8), (16, 2), (32, 16)] {
        let s = Synthetic {
            lanes,
            regs,
            ..Synthetic::default()
        };
        for slab in final_slabs(&s) {
            let lane_major: Vec<u64> = (0..lanes as usize)
                .flat_map(|l| slab.iter().map(move |row| row[l]))
                .collect();
            assert!(lane_major.is_sorted(), "{lanes}x{regs}: {lane_major:?}");
            assert!(lane_major.iter().any(|&k| k != lane_major[0]));
        }
    }
}

#[test]
fn stage_marks_point_at_the_first_instruction_of_each_step() {
    let h = Synthetic::default().header();
    let bs = &h.kernels[0];
    let flip4 = bs.stages.iter().find(|m| m.label == "flip f=4").unwrap();
    let line = bs.line_of_pc(flip4.pc).unwrap();
    assert_eq!(bs.lines[line].text.trim(), "shfl.xor r4, r3, 3, 8");
}
