# What paired.sh and scaling.sh share; sourced, not run.

# Checks `ROUNDS OLD_SIMSORT NEW_SIMSORT [SIMSORT ARGS...]` and sets
# `rounds`, `old` and `new` (the caller then shifts the three away);
# exits with status 2 and a message naming the problem otherwise.
check_args() {
    if [ $# -lt 3 ]; then
        echo "usage: $0 ROUNDS OLD_SIMSORT NEW_SIMSORT [SIMSORT ARGS...]" >&2
        exit 2
    fi
    rounds=$1 old=$2 new=$3
    case $rounds in
        '' | *[!0-9]* | 0) echo "$0: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2 ;;
    esac
    for b in "$old" "$new"; do
        [ -x "$b" ] || { echo "$0: not an executable: $b" >&2; exit 2; }
    done
    [ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (GNU time)" >&2; exit 2; }
}

# The median and quartiles of a column of numbers on stdin.
stats() {
    sort -g | awk '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        q = int(NR / 4)
        printf "%.3f (quartiles %.3f-%.3f, n=%d)", m, v[q + 1], v[NR - q], NR }'
}
