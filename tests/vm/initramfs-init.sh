#!/bin/sh
# The initramfs's init: reach the host's root over 9p, put a tmpfs overlay
# on it, and hand over to tests/vm/guest-init.sh there.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "kdelay-vm: initramfs"
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^kdelay\.$1=//p"; }
fail() { echo "kdelay-vm: initramfs: $*"; echo o >/proc/sysrq-trigger; sleep 10; }
for m in $(cat /modules/order); do
    insmod "/modules/$m" 2>/dev/null
done
release=$(arg release)
mkdir -p /mnt/lower /mnt/mods /mnt/rw /mnt/root
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /mnt/lower ||
    fail "cannot mount the host's root over 9p"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 modules /mnt/mods ||
    fail "cannot mount the kernel's modules over 9p"
mount -t tmpfs -o size=2G tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work /mnt/rw/mods-upper /mnt/rw/mods-work
mount -t overlay overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /mnt/root ||
    fail "cannot mount the overlay"
mkdir -p "/mnt/root/lib/modules/$release"
# Writable too, so the guest can link build/ and source/ to headers.
mount -t overlay overlay -o lowerdir=/mnt/mods,upperdir=/mnt/rw/mods-upper,workdir=/mnt/rw/mods-work \
    "/mnt/root/lib/modules/$release" || fail "cannot mount the modules overlay"
init=$(arg init)
echo "kdelay-vm: switch_root"
umount /proc /sys
exec switch_root /mnt/root /bin/bash "$init"
