#!/usr/bin/env bash
# Builds hw/lds_under_load.cu and runs it: OUTDIR/lds_under_load.csv.gz, one
# row per block (SM clock cycles of warp 0's chain of dependent shared
# loads), OUTDIR/lds_under_load.sass (its SASS: the chain's LDS and LDS.128)
# and OUTDIR/gpu.txt (the clocks it ran at).
# Usage (with an NVIDIA GPU, nvcc and cuobjdump): hw/lds_under_load.sh OUTDIR
exec "$(dirname "$0")/probe.sh" lds_under_load "${1:?usage: lds_under_load.sh OUTDIR}"
