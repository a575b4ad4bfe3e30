"""Where a warp of mergesort's `merge` spends its cycles, phase by phase:
the H200's from ncu's source view (warp stall samples per SASS
instruction), the model's from a trace of one block.

The phases, in program order: the prologue up to the first shared store
(the splitters' load, the addresses, the eleven global loads issued),
the shared stores of the loaded keys and the barrier after them (waiting
for the loads' data), the merge-path search (the loop), the serial merge
(up to the second barrier), the transposition through shared memory (up
to the first global store) and the stores and exit (with `drain`).

Usage:
  merge_phases.py hw SRC.csv[.gz] CYCLES_PER_WARP
      SRC is `ncu --import R.ncu-rep --page source --csv --print-source
      sass` of a report holding one `merge` launch
      (hw/data/h200/ncu/ms1m_merge/); CYCLES_PER_WARP is that launch's
      warp cycles a warp (`warp_budget.py hw CSV merge`), which scales
      the samples to cycles.
  merge_phases.py sim TRACE.json BLOCK
      TRACE is `simsort trace export --format perfetto --time cycles
      --launch N` of a run recorded with `--trace-focus block=BLOCK`;
      prints each of the block's warps.

docs/calibration.md ("Mergesort over 8-byte elements") quotes both."""
import collections
import csv
import gzip
import json
import sys

PHASES = ("prologue", "loads", "search", "serial", "transpose", "stores")


def num(v):
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return 0.0


def merge_rows(path):
    """The source view's rows of the `merge` kernel."""
    opener = gzip.open if path.endswith(".gz") else open
    rows, kernel, header = [], None, None
    with opener(path, "rt") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "Kernel Name":
                kernel, header = row[1], None
            elif row[0] == "Address":
                header = row
            elif header and kernel == "merge":
                rows.append(dict(zip(header, row)))
    return rows


def hw(path, cycles_per_warp):
    rows = merge_rows(path)
    stalls = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
    text = [r["Source"].split() for r in rows]
    op = [t[1] if t[0].startswith("@") else t[0] for t in text]
    executed = [num(r["Instructions Executed"]) for r in rows]
    warps = executed[0]
    # The search loop's instructions run several times a warp.
    loop = [i for i, e in enumerate(executed) if e > 2 * warps]
    first_sts = next(i for i, o in enumerate(op) if o.startswith("STS"))
    bars = [i for i, o in enumerate(op) if o.startswith("BAR") and i > loop[-1]]
    first_stg = next(i for i, o in enumerate(op) if o.startswith("STG"))
    bounds = (0, first_sts, loop[0], loop[-1] + 1, bars[0], first_stg, len(rows))
    total = sum(num(r[s]) for r in rows for s in stalls)
    scale = cycles_per_warp / total
    for name, a, z in zip(PHASES, bounds, bounds[1:]):
        by = collections.Counter()
        for r in rows[a:z]:
            for s in stalls:
                by[s[len("stall_"):]] += num(r[s]) * scale
        top = ", ".join(f"{k} {v:.0f}" for k, v in by.most_common(3))
        print(f"{name:10} {sum(by.values()):7.0f}  ({top})")


def sim(path, block):
    events = json.load(open(path))["traceEvents"]
    # Each warp of the block has a track named `block B warp W`.
    tracks = {
        e["tid"]: e["args"]["name"]
        for e in events
        if e.get("ph") == "M"
        and e.get("name") == "thread_name"
        and e["args"]["name"].startswith(f"block {block} warp ")
    }
    for tid, track in sorted(tracks.items()):
        issues = sorted(
            (e for e in events if e.get("tid") == tid and e.get("cat") == "issue"),
            key=lambda e: e["ts"],
        )
        if not issues:
            continue
        # The IR's text with its guard dropped: `@p0 st.global...`.
        ops = [e["name"].split()[1 if e["name"].startswith("@") else 0] for e in issues]
        times = [e["ts"] for e in issues]
        pcs = collections.Counter(e["args"]["pc"] for e in issues)
        # The prologue ends as the last global load before the first
        # shared store issues: the store's wait for its data is the next
        # phase's, as ncu attributes it to the `STS`.
        first_sts = next(i for i, o in enumerate(ops) if o.startswith("st.shared"))
        sts = max(t for t, o in zip(times[:first_sts], ops) if o.startswith("ld.global")) + 1
        bars = [t for t, o in zip(times, ops) if o.startswith("bar.sync")]
        after_bar = next(t for t in times if t > bars[0])
        loop_end = max(
            t
            for t, o, e in zip(times, ops, issues)
            if pcs[e["args"]["pc"]] > 1 and not o.startswith("st.global")
        )
        stg = next(t for t, o in zip(times, ops) if o.startswith("st.global"))
        bounds = (times[0], sts, after_bar, loop_end, bars[1], stg, times[-1])
        spans = " ".join(f"{n} {b - a}" for n, a, b in zip(PHASES, bounds, bounds[1:]))
        print(f"{track}: {spans}, life {times[-1] - times[0]}")


def main(argv):
    if len(argv) == 3 and argv[0] == "hw":
        hw(argv[1], float(argv[2]))
    elif len(argv) == 3 and argv[0] == "sim":
        sim(argv[1], int(argv[2]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
