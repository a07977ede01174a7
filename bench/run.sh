#!/usr/bin/env bash
# kdelay benchmarks (root): startup time, peak RSS, and getppid throughput
# untraced and traced. Results go to stdout; docs/PERFORMANCE.md records them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
b=build/bench
kdelay=build/kdelay

sleep 600 & target=$!
trap 'kill $target 2>/dev/null' EXIT

echo "== startup (exec to '# Start sampling'), median of 5; peak RSS over the runs"
$b/startup_probe 5 "$kdelay" -p "$target" --sample-time 0.2

storm_seconds=3
echo "== getppid throughput, $storm_seconds s, one thread"
for i in 1 2 3; do
    echo "untraced: $($b/getppid_storm $storm_seconds)"
done
for i in 1 2 3; do
    line=$("$kdelay" --sample-time 30 -- $b/getppid_storm $storm_seconds | grep getppid_per_sec)
    echo "traced by kdelay: $line"
done
