#!/usr/bin/env bash
# Runs hw/store_queue.cu under Nsight Compute with its cache control off
# (the probe empties or warms the L2 itself) and the clocks as the suites
# record them (`--clock-control none`), every launch of `probe` profiled
# (the warm-up and the measured run of each variant, in the probe's order):
# OUTDIR/store_queue_ncu.csv.gz (ncu's raw page: DRAM and L2 traffic,
# cycles), OUTDIR/store_queue.csv.gz (the probe's own rows, as
# hw/store_queue.sh writes them) and OUTDIR/gpu_ncu.txt.
# Usage (with an NVIDIA GPU, nvcc and ncu): hw/store_queue_ncu.sh OUTDIR
set -euo pipefail
out=${1:?usage: store_queue_ncu.sh OUTDIR}
mkdir -p "$out"
tmp=$(mktemp -d)
nvcc -O3 -arch=sm_90 -o "$tmp/store_queue" "$(dirname "$0")/store_queue.cu"
metrics=sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_requests_op_write.sum
metrics+=,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
ncu --clock-control none --cache-control none --replay-mode application -k probe \
  --metrics "$metrics" -o "$tmp/report" --log-file "$tmp/ncu.log" "$tmp/store_queue" |
  gzip -9n >"$out/store_queue.csv.gz"
ncu --import "$tmp/report.ncu-rep" --csv --page raw | gzip -9n >"$out/store_queue_ncu.csv.gz"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu_ncu.txt"
rm -r "$tmp"
