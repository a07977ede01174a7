#!/usr/bin/env bash
# Boots a Debian kernel under qemu with this machine's root filesystem
# (read-only over 9p, a tmpfs overlay on top) and runs one command inside.
#
#   tests/vm/vm-test.sh [--timeout SECONDS] [--cpus N] KERNEL [--] COMMAND...
#
# KERNEL is 5.10 (Debian 11's), 6.1, 6.12, 6.12-rt (Debian 12's) or 7.2
# (unstable's): the newest Debian package of that line; or a full release
# such as 6.1.0-50-amd64. Other releases' kernels come through this
# machine's Debian mirror with a private apt list in the cache. The command
# runs as root in the caller's working directory, with proc, sys, tracefs,
# debugfs and bpffs mounted, lo up, /var/tmp on an ext4 virtio disk and
# kernel headers linked for BCC. Its output is printed here and its exit code is this script's
# (124 on timeout, 125 when the guest never ran it). A guest that has not
# begun the command after KDELAY_VM_BOOT_TIMEOUT seconds (default 300; a
# TCG boot takes 15 s here) is killed as never having run it, so that
# matrix.sh boots it once more.
#
# Images and the initramfs are cached in $KDELAY_VM_CACHE
# (default /var/cache/kdelay-vm). Guests run under TCG; KDELAY_VM_ACCEL=kvm
# asks for KVM. KDELAY_VM_LOGLEVEL sets the kernel's console level until
# the command begins (default 7: a boot that hangs shows where; a task
# blocked for 60 s before then prints its stack).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KDELAY_VM_CACHE:-/var/cache/kdelay-vm}
timeout=1800
cpus=2
print_release=0
while [ $# -gt 0 ]; do
    case "$1" in
        --print-release) print_release=1; shift ;;
        --timeout) timeout=$2; shift 2 ;;
        --cpus) cpus=$2; shift 2 ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || [ "$print_release" = 1 ] || { echo "usage: vm-test.sh [--timeout S] [--cpus N] KERNEL [--] COMMAND..." >&2; exit 64; }
kernel=$1; shift
[ "${1:-}" = "--" ] && shift

die() { echo "vm-test.sh: $*" >&2; exit 125; }
[ "$(id -u)" -eq 0 ] || die "run as root"
for tool in qemu-system-x86_64 busybox modprobe depmod xz mkfs.ext4 cpio; do
    command -v "$tool" >/dev/null || die "$tool is missing; run scripts/setup.sh"
done
mkdir -p "$cache"

# apt's options for another release's package lists, kept in the cache
# (unstable's Release file may be past its Valid-Until date on the mirror).
suite_apt() {
    local dir="$cache/apt/$1"
    if [ ! -e "$dir/sources.list" ]; then
        mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(bash "$here/../../scripts/debian-mirror.sh") $1 main" >"$dir/sources.list"
    fi
    echo "-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=/dev/null" \
        "-o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir/cache -o Acquire::Check-Valid-Until=false"
}
suite_of() {
    case "$1" in
        5.10*) echo bullseye ;;
        7.*) echo sid ;;
    esac
}
apt_opts=""
suite=$(suite_of "$kernel")
[ -z "$suite" ] || apt_opts=$(suite_apt "$suite")

# The newest Debian image package of a kernel line.
resolve_release() {
    # shellcheck disable=SC2086
    case "$1" in
        5.10) apt-cache $apt_opts search --names-only '^linux-image-5\.10\.0-[0-9]+-amd64$' ;;
        6.1) apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
        6.12) apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
        6.12-rt) apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-rt-amd64$' ;;
        7.2) apt-cache $apt_opts search --names-only '^linux-image-7\.2\.[0-9]+\+deb14-amd64$' ;;
        *) echo "linux-image-$1 -" ;;
    esac | awk '{print $1}' | sed 's/^linux-image-//' | sort -V | tail -n 1
}
release=$(resolve_release "$kernel")
if [ -z "$release" ]; then  # no package lists yet on a fresh machine
    # shellcheck disable=SC2086
    timeout 300 apt-get $apt_opts update -qq >/dev/null 2>&1 || true
    release=$(resolve_release "$kernel")
fi
[ -n "$release" ] || die "no Debian kernel package for '$kernel' (run apt-get update?)"
if [ "$print_release" = 1 ]; then echo "$release"; exit 0; fi
root="$cache/$release"

# 1. The image, unpacked, with its modules.dep. Unstable splits it: the
# linux-image package is a meta package over linux-binary (vmlinuz under
# /usr/lib/modules), linux-modules and linux-base (modules.builtin and
# modules.order, without which modprobe cannot see built-in drivers).
download() {
    # shellcheck disable=SC2086
    (cd "$cache" && timeout 600 apt-get $apt_opts download -q "$1" >/dev/null 2>&1) || die "cannot download $1"
    ls "$cache/$1"_*.deb | head -n 1
}
if [ ! -e "$root/.ready" ]; then
    rm -rf "$root" && mkdir -p "$root"
    deb=$(download "linux-image-$release")
    parts=$(dpkg-deb -f "$deb" Depends | tr ',|' '\n\n' | awk '{print $1}' |
        grep -E "^linux-(binary|modules|base)-$(printf '%s' "$release" | sed 's/[.+]/\\&/g')\$" || true)
    dpkg -x "$deb" "$root"
    rm -f "$deb"
    for part in $parts; do
        deb=$(download "$part")
        dpkg -x "$deb" "$root"
        rm -f "$deb"
    done
    [ -e "$root/lib" ] || ln -s usr/lib "$root/lib"  # merged /usr: depmod and modprobe look in /lib
    if [ ! -e "$root/boot/vmlinuz-$release" ] && [ -e "$root/lib/modules/$release/vmlinuz" ]; then
        mkdir -p "$root/boot" && ln -s "../lib/modules/$release/vmlinuz" "$root/boot/vmlinuz-$release"
    fi
    [ -e "$root/boot/vmlinuz-$release" ] || die "linux-image-$release has no vmlinuz"
    depmod -b "$root" "$release"
    touch "$root/.ready"
fi

# 2. The initramfs: busybox, the modules to reach 9p and overlay, and init.
initrd="$root/initrd.cpio.gz"
if [ ! -e "$initrd" ] || [ "$here/initramfs-init.sh" -nt "$initrd" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work"/{bin,dev,proc,sys,mnt,modules}
    cp "$(command -v busybox)" "$work/bin/busybox"
    ln -s busybox "$work/bin/sh"
    : >"$work/modules/order"
    for m in virtio_pci 9pnet_virtio 9p overlay; do
        modprobe -d "$root" -S "$release" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" {print $2}'
    done | awk '!seen[$0]++' | while read -r ko; do
        name=$(basename "$ko"); name=${name%.xz}; name=${name%.zst}
        case "$ko" in
            *.xz) xz -dc "$ko" >"$work/modules/$name" ;;
            *.zst) zstd -dcq "$ko" >"$work/modules/$name" ;;
            *) cp "$ko" "$work/modules/$name" ;;
        esac
        echo "$name" >>"$work/modules/order"
    done
    cp "$here/initramfs-init.sh" "$work/init"
    chmod +x "$work/init"
    (cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp"
    mv "$initrd.tmp" "$initrd"
    rm -rf "$work"
    trap - EXIT
fi

# 3. A scratch disk for the block tests (formatted in the guest).
disk=$(mktemp /tmp/kdelay-vm-disk.XXXXXX)
out=$(mktemp /tmp/kdelay-vm-out.XXXXXX)
cmd_file=
qemu_pid=
cleanup() {
    [ -n "$qemu_pid" ] && kill -9 "$qemu_pid" 2>/dev/null || true
    [ -n "${KDELAY_VM_LOG:-}" ] && cp "$out" "$KDELAY_VM_LOG"
    rm -f "$disk" "$out" "$cmd_file"
}
trap cleanup EXIT
truncate -s 512M "$disk"

# TCG unless KDELAY_VM_ACCEL=kvm: nested KVM here fails in the guest's
# decompressor ("KVM internal error", emulation failure) and waits forever.
accel=${KDELAY_VM_ACCEL:-tcg}
cpu=max
[ "$accel" = kvm ] && cpu=host
# One host thread runs both vCPUs: multi-threaded TCG lost cross-CPU
# interrupts here (a soft lockup with one vCPU idle and the other waiting
# on it, while kdelay attached its programs).
[ "$accel" = tcg ] && accel="tcg,thread=${KDELAY_VM_TCG_THREAD:-single}"

# The command, run in this directory, travels in a file the guest reads
# through the host's root: on the kernel's command line, which x86 caps at
# 2048 bytes, matrix.sh's test selection (3 KB) hung the boot before the
# kernel's first message.
cmd_file=$(mktemp /tmp/kdelay-vm-cmd.XXXXXX)
chmod 644 "$cmd_file"
{ printf 'cd %q && ' "$PWD"; printf '%q ' "$@"; } >"$cmd_file"
headers=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)

qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$cpus,sockets=1,cores=$cpus,threads=1" -m 3072 \
    -nographic -no-reboot -nic none \
    -kernel "$root/boot/vmlinuz-$release" -initrd "$initrd" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs local,path="$root/lib/modules/$release",mount_tag=modules,security_model=none,readonly=on \
    -drive file="$disk",if=virtio,format=raw \
    -append "console=ttyS0 loglevel=${KDELAY_VM_LOGLEVEL:-7} panic=-1 softlockup_panic=1 sysctl.kernel.hung_task_timeout_secs=60 kdelay.release=$release kdelay.init=$here/guest-init.sh kdelay.headers=$headers kdelay.cmdfile=$cmd_file" \
    </dev/null >"$out" 2>&1 &
qemu_pid=$!
# The command's output may end without a newline (ctest's colour reset after
# a list of skipped tests), so the exit line is found anywhere in a line.
tail -f "$out" --pid "$qemu_pid" 2>/dev/null | tr -d '\r' | sed -u -n '/kdelay-vm: begin$/,/kdelay-vm: exit [0-9]/{/kdelay-vm: /!p}' &
tail_pid=$!
waited=0
boot_timeout=${KDELAY_VM_BOOT_TIMEOUT:-300}
begun=0
while kill -0 "$qemu_pid" 2>/dev/null; do
    [ "$begun" = 1 ] || ! grep -qa 'kdelay-vm: begin' "$out" || begun=1
    if [ "$begun" = 0 ] && [ "$waited" -ge "$boot_timeout" ]; then
        kill -9 "$qemu_pid" 2>/dev/null || true
        wait "$tail_pid" 2>/dev/null || true
        echo "vm-test.sh: $release: the guest did not begin the command within ${boot_timeout}s; its console:" >&2
        tr -d '\r' <"$out" | tail -n 60 >&2
        exit 125
    fi
    if [ "$waited" -ge "$timeout" ]; then  # the guest hung: nothing stays behind
        kill -9 "$qemu_pid" 2>/dev/null || true
        wait "$tail_pid" 2>/dev/null || true
        echo "vm-test.sh: $release: timed out after ${timeout}s" >&2
        exit 124
    fi
    sleep 1
    waited=$((waited + 1))
done
wait "$qemu_pid" 2>/dev/null || true
qemu_pid=
wait "$tail_pid" 2>/dev/null || true
rc=$(tr -d '\r' <"$out" | sed -n 's/.*kdelay-vm: exit \([0-9][0-9]*\).*/\1/p' | tail -n 1)
if [ -z "$rc" ]; then
    echo "vm-test.sh: $release: the guest did not run the command; its console:" >&2
    tr -d '\r' <"$out" | grep -av '^\[ *[0-9.]*\]  ' | tail -n 30 >&2
    exit 125
fi
exit "$rc"
