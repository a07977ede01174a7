#!/usr/bin/env bash
# One command from a fresh machine to every test: set up, build, run ctest
# (unit tests, then end-to-end tests on real eBPF, which need root), then
# Debian 13 (trixie): the same tests in a clean trixie root filesystem and
# its .deb installed, run and purged in a bare one (tests/distro/matrix.sh
# trixie), then the kernel matrix: the kernel-dependent e2e tests inside
# Debian kernels under qemu (tests/vm/matrix.sh): 7.2 (the newest) and 5.10
# (the oldest paths; its Open vSwitch tests only in the full matrix); 6.1,
# 6.12 and 6.12-rt in the full matrix (tests/vm/matrix.sh with no kernel
# named), for CI's time.
# Before trixie, scripts/sanitize.sh: the unit tests, the e2e tests that
# load no eBPF and the eBPF ones tagged sanitize under ASan and UBSan, and
# each fuzz target for 5 s; trixie's root filesystems are made beside it.
# scripts/test.sh --quick: the loop to run while changing code: build, the
# unit tests and the host's e2e tests, nothing after them (no load round,
# sanitizers, Debian 13 or guests).
# KDELAY_SKIP_DISTRO=1 skips trixie, KDELAY_SKIP_VM=1 the guests,
# KDELAY_SKIP_SANITIZE=1 the sanitizers, KDELAY_SKIP_SERVICE=1 the service
# test (tests/service/: systemd booted in a container; not in a chroot);
# KDELAY_VM_KERNELS names other kernels; KDELAY_E2E_LEAVE_OUT leaves out
# the e2e tests of these tags (Debian 13's run leaves out logic); KDELAY_SKIP_LOAD=1 skips the
# round of the run, ready and budget cases beside a busy host's load (all
# of tests/load/run.sh's loads at once, after the e2e tests).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's start, with the minutes since this script began (CI's limit).
stage() { echo "== test.sh: $1 (at $((SECONDS / 60)) min $((SECONDS % 60)) s)"; }
# The tests ctest has just seen fail, named and run once more: a second
# failure fails the run.
once_more() { LABEL="test.sh: " bash scripts/ctest-once-more.sh build; }
quick=0
case ${1:-} in
--quick) quick=1 ;;
"") ;;
*) echo "usage: scripts/test.sh [--quick]" >&2; exit 64 ;;
esac
vm=1
if [ "${KDELAY_SKIP_VM:-0}" = 1 ] || [ "$quick" = 1 ]; then vm=0; fi
stage setup
bash scripts/setup.sh $([ "$vm" = 1 ] && echo --vm)
stage build
bash scripts/build.sh
log=build/ctest-e2e.log
stage "unit tests"
# As the e2e tests below: a test that fails runs once more (a few load
# eBPF and count the kernel's switches beside the other CPU's tests).
if ! ctest --test-dir build -L unit -j"$(nproc)" --output-on-failure; then
    once_more
fi
# KDELAY_E2E_LEAVE_OUT: tags (tests/tests_tagged.sh) whose e2e tests to leave out.
leave_out=()
names=$(for tag in ${KDELAY_E2E_LEAVE_OUT:-}; do bash tests/tests_tagged.sh "$tag"; done | sort -u |
        sed 's/\./\\./g' | paste -sd'|')
[ -z "$names" ] || leave_out=(-E "^($names)\$")
stage "e2e tests"
# A test that fails runs once more, and fails the run only if it fails
# again; its name and both logs stay (build/ctest-e2e*.log). Two tests
# failed once each in a CI run's Debian 13 stage and passed in 26 runs
# here, with and without a disk and CPU load beside them.
if ! ctest --test-dir build -L e2e "${leave_out[@]}" --output-on-failure | tee "$log"; then
    once_more | tee build/ctest-e2e-again.log
fi
total=$(ctest --test-dir build -N -L e2e "${leave_out[@]}" | sed -n 's/^Total Tests: //p')
skipped=$(grep -c '(Skipped)' "$log" || true)
echo "e2e tests: $((total - skipped)) ran (the real binary; on real eBPF where a test loads it), $skipped skipped"
if [ "$quick" = 1 ]; then
    stage "done (--quick)"
    exit 0
fi
# Under load, a rare error shows in a window or two of hundreds (the
# 50-round runs of docs/kernels.md, "Under load"): a round that fails is run
# once more, and fails the run only if it fails again. Both logs are kept.
if [ "${KDELAY_SKIP_LOAD:-0}" != 1 ]; then
    stage "a round under load"
    bash tests/load/run.sh --rounds 1 all ||
        { echo "test.sh: the round under load failed; running it once more" >&2
          KDELAY_LOAD_LOGS=build/load-logs-again bash tests/load/run.sh --rounds 1 all; }
fi
# Debian 13's root filesystems (on a fresh machine, mmdebstrap's download
# and unpacking, some 5 minutes) are made beside the sanitizer stage, whose
# packages are installed first: two apt runs on this system never overlap.
roots=
if [ "${KDELAY_SKIP_DISTRO:-0}" != 1 ]; then
    [ "${KDELAY_SKIP_SANITIZE:-0}" = 1 ] || bash scripts/setup.sh --sanitize
    bash tests/distro/chroot.sh --prepare trixie >build/trixie-roots.log 2>&1 &
    roots=$!
fi
if [ "${KDELAY_SKIP_SANITIZE:-0}" != 1 ]; then
    stage sanitizers
    bash scripts/sanitize.sh
fi
if [ "${KDELAY_SKIP_DISTRO:-0}" != 1 ]; then
    stage "Debian 13"
    wait "$roots" || { cat build/trixie-roots.log >&2
                       echo "test.sh: Debian 13's roots were not made beside the sanitizers; made now" >&2; }
    bash tests/distro/matrix.sh trixie
fi
if [ "$vm" = 1 ]; then
    stage "kernel guests, two at a time"
    # shellcheck disable=SC2086
    # 7.2's Open vSwitch tests (about 5 minutes) in a third guest, after
    # 5.10's: beside 7.2's others, not after them.
    bash tests/vm/matrix.sh ${KDELAY_VM_KERNELS:-7.2@core 5.10@core 7.2@ovs}
fi
stage done
