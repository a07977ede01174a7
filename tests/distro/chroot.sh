#!/usr/bin/env bash
# Runs a command on a copy of kdelay's tracked source in a clean root
# filesystem of a Debian release, against this machine's kernel (/proc, /sys
# and /dev are bind-mounted; kdelay traces the host's processes). It is the
# root of a private mount namespace, as in a container.
#
#   tests/distro/chroot.sh SUITE [COMMAND...]
#       SUITE: bookworm, trixie or sid. COMMAND runs in the copy with bash
#       -c; default: KDELAY_SKIP_VM=1 KDELAY_SKIP_LOAD=1 scripts/test.sh
#       (the host runs the round under load). A dist/ that the command
#       leaves (scripts/package.sh) is copied back to dist/SUITE/.
#   tests/distro/chroot.sh --bare SUITE [COMMAND...]
#       A minimal root filesystem instead: no build or test packages, as a
#       new user's system. dist/SUITE/kdelay_*.deb and install-check.sh are
#       copied to /kdelay-check; default COMMAND: install-check.sh there.
#   tests/distro/chroot.sh --prepare SUITE
#       Only makes (or keeps) both root filesystems of SUITE, the full and
#       the bare: scripts/test.sh has them made beside its sanitizer stage.
#   tests/distro/chroot.sh --fresh SUITE [COMMAND...]
#       The minimal root filesystem with the source in /src/kdelay, as a
#       fresh machine someone cloned kdelay onto; default COMMAND:
#       scripts/demo.sh, timed.
#
# Each root filesystem is made once by mmdebstrap from this machine's Debian
# mirror and kept in /var/cache/kdelay/chroot/ (remade when scripts/setup.sh's
# package list changes). Unstable's Release file may be past its
# Valid-Until date on the mirror, so that check is off.
set -euo pipefail
cd "$(dirname "$0")/../.."
tree=$PWD

bare=0 fresh=0
if [ "${1:-}" = "--prepare" ]; then
    shift
    bash "$tree/tests/distro/chroot.sh" --make-only "$@"
    exec bash "$tree/tests/distro/chroot.sh" --make-only --bare "$@"
fi
make_only=0
if [ "${1:-}" = "--make-only" ]; then make_only=1; shift; fi
if [ "${1:-}" = "--bare" ]; then bare=1; shift; fi
if [ "${1:-}" = "--fresh" ]; then bare=1; fresh=1; shift; fi
suite=${1:?usage: tests/distro/chroot.sh [--bare|--fresh] SUITE [COMMAND...]}
shift
if [ "$fresh" = 1 ]; then
    command=${*:-time scripts/demo.sh}
elif [ "$bare" = 1 ]; then
    command=${*:-bash /kdelay-check/install-check.sh /kdelay-check}
else
    command=${*:-KDELAY_SKIP_VM=1 KDELAY_SKIP_LOAD=1 KDELAY_SKIP_SERVICE=1 scripts/test.sh}
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "chroot.sh: run as root (it mounts and chroots)" >&2
    exit 77
fi
command -v mmdebstrap >/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
}


cache=/var/cache/kdelay/chroot
mkdir -p "$cache"
if [ "$bare" = 1 ]; then
    name=$suite-bare
    packages="ca-certificates"
else
    name=$suite
    packages="$(KDELAY_SKIP_SERVICE=1 bash scripts/setup.sh --list | tr '\n' ',')git,ca-certificates"
fi
tarball=$cache/$name.tar
stamp=$cache/$name.packages
if [ ! -s "$tarball" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$packages" ]; then
    echo "chroot.sh: making the $name root filesystem (mmdebstrap, a few minutes)"
    rm -f "$tarball"
    mmdebstrap --quiet --variant=minbase --format=tar --aptopt='Acquire::Check-Valid-Until "false"' \
        --include="$packages" "$suite" "$tarball.part" "$(bash scripts/debian-mirror.sh)"
    mv "$tarball.part" "$tarball"
    echo "$packages" >"$stamp"
fi
[ "$make_only" = 0 ] || exit 0

root=$(mktemp -d /var/tmp/kdelay-chroot-XXXXXX)
trap 'rm -rf --one-file-system "$root"' EXIT
tar -C "$root" -xf "$tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# Runs bash -c "$1" as the root filesystem's init would see it: in a private
# mount namespace whose root mount is the root filesystem (pivot_root, not a
# bare chroot), so that unshare -m and paths of /proc/PID/exe behave there as
# on a real system; its mounts go with it.
run_in_root() {
    unshare --mount --propagation private /bin/bash -c '
        set -e
        mount --bind "$0" "$0"
        mount -t proc proc "$0/proc"
        mount --rbind /sys "$0/sys"
        mount --rbind /dev "$0/dev"
        cd "$0"
        mkdir -p .old-root
        pivot_root . .old-root
        umount -l /.old-root
        rmdir /.old-root
        exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CI="$2" /bin/bash -c "$1"
    ' "$root" "$1" "${CI:-}"
}

copy_source() {
    mkdir -p "$root/src/kdelay"
    git ls-files -z | tar -C "$tree" --null -T - -cf - | tar -C "$root/src/kdelay" -xf -
}

if [ "$fresh" = 1 ]; then
    copy_source
    echo "chroot.sh: $suite (fresh): $command"
    run_in_root "cd /src/kdelay && $command"
    exit
fi
if [ "$bare" = 1 ]; then
    mkdir "$root/kdelay-check"
    cp tests/distro/install-check.sh "$root/kdelay-check/"
    cp dist/"$suite"/kdelay_*.deb "$root/kdelay-check/" 2>/dev/null || true
    echo "chroot.sh: $suite (bare): $command"
    run_in_root "cd / && $command"
    exit
fi
copy_source
echo "chroot.sh: $suite: $command"
status=0
run_in_root "cd /src/kdelay && $command" || status=$?
if [ -d "$root/src/kdelay/dist" ]; then
    mkdir -p "dist/$suite"
    cp "$root/src/kdelay/dist/"* "dist/$suite/"
fi
exit "$status"
