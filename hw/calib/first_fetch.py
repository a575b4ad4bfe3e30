#!/usr/bin/env python3
"""The `no_instruction` cycles a warp waits, per launch, from ncu CSVs.

Usage: python3 hw/calib/first_fetch.py DATA_DIR [--max-insts N] [--max-blocks B]

Nsight Compute reports `no_instruction` as a ratio: warps stalled there per
issue-active cycle. Times the instructions a warp issues, it is the cycles a
warp waited there. This script takes every launch of DATA_DIR's CSVs (a
`hw/calib/measure.sh` output, such as hw/data/calib) and prints:

- the median and quartiles over the launches of one wave (at most B
  blocks, 132 by default: one block an SM at most) whose warps issue at
  most N instructions (50 by default): kernels that hardly branch, whose
  wait is their first fetch. It is where `warp_start_fetch_cycles` of the
  `h200` and `h100` presets comes from (docs/calibration.md, "A warp's
  first instructions");
- per kernel name, the median over its one-wave launches, whatever their
  length;
- per kernel name, the launches of more than 10 waves (every warp's wait
  averaged), whose later warps find the code.
"""
import csv
import glob
import statistics
import sys
from collections import defaultdict


def launches(data_dir):
    """(kernel, blocks, warps, instructions a warp, no_instruction a warp) of every launch."""
    for path in sorted(glob.glob(f"{data_dir}/*.csv")):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        if not rows or "smsp__inst_executed.sum" not in rows[0]:
            continue
        head = rows[0]
        col = {name: i for i, name in enumerate(head)}
        stall = [i for i, name in enumerate(head) if "stalled_no_instruction" in name]
        if not stall:
            continue
        for r in rows[2:]:  # the second row holds the units
            try:
                insts = float(r[col["smsp__inst_executed.sum"]].replace(",", ""))
                grid = [int(x) for x in r[2].strip("()").split(",")]
                block = [int(x) for x in r[3].strip("()").split(",")]
                ratio = float(r[stall[0]] or 0)
            except (ValueError, IndexError):
                continue
            blocks = grid[0] * grid[1] * grid[2]
            warps = blocks * ((block[0] * block[1] * block[2] + 31) // 32)
            if warps == 0:
                continue
            yield r[1], blocks, warps, insts / warps, ratio * insts / warps


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    data_dir, max_insts, max_blocks = args[0], 50.0, 132
    if "--max-insts" in args:
        max_insts = float(args[args.index("--max-insts") + 1])
    if "--max-blocks" in args:
        max_blocks = int(args[args.index("--max-blocks") + 1])
    every = list(launches(data_dir))
    one_wave = [x for x in every if x[1] <= max_blocks]
    short = [x[4] for x in one_wave if x[3] <= max_insts]
    if len(short) < 2:
        sys.exit(f"{data_dir}: fewer than two one-wave launches of at most {max_insts:g} instructions a warp")
    q1, med, q3 = statistics.quantiles(short, n=4)
    print(
        f"{data_dir}: {len(short)} launches of one wave (at most {max_blocks} blocks) of at most "
        f"{max_insts:g} instructions a warp: no_instruction a warp, median {statistics.median(short):.0f} "
        f"cycles (quartiles {q1:.0f} and {q3:.0f})"
    )
    per_kernel = defaultdict(list)
    for kernel, _, _, _, wait in one_wave:
        per_kernel[kernel].append(wait)
    print("one wave, per kernel (launches, median cycles a warp):")
    for kernel, waits in sorted(per_kernel.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {kernel:24} {len(waits):4} {statistics.median(waits):9.0f}")
    many = defaultdict(list)
    for kernel, blocks, _, _, wait in every:
        if blocks > 10 * max_blocks:
            many[kernel].append(wait)
    if many:
        print("more than 10 waves, every warp's wait averaged (launches, median, least, most):")
        for kernel, waits in sorted(many.items()):
            print(f"  {kernel:24} {len(waits):4} {statistics.median(waits):9.0f} {min(waits):6.0f} {max(waits):6.0f}")


if __name__ == "__main__":
    main()
