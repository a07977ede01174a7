/* ---- triggers: attached to a USDT probe, uprobe, tracepoint or kprobe ---- */
#include "delay/core.bpf.h"
#include "delay/stall.bpf.h"
#if WITH_START_TRIGGER && STALL

/* --stall: the triggers frame each thread's intervals. */
int kd_start_trigger(void *ctx)
{
    __u64 id = bpf_get_current_pid_tgid();
    if (!target_capturing(id))
        return 0;
    struct kd_thread *t = thread_entry((__u32)id, 0);
    if (t)
        stall_begins(t, (__u32)id, 0, bpf_ktime_get_ns());
    return 0;
}
#elif WITH_START_TRIGGER

int kd_start_trigger(void *ctx)
{
    if (START_TRIGGER_TARGET_ONLY && !is_target_current(bpf_get_current_pid_tgid() >> 32))
        return 0;
    int zero = 0;
    struct kd_capture *cap = capture.lookup(&zero);
    if (!cap)
        return 0;
    if (cap->state != KD_ARMED) {
        /* Userspace is still dumping or pausing between samples. */
        if (cap->state != KD_CAPTURING)
            count(KD_STAT_TRIGGER_MISS);
        return 0;
    }
    /* Two CPUs starting at once both write nearly the same time: no
     * compare-and-swap needed (and kernels before 5.12 have none). */
    __u64 now = bpf_ktime_get_ns();
    cap->start_ns = now;
    cap->start_trigger_ns = now;
    cap->state = KD_CAPTURING;
    return 0;
}
#endif
#if WITH_STOP_TRIGGER && STALL

int kd_stop_trigger(void *ctx)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct kd_capture *cap = target_capturing(id);
    if (!cap)
        return 0;
    struct kd_thread *t = thread_find((__u32)id);
    if (t)
        stall_ends(t, (__u32)id, cap, bpf_ktime_get_ns());
    return 0;
}
#elif WITH_STOP_TRIGGER

int kd_stop_trigger(void *ctx)
{
    if (STOP_TRIGGER_TARGET_ONLY && !is_target_current(bpf_get_current_pid_tgid() >> 32))
        return 0;
    int zero = 0;
    struct kd_capture *cap = capture.lookup(&zero);
    if (!cap || cap->state != KD_CAPTURING)
        return 0;
    cap->stop_trigger_ns = bpf_ktime_get_ns();
    cap->state = KD_DUMPING;
    return 0;
}
#endif

