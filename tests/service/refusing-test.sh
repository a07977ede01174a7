#!/usr/bin/env bash
# Where systemd refuses to boot on this host, the service test skips and
# quotes it. A systemd-nspawn that answers as Debian unstable's systemd does
# on a cgroup v1 host (tests/service/refusing/) stands in for the real one.
#   tests/service/refusing-test.sh BUILD_DIR    (exit 77: the service test
#   skipped for another reason, as it does without root or Prometheus)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(PATH="$here/refusing:$PATH" bash "$here/service-test.sh" "${1:?usage: refusing-test.sh BUILD_DIR}" 2>&1)
rc=$?
echo "$out" | tail -n 3
want='service-test: skipped: systemd cannot boot in a container here: Detected host uses legacy cgroup v1 hierarchy, refusing.'
if [ "$rc" = 77 ] && grep -qxF "$want" <<<"$out"; then exit 0; fi
if [ "$rc" = 77 ]; then exit 77; fi
echo "refusing-test: the service test ended $rc, not skipped with systemd's words" >&2
exit 1
