#!/usr/bin/env bash
# Runs this simsort bundle on an NVIDIA GPU: builds the host program, runs
# the launch sequence once and checks the result, then profiles every launch
# under Nsight Compute with the counters simsort reports (metrics.txt), at
# the GPU's own clocks. Writes ncu.csv, and gpu.txt (the GPU, driver,
# clocks and memory; the ncu version) so that calibrate can tell which GPU
# it was; then, where simsort is installed:
#   simsort calibrate .     (this directory: ncu.csv beside report.json)
set -euo pipefail
cd "$(dirname "$0")"
nvcc -O2 -o host host.cu -lcuda
./host manifest.txt
ncu --clock-control none --csv --page raw --metrics "$(paste -sd, metrics.txt)" \
    ./host manifest.txt >ncu.csv.tmp
mv ncu.csv.tmp ncu.csv
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total \
    --format=csv,noheader | sed -n 1p; ncu --version | tail -1; } >gpu.txt
echo "wrote $(pwd)/ncu.csv"
