#!/usr/bin/env bash
# kdelay-stall@.service, always on, under a real systemd on this machine's
# kernel: systemd boots in a container (systemd-nspawn, this machine's /usr
# with kdelay's installed files laid over it, an empty /etc), and watches a
# service, kd-svc (tests/programs/kd_service --life), that churns threads
# and plants stalls at random, the first a few polls into each life, while
# the test restarts it every RESTART_EVERY seconds.
#
# It checks what a fleet relies on:
#   - the unit as packaged: Type=notify (active only once READY=1 came), its
#     hardening accepted by the kernel, the watchdog kept (no restart of
#     kdelay in the whole run), /etc/default/kdelay read;
#   - the journal: each planted stall is one entry, exactly once, with its
#     fields and KDELAY_JSON; each restart one entry; no loss;
#   - Prometheus: node_exporter serves the metrics file, Prometheus scrapes
#     it, and a query through its HTTP API gives the planted stalls' count,
#     the restarts and the loop intervals of kd-svc's own count;
#   - kdelay's resident memory, open files and tracked threads stay flat.
#
# The container boots a target of the test's own (kdtest.target: basic.target
# and nothing of multi-user.target), so the host's other services neither
# start there nor hold the test up; two are planted to show it, one that
# fails (on basic.target) and one that never finishes starting (on
# multi-user.target). The test waits for its own units' jobs, not for the
# whole system. Where systemd cannot boot on this host (Debian unstable's
# refuses a cgroup v1 host), it skips and says why.
#
#   tests/service/service-test.sh BUILD_DIR [RESTARTS [RESTART_EVERY [POLL_US]]]
#       (default 3 restarts, 6 s apart: CI's short run; bench/soak.sh runs
#       it for longer). POLL_US: kd-svc's loop poll timeout (default 1000). Exit 77: no systemd-nspawn, Prometheus or BPF here.
#       KDELAY_KEEP=1 keeps what it collected in /tmp/kdelay-service-*.
set -euo pipefail
build=$(cd "${1:?usage: service-test.sh BUILD_DIR [RESTARTS [RESTART_EVERY]]}" && pwd)
restarts=${2:-3}
every=${3:-6}
poll_us=${4:-1000}
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$here/../.." && pwd)

skip() { echo "service-test: skipped: $*"; exit 77; }
fail() { echo "service-test: FAILED: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "not root"
[ "${KDELAY_TEST_NO_BPF:-0}" = 1 ] && skip "KDELAY_TEST_NO_BPF=1"
# A chroot (tests/distro/) is not a machine to boot systemd on.
[ "${KDELAY_SKIP_SERVICE:-0}" = 1 ] && skip "KDELAY_SKIP_SERVICE=1"
for tool in systemd-nspawn prometheus prometheus-node-exporter; do
    command -v "$tool" >/dev/null || [ -x "/usr/bin/$tool" ] || skip "no $tool (scripts/setup.sh installs it)"
done

work=$(mktemp -d /tmp/kdelay-service-XXXXXX)
leader= nspawn= exporter= prom=
cleanup() {
    [ -n "$nspawn" ] && kill "$nspawn" 2>/dev/null && wait "$nspawn" 2>/dev/null
    [ -n "$exporter" ] && kill "$exporter" 2>/dev/null
    [ -n "$prom" ] && kill "$prom" 2>/dev/null
    wait 2>/dev/null || true
    umount -R "$work/over" 2>/dev/null || true
    [ -n "${KDELAY_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

# kdelay as the package installs it (the .deb holds what cmake --install
# puts here), and the test's units and settings.
DESTDIR="$work/stage" cmake --install "$build" --prefix /usr >/dev/null
mkdir -p "$work/units/kdelay-stall@kd-svc.service.d" "$work/metrics" "$work/over"
cat >"$work/units/kd-svc.service" <<EOF
[Unit]
Description=a service that stalls (kdelay's test)
[Service]
ExecStart=/kdtest/kd_service --life 7 $poll_us
EOF
# The watchdog at 3 s, so that the run outlasts it many times over.
cat >"$work/units/kdelay-stall@kd-svc.service.d/test.conf" <<'EOF'
[Service]
WatchdogSec=3s
EOF
# What the container boots: only what the test needs.
cat >"$work/units/kdtest.target" <<'UNIT'
[Unit]
Description=kdelay's service test: basic.target and the test's own units
Requires=basic.target
After=basic.target
UNIT
# Unrelated units that fail or hang, as a host's may (ipmievd without IPMI,
# nvmf-autoconnect without NVMe): neither may touch the test.
cat >"$work/units/kd-fails.service" <<'UNIT'
[Unit]
Description=an unrelated unit that fails (kdelay's test)
[Service]
Type=oneshot
ExecStart=/bin/false
UNIT
cat >"$work/units/kd-hangs.service" <<'UNIT'
[Unit]
Description=an unrelated unit that never finishes starting (kdelay's test)
[Service]
Type=oneshot
ExecStart=/bin/sleep infinity
UNIT
mkdir -p "$work/units/basic.target.wants" "$work/units/multi-user.target.wants"
ln -s ../kd-fails.service "$work/units/basic.target.wants/kd-fails.service"
ln -s ../kd-hangs.service "$work/units/multi-user.target.wants/kd-hangs.service"
sed -e 's/^KDELAY_STALL=.*/KDELAY_STALL=200ms/' "$work/stage/etc/default/kdelay" >"$work/default"
grep -q '^KDELAY_METRICS_DIR=/var/lib/prometheus/node-exporter$' "$work/default" ||
    fail "/etc/default/kdelay does not name node_exporter's directory"

# /usr with kdelay laid over it, in a mount namespace of the container's own.
mount -t tmpfs tmpfs "$work/over"
mkdir -p "$work/over/upper" "$work/over/work" "$work/over/usr"
mkdir -p /run/systemd/nspawn
mountpoint -q /run/systemd/nspawn || mount -t tmpfs tmpfs /run/systemd/nspawn
unshare -m --propagation private bash -c '
    set -e
    mount -t overlay overlay -o lowerdir=/usr,upperdir="$1/over/upper",workdir="$1/over/work" /usr
    cp -a "$1/stage/usr/." /usr/
    exec systemd-nspawn -D / --volatile=yes --register=no --keep-unit -M kdsvc --boot --console=read-only \
        --capability=all --system-call-filter="bpf perf_event_open" \
        --bind=/sys/kernel/tracing --bind-ro="$2:/kdtest" --bind="$1/units:/etc/systemd/system" \
        --bind-ro="$1/default:/etc/default/kdelay" --bind="$1/metrics:/var/lib/prometheus/node-exporter" \
        -- systemd.unit=kdtest.target systemd.firstboot=off systemd.mask=prometheus.service systemd.mask=prometheus-node-exporter.service \
        systemd.mask=ovsdb-server.service systemd.mask=ovs-vswitchd.service systemd.mask=openvswitch-switch.service
' service "$work" "$build/tests" >"$work/console" 2>&1 &
nspawn=$!
for _ in $(seq 100); do
    leader=$(pgrep -P "$nspawn" -f systemd | head -n 1 || true)
    [ -z "$leader" ] || break
    kill -0 "$nspawn" 2>/dev/null || break  # gone: it said why on the console
    sleep 0.1
done
# systemd that refuses this host says so and exits: a skip, in its words.
cannot_boot() {
    local why
    why=$(grep -a -m1 -iE 'refusing|not supported' "$work/console" | tr -d '\r' || true)
    [ -z "$why" ] || skip "systemd cannot boot in a container here: $why"
    cat "$work/console" >&2
    fail "the container did not boot"
}
[ -n "$leader" ] || cannot_boot
in_box() { nsenter -t "$leader" -a "$@"; }
# Once the manager answers, the test's own jobs wait for what they need.
state=
for _ in $(seq 300); do
    kill -0 "$nspawn" 2>/dev/null || cannot_boot
    state=$(in_box systemctl is-system-running 2>/dev/null || true)
    case $state in initializing|starting|running|degraded) break ;; esac
    sleep 0.1
done
case $state in initializing|starting|running|degraded) ;; *) cannot_boot ;; esac

# node_exporter serves the metrics directory; Prometheus scrapes it each second.
port=$((20000 + $$ % 10000))
/usr/bin/prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
    --collector.textfile --collector.textfile.directory="$work/metrics" >"$work/exporter.log" 2>&1 &
exporter=$!
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
/usr/bin/prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$((port + 1))" >"$work/prometheus.log" 2>&1 &
prom=$!

in_box systemctl start kd-svc.service
# A user manager's unit of the same name, as `systemd-run --user
# --unit=kd-svc` makes without root: a cgroup of that name under
# user@UID.service, a process in it, in each hierarchy that holds the
# system's. The watch must watch the system's unit, not name both (exit 69,
# restarted every 5 s: the denial of service of issue 54) nor the user's.
in_box sh -c 'for unit in $(find /sys/fs/cgroup -maxdepth 4 -type d -name kd-svc.service); do
        decoy=${unit%/system.slice/kd-svc.service}/user.slice/user-1000.slice/user@1000.service/app.slice/kd-svc.service
        mkdir -p "$decoy" && { sleep 1000 & echo $! >"$decoy/cgroup.procs"; }
    done' || fail "cannot plant a user manager's kd-svc.service"
started=$(date +%s)
# As a user enables it. Type=notify: this returns once kdelay said READY=1,
# its programs attached.
in_box systemctl enable --now kdelay-stall@kd-svc.service ||
    { in_box journalctl -u kdelay-stall@kd-svc --no-pager >&2; fail "the watch did not start"; }
ready_ns=$(python3 -c 'import time; print(time.monotonic_ns())')  # the clock the stalls are in
echo "service-test: the watch is ready $(( $(date +%s) - started )) s after its start"
main=$(in_box systemctl show -p MainPID --value kdelay-stall@kd-svc.service)
# kdelay's own cost, by the kernel's count, now and at the end.
rss() { in_box sh -c "grep VmRSS /proc/$main/status | tr -s ' ' | cut -d' ' -f2"; }
fds() { in_box sh -c "ls /proc/$main/fd | wc -l"; }
# utime + stime, in clock ticks (after the comm, which may hold spaces).
ticks() { in_box sh -c "sed 's/.*) //' /proc/$main/stat" | awk '{ print $12 + $13 }'; }
# The unit's hardening, in force on the running watch: its capabilities
# (CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH),
# no new privileges, a read-only system, node_exporter's directory writable.
in_box grep -q '^CapBnd:[[:space:]]*000000c000280004$' "/proc/$main/status" ||
    fail "the watch's capabilities: $(in_box grep CapBnd "/proc/$main/status")"
in_box grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$main/status" || fail "the watch may gain privileges"
in_box nsenter -t "$main" -m sh -c 'touch /etc/kdelay-probe' 2>/dev/null && fail "the watch can write /etc"
in_box nsenter -t "$main" -m sh -c 'touch /var/lib/prometheus/node-exporter/.probe && rm /var/lib/prometheus/node-exporter/.probe' ||
    fail "the watch cannot write node_exporter's directory"
sleep 2
rss0=$(rss) fds0=$(fds) ticks0=$(ticks) t0=$(date +%s.%N)
for i in $(seq "$restarts"); do
    sleep "$every"
    in_box systemctl restart kd-svc.service
done
sleep "$every"
in_box systemctl stop kd-svc.service
sleep 1
rss1=$(rss) fds1=$(fds) ticks1=$(ticks) t1=$(date +%s.%N)
[ "$(in_box systemctl show -p MainPID --value kdelay-stall@kd-svc.service)" = "$main" ] ||
    fail "kdelay was restarted (the watchdog, or a crash): $(in_box systemctl show -p NRestarts -p Result kdelay-stall@kd-svc.service)"
in_box systemctl stop kdelay-stall@kd-svc.service
# The planted units were there and did what they do, and none of it mattered.
[ "$(in_box systemctl is-failed kd-fails.service || true)" = failed ] || fail "the failing unit did not run"
[ "$(in_box systemctl is-active multi-user.target || true)" != active ] || fail "multi-user.target was started"
echo "service-test: the container ran kdtest.target: kd-fails.service failed, multi-user.target (kd-hangs.service's) stayed off"
echo "service-test: kdelay's RSS ${rss0} kB then ${rss1} kB, open files $fds0 then $fds1"
[ "$rss1" -le $((rss0 + 16384)) ] || fail "kdelay's RSS grew from $rss0 kB to $rss1 kB"
[ "$fds1" -le "$fds0" ] || fail "kdelay's open files grew from $fds0 to $fds1"

in_box journalctl -u kd-svc.service -o cat --no-pager >"$work/planted"
# --all: journalctl -o json prints a field over 4,096 bytes (KDELAY_JSON
# with its profile) as null without it.
in_box journalctl -u kdelay-stall@kd-svc.service -o json --all --no-pager >"$work/journal"
cp "$work/metrics"/kdelay-kd-svc.prom "$work/final.prom" ||
    fail "no metrics file; the watch's journal: $(in_box journalctl -u kdelay-stall@kd-svc -o cat --no-pager)"
sleep 3  # a scrape of the final file
python3 "$here/check_service.py" "$work" "$restarts" "$((port + 1))" "$ready_ns"
# kdelay's cost while it watches (its start, the compile, left out), and
# its BPF programs' over the whole watch: bench/soak.sh's figures.
awk -v t0="$t0" -v t1="$t1" -v c0="$ticks0" -v c1="$ticks1" -v hz="$(getconf CLK_TCK)" -v w="$(( $(date +%s) - started ))" -v rss="$rss1" '
    /^kdelay_bpf_run_seconds_total/ { bpf += $2 }
    /^kdelay_loop_intervals_total/ { n += $2 }
    END { s = t1 - t0; cpu = (c1 - c0) / hz
          printf "service-test: cost: kdelay %.2f s of CPU in %.0f s of watching (%.1f s an hour), RSS %.0f MiB; its BPF programs %.2f s in %d s (%.0f s an hour) for %.0f loop intervals a second\n", cpu, s, cpu * 3600 / s, rss / 1024, bpf, w, bpf * 3600 / w, n / w }' "$work/final.prom"
