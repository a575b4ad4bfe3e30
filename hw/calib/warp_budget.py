"""Where a kernel's warps spend their cycles, per warp, from ncu's stall
ratios (stalls per issued instruction) times the instructions issued: the
hardware's (an ncu CSV of hw/data/calib) or the simulator's (the JSON of
`simsort --algo A --keys N ... -q --json`), side by side, and the
`short_scoreboard` cycles per shared load.

Usage:
  warp_budget.py hw CSV KERNEL
      The first launch of KERNEL in CSV.
  warp_budget.py hw-all CSV KERNEL
      Every launch of KERNEL in CSV: cycles a launch and each reason's
      cycles a warp, averaged over the launches' warps (as `sim` does).
  warp_budget.py sim JSON KERNEL
      The launches of KERNEL in the report (of a sort, or of `simsort run
      KIR ... --json`), averaged.
  warp_budget.py lds CSV...
      For every kernel of every CSV with at least 1,000 shared loads:
      `short_scoreboard` cycles per shared load, wavefronts per load and
      `mio_throttle` cycles per load (launches averaged).

docs/calibration.md ("Bitonic's `tail`: why the H200 waits on shared
loads") quotes all three."""
import csv
import json
import sys

PREFIX = "smsp__average_warps_issue_stalled_"
SUFFIX = "_per_issue_active.ratio"
LDS = "smsp__sass_inst_executed_op_shared_ld.sum"
INSTS = "smsp__inst_executed.sum"


def num(v):
    return float(v.replace(",", "")) if isinstance(v, str) else float(v)


def threads(dim):
    """`(256, 1, 1)` or `[256, 1, 1]` as a product."""
    if isinstance(dim, list):
        out = 1
        for d in dim:
            out *= d
        return out
    out = 1
    for d in dim.strip("()").split(","):
        out *= int(d)
    return out


def hw_rows(path):
    rows = list(csv.reader(open(path)))
    head = rows[0]
    for row in rows[2:]:
        yield dict(zip(head, row))


def budget(metrics, warps, launches=1):
    """Cycles per warp in each stall reason, `selected` (issue) included."""
    insts = num(metrics[INSTS]) / launches
    out = {}
    for k, v in metrics.items():
        if k.startswith(PREFIX) and k.endswith(SUFFIX) and num(v) > 0:
            out[k[len(PREFIX):-len(SUFFIX)]] = num(v) * insts / warps
    lds = num(metrics.get(LDS, 0)) / launches / warps
    return out, lds


def show(tag, cycles, warps, out, lds):
    life = sum(out.values())
    short = out.get("short_scoreboard", 0)
    per = f"{short / lds:.1f}" if lds else "-"
    print(f"{tag}: {cycles:,.0f} cycles, {warps} warps, {life:,.0f} warp cycles a warp, "
          f"{lds:.0f} shared loads a warp, short_scoreboard {per} a load")
    for k, v in sorted(out.items(), key=lambda kv: -kv[1]):
        print(f"  {k:20s} {v:8,.0f}")


def main(argv):
    if len(argv) >= 2 and argv[0] == "lds":
        for path in argv[1:]:
            seen = {}
            for d in hw_rows(path):
                try:
                    lds, insts = num(d[LDS]), num(d[INSTS])
                    short = num(d[PREFIX + "short_scoreboard" + SUFFIX])
                    mio = num(d[PREFIX + "mio_throttle" + SUFFIX])
                    wf = num(d["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"])
                except (KeyError, ValueError):
                    continue
                if lds < 1000:
                    continue
                seen.setdefault(d["Kernel Name"], []).append(
                    (short * insts / lds, wf / lds, mio * insts / lds))
            for k, v in seen.items():
                n = len(v)
                print(f"{path} {k} launches={n} short/load={sum(x[0] for x in v) / n:.1f} "
                      f"wavefronts/load={sum(x[1] for x in v) / n:.2f} "
                      f"mio/load={sum(x[2] for x in v) / n:.1f}")
        return 0
    if len(argv) != 3 or argv[0] not in ("hw", "hw-all", "sim"):
        print(__doc__, file=sys.stderr)
        return 2
    what, path, kernel = argv
    if what == "hw-all":
        launches, cycles, warps, total, lds_total = 0, 0.0, 0, {}, 0.0
        for d in hw_rows(path):
            if d["Kernel Name"] != kernel:
                continue
            w = threads(d["Grid Size"]) * threads(d["Block Size"]) // 32
            out, lds = budget(d, w)
            launches += 1
            cycles += num(d["sm__cycles_elapsed.max"])
            warps += w
            lds_total += lds * w
            for k, v in out.items():
                total[k] = total.get(k, 0) + v * w
        if launches:
            out = {k: v / warps for k, v in total.items()}
            print(f"{launches} launches")
            show("hw", cycles / launches, warps // launches, out, lds_total / warps)
            return 0
    elif what == "hw":
        for d in hw_rows(path):
            if d["Kernel Name"] == kernel:
                warps = threads(d["Grid Size"]) * threads(d["Block Size"]) // 32
                out, lds = budget(d, warps)
                show("hw", num(d["sm__cycles_elapsed.max"]), warps, out, lds)
                return 0
    else:
        report = json.load(open(path))
        # `simsort run --json` reports one kernel, a sort the list of them.
        for k in report.get("kernels", [report]):
            if k["name"] == kernel:
                warps = threads(k["grid"]) * threads(k["block"]) // 32
                out, lds = budget(k["metrics"], warps, k["launches"])
                show("sim", k["cycles"] / k["launches"], warps, out, lds)
                return 0
    print(f"no kernel `{kernel}` in {path}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
