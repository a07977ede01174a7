#!/usr/bin/env bash
# Startup beside its anchors (root): in each round, exec to "# Start
# sampling" for kdelay, then for KDELAY_BASELINE (another build, optional),
# then for KERNEL_DELAY_PY (Open vSwitch's script, run by PYTHON, optional),
# each taking one sample of SAMPLE_TIME seconds (default 1) of an idle process;
# prints each round and the medians of the times and of each round's ratio
# to kernel_delay.py. kernel_delay.py compiles against the header tree
# KERNEL_DELAY_PY_TREE (its BCC_KERNEL_SOURCE; a split Debian tree must be
# merged into one), or the running release's. Leave BCC_KERNEL_SOURCE unset:
# kdelay would compile against it too.
#   RUNS=9 KERNEL_DELAY_PY=.../kernel_delay.py bash bench/startup.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

sleep 3600 & target=$!
trap 'kill $target 2>/dev/null' EXIT
args=(-p "$target" --skip-upcall-stats --sample-time "${SAMPLE_TIME:-1}")
probe() { "$b/startup_probe" 1 "$@" "${args[@]}"; }
start_s() { probe "$@" | awk '/^startup_median_s/ {print $2}'; }
command_of() {  # KIND
    case $1 in
        kdelay) echo "$kdelay" ;;
        baseline) echo "$KDELAY_BASELINE" ;;
        kernel_delay_py) echo "/usr/bin/env ${KERNEL_DELAY_PY_TREE:+BCC_KERNEL_SOURCE=$KERNEL_DELAY_PY_TREE} ${PYTHON:-/usr/bin/python3} -u $KERNEL_DELAY_PY" ;;  # unbuffered: its start line is seen when printed
    esac
}

kinds=(kdelay)
[ -z "${KDELAY_BASELINE:-}" ] || kinds+=(baseline)
[ -z "${KERNEL_DELAY_PY:-}" ] || kinds+=(kernel_delay_py)
declare -A times ratios
echo "round ${kinds[*]}"
for i in $(seq "$runs"); do
    declare -A t=()
    for k in "${kinds[@]}"; do
        # shellcheck disable=SC2046  # the python command is two words
        t[$k]=$(start_s $(command_of "$k"))
    done
    line="$i"
    for k in "${kinds[@]}"; do
        line+=" ${t[$k]}"
        times[$k]+="${t[$k]} "
        [ -z "${KERNEL_DELAY_PY:-}" ] || ratios[$k]+="$(echo "${t[$k]} / ${t[kernel_delay_py]}" | bc -l) "
    done
    echo "$line"
done
for k in "${kinds[@]}"; do
    # shellcheck disable=SC2046
    printf '%-16s median %.3f s, peak RSS %s MB' "$k" "$(tr ' ' '\n' <<<"${times[$k]}" | grep . | median)" \
        "$(probe $(command_of "$k") | awk '/^peak_rss_mb/ {print $2}')"
    [ -z "${KERNEL_DELAY_PY:-}" ] || printf ', per-round ratio to kernel_delay.py %.3f' \
        "$(tr ' ' '\n' <<<"${ratios[$k]}" | grep . | median)"
    echo
done
