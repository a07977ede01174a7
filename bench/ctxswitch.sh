#!/usr/bin/env bash
# kdelay's cost on the scheduler path (root). bench/ctx_storm makes two
# threads of one process hand a turn back and forth: a pipe ping-pong on one
# CPU (pipe1), across two CPUs (pipe2) or unpinned (pipe), a futex ping-pong
# across two CPUs (futex); getppid is the syscall path alone. Each runs
# untraced, under empty programs on every hook kdelay uses (the floor), and
# traced by kdelay, kdelay --histogram and kdelay --budget (and, in KINDS
# only, bound: the floor plus a clock read and a per-CPU store at each hook,
# the least any tracer that times these events pays, as
# bench/variants/timestamps_only.sh; bound_target: the same, for the
# storm's process only, behind a test of the current task's tgid; watched
# by kdelay --stall 1s: kdelay_stall (its profile at 99 Hz by default), with --profile 0:
# kdelay_stall_noprofile, and with --timeline DIR or --wait-stacks 5:
# kdelay_timeline, kdelay_wait_stacks; their storm is
# best poll1 or poll2, whose every turn is an interval, or work, a
# CPU-bound thread inside one interval (every sample kept); a sample's
# --budget --timeline FILE: kdelay_sample_timeline); kdelay_pids3
# traces it in a list of three processes (-p STORM,IDLE,IDLE) and
# kdelay_cgroup as the one process of a cgroup2 cgroup (--cgroup), both
# started beside a storm that waits TARGET_WARMUP seconds (default 3)
# before it counts ("n/a" when kdelay began sampling after that). With
# KERNEL_DELAY_PY set, also by that script (run by PYTHON, default
# /usr/bin/python3, unbuffered so that its start is seen, compiling
# against KERNEL_DELAY_PY_TREE if set, as in startup.sh), started alongside after UPSTREAM_WARMUP seconds (default
# 15) that the storm does not count; "n/a" when it did not sample, or
# began after the warm-up (so the count held turns it did not trace).
# Runs alternate; medians of RUNS, and for each tracer the median of its
# ratios to the floor run of the same round; with untraced among KINDS,
# what each adds to a turn, and with kernel_delay.py too, that as a share of
# what the script adds (the cost goals' measure). MODES picks the variants (default: pipe1
# pipe2 futex), KINDS the tracers (default: all but kernel_delay_py and
# baseline; baseline is another kdelay build, KDELAY_BASELINE, with the
# options BASELINE_ARGS, then --sample-time 60 unless they hold --stall,
# for A/B runs).
# docs/PERFORMANCE.md records the results.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source bench/variants/timestamps_only.sh  # the bound kinds' hooks
seconds=${STORM_SECONDS:-3}
rate() { grep -o '_per_sec [0-9]*' | awk '{print $2}'; }
timelines=$(mktemp -d)
trap 'rm -rf "$timelines"' EXIT

upstream() {  # MODE: the storm under kernel_delay.py, which needs a running pid
    local out report pid tracer deadline in_time=1 warmup=${UPSTREAM_WARMUP:-15}
    out=$(mktemp)
    report=$(mktemp)
    deadline=$(warmup_end "$warmup")
    $b/ctx_storm "$1" "$seconds" "$warmup" >"$out" &
    pid=$!
    env ${KERNEL_DELAY_PY_TREE:+BCC_KERNEL_SOURCE=$KERNEL_DELAY_PY_TREE} "${PYTHON:-/usr/bin/python3}" -u "$KERNEL_DELAY_PY" \
        --skip-upcall-stats -p "$pid" --sample-time $((seconds + warmup + 2)) >"$report" 2>&1 &
    tracer=$!
    began_before "$report" '^# Start sampling' "$deadline" ||
        { in_time=0; echo "ctxswitch.sh: kernel_delay.py began after the storm's warm-up of $warmup s (UPSTREAM_WARMUP)" >&2; }
    wait "$pid"
    wait "$tracer" || true
    if [ "$in_time" = 1 ] && grep -q '^# Sample dump' "$report"; then rate <"$out"; else echo n/a; fi
    rm -f "$out" "$report"
}

# MODE's storm under kdelay with a target other than one launched command:
# pids3 or cgroup.
beside() {
    local how=$1 mode=$2 out report storm idle1 idle2 tracer cg="" deadline in_time=1 warmup=${TARGET_WARMUP:-3}
    out=$(mktemp)
    report=$(mktemp)
    deadline=$(warmup_end "$warmup")
    $b/ctx_storm "$mode" "$seconds" "$warmup" >"$out" &
    storm=$!
    sleep 600 & idle1=$!
    sleep 600 & idle2=$!
    if [ "$how" = cgroup ]; then
        cg="$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)/kdelay-bench-$$"
        mkdir "$cg" && echo "$storm" >"$cg/cgroup.procs"
        "$kdelay" --skip-upcall-stats --sample-time 60 --cgroup "$cg" >"$report" 2>&1 &
    else
        "$kdelay" --skip-upcall-stats --sample-time 60 -p "$storm,$idle1,$idle2" >"$report" 2>&1 &
    fi
    tracer=$!
    began_before "$report" '^# Start sampling' "$deadline" || in_time=0
    wait "$storm"
    kill -INT "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null || true
    kill "$idle1" "$idle2"; wait "$idle1" "$idle2" 2>/dev/null || true
    [ -z "$cg" ] || rmdir "$cg"
    if [ "$in_time" = 1 ]; then rate <"$out"; else echo n/a; fi
    rm -f "$out" "$report"
}

# One measurement of KIND on MODE: its rate, or "n/a".
measure() {
    local kind=$1 mode=$2
    case $kind in
    untraced) $b/ctx_storm "$mode" "$seconds" | rate ;;
    floor) $b/hook_floor sched $b/ctx_storm "$mode" "$seconds" 2>/dev/null | rate ;;
    bound) HOOK_DECLS=$timestamps_decls HOOK_BODY=$timestamps_body \
        $b/hook_floor sched $b/ctx_storm "$mode" "$seconds" 2>/dev/null | rate ;;
    bound_target) HOOK_DECLS=$timestamps_decls HOOK_BODY=$timestamps_target_body \
        $b/hook_floor sched $b/ctx_storm "$mode" "$seconds" 2>/dev/null | rate ;;
    kdelay) "$kdelay" --skip-upcall-stats --sample-time 60 -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kdelay_histogram) "$kdelay" --skip-upcall-stats --histogram --sample-time 60 -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kdelay_budget) "$kdelay" --skip-upcall-stats --budget --sample-time 60 -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kdelay_stall) "$kdelay" --stall 1s -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kdelay_stall_noprofile) "$kdelay" --stall 1s --profile 0 -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kdelay_timeline) "$kdelay" --stall 1s --timeline "$timelines" -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kdelay_wait_stacks) "$kdelay" --stall 1s --wait-stacks 5 -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kdelay_sample_timeline) "$kdelay" --skip-upcall-stats --budget --sample-time 60 --timeline "$timelines/samples.pftrace" \
        -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kdelay_pids3) beside pids3 "$mode" ;;
    kdelay_cgroup) beside cgroup "$mode" ;;
    baseline) "$KDELAY_BASELINE" ${BASELINE_ARGS:-} $([[ " ${BASELINE_ARGS:-} " == *" --stall "* ]] || echo --sample-time 60) \
        -- $b/ctx_storm "$mode" "$seconds" | rate ;;
    kernel_delay_py) upstream "$mode" ;;
    *) echo "ctxswitch.sh: unknown kind $kind" >&2; exit 64 ;;
    esac
}

kinds=(${KINDS:-untraced floor kdelay kdelay_histogram kdelay_budget})
[ -z "${KERNEL_DELAY_PY:-}" ] || [[ " ${kinds[*]} " == *" kernel_delay_py "* ]] || kinds+=(kernel_delay_py)
for mode in ${MODES:-pipe1 pipe2 futex}; do
    echo "== $mode: $(case $mode in getppid) echo calls ;; work) echo chunks ;; *) echo round trips ;; esac)/s, $seconds s per run, median of $runs"
    declare -A result=()
    for _ in $(seq "$runs"); do
        for k in "${kinds[@]}"; do
            result[$k]+="$(measure "$k" "$mode") "
        done
    done
    for k in "${kinds[@]}"; do
        printf '%-17s median %8s   (runs: %s)\n' "$k" "$(tr ' ' '\n' <<<"${result[$k]}" | grep . | median)" "${result[$k]}"
    done
    # Against the floor run of the same round: the machine drifts between
    # rounds by more than the differences measured here.
    if [ -n "${result[floor]:-}" ]; then
        for k in "${kinds[@]}"; do
            case $k in untraced | floor) continue ;; esac
            printf '%-17s / floor, median of same-round ratios %s\n' "$k" \
                "$(paste <(tr ' ' '\n' <<<"${result[$k]}") <(tr ' ' '\n' <<<"${result[floor]}") |
                    awk '$1 ~ /^[0-9]+$/ && $2 > 0 {printf "%.3f\n", $1 / $2}' | median)"
        done
    fi
    # What each tracer adds to a turn (a call, a round trip) over the
    # untraced run of the same round, and that as a share of what
    # kernel_delay.py adds: the cost goals are stated this way.
    if [ -n "${result[untraced]:-}" ]; then
        for k in "${kinds[@]}"; do
            case $k in untraced) continue ;; esac
            added=$(paste <(tr ' ' '\n' <<<"${result[$k]}") <(tr ' ' '\n' <<<"${result[untraced]}") |
                awk '$1 ~ /^[0-9]+$/ && $1 > 0 && $2 > 0 {printf "%.1f\n", 1e9 / $1 - 1e9 / $2}' | median)
            line=$(printf '%-17s adds %s ns a turn (median of rounds)' "$k" "$added")
            if [ -n "${result[kernel_delay_py]:-}" ] && [ "$k" != kernel_delay_py ]; then
                line+=$(printf ', %s of kernel_delay.py'"'"'s, median of same-round shares' \
                    "$(paste <(tr ' ' '\n' <<<"${result[$k]}") <(tr ' ' '\n' <<<"${result[kernel_delay_py]}") \
                        <(tr ' ' '\n' <<<"${result[untraced]}") |
                        awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $1 > 0 && $2 > 0 && $3 > 0 && $2 < $3 {
                                 printf "%.3f\n", (1 / $1 - 1 / $3) / (1 / $2 - 1 / $3) }' | median)")
            fi
            echo "$line"
        done
    fi
    unset result
done
