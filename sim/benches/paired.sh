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
if [ $# -lt 3 ]; then
    echo "usage: $0 ROUNDS OLD_SIMSORT NEW_SIMSORT [SIMSORT ARGS...]" >&2
    exit 2
fi
rounds=$1 old=$2 new=$3
shift 3
case $rounds in
    '' | *[!0-9]*) echo "$0: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2 ;;
esac
for b in "$old" "$new"; do
    [ -x "$b" ] || { echo "$0: not an executable: $b" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (GNU time)" >&2; exit 2; }

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

# The median and quartiles of a column of numbers on stdin.
stats() {
    sort -g | awk '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        q = int(NR / 4)
        printf "median %.3f (quartiles %.3f-%.3f, n=%d)", m, v[q + 1], v[NR - q], NR }'
}
echo "old wall: $(cut -d' ' -f2 "$tmp/old" | stats); user: $(cut -d' ' -f3 "$tmp/old" | stats)"
echo "new wall: $(cut -d' ' -f2 "$tmp/new" | stats); user: $(cut -d' ' -f3 "$tmp/new" | stats)"
echo "new/old wall, paired: $(paste -d' ' "$tmp/old" "$tmp/new" | awk '{ print $5 / $2 }' | stats)"
