#!/usr/bin/env bash
# Builds hw/first_touch.cu and runs it: OUTDIR/first_touch.csv.gz, one row
# per chase step (SM clock cycles), OUTDIR/first_touch.sass (its SASS: one
# LDG a step) and OUTDIR/gpu.txt (the clocks it ran at).
# Usage (with an NVIDIA GPU, nvcc and cuobjdump): hw/first_touch.sh OUTDIR
set -euo pipefail
out=${1:?usage: first_touch.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/first_touch" "$here/first_touch.cu"
cuobjdump -sass "$out/first_touch" | sed 's#/\* 0x[0-9a-f]* \*/##' >"$out/first_touch.sass"
"$out/first_touch" | gzip -9n >"$out/first_touch.csv.gz"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
rm "$out/first_touch"
