#!/usr/bin/env bash
# The load harness: kdelay's run, ready, budget and blame e2e cases, each
# compared with the kernel's schedstat, run again and again beside the load
# of a busy host (tests/programs/kd_load.cpp: CPU hogs on both CPUs, a
# fork/exec storm, fsync-heavy writes, a loopback UDP flood, or all at once).
#
#   tests/load/run.sh [--rounds N] [LOAD...]
#       LOAD: cpu forkexec fsync udp all (default: all five); N: rounds of
#       the cases per load (default 50, enough to see an error of one run
#       in fifty). KDELAY_BUILD_DIR names the build tree (default: build).
#
# Prints, per load and case, the rounds, the failures and the worst
# deviation of kdelay from schedstat (what, kdelay, kernel, and CPU 0's
# steal, which the kernel leaves out of run time and kdelay cannot). The output of
# failed rounds is kept in $KDELAY_LOAD_LOGS (default: BUILD/load-logs).
# Exit 1 if any round failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=50
if [ "${1:-}" = "--rounds" ]; then rounds=$2; shift 2; fi
loads=("$@")
[ ${#loads[@]} -gt 0 ] || loads=(cpu forkexec fsync udp all)
build=${KDELAY_BUILD_DIR:-build}
logs=${KDELAY_LOAD_LOGS:-$build/load-logs}
[ -x "$build/tests/kd_load" ] || { echo "load/run.sh: no $build/tests/kd_load; build first" >&2; exit 1; }
for load in "${loads[@]}"; do
    case "$load" in cpu | forkexec | fsync | udp | all) ;; *) echo "load/run.sh: unknown load '$load'" >&2; exit 64 ;; esac
done
cases='BudgetE2E\.|DelayE2E\.BusyThreadsSharingOneCpuSplitTheWindowIntoRunAndReady|DelayE2E\.StoppedAndReadyTimeComeWithoutAWakeupProgram'
mkdir -p "$logs"
# On disk, not tmpfs, so that fsync reaches a block device.
work=$(mktemp -d /var/tmp/kdelay-load.XXXXXX)
load_pid=
stop_load() {
    if [ -n "$load_pid" ]; then kill "$load_pid" 2>/dev/null || true; wait "$load_pid" 2>/dev/null || true; fi
    load_pid=
}
trap 'stop_load; rm -rf "$work"' EXIT

status=0
table="$work/table"
for load in "${loads[@]}"; do
    "$build/tests/kd_load" "$load" "$work" >"$work/load.out" 2>&1 &
    load_pid=$!
    for _ in $(seq 50); do grep -q loaded "$work/load.out" && break; sleep 0.1; done
    grep -q loaded "$work/load.out" || { cat "$work/load.out" >&2; exit 1; }
    hog=
    [ "$load" = cpu ] || [ "$load" = all ] && hog=1
    echo "== load $load: $rounds rounds" >&2
    : >"$work/$load.failed"
    for round in $(seq "$rounds"); do
        out="$work/round.log"
        if ! env KDELAY_UNDER_LOAD=1 KDELAY_DEVIATION_LOG="$work/$load.dev" ${hog:+KDELAY_LOAD_HOG_ON_CPU0=1} \
            ctest --test-dir "$build" -L e2e -R "$cases" --output-on-failure --timeout 300 >"$out" 2>&1; then
            status=1
            cp "$out" "$logs/$load-round$round.log"
            sed -n 's/^[[:space:]]*[0-9]* - \([A-Za-z0-9_.]*\) (Failed).*/\1/p' "$out" >>"$work/$load.failed"
            echo "   round $round failed: $(sed -n 's/^[[:space:]]*[0-9]* - \([A-Za-z0-9_.]*\) (Failed).*/\1/p' "$out" | tr '\n' ' ')(log: $logs/$load-round$round.log)" >&2
        fi
    done
    stop_load
    # Worst |kdelay - kernel| per case, and how many rounds each case failed.
    touch "$work/$load.dev"
    awk -v load="$load" -v rounds="$rounds" -v failed="$work/$load.failed" '
        BEGIN { while ((getline t < failed) > 0) { split(t, p, "."); fails[p[2]]++ } }
        {
            d = $3 > $4 ? $3 - $4 : $4 - $3
            if (!($1 in worst) || d > worst[$1]) { worst[$1] = d; what[$1] = $2; k[$1] = $3; s[$1] = $4; st[$1] = $5 }
        }
        END {
            for (c in worst)
                printf "| %s | %s | %d | %d | %.2f ms (%s: kdelay %.2f, schedstat %.2f, steal %.0f) |\n", load, c,
                       rounds, fails[c], worst[c] / 1e6, what[c], k[c] / 1e6, s[c] / 1e6, st[c] / 1e6
            for (c in fails) if (!(c in worst))
                printf "| %s | %s | %d | %d | - |\n", load, c, rounds, fails[c]
        }' "$work/$load.dev" | sort >>"$table"
done

printf '| Load | Case | Rounds | Failed | Worst deviation from schedstat |\n|---|---|---|---|---|\n'
cat "$table"
exit "$status"
