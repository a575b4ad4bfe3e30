#!/usr/bin/env bash
# Builds the standalone probe hw/NAME.cu and runs it, writing to OUTDIR:
# NAME.csv.gz (what it prints, gzipped), NAME.sass (its SASS, to check the
# accesses are the ones meant) and gpu.txt (the GPU and the clocks it ran
# at). burst_order.sh and first_touch.sh call it.
# Usage (with an NVIDIA GPU, nvcc and cuobjdump): hw/probe.sh NAME OUTDIR
set -euo pipefail
name=${1:?usage: probe.sh NAME OUTDIR}
out=${2:?usage: probe.sh NAME OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/$name" "$here/$name.cu"
cuobjdump -sass "$out/$name" | sed 's#/\* 0x[0-9a-f]* \*/##' >"$out/$name.sass"
"$out/$name" | gzip -9n >"$out/$name.csv.gz"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
rm "$out/$name"
