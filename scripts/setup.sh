#!/usr/bin/env bash
# Prepares a Debian machine (12 bookworm, 13 trixie or unstable) for kdelay:
# installs the build and test dependencies that are missing. kdelay needs no
# kernel headers on x86-64 (it gives BCC a tree of its own).
#   scripts/setup.sh [--vm]    --vm: also what tests/vm/ needs (qemu, busybox,
#                              and Open vSwitch for the upcall tests in guests)
#   scripts/setup.sh --demo    only what kdelay and the demo workload need
#   scripts/setup.sh --sanitize  also clang and its sanitizer and libFuzzer
#                              runtimes, for scripts/sanitize.sh
#   scripts/setup.sh --list    print the build and test packages, one a line
set -euo pipefail

build=(
    build-essential cmake pkg-config
    libbpfcc-dev libbpf-dev            # BCC's libbcc, libbpf's BTF API
    libelf-dev                         # --stall: where a program calls poll(), from its ELF file
    libdw-dev                          # --profile: user stacks unwound by .eh_frame (elfutils' libdwfl)
    libcli11-dev libfmt-dev libseccomp-dev nlohmann-json3-dev libkainjow-mustache-dev
    rapidjson-dev                      # streaming (SAX) reader for spdk_trace -j input
    libsystemd-dev                     # the journal and the service manager's notifications
    libprotobuf-dev protobuf-compiler  # --timeline: Perfetto's trace format
)
tests=(
    googletest libgtest-dev            # tests
    python3-protobuf                   # tests/timeline/check_trace.py reads protoc's decoding
    systemtap-sdt-dev                  # <sys/sdt.h> for USDT test programs
    dpkg-dev file                      # scripts/package.sh: dpkg-shlibdeps computes the .deb's dependencies
    util-linux                         # unshare(1), used by an e2e test
    man-db                             # man -l, to check the installed man page
    time bc                            # bench/annotate.sh
    linux-headers-amd64                # kernel_delay.py in the guests' comparisons (kdelay needs none)
)
# The service test (tests/service/); not where it is skipped (a chroot).
if [ "${KDELAY_SKIP_SERVICE:-0}" != 1 ]; then
    tests+=(
        systemd-container                  # systemd-nspawn boots systemd in a container
        prometheus prometheus-node-exporter  # node_exporter serves --metrics' file, Prometheus scrapes it
    )
fi
packages=("${build[@]}" "${tests[@]}")
if [ "${1:-}" = "--list" ]; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi
[ "${1:-}" = "--demo" ] && packages=("${build[@]}")
[ "${1:-}" = "--sanitize" ] && packages+=(clang libclang-rt-dev)
if [ "$(id -u)" -ne 0 ]; then
    echo "setup.sh: run as root (it installs packages)" >&2
    exit 77
fi
# The kernel-matrix guests (tests/vm/): only with --vm.
if [ "${1:-}" = "--vm" ]; then
    packages+=(qemu-system-x86 busybox-static cpio xz-utils zstd kmod e2fsprogs iproute2)
    packages+=(openvswitch-switch)     # tests/ovs: its daemons run in the guests only
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup.sh: installing ${missing[*]}"
    # Start no services (openvswitch-switch would start its daemons here).
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    [ -z "$policy" ] || rm -f "$policy"
fi
