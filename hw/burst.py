#!/usr/bin/env python3
"""What hw/burst.cu recorded: per variant, the blocks an SM holds at the
launch's start in the order they started, each with its start, when its
first and its last warp had their loads and when its barrier let it go,
relative to the SM's first block start (SM clock cycles; medians over the
SMs of the second run), and how far apart an SM's first-wave blocks land.

Usage: python3 hw/burst.py [hw/data/h200/burst/burst.csv]
"""
import collections
import csv
import statistics as st
import sys


def main(path):
    rows = list(csv.DictReader(open(path)))
    runs = collections.defaultdict(list)
    for r in rows:
        runs[(r["variant"], r["l2"], r["run"])].append(r)
    for (variant, l2, run), rs in runs.items():
        if run != "1":
            continue
        by_sm = collections.defaultdict(list)
        for r in rs:
            by_sm[int(r["sm"])].append(
                tuple(int(r[k]) for k in ("start", "first_landed", "last_landed", "released"))
            )
        ranks = collections.defaultdict(list)
        spread = []
        for blocks in by_sm.values():
            blocks.sort()
            t = blocks[0][0]
            for i, b in enumerate(blocks):
                ranks[i].append(tuple(x - t for x in b))
            # The first wave: blocks that started within 100 cycles of the first.
            wave = [b for b in blocks if b[0] - t < 100]
            spread.append(max(b[2] for b in wave) - min(b[2] for b in wave))
        print(f"{variant} ({l2} L2): {len(by_sm)} SMs")
        print("  block  start  first warp's loads  last warp's loads  released")
        for i in sorted(ranks):
            xs = ranks[i]
            med = [st.median(x[j] for x in xs) for j in range(4)]
            print(f"  {i:5} {med[0]:6.0f} {med[1]:19.0f} {med[2]:18.0f} {med[3]:9.0f}")
        print(f"  first wave: last warp's loads of its blocks {st.median(spread):.0f} cycles apart (median over SMs)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "hw/data/h200/burst/burst.csv")
