#!/usr/bin/env bash
# Run inside a bare root filesystem (tests/distro/chroot.sh --bare), as a new
# user would: install kdelay's .deb with apt, which must pull in everything
# kdelay needs; run it with no setup step; purge it, which must leave nothing
# behind.
#   install-check.sh DIR    DIR holds exactly one kdelay_*.deb
set -euo pipefail
dir=${1:?usage: install-check.sh DIR}
debs=("$dir"/kdelay_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || { echo "install-check: want one kdelay_*.deb in $dir" >&2; exit 66; }
deb=${debs[0]}

# Every file outside the package manager's own state and the scratch areas.
snapshot() {
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run \
        -o -path /var/lib/apt -o -path /var/lib/dpkg -o -path /var/cache -o -path /var/log \
        -o -path "$dir" \) -prune -o -print | sort
}
fail() { echo "install-check: $*" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
echo "install-check: installed $(dpkg-query -W -f='${Package} ${Version}' kdelay)"
for f in /usr/sbin/kdelay /usr/lib/kdelay/kdelay-bpf.so /usr/share/man/man8/kdelay.8.gz \
    /usr/lib/systemd/system/kdelay-stall@.service /etc/default/kdelay; do
    [ -e "$f" ] || fail "$f is missing after install"
done
command -v kdelay >/dev/null || fail "kdelay is not on PATH"
dpkg -L kdelay >"$dir/files"
# node_exporter's directory, as prometheus-node-exporter makes it: what a
# watch writes there goes with the purge, the directory stays.
mkdir -p /var/lib/prometheus/node-exporter
snapshot >"$dir/installed"
echo 'kdelay_stalls_total 0' >/var/lib/prometheus/node-exporter/kdelay-ovs-vswitchd.prom

# No kernel headers: on x86-64 kdelay gives BCC a tree of its own.
if [ "$(dpkg --print-architecture)" = amd64 ] && dpkg-query -W -f='${db:Status-Status} ${Package}\n' 'linux-headers-*' 2>/dev/null | grep -q '^installed '; then
    fail "installing kdelay pulled in a kernel headers package"
fi
# A real report, on this machine's kernel.
kdelay --sample-time 1 -- /bin/sh -c \
    'i=0; while [ $i -lt 300 ]; do i=$((i+1)); cat /proc/self/stat >/dev/null; done; sleep 2' \
    >"$dir/report" 2>"$dir/stderr" || { cat "$dir/stderr" >&2; fail "kdelay exited $?"; }
# The shell's cat children read /proc/self/stat: its rows name the calls.
grep -Eq '^ +(openat|read|execve|clone|clone3|wait4) +[0-9]+ +[0-9]+ ' "$dir/report" ||
    { cat "$dir/report" "$dir/stderr" >&2; fail "the report has no syscall of the traced shell"; }
ls -d /tmp/kdelay-headers-* 2>/dev/null && fail "kdelay left its header tree in /tmp"
echo "install-check: kdelay reported $(grep -c 'SYSCALL STATISTICS' "$dir/report") thread(s)"

apt-get purge -y -qq kdelay >/dev/null
dpkg-query -W kdelay 2>/dev/null | grep -q . && fail "kdelay is still known to dpkg after purge"
snapshot >"$dir/purged"
left=$(comm -12 <(sort -u "$dir/files") "$dir/purged" | while read -r f; do
    [ -d "$f" ] || echo "$f"; done)
[ -z "$left" ] || fail "left behind after purge: $left"
new=$(comm -13 "$dir/installed" "$dir/purged")
[ -z "$new" ] || fail "purge created: $new"
echo "install-check: purged, nothing left behind"
