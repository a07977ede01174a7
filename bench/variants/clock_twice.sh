#!/bin/bash
# One more clock read at the top of each hot program (kept in a per-CPU
# slot, so it is not optimized away): the price of a clock read on this
# path, as a variant for bench/ablate.sh.
python3 - "$1" <<'PY'
import sys
path = sys.argv[1]
src = open(path).read()
extra = " { int z = 0; __u64 *x = extra_clock.lookup(&z); if (x) *x = bpf_ktime_get_ns(); }"
src = src.replace("RAW_TRACEPOINT_PROBE(sys_enter)\n{",
                  "BPF_PERCPU_ARRAY(extra_clock, __u64, 1);\nRAW_TRACEPOINT_PROBE(sys_enter)\n{", 1)
for tp in ("sys_enter", "sys_exit", "sched_switch", "sched_wakeup"):
    heads = ["%s_TRACEPOINT_PROBE(%s)\n{" % (kind, tp) for kind in ("RAW", "BTF")]
    head = next(h for h in heads if h in src)
    src = src.replace(head, head + extra, 1)
open(path, "w").write(src)
PY
