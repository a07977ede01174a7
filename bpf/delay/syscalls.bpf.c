/* ---- syscalls and long poll intervals ---- */
#include "delay/core.bpf.h"
#include "delay/syscall_state.bpf.h"
#include "delay/budget.bpf.h"
#include "delay/stall.bpf.h"

RAW_TRACEPOINT_PROBE(sys_enter)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct kd_capture *cap = target_capturing(id);
    if (!cap)
        return 0;

    __u64 now = bpf_ktime_get_ns();
    struct kd_syscall_key key = { .tid = (__u32)id, .nr = (__u32)ctx->args[1] };
#if STALL
    if (is_poll_family(key.nr)) {
        struct kd_thread *t = thread_entry(key.tid, 0);
        if (t)
            stall_poll_called(t, key.tid, cap, (void *)ctx->args[0], now);
    }
#endif
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (!f)
        return 0;
    if (slots_claim(f)) {
        f->tid = key.tid;
        f->nr = key.nr;
        f->start = now;
        slots_release(f);
    } else {
        /* As if spilled at once. */
        struct kd_thread *t = thread_entry(key.tid, 0);
        if (t) {
            t->sys_start = now;
            t->sys_nr = key.nr;
        }
    }

    if (key.nr == POLL_NR) {
        struct kd_thread *t = thread_find(key.tid);
        if (t && t->poll_exit >= cap->start_ns && t->poll_exit) {
            stat_add(&t->long_poll, now - t->poll_exit);
            t->poll_exit = 0;
        }
    }
    return 0;
}

/* The current thread (id) returns from a syscall; own: whether this hook
 * holds the CPU's slots (f). */
static __always_inline void syscall_returned(struct bpf_raw_tracepoint_args *ctx, struct kd_capture *cap, __u64 id,
                                             struct kd_inflight *f, int own)
{
    struct kd_syscall_key key = { .tid = (__u32)id };
    struct kd_thread *t = 0;  /* 0: the syscall never left the CPU */
    __u64 entry;
    if (own && inflight_is(f, key.tid, cap)) {
        /* Never left the CPU: the entry is still in the per-CPU slot. */
        key.nr = f->nr;
        entry = f->start;
        f->start = 0;
    } else {
        /* It left the CPU: sched_switch put it in the thread's entry, unless
         * it was entered before this sample. */
        t = thread_find(key.tid);
        entry = t && t->sys_start >= cap->start_ns ? t->sys_start : 0;
        if (entry) {
            key.nr = t->sys_nr;
            t->sys_start = 0;
        }
#if WITH_BUDGET
        if (!entry) {
            /* The raw tracepoint has no syscall number; read it from pt_regs
             * as the classic tracepoint does. */
            kd_regs_nr_t nr = 0;
            bpf_probe_read_kernel(&nr, sizeof(nr), (char *)ctx->args[0] + PT_REGS_NR_OFF);
            key.nr = (__u32)nr;
        }
        if (t)
            budget_syscall_returned(t, key.tid, key.nr, entry != 0);
#endif
        if (!entry)
            return;
    }

    __u64 now = bpf_ktime_get_ns();
#if STALL
    if (!t)
        t = thread_find(key.tid);
    kd_gen_t gen = recording_gen(t);
    if (gen)
        syscall_add(&key, now - entry, gen);
    timeline_slice(key.tid, gen, KD_TL_SYSCALL, key.nr, entry, now);
#else
    if (own)
        recent_add(&key, now - entry);  /* with its histogram */
    else
        syscall_add(&key, now - entry, 1);
    timeline_slice_in(timeline_seen(key.tid), KD_TL_SYSCALL, key.nr, entry, now);
#endif
#if WITH_SYSCALL_EVENTS
    if ((SYSCALL_EVENT_MIN_NS == 0 || now - entry > SYSCALL_EVENT_MIN_NS) && !(SKIP_POLL_EVENTS && key.nr == POLL_NR)) {
        struct kd_event *e = events.ringbuf_reserve(sizeof(struct kd_event));
        if (!e) {
            count(KD_STAT_EVENTS_DROPPED);
        } else {
            e->entry_ns = entry;
            e->exit_ns = now;
            e->tid = key.tid;
            e->tgid = id >> 32;
            e->nr = key.nr;
#if WITH_STACK_TRACES
            e->user_stack = stack_traces.get_stackid(ctx, BPF_F_USER_STACK);
            e->kernel_stack = stack_traces.get_stackid(ctx, 0);
#else
            e->user_stack = -1;
            e->kernel_stack = -1;
#endif
            bpf_get_current_comm(&e->comm, sizeof(e->comm));
            e->waker_kind = KD_WAKER_NONE;
#if WITH_BUDGET
            /* A syscall that slept: who woke it, last, inside it. */
            if (t && t->budget.woken_ns >= entry) {
                e->waker_kind = t->budget.waker_kind;
                e->waker_tid = t->budget.waker_tid;
                e->waker_pid = t->budget.waker_pid;
                __builtin_memcpy(e->waker_comm, t->budget.waker_comm, sizeof(e->waker_comm));
            }
#endif
            events.ringbuf_submit(e, 0);
        }
    }
#endif

    if (key.nr == POLL_NR) {
        if (!t)
            t = thread_find(key.tid);
        if (t)
            t->poll_exit = now;
    }
}

RAW_TRACEPOINT_PROBE(sys_exit)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct kd_capture *cap = target_capturing(id);
    if (!cap)
        return 0;
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (!f)
        return 0;
    int own = slots_claim(f);
    syscall_returned(ctx, cap, id, f, own);
    if (own)
        slots_release(f);
#if STALL
    /* After the syscall is counted: a poll's return is outside any interval. */
    kd_regs_nr_t nr = 0;
    bpf_probe_read_kernel(&nr, sizeof(nr), (char *)ctx->args[0] + PT_REGS_NR_OFF);
    if (is_poll_family((__u32)nr) || ((__u32)nr == STALL_RESTART_NR && STALL_RESTART_NR)) {
        struct kd_thread *t = thread_entry((__u32)id, 0);
        if (t)
            stall_syscall_returned(t, (__u32)id, (__u32)nr, (__s64)ctx->args[1], (void *)ctx->args[0]);
    }
#endif
    return 0;
}
