#!/usr/bin/env bash
# The always-on watch for longer than CI runs it (root): tests/service/
# service-test.sh with kd-svc restarted every RESTART_EVERY seconds (20)
# for MINUTES (10), its loops at POLL_US (2000: some 2,000 loop intervals a
# second over its five threads, a busy Open vSwitch's rate), every check of
# the short run made on the long one. It prints kdelay's RSS and open files
# at the start and the end, its CPU while it watches, its BPF programs' run
# time, each as so much an hour. docs/PERFORMANCE.md ("Always on") records
# the results.
#   bench/soak.sh            MINUTES=60 bench/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${MINUTES:-10}
every=${RESTART_EVERY:-20}
poll_us=${POLL_US:-2000}
restarts=$(( minutes * 60 / every - 1 ))
[ "$restarts" -ge 1 ] || restarts=1
bash tests/service/service-test.sh build "$restarts" "$every" "$poll_us"
