#!/usr/bin/env bash
# What ptxas's unrolling of a bundle's loops costs on the GPU: runs the
# bundle as emitted and with every loop kept rolled (`.pragma "nounroll";`
# at the top of each loop, a label a later `bra` goes back to), checks
# both, profiles every launch of each under Nsight Compute and writes the
# SASS of both. Needs an NVIDIA GPU, nvcc, ncu, ptxas and cuobjdump; run
# from the repository's root:
#   hw/nounroll.sh BUNDLE_DIR OUTDIR
# Writes OUTDIR/unrolled.csv and OUTDIR/rolled.csv (hw/metrics.txt, as
# hw/calib/measure.sh trims them) and OUTDIR/sass_unrolled/,
# OUTDIR/sass_rolled/ (hw/sass.sh).
set -euo pipefail
bundle=${1:?usage: nounroll.sh BUNDLE_DIR OUTDIR}
out=${2:?usage: nounroll.sh BUNDLE_DIR OUTDIR}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$bundle" "$work/unrolled"
cp -r "$bundle" "$work/rolled"
for ptx in "$work"/rolled/*.ptx; do
  python3 - "$ptx" <<'PY'
import re, sys
path = sys.argv[1]
lines = open(path).read().split("\n")
labels = {}
for i, line in enumerate(lines):
    m = re.match(r"^(\$\w+):\s*$", line)
    if m:
        labels[m.group(1)] = i
back = set()
for j, line in enumerate(lines):
    m = re.search(r"\bbra(?:\.uni)?\s+(\$\w+);", line)
    if m and labels.get(m.group(1), j + 1) < j:
        back.add(labels[m.group(1)])
for i in sorted(back, reverse=True):
    lines.insert(i + 1, '    .pragma "nounroll";')
open(path, "w").write("\n".join(lines))
print(f"{path}: {len(back)} loops kept rolled", file=sys.stderr)
PY
done
nvcc -O2 -o "$work/host" hw/bundle/host.cu -lcuda
metrics=$(paste -sd, hw/metrics.txt)
for v in unrolled rolled; do
  "$work/host" "$work/$v/manifest.txt" </dev/null
  ncu --clock-control none --csv --page raw --metrics "$metrics" \
    "$work/host" "$work/$v/manifest.txt" </dev/null >"$work/$v.raw.csv"
  python3 hw/calib/trim.py "$work/$v.raw.csv" hw/metrics.txt >"$out/$v.csv"
  hw/sass.sh "$work/$v" "$out/sass_$v"
done
