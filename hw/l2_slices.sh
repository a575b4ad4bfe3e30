#!/usr/bin/env bash
# Builds hw/l2_slices.cu and profiles its launches with Nsight Compute:
# OUTDIR/patterns.csv (the patterns in launch
# order), OUTDIR/ncu.csv.gz (raw CSV, one row a launch: each metric's sum,
# mean, min and max over the L2 slices; `--print-metric-instances values`
# adds no per-slice values for these), OUTDIR/l2_slices.sass, OUTDIR/gpu.txt.
# Usage (with an NVIDIA GPU, nvcc, cuobjdump and ncu): hw/l2_slices.sh OUTDIR
set -euo pipefail
metrics=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum
# Reads an SM sends to its near L2 partition's slice that the far
# partition's slice serves come back over the L2 fabric (GA100 and later);
# recorded where this ncu has the metric.
if ncu --query-metrics --chip gh100 2>/dev/null | grep -q '^lts__t_sectors_srcunit_ltcfabric '; then
  metrics+=,lts__t_sectors_srcunit_ltcfabric.sum
fi
exec "$(dirname "$0")/ncu_probe.sh" l2_slices "${1:?usage: l2_slices.sh OUTDIR}" \
  patterns.csv '^slice_touch$' "$metrics" --clock-control none --print-metric-instances values
