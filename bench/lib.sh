# Sourced by the root benchmarks: builds, mounts tracefs if needed, and
# gives median. Sets b (bench binaries) and kdelay.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -n "${KDELAY_NO_BUILD:-}" ] || bash scripts/build.sh >/dev/null  # set in a guest: use the build as is
b=build/bench
kdelay=build/kdelay
runs=${RUNS:-5}
# Classic tracepoints (the floor measurement) need tracefs.
[ -e /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
