#!/usr/bin/env bash
# Builds hw/burst_order.cu and runs it: OUTDIR/burst_order.csv.gz, one row
# per warp (SM clock cycles), OUTDIR/burst_order.sass (its SASS: the two
# loads back to back) and OUTDIR/gpu.txt (the clocks it ran at).
# Usage (with an NVIDIA GPU, nvcc and cuobjdump): hw/burst_order.sh OUTDIR
exec "$(dirname "$0")/probe.sh" burst_order "${1:?usage: burst_order.sh OUTDIR}"
