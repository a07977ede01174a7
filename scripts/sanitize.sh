#!/usr/bin/env bash
# The suite under AddressSanitizer and UndefinedBehaviorSanitizer, then the
# fuzz targets of tests/fuzz, in build-sanitize/ (clang, libFuzzer):
#   - the unit tests;
#   - the e2e tests that load no eBPF (KDELAY_TEST_NO_BPF=1 skips the
#     others), then those that load it and are tagged sanitize
#     (tests/vm/matrix.sh): each of kdelay's readers of what the kernel
#     hands it, at the sanitizers' pace; the rest of the eBPF tests are the
#     main build's (their windows and shares are timed for its pace);
#   - each fuzz target over its seed corpus (tests/fuzz/corpus/TARGET), then
#     fuzzed for SECONDS (default 5, or KDELAY_FUZZ_SECONDS) from seed
#     KDELAY_FUZZ_SEED (default 1, so that CI repeats the same search and a
#     new finding comes from a change; 0 draws a seed, for a longer hunt).
# A finding stops the run and names the input that caused it; kept in
# tests/fuzz/corpus/TARGET/, it is checked on every build from then on.
#
#   scripts/sanitize.sh [SECONDS]
#   scripts/sanitize.sh --fuzz TARGET SECONDS   one target only, longer
set -euo pipefail
cd "$(dirname "$0")/.."
only=
if [ "${1:-}" = --fuzz ]; then
    only=$2
    shift 2
fi
seconds=${1:-${KDELAY_FUZZ_SECONDS:-5}}
seed=${KDELAY_FUZZ_SEED:-1}
bash scripts/setup.sh --sanitize
dir=build-sanitize
# -O1 and line tables: readable reports, and half the compile time of -O2 -g.
CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_C_FLAGS_SANITIZE="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only" \
    -DKDELAY_SANITIZE=ON -DKDELAY_FUZZ=ON >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
targets=$(sed -n 's/^set(KDELAY_FUZZ_TARGETS \(.*\))$/\1/p' tests/fuzz/CMakeLists.txt)
if [ -z "$only" ]; then
    cmake --build "$dir" -j"$(nproc)"
    ctest --test-dir "$dir" -L unit -j"$(nproc)" --output-on-failure
    on_bpf=$(bash tests/tests_tagged.sh sanitize | sed 's/\./\\./g' | paste -sd'|')
    KDELAY_TEST_NO_BPF=1 ctest --test-dir "$dir" -L e2e -E "^($on_bpf)\$" --output-on-failure
    ctest --test-dir "$dir" -L e2e -R "^($on_bpf)\$" --output-on-failure
    ctest --test-dir "$dir" -L fuzz --output-on-failure
else
    targets=$only
    cmake --build "$dir" -j"$(nproc)" --target "fuzz_$only"
fi
for t in $targets; do
    found="$dir/fuzz-corpus/$t"
    mkdir -p "$found" "$dir/fuzz-findings"
    echo "== fuzz_$t, ${seconds}s"
    if ! "$dir/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -seed="$seed" -close_fd_mask=1 -print_final_stats=1 \
        -artifact_prefix="$dir/fuzz-findings/$t-" "$found" "tests/fuzz/corpus/$t" 2>"$dir/fuzz-$t.log"; then
        tail -n 60 "$dir/fuzz-$t.log" >&2
        echo "sanitize.sh: fuzz_$t found a fault; the input is in $dir/fuzz-findings/ (copy it into tests/fuzz/corpus/$t/ with the fix)" >&2
        exit 1
    fi
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$dir/fuzz-$t.log" | tr '\n' ' '
    echo
done
