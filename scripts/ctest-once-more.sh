#!/usr/bin/env bash
# The tests that ctest has just seen fail in BUILD_DIR, named and run once
# more, by name: ctest 3.31 (Debian 13) numbers the tests of a run filtered
# by label apart from the build's list, so --rerun-failed, which goes by
# number, ran another test in their place. Exits as that second run does;
# with no failed test on record, 1. Says what it runs again on stderr,
# after LABEL (tests/vm/matrix.sh counts a guest's from that line).
#
#   LABEL=... scripts/ctest-once-more.sh BUILD_DIR [CTEST_ARGS...]
set -uo pipefail
build=$1
shift
names=$(sed -n 's/^[0-9]*:\(.*\)/\1/p' "$build/Testing/Temporary/LastTestsFailed.log" 2>/dev/null)
if [ -z "$names" ]; then
    echo "ctest-once-more.sh: ctest failed with no failed test on record" >&2
    exit 1
fi
echo "${LABEL:-ctest-once-more.sh: }failed once, running once more: $(paste -sd' ' <<<"$names")" >&2
# Whole names, their dots taken literally.
pattern="^($(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$names" | paste -sd'|'))\$"
ctest --test-dir "$build" -R "$pattern" --no-tests=error --output-on-failure "$@"
