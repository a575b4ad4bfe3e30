#!/usr/bin/env bash
# Builds hw/store_queue.cu and runs it: OUTDIR/store_queue.csv.gz, one row
# per warp (the SM clock after its 1st, 2nd, 4th, ... 256th back-to-back
# global store), OUTDIR/store_queue.sass (its SASS: 256 STG, no local
# memory) and OUTDIR/gpu.txt (the clocks it ran at).
# Usage (with an NVIDIA GPU, nvcc and cuobjdump): hw/store_queue.sh OUTDIR
exec "$(dirname "$0")/probe.sh" store_queue "${1:?usage: store_queue.sh OUTDIR}"
