"""Where a launch's cycles go outside and inside its SMs' active time, on
the H200 and in the model: for every launch of `simsort calibrate`
outputs, `sm__cycles_elapsed.max` split into the busiest SMs' active time
(`sm__cycles_active.avg` x 132 / the SMs its blocks used: exact for one
block an SM, for more a lower bound of the busiest SM's) and the rest
(`out`: the launch's start and end outside any SM), against the model's
work (its cycles less the fixed cost it adds at the end:
`launch_overhead_cycles`, and `memory_launch_cycles` where the launch
reads or writes global memory). `need` is the fixed cost that would make
the launch exact (hardware cycles less the model's work).

Usage:
  launch_split.py [--overhead C] [--memory C] [--blocks N] CALOUT...
      CALOUT: `simsort calibrate --suite hw/calib/SUITE.txt` outputs
      (H200 data: hw/data/calib/ENTRY.csv). --overhead, --memory: the
      preset's values the outputs were made with (3460, 540). Prints the
      launches of at most --blocks blocks (default 2), then the medians of
      one-warp launches and of the others.
  launch_split.py --costs O,M,L,S [--overhead C] [--memory C] CALOUT...
      Each output's cycle MAPE had the model charged O cycles to every
      launch, M more to one that reads or writes global memory, L more to
      one that loads from it and S more to one that stores (in place of
      the two fields; the preset is 3460,540,0,0): the fixed cost is
      added after the blocks' work, so the rest of the model's cycles
      stay as they are.

docs/calibration.md ("`smem_stride_33`: a one-warp launch is the launch's
fixed cost") quotes it."""
import csv
import re
import statistics
import sys

SMS = 132
LINE = re.compile(r"(\S+)/(\d+):(\S+)\s+(\d+)\s+(\d+)\s")


def num(v):
    return float(v.replace(",", ""))


def product(dim):
    out = 1
    for d in dim.strip("()").split(","):
        out *= int(d)
    return out


def launches(path, overhead, memory):
    """(entry, kernel, blocks, threads, hw, out, active, work, loads,
    stores) per launch."""
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        entry, idx, kernel, hw, sim = m.groups()
        rows = list(csv.DictReader(open(f"hw/data/calib/{entry}.csv")))
        row = rows[1 + int(idx)]  # rows[0] holds the units
        blocks, threads = product(row["Grid Size"]), product(row["Block Size"])
        loads, stores = (
            num(row[f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"])
            for op in ("ld", "st")
        )
        active = num(row["sm__cycles_active.avg"]) * SMS / min(SMS, blocks)
        elapsed = num(row["sm__cycles_elapsed.max"])
        work = int(sim) - overhead - (memory if loads + stores > 0 else 0)
        yield (entry, kernel, blocks, threads, int(hw), elapsed - active,
               active, work, loads > 0, stores > 0)


def summary(name, group):
    if not group:
        return
    med = lambda i: statistics.median(g[i] for g in group)
    print(
        f"{name}: {len(group)} launches, median out {med(5):.0f}, "
        f"active - work {statistics.median(g[6] - g[7] for g in group):.0f}, "
        f"need {statistics.median(g[4] - g[7] for g in group):.0f}"
    )


def refit(paths, costs, opts):
    o, mem, ld, st = (int(c) for c in costs.split(","))
    for path in paths:
        errors = [
            abs(r[7] + o + mem * (r[8] or r[9]) + ld * r[8] + st * r[9] - r[4]) / r[4]
            for r in launches(path, opts["--overhead"], opts["--memory"])
        ]
        print(f"{path}: {len(errors)} launches, cycle MAPE "
              f"{100 * statistics.mean(errors):.2f}%")


def main(args):
    opts = {"--overhead": 3460, "--memory": 540, "--blocks": 2, "--costs": None}
    paths = []
    while args:
        if args[0] in opts:
            opts[args[0]] = args[1] if args[0] == "--costs" else int(args[1])
            args = args[2:]
        else:
            paths.append(args.pop(0))
    if opts["--costs"]:
        return refit(paths, opts["--costs"], opts)
    rows = [
        r
        for path in paths
        for r in launches(path, opts["--overhead"], opts["--memory"])
        if r[2] <= opts["--blocks"]
    ]
    print(f"{'launch':<34} {'blocks':>6} {'thr':>5} {'hw':>7} {'out':>6} "
          f"{'active':>7} {'work':>7} {'need':>6}")
    for e, k, b, t, hw, out, act, work, _, _ in rows:
        print(f"{e + ':' + k:<34} {b:>6} {t:>5} {hw:>7} {out:>6.0f} "
              f"{act:>7.0f} {work:>7} {hw - work:>6}")
    summary("one warp", [r for r in rows if r[2] * r[3] <= 32])
    summary("the others", [r for r in rows if r[2] * r[3] > 32])


if __name__ == "__main__":
    main(sys.argv[1:])
