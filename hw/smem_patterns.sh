#!/usr/bin/env bash
# Builds hw/smem_patterns.cu and profiles each of its one-warp launches:
# OUTDIR/patterns.csv (load or store, width, pattern, the lanes' word
# indices, one row a launch in launch order), OUTDIR/ncu.csv.gz (Nsight
# Compute's shared wavefronts, bank conflicts and instructions, one row a
# launch, same order), OUTDIR/smem_patterns.sass (an LDS, LDS.64, LDS.128,
# STS, STS.64, STS.128 kernel each) and OUTDIR/gpu.txt.
# Usage (with an NVIDIA GPU, nvcc, cuobjdump and ncu): hw/smem_patterns.sh OUTDIR
set -euo pipefail
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_st.sum
exec "$(dirname "$0")/ncu_probe.sh" smem_patterns "${1:?usage: smem_patterns.sh OUTDIR}" \
  patterns.csv '^(load|store)' "$metrics"
