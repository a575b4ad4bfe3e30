#!/usr/bin/env bash
# Builds hw/atomics/atomics.cu and records its launches' Nsight Compute counters (the
# shared-atomic metrics this ncu knows, plus hw/metrics.txt) as one CSV row
# per launch, the chain latencies printed by the program, and the SASS.
# Usage (on a machine with an NVIDIA GPU, nvcc and ncu): hw/atomics/atomics.sh OUTDIR
set -euo pipefail
out=${1:?usage: atomics.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/atomics" "$here/atomics.cu"
cuobjdump --dump-sass "$out/atomics" >"$out/atomics.sass"
"$out/atomics" >"$out/latency.txt"
ncu --query-metrics --chip gh100 >"$out/query.txt" 2>&1 || true
want=""
for base in smsp__sass_inst_executed_op_shared_atom smsp__inst_executed_op_shared_atom \
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom \
  l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_bank_conflicts_pipe_lsu_mem_shared \
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld \
  smsp__inst_executed_op_shared_ld smsp__sass_inst_executed_op_shared_ld; do
  if grep -q "^$base " "$out/query.txt"; then want+="$base.sum,"; fi
done
metrics="$want$(paste -sd, "$here/../metrics.txt")"
echo "$metrics" >"$out/metrics_used.txt"
ncu --clock-control none --csv --page raw --metrics "$metrics" "$out/atomics" >"$out/atomics_ncu.csv"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt"
ncu --version | tail -1 >>"$out/gpu.txt"
