#!/usr/bin/env bash
# Builds hw/burst.cu and runs it: OUTDIR/burst.csv, one row per block and
# run (SM clock cycles), OUTDIR/burst.sass (its SASS: the loads must be back
# to back) and OUTDIR/gpu.txt (the clocks it ran at).
# Usage (with an NVIDIA GPU, nvcc and cuobjdump): hw/burst.sh OUTDIR
set -euo pipefail
out=${1:?usage: burst.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/burst" "$here/burst.cu"
cuobjdump -sass "$out/burst" | sed 's#/\* 0x[0-9a-f]* \*/##' >"$out/burst.sass"
"$out/burst" >"$out/burst.csv"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
rm "$out/burst"
