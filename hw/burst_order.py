#!/usr/bin/env python3
"""What hw/burst_order.cu recorded: per variant and L2 state, the blocks of
an SM in the order they started, each with when its warps issued their
first load (the first and the last warp) and when their loads landed (the
first, the median and the last warp), in cycles after the SM's first
load issued: medians over the SMs that loaded (SM 0 alone in the `_sm0`
variants). Then how closely the order the SM's warps got their data
follows the order they asked for it: Spearman's rank correlation of their
issue and landing cycles, the median over those SMs.

With --model TRACE.json (a perfetto export in cycles of a simulated
launch, `simsort trace export --format perfetto --time cycles --launch N`)
the same for the simulator: each warp's first `long_scoreboard` wait, its
start the issue and its end the landing.

Usage: python3 hw/burst_order.py [hw/data/h200/burst_order/burst_order.csv.gz]
       python3 hw/burst_order.py --model TRACE.json
"""
import collections
import csv
import gzip
import json
import re
import statistics as st
import sys


def recorded(path):
    """(variant, L2) -> SM -> block -> [(start, issued, landed)]."""
    out = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    for r in csv.DictReader(gzip.open(path, "rt")):
        out[(r["variant"], r["l2"])][int(r["sm"])][int(r["block"])].append(
            tuple(int(r[k]) for k in ("start", "issued", "landed"))
        )
    return out


def simulated(path):
    """The same from a perfetto export: ("model", "-") -> SM -> block -> warps."""
    events = json.load(open(path))
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {}
    for e in events:
        if e.get("name") == "thread_name":
            m = re.match(r"block (\d+) warp \d+ stalls", e["args"]["name"])
            if m:
                names[(e["pid"], e["tid"])] = int(m.group(1))
    start, wait = {}, {}
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if e.get("ph") != "X" or key not in names:
            continue
        start[key] = min(start.get(key, e["ts"]), e["ts"])
        if e["name"] == "long_scoreboard" and key not in wait:
            wait[key] = (e["ts"], e["ts"] + e["dur"])
    out = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    for key, (issued, landed) in wait.items():
        out[("model", "-")][key[0]][names[key]].append((start[key], issued, landed))
    return out


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: (xs[i], i))
    r = [0] * len(xs)
    for k, i in enumerate(order):
        r[i] = k
    return r


def spearman(pairs):
    a, b = ranks([p[0] for p in pairs]), ranks([p[1] for p in pairs])
    n = len(pairs)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(a, b)) / (n * (n * n - 1))


def report(data):
    for (variant, l2), by_sm in data.items():
        per_rank = collections.defaultdict(list)
        rho = []
        for sm, blocks in by_sm.items():
            if variant.endswith("_sm0") and sm != 0:
                continue
            order = sorted(blocks.values(), key=lambda ws: min(w[0] for w in ws))
            t = min(w[1] for ws in order for w in ws)
            for i, ws in enumerate(order):
                issued = sorted(w[1] - t for w in ws)
                landed = sorted(w[2] - t for w in ws)
                per_rank[i].append((issued[0], issued[-1], landed[0], st.median(landed), landed[-1]))
            rho.append(spearman([(w[1], w[2]) for ws in order for w in ws]))
        print(f"{variant} ({l2} L2): {len(rho)} SMs, issue and landing order's rank correlation {st.median(rho):.2f}")
        print("  block  issued: first  last   landed: first  median  last")
        for i in sorted(per_rank):
            m = [st.median(x[j] for x in per_rank[i]) for j in range(5)]
            print(f"  {i:5} {m[0]:14.0f} {m[1]:5.0f} {m[2]:15.0f} {m[3]:7.0f} {m[4]:5.0f}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--model":
        report(simulated(sys.argv[2]))
    else:
        report(recorded(sys.argv[1] if len(sys.argv) > 1 else "hw/data/h200/burst_order/burst_order.csv.gz"))
