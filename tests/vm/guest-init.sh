#!/bin/bash
# PID 1 of a kdelay test guest (see vm-test.sh): set the system up as a
# test host would have it, run the command, report its exit code, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "kdelay-vm: guest init"
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
ln -sfn /proc/self/fd /dev/fd  # bash's <(...) and /dev/stdin
ln -sfn /proc/self/fd/0 /dev/stdin; ln -sfn /proc/self/fd/1 /dev/stdout; ln -sfn /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
ip link set lo up
hostname kdelay-vm
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^kdelay\.$1=//p"; }
release=$(uname -r)
headers=$(arg headers)
ln -sfn "$headers" "/lib/modules/$release/build"
ln -sfn "${headers%-amd64}-common" "/lib/modules/$release/source"
# The scratch disk, as /var/tmp (the block tests write there with O_DIRECT).
modprobe -q virtio_blk; modprobe -q ext4
for i in $(seq 50); do [ -b /dev/vda ] && break; sleep 0.1; done
if mkfs.ext4 -q -F /dev/vda && mount /dev/vda /var/tmp; then
    chmod 1777 /var/tmp
else
    echo "kdelay-vm: no scratch disk; block tests will fail"
fi
dmesg -n 1  # the boot's messages show where a hung boot stopped; the tests' would only interleave
echo "kdelay-vm: begin"
bash "$(arg cmdfile)" </dev/null 2>&1
rc=$?
printf '\033[0m\n'  # the command's output may end mid-line, in colour
echo "kdelay-vm: exit $rc"
sync
echo o >/proc/sysrq-trigger
sleep 30
