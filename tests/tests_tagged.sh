#!/usr/bin/env bash
# The ctest names of the end-to-end tests tagged TAG, one a line: a data
# case by its TAGS line (tests/e2e/cases/*.case), a gtest by a `// TAGS`
# comment on the line before its TEST. The tags are described in
# tests/vm/matrix.sh.
#   tests/tests_tagged.sh TAG
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: tests/tests_tagged.sh TAG" >&2; exit 64; }
awk -v tag="$1" '
    function has(first,   i) { for (i = first; i <= NF; i++) if ($i == tag) return 1; return 0 }
    FILENAME ~ /\.case$/ { if ($1 == "NAME") name = $2; else if ($1 == "TAGS" && has(2)) print "Case." name; next }
    $1 == "//" && $2 == "TAGS" { wanted = has(3); next }
    wanted && /^TEST/ { sub(/^TEST[A-Z_]*\(/, ""); split($0, p, /[ ,)]+/); print p[1] "." p[2] }
    { wanted = 0 }' tests/e2e/cases/*.case tests/e2e/*_test.cpp | sort -u
