#!/usr/bin/env bash
# Builds hw/microbench.cu and records its Nsight Compute counters as CSV.
# Usage (on a machine with an NVIDIA GPU, nvcc and ncu): hw/measure.sh OUTDIR
set -euo pipefail
out=${1:?usage: measure.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o "$out/microbench" "$here/microbench.cu"
"$out/microbench"
metrics=smsp__inst_executed.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
ncu --clock-control none --csv --metrics "$metrics" "$out/microbench" >"$out/ncu_raw.csv"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt"
ncu --version | tail -1 >>"$out/gpu.txt"
cuobjdump --dump-sass "$out/microbench" >"$out/microbench.sass"
