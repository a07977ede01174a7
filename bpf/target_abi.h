/* What every tool's contract shares: how many processes one target holds. */
#ifndef KDELAY_TARGET_ABI_H
#define KDELAY_TARGET_ABI_H

/* The most processes one target holds (-p PID,PID...): the kernel side
 * compares a task's tgid with each, as constants (targets.bpf.h). */
#define KD_MAX_TARGETS 8

/* The unused places of a list of constants (the target's processes, the
 * poll family's syscalls): no tgid and no syscall number is this. */
#define KD_NO_ID 0xffffffffu

/* A cgroup target (--cgroup) is matched up to this many levels above a
 * task's own cgroup, and the verdicts of this many cgroups are kept. */
#define KD_CGROUP_DEPTH 32
#define KD_CGROUP_VERDICTS 4096

/* A cgroup target is also matched by its name under its parent, so that a
 * unit's cgroup made anew at a restart is the target from its first task
 * on: the name is compared as its length and its 64-bit FNV-1a hash, both
 * sides hashing the bytes with these numbers. */
#define KD_CGROUP_NAME_MAX 256 /* NAME_MAX and its NUL */
#define KD_FNV1A_OFFSET 0xcbf29ce484222325ULL
#define KD_FNV1A_PRIME 0x100000001b3ULL

#endif
