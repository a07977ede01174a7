#!/bin/bash
# sudo bench/ablate.sh VARIANT...: what one change to the delay program's
# kernel side costs on the scheduler path, without rebuilding kdelay. For
# each run and variant (alternating), ctx_storm pipe1 starts, kdelay renders
# its program for it (--ebpf -p), the variant edits the text, and
# program_loader holds it while the storm is counted.
# A variant is one of:
#   untraced no program
#   as-is    the program kdelay renders
#   floor    empty programs on the same five hooks
#   FILE.sed sed expressions applied to the program
#   FILE     an executable that edits (or replaces) the program file named
#            as its argument
# RUNS (5), STORM_SECONDS (4): as in ctxswitch.sh; MODE (pipe1): the storm,
# as ctxswitch.sh's MODES (getppid for the syscall path); WARMUP (3): the
# whole seconds the storm waits before it counts, which must cover the
# render and the compile (45 or more under TCG). Medians, turns/s; "n/a" for a run
# whose program was attached after the warm-up.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
seconds=${STORM_SECONDS:-4}
warmup=${WARMUP:-3}
[ $# -gt 0 ] || { echo "usage: ablate.sh VARIANT..." >&2; exit 64; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT


# One measurement of variant $1: turns/s.
measure() {
    local variant=$1 prog=$work/program.c out=$work/storm.out attached=$work/loader.out storm loader deadline in_time=1
    deadline=$(warmup_end "$warmup")
    $b/ctx_storm "${MODE:-pipe1}" "$seconds" "$warmup" >"$out" &
    storm=$!
    if [ "$variant" = untraced ]; then
        wait "$storm"
        awk '{print $2}' "$out"
        return
    fi
    case $variant in
    floor) "$b/hook_floor" --print sched >"$prog" ;;
    *) "$kdelay" --ebpf -p "$storm" >"$prog" ;;
    esac
    case $variant in
    as-is | floor) ;;
    *.sed) sed -i -f "$variant" "$prog" ;;
    *) "$variant" "$prog" ;;
    esac
    $b/program_loader "$prog" $((seconds + warmup + 2)) >"$attached" &
    loader=$!
    began_before "$attached" '^attached' "$deadline" || in_time=0
    wait "$storm"
    kill "$loader" 2>/dev/null || true
    wait "$loader" 2>/dev/null || true
    if [ "$in_time" = 1 ]; then awk '{print $2}' "$out"; else echo n/a; fi
}

declare -A result=()
for _ in $(seq "$runs"); do
    for v in "$@"; do
        result[$v]+="$(measure "$v") "
    done
done
for v in "$@"; do
    printf '%-24s median %8s   (runs: %s)\n' "$(basename "$v")" "$(tr ' ' '\n' <<<"${result[$v]}" | grep . | median)" "${result[$v]}"
done
