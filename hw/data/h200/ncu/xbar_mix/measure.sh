#!/usr/bin/env bash
# The calibration CSVs (calib/, hw/calib/measure.sh) and the SM port's
# counters (port/, the metrics of ../xbar_port/README.md) of the five
# entries of suite.txt, on one H200; run from the repository's root:
#   SIMSORT=path/to/simsort OUT=outdir hw/data/h200/ncu/xbar_mix/measure.sh
# It leaves OUT/res.tgz (calib/ and port/). The committed files came from
# one run on 2026-11-29 (the kernel path then a copy of
# hw/calib/kernels/xbar_apart.kir, the binary a dev build of branch tstep).
set -u
D=${D:-hw/data/h200/ncu/xbar_mix}
mkdir -p $OUT/calib $OUT/port
M=sm__cycles_elapsed.max,sm__cycles_active.max,l1tex__m_l1tex2xbar_req_cycles_active.max,l1tex__m_l1tex2xbar_req_cycles_active.sum,l1tex__m_l1tex2xbar_write_sectors_mem_lg_op_st.sum,l1tex__m_l1tex2xbar_write_bytes.sum,l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum,l1tex__m_xbar2l1tex_read_bytes.sum,l1tex__data_pipe_lsu_wavefronts.max,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.max,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex.sum,l1tex__lsu_writeback_active_mem_lgds.sum,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__inst_executed.sum
nvcc -O2 -o /tmp/host hw/bundle/host.cu -lcuda
port() {
  local name=$1; shift; shift
  ${SIMSORT:?} emit bundle-run -o /tmp/b_$name --no-simulate "$@" >/dev/null &&
  ncu --clock-control none --csv --page raw --metrics $M /tmp/host /tmp/b_$name/manifest.txt </dev/null >$OUT/port/$name.csv 2>$OUT/port/$name.err
  echo "port $name rc=$? $(date +%s)"
}
grep -v '^#' $D/suite.txt | head -2 | while read -r line; do port $line; done
timeout 90 hw/calib/measure.sh ${SIMSORT:?} $D/suite.txt $OUT/calib
grep -v '^#' $D/suite.txt | tail -3 | while read -r line; do port $line; done
nvidia-smi -q | grep -iE 'product name|driver version' | head -2 >$OUT/port/gpu.txt
ncu --version >>$OUT/port/gpu.txt
cd $OUT && tar czf res.tgz calib port && rm -rf calib port
