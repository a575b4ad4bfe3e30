"""One ncu CSV from several recordings of the same suite entry: for each
launch, the row of the recording whose `sm__cycles_elapsed.max` is the
median (the middle one of an odd count; of an even count the lower of the
two middle ones), so every row stays one launch as ncu measured it.

A launch of a few thousand cycles varies by several percent between
recordings of the same bundle on the same H200 (docs/calibration.md,
"How much a recording varies"); the median of three takes out most of it.

Usage:
  median_runs.py OUT.csv RUN.csv RUN.csv RUN.csv...
The recordings must list the same kernels in the same order (the same
bundle, recorded by hw/calib/measure.sh)."""
import csv
import sys


def cycles(row, col):
    return float(row[col].replace(",", ""))


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, paths = argv[0], argv[1:]
    runs = [list(csv.reader(open(p, newline=""))) for p in paths]
    head = runs[0][0]
    col = head.index("sm__cycles_elapsed.max")
    name = head.index("Kernel Name")
    for p, r in zip(paths, runs):
        if len(r) != len(runs[0]) or r[0] != head:
            print(f"{p}: not the same launches or columns as {paths[0]}", file=sys.stderr)
            return 1
    rows = [runs[0][0], runs[0][1]]
    for i in range(2, len(runs[0])):
        launch = [r[i] for r in runs]
        if len({row[name] for row in launch}) != 1:
            print(f"row {i}: the recordings ran other kernels", file=sys.stderr)
            return 1
        launch.sort(key=lambda row: cycles(row, col))
        rows.append(launch[(len(launch) - 1) // 2])
    with open(out, "w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
