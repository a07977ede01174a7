#!/bin/bash
# sudo bench/primitives.sh: what one helper call costs in each hook of the
# scheduler path. For each body (alternating, RUNS rounds), hook_floor
# attaches programs made of just that body to sys_enter, sys_exit,
# sched_switch, sched_wakeup and sched_wakeup_new, ctx_storm pipe1 runs
# under them, and prog_costs.py reads each program's ns per run
# (kernel.bpf_stats_enabled, which adds its own clock reads to every run:
# read a helper's cost as its body's figure less the empty body's).
# BODIES overrides the bodies, separated by "|". Medians, ns per run.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
seconds=${STORM_SECONDS:-9}
IFS='|' read -r -a bodies <<<"${BODIES:-return 0;|return bpf_ktime_get_ns() == 1;|return bpf_get_current_pid_tgid() == 1;|return bpf_jiffies64() == 1;}"
hooks=(sys_enter sys_exit sched_switch)
work=$(mktemp -d)
was=$(sysctl -n kernel.bpf_stats_enabled)
trap 'rm -rf "$work"; sysctl -q kernel.bpf_stats_enabled="$was"' EXIT
sysctl -q kernel.bpf_stats_enabled=1

# One round of body number $1: "hook ns" lines appended to $work/$1.
measure() {
    local i=$1 pid
    HOOK_BODY="${bodies[$i]}" "$b/hook_floor" sched "$b/ctx_storm" pipe1 "$seconds" >/dev/null 2>&1 &
    pid=$!
    sleep 4  # BCC's compile, then the storm's first second
    python3 bench/prog_costs.py "$pid" 3 | awk '{print $1, $2}' >>"$work/$i"
    wait "$pid"
}

for _ in $(seq "$runs"); do
    for i in "${!bodies[@]}"; do
        measure "$i"
    done
done
printf '%-44s' "body \\ ns per run"
printf '%14s' "${hooks[@]}"
echo
for i in "${!bodies[@]}"; do
    printf '%-44s' "${bodies[$i]}"
    for h in "${hooks[@]}"; do
        printf '%14s' "$(awk -v h="$h" '$1 == h {print $2}' "$work/$i" | median)"
    done
    echo
done
