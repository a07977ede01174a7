#!/usr/bin/env bash
# kdelay benchmarks (root): startup time, peak RSS, and getppid throughput
# untraced, under empty hooks (the floor), and traced by kdelay.
# Results go to stdout; docs/PERFORMANCE.md records them.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
storm_seconds=${STORM_SECONDS:-3}

sleep 600 & target=$!
trap 'kill $target 2>/dev/null' EXIT

rate() { grep -o 'getppid_per_sec [0-9]*' | awk '{print $2}'; }

echo "== startup: exec to '# Start sampling', median of $runs; peak RSS over the runs"
$b/startup_probe "$runs" "$kdelay" -p "$target" --sample-time 0.2

echo "== getppid calls/s, one thread, $storm_seconds s per run, median of $runs"
declare -A result
for i in $(seq "$runs"); do
    result[untraced]+="$($b/getppid_storm "$storm_seconds" | rate) "
    result[empty_raw]+="$($b/hook_floor raw $b/getppid_storm "$storm_seconds" 2>/dev/null | rate) "
    result[empty_tp]+="$($b/hook_floor tracepoint $b/getppid_storm "$storm_seconds" 2>/dev/null | rate) "
    result[kdelay]+="$("$kdelay" --sample-time 60 -- $b/getppid_storm "$storm_seconds" | rate) "
done
for k in untraced empty_tp empty_raw kdelay; do
    printf '%-10s median %s   (runs: %s)\n' "$k" "$(tr ' ' '\n' <<<"${result[$k]}" | grep . | median)" "${result[$k]}"
done

echo "== --syscall-events 0 under a getppid storm, default ring buffer (1024 pages): drops"
for stacks in 0 4096; do
    for i in $(seq 3); do
        out=$("$kdelay" --syscall-events 0 --stack-trace-size "$stacks" --sample-time 60 -- $b/getppid_storm 2)
        storm=$(rate <<<"$out")
        events=$(grep -c ' getppid$' <<<"$out" || true)
        dropped=$(grep -o '[0-9,]* were dropped' <<<"$out" | tr -d ', were dropped' || true)
        echo "stack-trace-size $stacks: storm ${storm}/s, events listed $events, dropped ${dropped:-0}"
    done
done
