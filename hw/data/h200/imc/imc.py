#!/usr/bin/env python3
"""What a launch's warps wait for the immediate constant cache (imc_miss),
from the recordings of this folder (measure.sh with METRICS=metrics.txt).

Usage: imc.py CSV...
Prints, per launch: warps, instructions a warp, imc_miss cycles a warp
(the stall ratio times the instructions a warp issues), no_instruction
cycles a warp, constant requests a warp and their hit rate, and the
launch's cycles."""
import csv
import sys


def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return None


print(f"{'launch':34} {'cycles':>8} {'warps':>7} {'inst/w':>7} {'imc/w':>7} {'noinst/w':>8} {'req/w':>6} {'hit%':>6}")
for path in sys.argv[1:]:
    rows = list(csv.reader(open(path)))
    head, data = rows[0], [r for r in rows[1:] if r and r[0].strip().isdigit()]
    ix = {c: i for i, c in enumerate(head)}

    def g(r, c):
        return num(r[ix[c]]) if c in ix else None

    name = path.rsplit("/", 1)[-1].removesuffix(".csv")
    for k, r in enumerate(data):
        w = g(r, "smsp__warps_launched.sum") or 1
        inst = g(r, "smsp__inst_executed.sum") / w
        imc = (g(r, "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio") or 0) * inst
        noi = (g(r, "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio") or 0) * inst
        req = (g(r, "smsp__imc_requests.sum") or 0) / w
        hit = g(r, "smsp__imc_request_hit_rate.pct") or 0
        cyc = g(r, "sm__cycles_elapsed.max")
        print(f"{name + '/' + str(k) + ':' + r[ix['Kernel Name']]:34} {cyc:8.0f} {w:7.0f} {inst:7.1f} {imc:7.1f} {noi:8.1f} {req:6.2f} {hit:6.1f}")
