#!/usr/bin/env bash
# Builds hw/smem_patterns.cu and profiles each of its one-warp launches:
# OUTDIR/patterns.csv (load or store, width, pattern, the lanes' word
# indices, one row a launch in launch order), OUTDIR/ncu.csv.gz (Nsight
# Compute's shared wavefronts, bank conflicts and instructions, one row a
# launch, same order), OUTDIR/smem_patterns.sass (an LDS, LDS.64, LDS.128,
# STS, STS.64, STS.128 kernel each) and
# OUTDIR/gpu.txt.
# Usage (with an NVIDIA GPU, nvcc, cuobjdump and ncu): hw/smem_patterns.sh OUTDIR
set -euo pipefail
out=${1:?usage: smem_patterns.sh OUTDIR}
mkdir -p "$out"
here=$(dirname "$0")
bin=$(mktemp -d)/smem_patterns
nvcc -O3 -arch=sm_90 -o "$bin" "$here/smem_patterns.cu"
cuobjdump -sass "$bin" | sed 's#/\* 0x[0-9a-f]* \*/##' >"$out/smem_patterns.sass"
"$bin" >"$out/patterns.csv"
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_st.sum
ncu --csv --page raw --metrics "$metrics" -k regex:'^(load|store)' "$bin" >"$out/ncu.raw" 2>/dev/null
# ncu's rows only (the program's own rows are in patterns.csv).
grep '^"' "$out/ncu.raw" | gzip -9n >"$out/ncu.csv.gz"
rm "$out/ncu.raw"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
