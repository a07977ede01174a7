#!/usr/bin/env bash
# kdelay annotate throughput and memory (no root needed): generates synthetic
# spdk_trace -j inputs with bench/gen_spdk_trace, then times
# `kdelay annotate -i TRACE -b RECORDS > /dev/null`. Issue 15's shape runs in
# both schema flavours: pollers by name (SPDK before 26.05) and owners
# (26.05 and later; gen_spdk_trace --owners).
#   ENTRIES (3000000)  LIFETIMES (4096)  RUNS (5)
#   TRACE_PY=/path/to/trace.py  also times SPDK's trace.py on 1/30 of the
#   entries, and TRACE_PY_RUNS (1) times on the 1 M-entry input. It needs Debian's
#   python3-ijson and python3-magic (PYTHON, default /usr/bin/python3). It
#   lists the probes with git ls-files in its working directory: an SPDK
#   checkout (TRACE_PY_DIR), else a scratch repository holding the three
#   qpair probes' declarations.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
entries=${ENTRIES:-3000000}
lifetimes=${LIFETIMES:-4096}
runs=${RUNS:-5}
dir=$(mktemp -d /tmp/kdelay-annotate-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
kdelay=$PWD/build/kdelay
gen=$PWD/build/bench/gen_spdk_trace

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# run LABEL N ARGS...: median wall time of RUNS runs, entries/s, peak RSS
run() {
    local label=$1 n=$2
    shift 2
    local times="" rss=0
    for _ in $(seq "$runs"); do
        /usr/bin/time -f '%e %M' -o "$dir/time" "$@" > /dev/null
        read -r t m < "$dir/time"
        times+="$t"$'\n'
        (( m > rss )) && rss=$m
    done
    local t
    t=$(printf '%s' "$times" | median)
    printf '%-34s %9d entries  median %6.2f s  %9.0f entries/s  peak RSS %6d KB\n' \
        "$label" "$n" "$t" "$(echo "$n / $t" | bc -l)" "$rss"
}

"$gen" "$entries" "$lifetimes" "$dir/big.json" "$dir/big.txt"
small=$((entries / 10))
"$gen" "$small" "$lifetimes" "$dir/small.json" "$dir/small.txt"
echo "== inputs: $(du -h "$dir/big.json" | cut -f1) trace, $lifetimes lifetimes, $(wc -l < "$dir/big.txt") record lines"
run "text, -i file" "$entries" "$kdelay" annotate -i "$dir/big.json" -b "$dir/big.txt"
run "text, -i file, 1/10 the entries" "$small" "$kdelay" annotate -i "$dir/small.json" -b "$dir/small.txt"
run "text, stdin" "$entries" sh -c "'$kdelay' annotate -b '$dir/big.txt' < '$dir/big.json'"
run "json" "$entries" "$kdelay" annotate -i "$dir/big.json" -b "$dir/big.txt" --format json
# Issue 15's shape: 1 M entries, 256 lifetimes (each lifetime spans ~4 k
# entries, so nearly every qpair argument is annotated).
"$gen" 1000000 256 "$dir/issue.json" "$dir/issue.txt"
run "text, 1 M entries, 256 lifetimes" 1000000 "$kdelay" annotate -i "$dir/issue.json" -b "$dir/issue.txt"
"$gen" --owners 1000000 256 "$dir/owners.json" "$dir/owners.txt"
run "text, 1 M, 256 lifetimes, owners" 1000000 "$kdelay" annotate -i "$dir/owners.json" -b "$dir/owners.txt"
"$gen" "$entries" 65536 "$dir/many.json" "$dir/many.txt"
run "text, 65536 lifetimes" "$entries" "$kdelay" annotate -i "$dir/many.json" -b "$dir/many.txt"

if [ -n "${TRACE_PY:-}" ]; then
    PYTHON=${PYTHON:-/usr/bin/python3}
    if [ -z "${TRACE_PY_DIR:-}" ]; then
        TRACE_PY_DIR=$dir/spdk
        mkdir -p "$TRACE_PY_DIR/lib/nvmf"
        printf '%s\n' 'SPDK_DTRACE_PROBE2_TICKS(nvmf_poll_group_add_qpair, qpair, thread);' \
            'SPDK_DTRACE_PROBE4_TICKS(nvmf_ctrlr_add_qpair, qpair, qid, subnqn, hostnqn);' \
            'SPDK_DTRACE_PROBE2_TICKS(nvmf_poll_group_remove_qpair, qpair, thread);' > "$TRACE_PY_DIR/lib/nvmf/probes.c"
        git -C "$TRACE_PY_DIR" init -q && git -C "$TRACE_PY_DIR" add lib/nvmf/probes.c
    fi
    # The same-run ratio on issue 15's input: trace.py once on all of it.
    for flavour in issue owners; do
        runs=${TRACE_PY_RUNS:-1} run "trace.py, 1 M entries, $flavour" 1000000 sh -c "cd '${TRACE_PY_DIR:-.}' && SPDK_BPF_TRACE_PY=1 $PYTHON '$TRACE_PY' -b '$dir/$flavour.txt' < '$dir/$flavour.json'"
    done
    tp=$((entries / 30))
    for l in 64 "$lifetimes"; do
        "$gen" "$tp" "$l" "$dir/tp.json" "$dir/tp.txt"
        runs=1 run "trace.py, $l lifetimes" "$tp" sh -c "cd '${TRACE_PY_DIR:-.}' && SPDK_BPF_TRACE_PY=1 $PYTHON '$TRACE_PY' -b '$dir/tp.txt' < '$dir/tp.json'"
        runs=1 run "kdelay, same input" "$tp" "$kdelay" annotate -i "$dir/tp.json" -b "$dir/tp.txt"
    done
fi
