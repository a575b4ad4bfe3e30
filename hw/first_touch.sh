#!/usr/bin/env bash
# Builds hw/first_touch.cu and runs it: OUTDIR/first_touch.csv.gz, one row
# per chase step (SM clock cycles), OUTDIR/first_touch.sass (its SASS: one
# LDG a step) and OUTDIR/gpu.txt (the clocks it ran at).
# Usage (with an NVIDIA GPU, nvcc and cuobjdump): hw/first_touch.sh OUTDIR
exec "$(dirname "$0")/probe.sh" first_touch "${1:?usage: first_touch.sh OUTDIR}"
