#!/usr/bin/env python3
"""What a launch's warps wait for the immediate constant cache (imc_miss),
from the recordings of this folder (measure.sh with METRICS=metrics.txt).

Usage: imc.py CSV...
Prints, per launch: warps, instructions a warp, imc_miss cycles a warp
and no_instruction cycles a warp (hw/calib/warp_budget.py's budget: the
stall ratio times the instructions a warp issues), constant requests a
warp and their hit rate, and the launch's cycles."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../calib"))
from warp_budget import INSTS, budget, hw_rows, num  # noqa: E402

print(f"{'launch':34} {'cycles':>8} {'warps':>7} {'inst/w':>7} {'imc/w':>7} {'noinst/w':>8} {'req/w':>6} {'hit%':>6}")
for path in sys.argv[1:]:
    name = os.path.basename(path).removesuffix(".csv")
    for k, m in enumerate(hw_rows(path)):
        w = num(m["smsp__warps_launched.sum"]) or 1
        cycles, _ = budget(m, w)
        req = num(m["smsp__imc_requests.sum"]) / w
        hit = num(m["smsp__imc_request_hit_rate.pct"])
        print(f"{name + '/' + str(k) + ':' + m['Kernel Name']:34} {num(m['sm__cycles_elapsed.max']):8.0f} "
              f"{w:7.0f} {num(m[INSTS]) / w:7.1f} {cycles.get('imc_miss', 0):7.1f} "
              f"{cycles.get('no_instruction', 0):8.1f} {req:6.2f} {hit:6.1f}")
