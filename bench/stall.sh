#!/usr/bin/env bash
# What --stall costs kdelay itself (root). The target, kd_stall from the
# tests, polls with 1 ms timeouts in two threads: some 2,000 short
# intervals a second, none long (TARGET_MODE=busy: each with 50 getppid()
# calls too, some 100,000 syscalls a second). kdelay watches it with
# --stall 1s for SECONDS (default 20), also with --profile 0 (noprofile:
# --stall samples where intervals run by default), --timeline DIR
# (timeline) and --wait-stacks 5 (stacks), and, as the anchor of the same
# round, samples it as long with the plain report (--sample-time). For each: kdelay's CPU
# time between its start marker and the end (every thread's run time from
# /proc/PID/task/*/schedstat) as a share of one CPU, and the target's
# intervals a second (its threads' voluntary context switches: one a
# poll). Medians of RUNS rounds. docs/PERFORMANCE.md records the results.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
seconds=${SECONDS_WATCHED:-20}
stall_bin=build/tests/kd_stall
timelines=$(mktemp -d)
trap 'rm -rf "$timelines"' EXIT

run_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%d\n", s}'; }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {s += $2} END {print s + 0}'; }
# The kernel memory of PID's BPF maps and programs, as the kernel charges it.
memlock() { cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^memlock:/ {s += $2} END {printf "%d\n", s}'; }

# One round of kdelay with ARGS... on a fresh target: "CPU% intervals/s MiB"
# (MiB: its maps' and programs' kernel memory).
measure() {
    local target out tracer cpu0 cpu1 sw0 sw1 mem
    out=$(mktemp)
    "$stall_bin" poll 0 ${TARGET_MODE:-} >/dev/null &
    target=$!
    "$kdelay" -p "$target" "$@" >"$out" 2>/dev/null &
    tracer=$!
    for _ in $(seq 600); do
        grep -q '^# Start' "$out" && break
        sleep 0.1
    done
    cpu0=$(run_ns "$tracer"); sw0=$(switches "$target"); mem=$(memlock "$tracer")
    sleep "$seconds"
    cpu1=$(run_ns "$tracer"); sw1=$(switches "$target")
    kill -INT "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null || true
    kill "$target"; wait "$target" 2>/dev/null || true
    rm -f "$out"
    awk -v c=$((cpu1 - cpu0)) -v s=$((sw1 - sw0)) -v t="$seconds" -v m="$mem" \
        'BEGIN {printf "%.2f %d %.1f\n", 100 * c / (t * 1e9), s / t, m / 1048576}'
}

declare -A cpu=() rate=() mib=()
for _ in $(seq "$runs"); do
    for kind in stall noprofile timeline stacks sample; do
        case $kind in
        stall) read -r c r m < <(measure --stall 1s) ;;
        noprofile) read -r c r m < <(measure --stall 1s --profile 0) ;;
        timeline) read -r c r m < <(measure --stall 1s --timeline "$timelines") ;;
        stacks) read -r c r m < <(measure --stall 1s --wait-stacks 5) ;;
        sample) read -r c r m < <(measure --skip-upcall-stats --sample-time $((seconds + 5))) ;;
        esac
        mib[$kind]=$m
        cpu[$kind]+="$c "
        rate[$kind]+="$r "
    done
done
echo "== kdelay's CPU while watching a target of ~2,000 intervals/s, $seconds s a run, median of $runs"
for kind in stall noprofile timeline stacks sample; do
    printf '%-8s CPU %% of one CPU: median %s (runs: %s); intervals/s: median %s; kernel memory %s MiB\n' "$kind" \
        "$(tr ' ' '\n' <<<"${cpu[$kind]}" | grep . | median)" "${cpu[$kind]}" \
        "$(tr ' ' '\n' <<<"${rate[$kind]}" | grep . | median)" "${mib[$kind]}"
done
