#!/usr/bin/env bash
# Runs kdelay and Open vSwitch's kernel_delay.py side by side on the same
# workload of a real ovs-vswitchd (ovs-sandbox.sh) and compares their report
# layouts, numbers aside: the header, each section's column header and row
# widths, the upcall lines and the markers.
#
#   tests/ovs/compare-upstream.sh KERNEL_DELAY_PY|fetch [KDELAY [KD_UDP_FLOWS]]
#
# Needs root, the openvswitch module, and for the script python3-bpfcc,
# python3-psutil and python3-tz with kernel headers that match the running
# kernel (BCC compiles its program against them: in the guests of tests/vm,
# the 6.1 guest has them). Debian 12's Open vSwitch 3.1 has no
# kernel_delay.py; "fetch" downloads Debian 13's openvswitch-source (3.5,
# with upcall statistics) into /var/cache/kdelay-upstream, without
# installing it, and takes utilities/usdt-scripts/kernel_delay.py from it.
# KDELAY and KD_UDP_FLOWS default to build/. Exit 0 when every section both
# print has the same layout, 1 with the differences otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
upstream=${1:?usage: compare-upstream.sh KERNEL_DELAY_PY|fetch [KDELAY [KD_UDP_FLOWS]]}
if [ "$upstream" = fetch ]; then
    cache=/var/cache/kdelay-upstream
    upstream=$cache/src/usr/src/openvswitch/utilities/usdt-scripts/kernel_delay.py
    if [ ! -f "$upstream" ]; then
        mkdir -p "$cache/lists" "$cache/apt"
        echo "deb http://deb.debian.org/debian trixie main" >"$cache/sources.list"
        apt_opts=(-o Dir::Etc::SourceList="$cache/sources.list" -o Dir::Etc::SourceParts=/dev/null
                  -o Dir::State::Lists="$cache/lists" -o Dir::Cache="$cache/apt")
        timeout 300 apt-get "${apt_opts[@]}" update -qq
        (cd "$cache" && timeout 300 apt-get "${apt_opts[@]}" download openvswitch-source 2>/dev/null)
        dpkg -x "$cache"/openvswitch-source_*.deb "$cache/src"
    fi
fi
kdelay=${2:-$here/../../build/kdelay}
flows=${3:-$here/../../build/tests/kd_udp_flows}
export KD_UDP_FLOWS=$flows
work=$(mktemp -d)
trap '"$here/ovs-sandbox.sh" down; rm -rf "$work"' EXIT

pid=$("$here/ovs-sandbox.sh" up)

# One run: start the tool, send 200 new flows once it samples, wait for it.
run() {
    local name=$1; shift
    "$@" -p "$pid" --sample-time 6 >"$work/$name.txt" 2>"$work/$name.err" &
    local tool=$!
    for _ in $(seq 600); do grep -q '^# Start sampling' "$work/$name.txt" && break; sleep 0.1; done
    ip netns exec kd-ns1 "$flows" 10.77.0.2 200 $((RANDOM % 20000 + 20000)) 100 >/dev/null
    wait "$tool" || { echo "compare-upstream: $name failed:" >&2; cat "$work/$name.err" >&2; exit 1; }
}
run upstream "${PYTHON:-/usr/bin/python3}" "$upstream"  # Debian's, where python3-bpfcc is
run kdelay "$kdelay"

python3 - "$work/upstream.txt" "$work/kdelay.txt" <<'PY'
import re
import sys

SECTION = re.compile(r"^[ 0-9]{10} .{16} (\[[A-Z /]+\])$")


def skeleton(path):
    lines = open(path).read().split("\n")
    shape = {"markers": set(), "upcalls": set()}
    section = None
    for i, line in enumerate(lines):
        if line.startswith("# ") and " @" in line:
            shape["markers"].add(re.sub(r"[0-9,]+", "N", line.split(" @")[0]))
        elif line.startswith("TID ") or line.startswith("-" * 10):
            shape.setdefault("header", []).append(line)
        elif line.startswith("# UPCALL") or re.match(r"^ {2,4}[ 0-9]*[A-Za-z, ]+ *: ", line):
            shape["upcalls"].add(re.sub(r"^ +[0-9]+,", "    ERR,", line.split(":")[0]) + ":")
        elif SECTION.match(line):
            section = SECTION.match(line).group(1)
            entry = shape.setdefault(section, {"columns": lines[i + 1], "widths": set()})
        elif section and line.startswith(" " * 28) and line != shape[section]["columns"]:
            shape[section]["widths"].add(len(line))
        elif not line.strip():
            pass
    return shape


up, kd = skeleton(sys.argv[1]), skeleton(sys.argv[2])
problems = []
for key in ("header", "markers"):
    if up.get(key) and kd.get(key) and set(up[key]) != set(kd[key]):
        problems.append(f"{key}: upstream {sorted(set(up[key]))} kdelay {sorted(set(kd[key]))}")
if up["upcalls"] - kd["upcalls"]:
    problems.append(f"upcall lines only upstream prints: {sorted(up['upcalls'] - kd['upcalls'])}")
sections = [k for k in up if k.startswith("[")]
for s in sections:
    if s not in kd:
        print(f"only upstream has {s} in this run")
        continue
    if up[s]["columns"] != kd[s]["columns"]:
        problems.append(f"{s} columns:\n  upstream {up[s]['columns']!r}\n  kdelay   {kd[s]['columns']!r}")
    if up[s]["widths"] and kd[s]["widths"] and not up[s]["widths"] & kd[s]["widths"]:
        problems.append(f"{s} row widths: upstream {sorted(up[s]['widths'])} kdelay {sorted(kd[s]['widths'])}")
for s in (k for k in kd if k.startswith("[") and k not in up):
    print(f"only kdelay has {s} in this run")
print(f"compared {len([s for s in sections if s in kd])} sections, the header, markers and upcall lines")
for p in problems:
    print("DIFFERENT:", p)
sys.exit(1 if problems else 0)
PY
