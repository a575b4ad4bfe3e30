#!/usr/bin/env bash
# The SASS ptxas makes of every kernel of a bundle, for comparing with the
# IR it came from (how many machine instructions one IR instruction becomes).
# Needs ptxas and cuobjdump (CUDA); run from anywhere:
#   hw/sass.sh BUNDLE_DIR OUTDIR
# Writes OUTDIR/KERNEL.sass per module of BUNDLE_DIR/manifest.txt, and
# OUTDIR/counts.txt: each kernel's static SASS instruction count (one per
# address line; past 64 KB the addresses take five hex digits, which the
# count matched only from 2026-11-29 on: before, such a kernel counted 4,096).
set -euo pipefail
bundle=${1:?usage: sass.sh BUNDLE_DIR OUTDIR}
out=${2:?usage: sass.sh BUNDLE_DIR OUTDIR}
arch=${ARCH:-sm_90}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep '^module ' "$bundle/manifest.txt" | while read -r _ _ file name _; do
  ptxas -arch="$arch" -O3 "$bundle/$file" -o "$work/$name.cubin"
  cuobjdump -sass "$work/$name.cubin" >"$out/$name.sass"
  echo "$name $(grep -cE '^\s+/\*[0-9a-f]{4,}\*/' "$out/$name.sass")" >>"$out/counts.txt"
done
