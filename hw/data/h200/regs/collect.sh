#!/usr/bin/env bash
# Registers per thread of every kernel of the committed suites' bundles:
# the IR's declared and live words (from the header simsort emit writes
# into each PTX) against what ptxas allocates. Needs ptxas (CUDA); run from
# the repository's root:
#   hw/data/h200/regs/collect.sh SIMSORT > hw/data/h200/regs/regs.txt
# Bundles are recorded without simulating where the sort allows it.
set -euo pipefail
simsort=${1:?usage: collect.sh SIMSORT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat <<'HEAD'
# Registers per thread of every kernel of the committed suites' bundles:
# the IR's declared 32-bit words, the most words it keeps live at once
# (kernels_ir::live::max_live_words), and what ptxas allocates
# (`ptxas -arch=sm_90 -O3 -v`). Produced by hw/data/h200/regs/collect.sh.
# suite entry kernel declared live ptxas
HEAD
for s in suite suite_algos suite_wide suite_large suite_samplesort \
  suite_samplesort_batched suite_terasort; do
  grep -v '^\s*#' "hw/calib/$s.txt" | grep -v '^\s*$' | while read -r name kind args; do
    d=$work/$s@$name
    # shellcheck disable=SC2086
    "$simsort" emit "$kind" -o "$d" --no-simulate $args >/dev/null 2>&1 ||
      { rm -rf "$d"; "$simsort" emit "$kind" -o "$d" $args >/dev/null; }
    grep '^module ' "$d/manifest.txt" | while read -r _ _ file kernel _; do
      read -r declared live < <(sed -n 's/.*declares \([0-9]*\) 32-bit words a thread and keeps at most \([0-9]*\) live.*/\1 \2/p' "$d/$file")
      regs=$(ptxas -arch=sm_90 -O3 -v "$d/$file" -o "$work/k.cubin" 2>&1 |
        sed -n 's/.*Used \([0-9]*\) registers.*/\1/p')
      echo "$s $name $kernel $declared $live $regs"
    done
    rm -rf "$d"
  done
done
