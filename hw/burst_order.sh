#!/usr/bin/env bash
# Builds hw/burst_order.cu and runs it: OUTDIR/burst_order.csv.gz, one row
# per warp (SM clock cycles), OUTDIR/burst_order.sass (its SASS: the two
# loads back to back) and OUTDIR/gpu.txt (the clocks it ran at).
# Usage (with an NVIDIA GPU, nvcc and cuobjdump): hw/burst_order.sh OUTDIR
set -euo pipefail
out=${1:?usage: burst_order.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/burst_order" "$here/burst_order.cu"
cuobjdump -sass "$out/burst_order" | sed 's#/\* 0x[0-9a-f]* \*/##' >"$out/burst_order.sass"
"$out/burst_order" | gzip -9n >"$out/burst_order.csv.gz"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
rm "$out/burst_order"
