#!/usr/bin/env bash
# Builds the standalone probe hw/NAME.cu and profiles it under Nsight
# Compute, writing to OUTDIR: STDOUT (what the program prints: which
# launch is which), ncu.csv.gz (ncu's raw CSV rows of the kernels matching
# REGEX, one a launch, gzipped), NAME.sass (its SASS, to check the accesses
# are the ones meant) and gpu.txt (the GPU and its clocks). Further
# arguments go to ncu. smem_patterns.sh and smem_under_load.sh call it.
# Usage (with an NVIDIA GPU, nvcc, cuobjdump and ncu):
#   hw/ncu_probe.sh NAME OUTDIR STDOUT REGEX METRICS [NCU ARGS...]
set -euo pipefail
name=${1:?usage: ncu_probe.sh NAME OUTDIR STDOUT REGEX METRICS [NCU ARGS...]}
out=${2:?usage: ncu_probe.sh NAME OUTDIR STDOUT REGEX METRICS [NCU ARGS...]}
stdout=${3:?usage: ncu_probe.sh NAME OUTDIR STDOUT REGEX METRICS [NCU ARGS...]}
regex=${4:?usage: ncu_probe.sh NAME OUTDIR STDOUT REGEX METRICS [NCU ARGS...]}
metrics=${5:?usage: ncu_probe.sh NAME OUTDIR STDOUT REGEX METRICS [NCU ARGS...]}
shift 5
mkdir -p "$out"
bin=$(mktemp -d)/$name
nvcc -O3 -arch=sm_90 -o "$bin" "$(dirname "$0")/$name.cu"
cuobjdump -sass "$bin" | sed 's#/\* 0x[0-9a-f]* \*/##' >"$out/$name.sass"
# ncu's own output (its CSV among it) goes to the log; stdout is the
# program's alone.
ncu "$@" --csv --page raw --metrics "$metrics" -k "regex:$regex" --log-file "$out/ncu.log" \
  "$bin" >"$out/$stdout"
grep '^"' "$out/ncu.log" | gzip -9n >"$out/ncu.csv.gz"
rm "$out/ncu.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
