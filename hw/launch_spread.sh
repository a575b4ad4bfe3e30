#!/usr/bin/env bash
# Builds hw/launch_spread.cu and runs it: OUTDIR/launch_spread.csv.gz (one row
# per block and launch: its SM, %globaltimer at its start and end, in ns)
# and OUTDIR/gpu.txt (the clocks it ran at).
# Usage (with an NVIDIA GPU and nvcc): hw/launch_spread.sh OUTDIR
set -euo pipefail
out=${1:?usage: launch_spread.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/launch_spread" "$here/launch_spread.cu"
"$out/launch_spread" | gzip -9 >"$out/launch_spread.csv.gz"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
rm "$out/launch_spread"
