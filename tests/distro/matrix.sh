#!/usr/bin/env bash
# The distribution matrix: for each Debian release, in clean root filesystems
# on this machine's kernel (tests/distro/chroot.sh),
#   1. scripts/test.sh without the guests, the round under load and the
#      sanitizers (the host's run has those): build,
#      unit and end-to-end tests against that release's BCC, libbpf, LLVM,
#      CLI11 and fmt, less the e2e tests tagged logic (kdelay's own logic
#      over kernel paths other tests cover, which the host runs: for CI's
#      time);
#   2. scripts/package.sh: that release's .deb, into dist/SUITE/;
#   3. install-check.sh in a bare root filesystem: apt installs the .deb with
#      what it pulls in, kdelay reports with no setup step, purge leaves
#      nothing behind.
#   tests/distro/matrix.sh [SUITE...]    default: bookworm trixie sid
set -euo pipefail
cd "$(dirname "$0")/../.."
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie sid)
versions='dpkg-query -W -f="\${Package} \${Version}\n" libbpfcc libbpf1 libcli11-dev libfmt-dev linux-headers-amd64 2>/dev/null | sed "s/^/versions: /"'
passed=0 failed=0
results=()
for suite in "${suites[@]}"; do
    rm -rf "dist/$suite"
    start=$SECONDS
    tests=failed package=not-run
    if bash tests/distro/chroot.sh "$suite" \
        "$versions; KDELAY_SKIP_VM=1 KDELAY_SKIP_DISTRO=1 KDELAY_SKIP_LOAD=1 KDELAY_SKIP_SANITIZE=1 KDELAY_SKIP_SERVICE=1 KDELAY_E2E_LEAVE_OUT=logic scripts/test.sh && scripts/package.sh"; then
        tests=passed
        if bash tests/distro/chroot.sh --bare "$suite"; then package=passed; else package=failed; fi
    fi
    results+=("$suite: tests $tests, package $package ($(( (SECONDS - start) / 60 )) min)")
    if [ "$tests" = passed ] && [ "$package" = passed ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
printf 'distro matrix: %s\n' "${results[@]}"
echo "distro: $passed passed, $failed failed"
[ "$failed" = 0 ]
