/* The contract of the PID namespace probe (pidns.bpf.c,
 * src/loader/pid_namespace.cpp): a thread of the target as the kernel and as
 * kdelay's own PID namespace number it. */
#ifndef KDELAY_PIDNS_ABI_H
#define KDELAY_PIDNS_ABI_H

/* Threads the probe keeps, by the kernel's tid. */
#define KD_NS_THREADS 16384

struct kd_ns_thread {
    __u32 tid;           /* in kdelay's namespace */
    __u32 tgid;          /* in kdelay's namespace */
    __u32 kernel_tgid;
    __u32 pad;
};

#endif
