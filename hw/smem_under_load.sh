#!/usr/bin/env bash
# Builds hw/smem_under_load.cu and profiles its launches: OUTDIR/variants.csv
# (the variants in launch order), OUTDIR/ncu.csv.gz (Nsight Compute's raw
# CSV, one row a launch), OUTDIR/smem_under_load.sass and OUTDIR/gpu.txt.
# Usage (with an NVIDIA GPU, nvcc, cuobjdump and ncu): hw/smem_under_load.sh OUTDIR
set -euo pipefail
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__m_xbar2l1tex_read_sectors.sum,sm__cycles_elapsed.max
exec "$(dirname "$0")/ncu_probe.sh" smem_under_load "${1:?usage: smem_under_load.sh OUTDIR}" \
  variants.csv '^(under_load|after_stores|once)' "$metrics" --clock-control none
