#!/usr/bin/env bash
# One command from a fresh machine to a real report: set up, build, then run
# kdelay on the bundled demo workload (busy threads sharing a CPU, a syscall
# loop, loopback UDP).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
echo "+ kdelay --sample-time 2 -- build/tests/kd_workload demo"
exec build/kdelay --sample-time 2 -- build/tests/kd_workload demo
