#!/usr/bin/env bash
# Runs this simsort bundle on an NVIDIA GPU: builds the host program, runs
# the launch sequence once and checks the result, then profiles every launch
# under Nsight Compute with the counters simsort reports (metrics.txt), at
# the GPU's own clocks. Writes ncu.csv; then, where simsort is installed:
#   simsort calibrate .     (this directory: ncu.csv beside report.json)
set -euo pipefail
cd "$(dirname "$0")"
nvcc -O2 -o host host.cu -lcuda
./host manifest.txt
ncu --clock-control none --csv --page raw --metrics "$(paste -sd, metrics.txt)" \
    ./host manifest.txt >ncu.csv.tmp
mv ncu.csv.tmp ncu.csv
echo "wrote $(pwd)/ncu.csv"
