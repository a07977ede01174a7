#!/usr/bin/env bash
# One command from a fresh machine to a real report: install what kdelay
# itself needs (no test packages), build only kdelay and the demo workload
# (scripts/build.sh builds the rest later in the same tree), then run kdelay
# on the workload (busy threads sharing a CPU, a syscall loop, loopback UDP).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --demo
# No debug info: a fifth less compile time on the way to the first report.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" >/dev/null
cmake --build build -j"$(nproc)" --target kdelay kdelay-bpf kd_workload >/dev/null
echo "+ kdelay --sample-time 2 -- build/tests/kd_workload demo"
exec build/kdelay --sample-time 2 -- build/tests/kd_workload demo
