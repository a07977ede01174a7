#!/usr/bin/env bash
# A real Open vSwitch with the kernel datapath, for kdelay's OVS tests:
# Debian's ovsdb-server and ovs-vswitchd, bridge br0, and veth ports into
# network namespaces kd-ns1 (10.77.0.1) and kd-ns2 (10.77.0.2) with static
# neighbours (no ARP). Megaflows are off, so each new UDP destination port
# is one upcall. Its state lives in /run/kd-ovs; nothing else is touched.
#
#   ovs-sandbox.sh up        start it (stops an earlier one first); prints the daemon's pid
#   ovs-sandbox.sh down      stop it and remove the bridge and namespaces
#   ovs-sandbox.sh counters  the datapath's "missed lost" counters
#   ovs-sandbox.sh pid       ovs-vswitchd's pid
#   ovs-sandbox.sh log       ovs-vswitchd's log file
#   ovs-sandbox.sh slow-flows TABLES   each UDP packet resubmitted through
#                            2^TABLES table lookups: a slow translation,
#                            so that a handler's batch of upcalls takes long
#   ovs-sandbox.sh normal-flows        back to the one NORMAL flow
#   ovs-sandbox.sh add-ports N | del-ports N   N internal ports kdi1..kdiN
#                            in one transaction: a long reconfiguration
#                            of the main thread
#
# Exit 77 when this kernel or machine cannot run it (no module, no OVS).
set -euo pipefail
export OVS_RUNDIR=/run/kd-ovs OVS_LOGDIR=/run/kd-ovs OVS_DBDIR=/run/kd-ovs
db=$OVS_DBDIR/conf.db
sock=unix:$OVS_RUNDIR/db.sock

counters() {
    # "  lookups: hit:H missed:M lost:L"
    ovs-dpctl show 2>/dev/null | sed -n 's/.*lookups: hit:[0-9]* missed:\([0-9]*\) lost:\([0-9]*\).*/\1 \2/p'
}

vswitchd_pid() { cat "$OVS_RUNDIR/ovs-vswitchd.pid" 2>/dev/null; }

start_vswitchd() {
    ovs-vswitchd --detach --no-chdir --pidfile --log-file "$sock" >/dev/null 2>&1
    for _ in $(seq 100); do
        ovs-appctl -t ovs-vswitchd version >/dev/null 2>&1 && break
        sleep 0.2
    done
    ovs-vsctl --timeout=30 add-br br0 -- set bridge br0 datapath_type=system 2>/dev/null ||
        ovs-vsctl --timeout=30 br-exists br0
    # Wait for the ports to be in the datapath before any traffic.
    for _ in $(seq 100); do
        [ "$(ovs-dpctl show 2>/dev/null | grep -c 'port [0-9]*: kdv')" -eq 2 ] && break
        sleep 0.2
    done
    ovs-appctl -t ovs-vswitchd upcall/disable-megaflows >/dev/null
}

stop_vswitchd() {
    local pid
    pid=$(vswitchd_pid || true)
    [ -n "$pid" ] || return 0
    kill -CONT "$pid" 2>/dev/null || true
    ovs-appctl -t ovs-vswitchd exit >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$OVS_RUNDIR/ovs-vswitchd.pid"
}

down() {
    stop_vswitchd
    if [ -f "$OVS_RUNDIR/ovsdb-server.pid" ]; then
        ovs-appctl -t ovsdb-server exit >/dev/null 2>&1 || kill "$(cat "$OVS_RUNDIR/ovsdb-server.pid")" 2>/dev/null || true
    fi
    ovs-dpctl del-dp ovs-system >/dev/null 2>&1 || true
    for i in 1 2; do
        ip netns del kd-ns$i 2>/dev/null || true
        ip link del kdv$i 2>/dev/null || true
    done
    rm -rf "$OVS_RUNDIR"
}

mac_of() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

up() {
    command -v ovs-vswitchd >/dev/null || { echo "ovs-sandbox: openvswitch-switch is not installed" >&2; exit 77; }
    modprobe openvswitch 2>/dev/null || [ -d /sys/module/openvswitch ] ||
        { echo "ovs-sandbox: no openvswitch module for this kernel" >&2; exit 77; }
    down
    mkdir -p "$OVS_RUNDIR"
    ovsdb-tool create "$db" /usr/share/openvswitch/vswitch.ovsschema
    ovsdb-server --detach --no-chdir --pidfile --log-file --remote=punix:"$OVS_RUNDIR/db.sock" "$db" 2>/dev/null
    ovs-vsctl --no-wait init
    for i in 1 2; do
        ip netns add kd-ns$i
        ip link add kdv$i type veth peer name kdp$i
        sysctl -qw net.ipv6.conf.kdv$i.disable_ipv6=1 || true
        ip link set kdp$i netns kd-ns$i
        ip netns exec kd-ns$i sysctl -qw net.ipv6.conf.kdp$i.disable_ipv6=1 || true
        ip netns exec kd-ns$i ip addr add 10.77.0.$i/24 dev kdp$i
        ip netns exec kd-ns$i ip link set lo up
        ip netns exec kd-ns$i ip link set kdp$i up
        ip link set kdv$i up
    done
    ip netns exec kd-ns1 ip neigh replace 10.77.0.2 lladdr "$(mac_of kd-ns2 kdp2)" dev kdp1 nud permanent
    ip netns exec kd-ns2 ip neigh replace 10.77.0.1 lladdr "$(mac_of kd-ns1 kdp1)" dev kdp2 nud permanent
    ovs-vsctl --no-wait add-br br0
    ovs-vsctl --no-wait add-port br0 kdv1 -- add-port br0 kdv2
    # Open vSwitch 3.1 sometimes sizes its upcall handlers to 0 at start and
    # then loses every upcall: probe with a few flows, restart until none is lost.
    for attempt in $(seq 5); do
        start_vswitchd
        lost_before=$(counters | cut -d' ' -f2)
        ip netns exec kd-ns1 "${KD_UDP_FLOWS:-kd_udp_flows}" 10.77.0.2 5 60000 50 >/dev/null
        sleep 1
        lost_after=$(counters | cut -d' ' -f2)
        [ "$lost_after" = "$lost_before" ] && { vswitchd_pid; return 0; }
        echo "ovs-sandbox: upcalls lost at start (attempt $attempt); restarting ovs-vswitchd" >&2
        stop_vswitchd
    done
    echo "ovs-sandbox: ovs-vswitchd keeps losing upcalls" >&2
    exit 1
}

slow_flows() {
    local tables=$1 t flows=""
    for t in $(seq 0 $((tables - 1))); do
        flows+="table=$t,priority=10,udp actions=resubmit(,$((t + 1))),resubmit(,$((t + 1)))"$'\n'
    done
    flows+="table=$tables,priority=10,udp actions=NORMAL"$'\n'
    ovs-ofctl add-flows br0 - <<<"$flows"
}

normal_flows() {
    ovs-ofctl del-flows br0
    ovs-ofctl add-flow br0 "priority=0 actions=NORMAL"
}

ports() {  # add|del N
    local args=() i
    for i in $(seq 1 "$2"); do
        if [ "$1" = add ]; then
            args+=(-- add-port br0 "kdi$i" -- set interface "kdi$i" type=internal)
        else
            args+=(-- --if-exists del-port br0 "kdi$i")
        fi
    done
    ovs-vsctl --db="$sock" --timeout=600 "${args[@]}"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    counters) counters ;;
    pid) vswitchd_pid ;;
    log) echo "$OVS_LOGDIR/ovs-vswitchd.log" ;;
    slow-flows) slow_flows "$2" ;;
    normal-flows) normal_flows ;;
    add-ports) ports add "$2" ;;
    del-ports) ports del "$2" ;;
    *) echo "usage: ovs-sandbox.sh up|down|counters|pid|log|slow-flows TABLES|normal-flows|add-ports N|del-ports N" >&2; exit 64 ;;
esac
