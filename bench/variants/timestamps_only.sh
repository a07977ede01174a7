#!/bin/bash
# Replaces the program with one that only takes the timestamps kdelay's
# report is built from: on each of the five hooks, one clock read kept in a
# per-CPU slot. The least any tracer timing these events pays here; a
# variant for bench/ablate.sh (run from the repository's root), read
# against its floor. Sourced (bench/ctxswitch.sh's bound and bound_target
# kinds), it only sets the hooks' declarations and bodies for hook_floor:
# timestamps_target_body takes them for the storm's process only, as any
# tracer of one process must tell its events from the machine's.
timestamps_decls='BPF_PERCPU_ARRAY(stamp, __u64, 1);'
timestamps_body='int zero = 0; __u64 *s = stamp.lookup(&zero); if (s) *s = bpf_ktime_get_ns(); return 0;'
timestamps_target_body="if (bpf_get_current_pid_tgid() >> 32 != TARGET_TGID) return 0; $timestamps_body"
(return 0 2>/dev/null) && return 0
HOOK_DECLS=$timestamps_decls HOOK_BODY=$timestamps_body build/bench/hook_floor --print sched >"$1"
