#!/usr/bin/env bash
# Compares two simsort builds on a shared, noisy machine: runs them
# alternately ROUNDS times with the same arguments and prints each one's
# median wall and user time and the median (and quartiles) of the paired
# ratios NEW/OLD, the figure the README quotes. A single run says little
# here: the same binary varies by a fifth from run to run.
#
#   sim/benches/paired.sh 30 /tmp/pin/target/release/simsort \
#       target/release/simsort --keys 1048576 --threads 2
#
# Build the older one in a worktree first, e.g.
#   git worktree add /tmp/pin 3733c15
#   cargo build --release --manifest-path /tmp/pin/Cargo.toml
set -euo pipefail
. "$(dirname "$0")/common.sh"
check_args "$@"
shift 3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$rounds"); do
    for who in old new; do
        bin=$old
        [ $who = new ] && bin=$new
        /usr/bin/time -f "%e %U" -o "$tmp/t" "$bin" "$@" > /dev/null 2> "$tmp/err" ||
            { echo "$0: $bin $* failed:" >&2; cat "$tmp/err" >&2; exit 1; }
        echo "$i $(cat "$tmp/t")" >> "$tmp/$who"
    done
done

echo "old wall: median $(cut -d' ' -f2 "$tmp/old" | stats); user: median $(cut -d' ' -f3 "$tmp/old" | stats)"
echo "new wall: median $(cut -d' ' -f2 "$tmp/new" | stats); user: median $(cut -d' ' -f3 "$tmp/new" | stats)"
echo "new/old wall, paired: median $(paste -d' ' "$tmp/old" "$tmp/new" | awk '{ print $5 / $2 }' | stats)"
