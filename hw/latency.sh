#!/usr/bin/env bash
# Builds hw/latency.cu and runs it: one CSV row per dependent chain
# (`chain,steps,cycles,cycles_per_step`, cycles read with clock64 inside
# the kernel), written to OUTDIR/latency.csv.
# Usage (on a machine with an NVIDIA GPU and nvcc): hw/latency.sh OUTDIR
set -euo pipefail
out=${1:?usage: latency.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/latency" "$here/latency.cu"
"$out/latency" >"$out/latency.csv"
