#!/usr/bin/env bash
# Measures everything a machine file's timing fields are set from, on one
# NVIDIA GPU (needs nvcc and ncu); run from the repository's root:
#   hw/measure_machine.sh SIMSORT SUITE OUTDIR
# Writes OUTDIR/gpu.txt (GPU, driver, clocks, ncu version), device.txt
# (the device attributes ncu reports: SMs, L2 size, ...), the timing
# microbenchmarks' counters (timing_ncu.csv, hw/timing.sh, trimmed to the
# metrics of hw/metrics.txt), the dependent-chain latencies (latency.csv,
# hw/latency.sh), the shared atomics' (atomics/, hw/atomics/atomics.sh), and
# one CSV per entry of the calibration suite SUITE (calib/NAME.csv,
# hw/calib/measure.sh). A step that fails is reported and the others go on.
set -uo pipefail
simsort=${1:?usage: measure_machine.sh SIMSORT SUITE OUTDIR}
suite=${2:?usage: measure_machine.sh SIMSORT SUITE OUTDIR}
out=${3:?usage: measure_machine.sh SIMSORT SUITE OUTDIR}
here=$(dirname "$0")
work=$(mktemp -d)
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total \
    --format=csv,noheader
  ncu --version | tail -1
} >"$out/gpu.txt"
# The device's attributes as ncu reports them (SMs, L2 size, clocks), one
# `name value` a line, from the first launch of the raw timing table.
attributes() {
  python3 -c 'import csv,sys
rows=list(csv.reader(l for l in open(sys.argv[1]) if l.startswith("\"")))
for k,v in zip(rows[0],rows[2]):
    if k.startswith("device__attribute"): print(k,v)' "$1"
}
"$here/timing.sh" "$work/timing" &&
  python3 "$here/calib/trim.py" "$work/timing/timing_ncu.csv" "$here/metrics.txt" \
    >"$out/timing_ncu.csv" &&
  attributes "$work/timing/timing_ncu.csv" >"$out/device.txt" || echo "timing: FAILED"
"$here/latency.sh" "$work/latency" && cp "$work/latency/latency.csv" "$out/" ||
  echo "latency: FAILED"
"$here/atomics/atomics.sh" "$work/atomics" &&
  mkdir -p "$out/atomics" &&
  cp "$work/atomics"/{atomics_ncu.csv,latency.txt,metrics_used.txt,gpu.txt} "$out/atomics/" ||
  echo "atomics: FAILED"
"$here/calib/measure.sh" "$simsort" "$suite" "$out/calib"
