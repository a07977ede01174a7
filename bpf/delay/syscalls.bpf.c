/* ---- syscalls and long poll intervals ---- */
#include "delay/core.bpf.h"
#include "delay/syscall_state.bpf.h"
#include "delay/budget.bpf.h"
#include "delay/stall.bpf.h"

/* The current thread (tid) calls poll (POLL_NR): the time since its last
 * return from poll, when that return was in the sample, is one long poll
 * interval of kernel_delay.py's report. */
static __always_inline void long_poll_entered(__u32 tid, __u32 nr, struct kd_capture *cap, __u64 now)
{
    if (nr != POLL_NR)
        return;
    struct kd_thread *t = thread_find(tid);
    if (t && t->poll_exit >= cap->start_ns && t->poll_exit) {
        stat_add(&t->long_poll, now - t->poll_exit);
        t->poll_exit = 0;
    }
}

static __always_inline void long_poll_returned(struct kd_syscall_key *key, struct kd_thread *t, __u64 now)
{
    if (key->nr != POLL_NR)
        return;
    if (!t)
        t = thread_find(key->tid);
    if (t)
        t->poll_exit = now;
}

RAW_TRACEPOINT_PROBE(sys_enter)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct kd_capture *cap = target_capturing(id);
    if (!cap)
        return 0;
    __u64 now = bpf_ktime_get_ns();
    __u32 tid = (__u32)id, nr = (__u32)ctx->args[1];
    stall_syscall_entered(ctx, tid, nr, cap, now);
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (!f)
        return 0;
    syscall_entered(f, tid, nr, now);
    long_poll_entered(tid, nr, cap, now);
    return 0;
}

/* --stall: the syscall, entered at entry, is counted in its thread's
 * interval. Returns the thread's entry t, looked up if it was not yet. */
#if STALL
static __always_inline struct kd_thread *syscall_counted_in_interval(struct kd_syscall_key *key, struct kd_thread *t,
                                                                     __u64 entry, __u64 now)
{
    if (!t)
        t = thread_find(key->tid);
    kd_gen_t gen = recording_gen(t);
    /* The wait the interval began in (stall_resumed) is not in it: the
     * thread's next return while begun_in_wait is set is that wait's. */
    if (t && t->begun_in_wait)
        gen = 0;
    if (gen)
        syscall_add(key, now - entry, gen);
    timeline_slice(key->tid, gen, KD_TL_SYSCALL, key->nr, entry, now);
    return t;
}
#else
static __always_inline struct kd_thread *syscall_counted_in_interval(struct kd_syscall_key *key, struct kd_thread *t,
                                                                     __u64 entry, __u64 now)
{
    return t;
}
#endif

/* The event's stacks, when it is to carry them. */
#if WITH_STACK_TRACES
static __always_inline void syscall_event_stacks(void *ctx, struct kd_event *e)
{
    e->user_stack = stack_traces.get_stackid(ctx, BPF_F_USER_STACK);
    e->kernel_stack = stack_traces.get_stackid(ctx, 0);
}
#else
static __always_inline void syscall_event_stacks(void *ctx, struct kd_event *e)
{
    e->user_stack = -1;
    e->kernel_stack = -1;
}
#endif

/* A syscall that slept (thread entry t, entered at entry): who woke it,
 * last, inside it. */
static __always_inline void syscall_event_waker(struct kd_event *e, struct kd_thread *t, __u64 entry)
{
    e->waker_kind = KD_WAKER_NONE;
    if (WITH_BUDGET && t && t->budget.woken_ns >= entry) {
        e->waker_kind = t->budget.waker_kind;
        e->waker_tid = t->budget.waker_tid;
        e->waker_pid = t->budget.waker_pid;
        __builtin_memcpy(e->waker_comm, t->budget.waker_comm, sizeof(e->waker_comm));
    }
}

/* The syscall on the events ring buffer (--syscall-events), unless it was
 * shorter than the events' minimum, or a poll left out of them. */
#if WITH_SYSCALL_EVENTS
static __always_inline void syscall_event_sent(void *ctx, struct kd_syscall_key *key, struct kd_thread *t, __u32 tgid,
                                               __u64 entry, __u64 now)
{
    if ((SYSCALL_EVENT_MIN_NS && now - entry <= SYSCALL_EVENT_MIN_NS) || (SKIP_POLL_EVENTS && key->nr == POLL_NR))
        return;
    struct kd_event *e = events.ringbuf_reserve(sizeof(struct kd_event));
    if (!e) {
        count(KD_STAT_EVENTS_DROPPED);
        return;
    }
    e->entry_ns = entry;
    e->exit_ns = now;
    e->tid = key->tid;
    e->tgid = tgid;
    e->nr = key->nr;
    syscall_event_stacks(ctx, e);
    bpf_get_current_comm(&e->comm, sizeof(e->comm));
    syscall_event_waker(e, t, entry);
    events.ringbuf_submit(e, 0);
}
#else
static __always_inline void syscall_event_sent(void *ctx, struct kd_syscall_key *key, struct kd_thread *t, __u32 tgid,
                                               __u64 entry, __u64 now) {}
#endif

/* The current thread (id) returns from a syscall; own: whether this hook
 * holds the CPU's slots (f). */
static __always_inline void syscall_returned(struct bpf_raw_tracepoint_args *ctx, struct kd_capture *cap, __u64 id,
                                             struct kd_inflight *f, int own)
{
    struct kd_syscall_key key = { .tid = (__u32)id };
    struct kd_thread *t = 0;  /* looked up once a step needs it */
    __u64 entry;
    if (own && inflight_is(f, key.tid, cap)) {
        key.nr = f->nr;
        entry = f->start;
        f->start = 0;
    } else {
        t = thread_find(key.tid);
        entry = t && t->sys_start >= cap->start_ns ? t->sys_start : 0;
        if (entry) {
            key.nr = t->sys_nr;
            t->sys_start = 0;
        }
        budget_syscall_left_cpu(ctx, t, &key, entry);
        if (!entry)
            return;
    }
    __u64 now = bpf_ktime_get_ns();
    /* A sample's count is written out here: as a step of its own, the
     * verifier took 6% more instructions (82,486 with --budget --histogram). */
    if (STALL) {
        t = syscall_counted_in_interval(&key, t, entry, now);
    } else {
        if (own)
            recent_add(&key, now - entry);  /* through this CPU's recent runs, with its histogram */
        else
            syscall_add(&key, now - entry, 1);
        timeline_slice_in(timeline_seen(key.tid), KD_TL_SYSCALL, key.nr, entry, now);
    }
    syscall_event_sent(ctx, &key, t, id >> 32, entry, now);
    long_poll_returned(&key, t, now);
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
    /* After the syscall is counted: a poll's return is outside any interval. */
    stall_syscall_exited(ctx, (__u32)id);
    return 0;
}

#if WITH_WAIT_COPY
/* --wait-stacks with --stack-copy: a program of its own on sys_exit, on
 * only then, so that sys_exit stays within the verifier's limit (a BTF
 * tracepoint: BCC attaches one raw tracepoint program a tracepoint). */
BTF_TRACEPOINT_STEP(sys_exit, wait_copy)
{
    __u64 id = bpf_get_current_pid_tgid();
    if (!is_target_current(id >> 32))
        return 0;
    struct kd_thread *t = thread_find((__u32)id);
    if (t)
        wait_stacks_returned((void *)ctx->args[0], t, (__u32)id);
    return 0;
}
#endif
