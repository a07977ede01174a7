#!/usr/bin/env bash
# What --stall costs kdelay itself (root). The target, kd_stall from the
# tests, polls with 1 ms timeouts in two threads: some 2,000 short
# intervals a second, none long. kdelay watches it with --stall 1s for
# SECONDS (default 20), and, as the anchor of the same round, samples it
# as long with the plain report (--sample-time). For each: kdelay's CPU
# time between its start marker and the end (every thread's run time from
# /proc/PID/task/*/schedstat) as a share of one CPU, and the target's
# intervals a second (its threads' voluntary context switches: one a
# poll). Medians of RUNS rounds. docs/PERFORMANCE.md records the results.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
seconds=${SECONDS_WATCHED:-20}
stall_bin=build/tests/kd_stall

run_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {s += $2} END {print s + 0}'; }

# One round of kdelay with ARGS... on a fresh target: "CPU% intervals/s".
measure() {
    local target out tracer cpu0 cpu1 sw0 sw1
    out=$(mktemp)
    "$stall_bin" poll 0 >/dev/null &
    target=$!
    "$kdelay" -p "$target" "$@" >"$out" 2>/dev/null &
    tracer=$!
    for _ in $(seq 600); do
        grep -q '^# Start' "$out" && break
        sleep 0.1
    done
    cpu0=$(run_ns "$tracer"); sw0=$(switches "$target")
    sleep "$seconds"
    cpu1=$(run_ns "$tracer"); sw1=$(switches "$target")
    kill -INT "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null || true
    kill "$target"; wait "$target" 2>/dev/null || true
    rm -f "$out"
    awk -v c=$((cpu1 - cpu0)) -v s=$((sw1 - sw0)) -v t="$seconds" 'BEGIN {printf "%.2f %d\n", 100 * c / (t * 1e9), s / t}'
}

declare -A cpu=() rate=()
for _ in $(seq "$runs"); do
    for kind in stall sample; do
        if [ "$kind" = stall ]; then
            read -r c r < <(measure --stall 1s)
        else
            read -r c r < <(measure --skip-upcall-stats --sample-time $((seconds + 5)))
        fi
        cpu[$kind]+="$c "
        rate[$kind]+="$r "
    done
done
echo "== kdelay's CPU while watching a target of ~2,000 intervals/s, $seconds s a run, median of $runs"
for kind in stall sample; do
    printf '%-7s CPU %% of one CPU: median %s (runs: %s); intervals/s: median %s\n' "$kind" \
        "$(tr ' ' '\n' <<<"${cpu[$kind]}" | grep . | median)" "${cpu[$kind]}" \
        "$(tr ' ' '\n' <<<"${rate[$kind]}" | grep . | median)"
done
