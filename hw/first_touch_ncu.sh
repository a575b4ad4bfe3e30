#!/usr/bin/env bash
# Runs hw/first_touch.cu under Nsight Compute, as hw/calib/measure.sh
# records the suites (`--clock-control none`), with its cache control on
# (`all`, the default: caches emptied before each profiled launch) and off
# (`none`): OUTDIR/first_touch_ncu_all.csv.gz and _none.csv.gz (the
# probe's rows, as hw/first_touch.sh writes them) and OUTDIR/gpu_ncu.txt.
# Usage (with an NVIDIA GPU, nvcc and ncu): hw/first_touch_ncu.sh OUTDIR
set -euo pipefail
out=${1:?usage: first_touch_ncu.sh OUTDIR}
mkdir -p "$out"
bin=$(mktemp -d)/first_touch
nvcc -O3 -arch=sm_90 -o "$bin" "$(dirname "$0")/first_touch.cu"
for cc in all none; do
  # ncu's own output goes to the log; stdout is the probe's CSV alone.
  ncu --clock-control none --cache-control "$cc" -k chase --metrics sm__cycles_elapsed.max \
    --log-file "$out/ncu_$cc.log" "$bin" | gzip -9n >"$out/first_touch_ncu_$cc.csv.gz"
  rm "$out/ncu_$cc.log"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu_ncu.txt"
