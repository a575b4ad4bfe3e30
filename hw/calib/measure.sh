#!/usr/bin/env bash
# Builds the bundle of every entry of a calibration suite, runs each on the
# GPU (the host program checks the result), and profiles every launch under
# Nsight Compute. Needs an NVIDIA GPU, nvcc and ncu; run from the
# repository's root:
#   hw/calib/measure.sh SIMSORT SUITE OUTDIR
# SIMSORT is the simsort binary, SUITE a suite file (hw/calib/suite.txt).
# Writes OUTDIR/NAME.csv per entry, trimmed to the launch columns and the
# metrics of hw/metrics.txt, and OUTDIR/gpu.txt (the GPU, driver, clocks
# and memory; the ncu version: calibrate notes a comparison across GPUs);
# copy them to hw/data/calib/.
# SIMULATE=1 records each bundle with the simulator instead of without it
# (`--no-simulate`): sorts whose launches depend on what they read back
# (sample sort, terasort) need it. JOBS=N records N bundles at a time
# first (recording is CPU work, and a simulated one can take a minute);
# the runs and profiles then go one at a time on the GPU. METRICS=FILE
# records that list instead of hw/metrics.txt (hw/data/h200/imc/ adds the
# constant cache's). REPEATS=N runs and profiles each bundle N times,
# recorded once, into OUTDIR/run1 .. OUTDIR/runN (hw/calib/median_runs.py
# then keeps each launch's median row).
set -euo pipefail
simsort=${1:?usage: measure.sh SIMSORT SUITE OUTDIR}
suite=${2:?usage: measure.sh SIMSORT SUITE OUTDIR}
out=${3:?usage: measure.sh SIMSORT SUITE OUTDIR}
mode=--no-simulate
[ "${SIMULATE:-0}" = 1 ] && mode=
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total \
    --format=csv,noheader | sed -n 1p; ncu --version | tail -1; } >"$out/gpu.txt"
nvcc -O2 -o "$work/host" hw/bundle/host.cu -lcuda
metrics_file=${METRICS:-hw/metrics.txt}
metrics=$(paste -sd, "$metrics_file")
jobs=${JOBS:-1}
entries=$(grep -v '^\s*#' "$suite" | grep -v '^\s*$')
# Records one entry's bundle into $work/NAME (a failure leaves none).
record() {
  local name=$1 kind=$2
  shift 2
  # shellcheck disable=SC2086
  "$simsort" emit "$kind" -o "$work/$name" $mode "$@" >/dev/null 2>"$work/$name.err" ||
    rm -rf "${work:?}/$name"
}
export -f record
export simsort work mode metrics metrics_file
# shellcheck disable=SC2016
echo "$entries" | xargs -P "$jobs" -L 1 bash -c 'record "$@"' _
# One entry: run and check, profile into directory $2. A failing entry is
# reported and the others go on.
measure() {
  local name=$1 dir=$2
  [ -d "$work/$name" ] || { cat "$work/$name.err" >&2; return 1; }
  "$work/host" "$work/$name/manifest.txt" </dev/null &&
    ncu --clock-control none --csv --page raw --metrics "$metrics" \
      "$work/host" "$work/$name/manifest.txt" </dev/null >"$work/$name.raw.csv" &&
    python3 hw/calib/trim.py "$work/$name.raw.csv" "$metrics_file" >"$dir/$name.csv"
}
repeats=${REPEATS:-1}
# Repeats go over the whole suite in turn, so that two recordings of an
# entry are minutes apart, as separate runs of this script would be.
for ((r = 1; r <= repeats; r++)); do
  dir=$out
  [ "$repeats" -gt 1 ] && dir=$out/run$r && mkdir -p "$dir"
  echo "$entries" | while read -r name _; do
    if measure "$name" "$dir"; then
      echo "$name${dir#"$out"}: $(($(wc -l <"$dir/$name.csv") - 2)) launches"
    else
      echo "$name${dir#"$out"}: FAILED"
    fi
    rm -f "$work/$name.raw.csv"
  done
done
