# Sourced by the root benchmarks: builds, mounts tracefs if needed, and
# gives median. Sets b (bench binaries) and kdelay.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -n "${KDELAY_NO_BUILD:-}" ] || bash scripts/build.sh >/dev/null  # set in a guest: use the build as is
b=build/bench
kdelay=build/kdelay
runs=${RUNS:-5}
# Classic tracepoints (the floor measurement) need tracefs.
[ -e /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing

# The median of the numbers read ("n/a" and blank lines left out).
median() { grep -E '^[0-9]+(\.[0-9]+)?$' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# When a storm started now with a warm-up of $1 whole seconds begins to
# count, in ns since the epoch (taken before it starts: a little early).
warmup_end() { echo $(($(date +%s%N) + $1 * 1000000000)); }

# Whether the tracer writing FILE began (a line matching PATTERN) before
# DEADLINE (warmup_end's), when the storm beside it starts to count. Polls
# only during the warm-up, so that no poll shares a CPU with the turns
# counted (under TCG one host thread runs every vCPU).
began_before() {
    local file=$1 pattern=$2 deadline=$3
    while [ "$(date +%s%N)" -lt "$deadline" ]; do
        grep -q "$pattern" "$file" 2>/dev/null && return 0
        sleep 0.5
    done
    return 1
}
