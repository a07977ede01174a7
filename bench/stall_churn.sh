#!/usr/bin/env bash
# A --stall watch through thread churn (root): kd_stall from the tests
# makes and joins THREADS threads (default 300,000) one after another, each
# exiting inside an interval, then plants one 250 ms stall in a new thread.
# kdelay watches with --stall 200ms. Every second: kdelay's RSS and open
# fds, and, with bpftool, the entries of its threads and syscalls maps. At
# the end: whether the stall was reported, and what kdelay said it lost.
# KDELAY_BASELINE (another build's kdelay) runs the same after it, as the
# anchor of the same run. docs/PERFORMANCE.md records the results.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
threads=${THREADS:-300000}
stall_bin=build/tests/kd_stall

map_entries() {  # PID NAME: entries of kdelay's map NAME (needs bpftool), or -
    command -v bpftool >/dev/null || { echo -; return; }
    local id
    id=$(bpftool -j map show 2>/dev/null | python3 -c "
import json, sys
maps = json.load(sys.stdin)
fds = set()
import os
for fd in os.listdir('/proc/$1/fdinfo'):
    try:
        for line in open('/proc/$1/fdinfo/' + fd):
            if line.startswith('map_id:'):
                fds.add(int(line.split()[1]))
    except OSError:
        pass
print(next((m['id'] for m in maps if m.get('name') == '$2' and m['id'] in fds), ''))")
    [ -n "$id" ] || { echo -; return; }
    bpftool -j map dump id "$id" 2>/dev/null | python3 -c "import json, sys; print(len(json.load(sys.stdin)))"
}

watch() {  # KDELAY: prints a line a second, then the verdict
    local kd=$1 out target tracer
    out=$(mktemp)
    coproc W { exec "$stall_bin" churn "$threads"; }
    target=$W_PID
    local wout
    exec {wout}<&"${W[0]}"
    read -r _ <&"$wout"
    "$kd" -p "$target" --stall 200ms --format json >"$out" 2>/dev/null &
    tracer=$!
    for _ in $(seq 600); do grep -q '"marker":"start"' "$out" && break; sleep 0.1; done
    local bpf_pid
    bpf_pid=$tracer
    kill -USR1 "$target"
    local t=0
    echo "  s   RSS_kB  fds  threads_map  syscalls_map"
    while kill -0 "$target" 2>/dev/null; do
        printf '%3d %8s %4s %12s %13s\n' "$t" \
            "$(awk '/^VmRSS/ {print $2}' /proc/$bpf_pid/status 2>/dev/null)" \
            "$(ls /proc/$bpf_pid/fd 2>/dev/null | wc -l)" \
            "$(map_entries "$bpf_pid" threads)" "$(map_entries "$bpf_pid" syscalls)"
        sleep 1
        t=$((t + 1))
    done
    cat <&"$wout" >/dev/null || true
    exec {wout}<&-
    wait "$tracer" 2>/dev/null || true
    echo "  stalls reported: $(grep -c '"type":"stall"' "$out"), planted: 1"
    grep -o '"text":"[^"]*\(full\|lost\)[^"]*"' "$out" | sed 's/^/  /' | sort | uniq -c | head -5 || true
    rm -f "$out"
}

echo "kdelay ($(git rev-parse --short HEAD)), $threads threads:"
watch "$kdelay"
if [ -n "${KDELAY_BASELINE:-}" ]; then
    echo "baseline ($KDELAY_BASELINE):"
    watch "$KDELAY_BASELINE"
fi
