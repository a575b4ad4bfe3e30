#!/usr/bin/env bash
# GPUTeraSort's `step` at 4M records, alone: does the H200's time depend
# on how far apart a thread's two 128-byte vectors lie, and do its stores
# hit the lines its loads brought into L1? (docs/calibration.md, "Kept
# apart": the model's first step of a stage, partners mirrored, is 19-27%
# slow where partners a multiple of 64 KB apart are not.)
# Needs nvcc and ncu; run from the repository's root:
#   hw/step_l1.sh SIMSORT OUTDIR
# One launch per variant, 512 blocks of 256 threads over a zeroed 32 MB
# buffer (262,144 vectors of 16 64-bit words, the 4M sort's array):
#   nD: partner D vectors on (x2 = x1 + D), fD: mirrored within 2D (x2 = x1 ^ (2D - 1)).
# Writes OUTDIR/step_l1.csv (ncu raw, one row a variant, in the order
# below) and OUTDIR/variants.txt.
set -euo pipefail
simsort=${1:?usage: step_l1.sh SIMSORT OUTDIR}
out=${2:?usage: step_l1.sh SIMSORT OUTDIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
"$simsort" kernels --algo terasort --print step >"$work/step.kir"
nvcc -O2 -o "$work/host" hw/bundle/host.cu -lcuda
metrics=sm__cycles_elapsed.max,sm__cycles_active.avg,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_miss.sum,\
l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,\
l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum,\
l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,\
smsp__inst_executed.sum
: >"$out/variants.txt"
first=1
for v in n256 n512 n8192 f256 f512; do
  d=${v#?}
  if [ "${v%"$d"}" = f ]; then xor=$((2 * d - 1)) add=0 flip=1; else xor=0 add=$d flip=0; fi
  mask=$((4294967296 - d))
  "$simsort" emit bundle-run -o "$work/$v" --no-simulate "$work/step.kir" \
    --grid 512 --block 256 --buffer keys=32M --param nv=262144 --param hi_mask=$mask \
    --param x_xor=$xor --param x_add=$add --param flip=$flip --param pre=0 --param post=0 >/dev/null
  echo "$v hi_mask=$mask x_xor=$xor x_add=$add flip=$flip" >>"$out/variants.txt"
  "$work/host" "$work/$v/manifest.txt" </dev/null
  ncu --clock-control none --csv --page raw --metrics "$metrics" \
    "$work/host" "$work/$v/manifest.txt" </dev/null >"$work/$v.csv"
  # Header and units once, then each variant's row.
  if [ $first = 1 ]; then grep '^"' "$work/$v.csv" >"$out/step_l1.csv"; first=0
  else grep '^"' "$work/$v.csv" | tail -n +3 >>"$out/step_l1.csv"; fi
done
