#!/usr/bin/env bash
# Where kdelay's own CPU goes while it watches a loop that stalls (root).
# The target, kd_stall poll from the tests, polls with 1 ms timeouts in two
# threads (some 2,000 short intervals a second) and, once released, plants
# a stall of 250 ms (100 ms of CPU, a 150 ms sleep) each second. kdelay
# watches it with --stall 200ms for SECONDS (default 16), with and without
# --profile 0 in the same round. For each, from kdelay's utime + stime
# (/proc/PID/stat, in clock ticks): its start (compiling and loading, up to
# the start marker), the watch (the marker to the end: every stall read,
# symbolized and written), and its exit, and the stalls reported. Medians
# of RUNS rounds (default 3). docs/PERFORMANCE.md records the results.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
seconds=${SECONDS_WATCHED:-16}
stall_bin=build/tests/kd_stall
hz=$(getconf CLK_TCK)

ticks() { awk '{print $14 + $15}' /proc/"$1"/stat 2>/dev/null || echo 0; }

# One round of kdelay with ARGS...: "start_ms watch_ms exit_ms stalls".
measure() {
    local target out tracer t0 t1 t2 n
    out=$(mktemp)
    "$stall_bin" poll $((seconds + 5)) >/dev/null &
    target=$!
    sleep 0.3  # its "ready": SIGUSR1 before its handler is set would end it
    "$kdelay" -p "$target" --stall 200ms "$@" >"$out" 2>/dev/null &
    tracer=$!
    for _ in $(seq 600); do
        grep -q '^# Start' "$out" && break
        sleep 0.05
    done
    t0=$(ticks "$tracer")
    kill -USR1 "$target"
    sleep "$seconds"
    t1=$(ticks "$tracer")
    # The exit's CPU: the last tick count the process shows before it goes.
    kill -INT "$tracer"
    t2=$t1
    while kill -0 "$tracer" 2>/dev/null; do
        t=$(ticks "$tracer")
        [ "$t" -gt 0 ] && t2=$t
        sleep 0.01
    done
    wait "$tracer" 2>/dev/null || true
    n=$(grep -c '^# STALL' "$out" || true)
    kill "$target"; wait "$target" 2>/dev/null || true
    rm -f "$out"
    awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$n" -v hz="$hz" \
        'BEGIN {printf "%d %d %d %d\n", 1000 * a / hz, 1000 * (b - a) / hz, 1000 * (c - b) / hz, n}'
}

declare -A start=() watch=() quit=() stalls=()
for _ in $(seq "$runs"); do
    for kind in profile noprofile; do
        case $kind in
        profile) read -r s w e n < <(measure) ;;
        noprofile) read -r s w e n < <(measure --profile 0) ;;
        esac
        start[$kind]+="$s "; watch[$kind]+="$w "; quit[$kind]+="$e "; stalls[$kind]+="$n "
    done
done
med() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo "== kdelay's CPU (ms) watching ~2,000 intervals/s with a 250 ms stall a second, $seconds s a run, median of $runs"
for kind in profile noprofile; do
    w=$(med "${watch[$kind]}")
    printf '%-9s start %s (runs: %s); watch %s = %s%% of one CPU (runs: %s); exit %s; stalls %s\n' "$kind" \
        "$(med "${start[$kind]}")" "${start[$kind]}" "$w" "$(awk -v w="$w" -v s="$seconds" 'BEGIN {printf "%.2f", w / (10 * s)}')" \
        "${watch[$kind]}" "$(med "${quit[$kind]}")" "$(med "${stalls[$kind]}")"
done
