#!/usr/bin/env bash
# Time from one sample's dump to the next sample's start (collect, report,
# reset) for a target with many threads, with and without --histogram.
# Each thread calls getpid and sleeps 200 ms (build/tests/kd_sleepers).
# Results go to stdout; docs/PERFORMANCE.md records them.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${KDELAY_NO_BUILD:-}" ] || bash scripts/build.sh >/dev/null
kdelay=${KDELAY:-build/kdelay}  # KDELAY: another build, for A/B runs
sleepers=build/tests/kd_sleepers
samples=${SAMPLES:-4}

# Median gap, in ms, between each dump marker and the start marker after it.
gaps() {
    grep -o '"marker":"[a-z]*","time_unix_ns":[0-9]*' |
        awk -F'[":,]+' '$3 == "dump" {d = $5} $3 == "start" && d {printf "%.1f\n", ($5 - d) / 1e6; d = 0}' |
        sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}

printf '%-8s %-12s %s\n' threads histogram "dump->start ms (median of $((samples - 1)))"
for n in ${THREADS:-100 500 1000 2000 3000}; do
    $sleepers "$n" 200 >/tmp/kd_sleepers.$$ &
    target=$!
    trap 'kill $target 2>/dev/null' EXIT
    until grep -q ready /tmp/kd_sleepers.$$; do sleep 0.1; done
    for hist in "" --histogram; do
        gap=$("$kdelay" -p "$target" $hist --sample-count "$samples" --sample-time 0.5 --format json | gaps)
        printf '%-8s %-12s %s\n' "$n" "${hist:-no}" "$gap"
    done
    kill $target
    wait $target 2>/dev/null || true
    rm -f /tmp/kd_sleepers.$$
done
