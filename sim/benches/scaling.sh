#!/usr/bin/env bash
# The speed-up from 1 to 2 host threads of two simsort builds, measured
# the only way this noisy, shared machine allows: each round runs OLD on
# 1 thread, NEW on 1 thread, OLD on 2 threads, NEW on 2 threads, so every
# ratio compares runs made within seconds of each other. Prints each
# build's median wall times, the paired ratios NEW/OLD per thread count,
# and each build's paired 1-to-2-thread speed-up (medians and quartiles),
# the figures the README quotes.
#
#   sim/benches/scaling.sh 16 /tmp/pin/target/release/simsort \
#       target/release/simsort --keys 1048576
#
# Build the older one in a worktree first (see paired.sh).
set -euo pipefail
. "$(dirname "$0")/common.sh"
check_args "$@"
shift 3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One line per round: old 1T, new 1T, old 2T, new 2T (wall seconds).
for i in $(seq "$rounds"); do
    line=""
    for threads in 1 2; do
        for bin in "$old" "$new"; do
            /usr/bin/time -f "%e" -o "$tmp/t" "$bin" "$@" --threads "$threads" > /dev/null 2> "$tmp/err" ||
                { echo "$0: $bin $* --threads $threads failed:" >&2; cat "$tmp/err" >&2; exit 1; }
            line="$line $(cat "$tmp/t")"
        done
    done
    echo "$line" >> "$tmp/rounds"
done

col() { awk "{ print $1 }" "$tmp/rounds" | stats; }
echo "old: 1 thread $(col '$1') s, 2 threads $(col '$3') s"
echo "new: 1 thread $(col '$2') s, 2 threads $(col '$4') s"
echo "new/old, paired: 1 thread $(col '$2 / $1'); 2 threads $(col '$4 / $3')"
echo "1 to 2 threads, paired: old $(col '$1 / $3')x; new $(col '$2 / $4')x"
