#!/usr/bin/env bash
# The load harness: kdelay's run, ready, budget and blame e2e cases, each
# compared with the kernel's accounting and with what the workload's threads
# saw themselves, run again and again beside the load of a busy host
# (tests/programs/kd_load.cpp: CPU hogs on both CPUs, a fork/exec storm,
# fsync-heavy writes, a loopback UDP flood, or all at once).
#
#   tests/load/run.sh [--rounds N] [--delay-rounds M] [LOAD...]
#       LOAD: cpu forkexec fsync udp all (default: all five); N (default 50,
#       enough to see an error of one run in fifty): windows that each
#       budget case samples (one kdelay run takes them all); M (default N):
#       rounds of the run and ready cases, a kdelay start each.
#       KDELAY_BUILD_DIR names the build tree (default: build).
#
# Prints, per load and case, the windows or rounds, how many failed, and the
# worst deviation of kdelay from the kernel's figures, which the workload
# reads around each probe and so knows as a range (0 inside it); with what,
# kdelay, the range, and CPU 0's steal, which the kernel leaves out of run
# time and kdelay cannot. The output of failed runs is kept in $KDELAY_LOAD_LOGS (default:
# BUILD/load-logs). Exit 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=50
delay_rounds=
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        --delay-rounds) delay_rounds=$2; shift 2 ;;
        *) break ;;
    esac
done
delay_rounds=${delay_rounds:-$rounds}
loads=("$@")
[ ${#loads[@]} -gt 0 ] || loads=(cpu forkexec fsync udp all)
build=${KDELAY_BUILD_DIR:-build}
logs=${KDELAY_LOAD_LOGS:-$build/load-logs}
[ -x "$build/tests/kd_load" ] || { echo "load/run.sh: no $build/tests/kd_load; build first" >&2; exit 1; }
for load in "${loads[@]}"; do
    case "$load" in cpu | forkexec | fsync | udp | all) ;; *) echo "load/run.sh: unknown load '$load'" >&2; exit 64 ;; esac
done
budget_cases='BudgetE2E\.'
delay_cases='DelayE2E\.BusyThreadsSharingOneCpuSplitTheWindowIntoRunAndReady|DelayE2E\.StoppedAndReadyTimeComeWithoutAWakeupProgram'
mkdir -p "$logs"
# On disk, not tmpfs, so that fsync reaches a block device.
work=$(mktemp -d /var/tmp/kdelay-load.XXXXXX)
load_pid=
stop_load() {
    if [ -n "$load_pid" ]; then kill "$load_pid" 2>/dev/null || true; wait "$load_pid" 2>/dev/null || true; fi
    load_pid=
}
trap 'stop_load; rm -rf "$work"' EXIT

# Runs ctest on the cases $1 with the environment after it; on failure keeps
# the output in $logs/$name.log and appends, per failed test, "TEST WINDOW"
# for each window that failed (gtest's trace "window at NS"; "-" for a test
# without windows) to $work/$load.failed.
run_cases() {
    local cases=$1 name=$2 out="$work/cases.log"
    shift 2
    if ! env KDELAY_UNDER_LOAD=1 KDELAY_DEVIATION_LOG="$work/$load.dev" ${hog:+KDELAY_LOAD_HOG_ON_CPU0=1} "$@" \
        ctest --test-dir "$build" -L e2e -R "$cases" --output-on-failure --timeout 1800 >"$out" 2>&1; then
        status=1
        cp "$out" "$logs/$name.log"
        awk '
            match($0, /Test +#[0-9]+: [A-Za-z0-9_.]+/) { split(substr($0, RSTART, RLENGTH), p, ": "); test = p[2] }
            match($0, /window at [0-9]+/) { w[test " " substr($0, RSTART + 10, RLENGTH - 10)] = 1 }
            match($0, /[0-9]+ - [A-Za-z0-9_.]+ \((Failed|Timeout)\)/) {
                split(substr($0, RSTART, RLENGTH), p, " "); failed[p[3]] = 1
            }
            END {
                for (k in w) { split(k, p, " "); if (p[1] in failed) { print k; had[p[1]] = 1 } }
                for (t in failed) if (!(t in had)) print t " -"
            }' "$out" | sort -u >>"$work/$load.failed"
        echo "   failed: $(cut -d' ' -f1 "$work/$load.failed" | sort -u | tr '\n' ' ')(log: $logs/$name.log)" >&2
    fi
}

status=0
table="$work/table"
for load in "${loads[@]}"; do
    "$build/tests/kd_load" "$load" "$work" >"$work/load.out" 2>&1 &
    load_pid=$!
    for _ in $(seq 50); do grep -q loaded "$work/load.out" && break; sleep 0.1; done
    grep -q loaded "$work/load.out" || { cat "$work/load.out" >&2; exit 1; }
    hog=
    [ "$load" = cpu ] || [ "$load" = all ] && hog=1
    echo "== load $load: $rounds windows of each budget case, $delay_rounds rounds of the run and ready cases" >&2
    : >"$work/$load.failed"
    # The budget cases sample $rounds windows each in one kdelay run.
    run_cases "$budget_cases" "$load-budget" KDELAY_BUDGET_WINDOWS="$rounds"
    for round in $(seq "$delay_rounds"); do
        run_cases "$delay_cases" "$load-delay-round$round"
    done
    stop_load
    # Worst distance of kdelay from the kernel's range per case, and how
    # many windows or rounds of each case failed.
    touch "$work/$load.dev"
    awk -v load="$load" -v rounds="$rounds" -v delay_rounds="$delay_rounds" -v failed="$work/$load.failed" '
        BEGIN { while ((getline t < failed) > 0) { split(t, p, "[. ]"); fails[p[2]]++ } }
        {
            d = $3 < $4 ? $4 - $3 : $3 > $5 ? $3 - $5 : 0
            if (!($1 in worst) || d > worst[$1]) {
                worst[$1] = d; what[$1] = $2; k[$1] = $3; lo[$1] = $4; hi[$1] = $5; st[$1] = $6
            }
        }
        function runs(c) { return c ~ /^(BusyThreadsSharingOneCpu|StoppedAndReadyTime)/ ? delay_rounds : rounds }
        END {
            for (c in worst)
                printf "| %s | %s | %d | %d | %.2f ms (%s: kdelay %.2f, kernel %.2f to %.2f, steal %.0f) |\n",
                       load, c, runs(c), fails[c], worst[c] / 1e6, what[c], k[c] / 1e6, lo[c] / 1e6, hi[c] / 1e6,
                       st[c] / 1e6
            for (c in fails) if (!(c in worst))
                printf "| %s | %s | %d | %d | - |\n", load, c, runs(c), fails[c]
        }' "$work/$load.dev" | sort >>"$table"
done

printf '| Load | Case | Windows or rounds | Failed | Worst deviation from the range of the kernel figures |\n|---|---|---|---|---|\n'
cat "$table"
exit "$status"
