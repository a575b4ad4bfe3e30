#!/usr/bin/env bash
# Builds hw/timing.cu and records its launches' Nsight Compute counters
# (hw/metrics.txt) as one CSV row per launch.
# Usage (on a machine with an NVIDIA GPU, nvcc and ncu): hw/timing.sh OUTDIR
set -euo pipefail
out=${1:?usage: timing.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/timing" "$here/timing.cu"
metrics=$(paste -sd, "$here/metrics.txt")
ncu --clock-control none --csv --page raw --metrics "$metrics" "$out/timing" >"$out/timing_ncu.csv"
