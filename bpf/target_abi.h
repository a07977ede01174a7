/* What every tool's contract shares: how many processes one target holds. */
#ifndef KDELAY_TARGET_ABI_H
#define KDELAY_TARGET_ABI_H

/* The most processes one target holds (-p PID,PID...): the kernel side
 * compares a task's tgid with each, as constants (targets.bpf.h). */
#define KD_MAX_TARGETS 8

#endif
