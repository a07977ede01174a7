#!/usr/bin/env bash
# Prepares a Debian bookworm machine for kdelay: installs the build and test
# dependencies that are missing, and gives BCC a kernel header tree.
#   scripts/setup.sh [--vm]    --vm: also what tests/vm/ needs (qemu, busybox,
#                              and Open vSwitch for the upcall tests in guests)
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
    echo "setup.sh: run as root (it installs packages and links kernel headers)" >&2
    exit 77
fi

packages=(
    build-essential cmake pkg-config
    libbpfcc-dev libbpf-dev            # BCC's libbcc, libbpf's BTF API
    libcli11-dev libfmt-dev libseccomp-dev nlohmann-json3-dev libkainjow-mustache-dev
    rapidjson-dev                      # streaming (SAX) reader for spdk_trace -j input
    googletest libgtest-dev            # tests
    systemtap-sdt-dev                  # <sys/sdt.h> for USDT test programs
    linux-headers-amd64                # BCC compiles against a header tree
    util-linux                         # unshare(1), used by an e2e test
    man-db                             # man -l, to check the installed man page
    time bc                            # bench/annotate.sh
)
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

# No headers match the running kernel here; BCC only needs some header tree,
# and Debian splits it in two (BCC_KERNEL_SOURCE cannot express that).
modules="/lib/modules/$(uname -r)"
newest() { ls -d $1 2>/dev/null | sort -V | tail -n 1; }
mkdir -p "$modules"
if [ ! -e "$modules/build/include" ]; then
    target=$(newest '/usr/src/linux-headers-*-amd64')
    [ -n "$target" ] || { echo "setup.sh: no /usr/src/linux-headers-*-amd64 after install" >&2; exit 72; }
    ln -sfn "$target" "$modules/build"
fi
if [ ! -e "$modules/source/include" ]; then
    target=$(newest '/usr/src/linux-headers-*-common')
    [ -n "$target" ] || { echo "setup.sh: no /usr/src/linux-headers-*-common after install" >&2; exit 72; }
    ln -sfn "$target" "$modules/source"
fi
