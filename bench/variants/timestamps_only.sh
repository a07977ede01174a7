#!/bin/bash
# Replaces the program with one that only takes the timestamps kdelay's
# report is built from: on each of the five hooks, one clock read kept in a
# per-CPU slot. The least any tracer timing these events pays here; a
# variant for bench/ablate.sh (run from the repository's root), read
# against its floor. Sourced (bench/ctxswitch.sh's bound kind), it only
# sets the hooks' declarations and body for hook_floor.
timestamps_decls='BPF_PERCPU_ARRAY(stamp, __u64, 1);'
timestamps_body='int zero = 0; __u64 *s = stamp.lookup(&zero); if (s) *s = bpf_ktime_get_ns(); return 0;'
(return 0 2>/dev/null) && return 0
HOOK_DECLS=$timestamps_decls HOOK_BODY=$timestamps_body build/bench/hook_floor --print sched >"$1"
