/* What every tool's contract shares: how many processes one target holds. */
#ifndef KDELAY_TARGET_ABI_H
#define KDELAY_TARGET_ABI_H

/* The most processes one target holds (-p PID,PID...): the kernel side
 * compares a task's tgid with each, as constants (targets.bpf.h). */
#define KD_MAX_TARGETS 8

/* A cgroup target (--cgroup) is matched up to this many levels above a
 * task's own cgroup, and the verdicts of this many cgroups are kept. */
#define KD_CGROUP_DEPTH 32
#define KD_CGROUP_VERDICTS 4096

#endif
