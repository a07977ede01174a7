#!/usr/bin/env bash
# Inside a guest (tests/vm/matrix.sh): ctest with ARGS..., and, as
# scripts/test.sh does on the host, the tests that failed once more; a
# second failure fails the run. A TCG guest beside another on a 2-CPU host
# has its timers fire late now and then.
#
#   tests/vm/guest-ctest.sh BUILD_DIR CTEST_ARGS...
set -uo pipefail
build=$1
shift
ctest --test-dir "$build" "$@" && exit 0
LABEL="== guest-ctest.sh: " bash "$(dirname "$0")/../../scripts/ctest-once-more.sh" "$build" --timeout 600 2>&1
