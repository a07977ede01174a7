/* ---- --timeline and --wait-stacks: what a thread did in its current
 * interval (--timeline: or in a sample's window), kept in the kernel;
 * kdelay reads it only for a stall, or at the sample's end ----
 *
 * Each hook calls these steps unconditionally; with the feature off they
 * are empty. Values are keyed as the interval's other values are
 * (interval_tid), so the events of a stall that kdelay has yet to read stay
 * beside the next interval's. */
#ifndef KD_DELAY_TIMELINE_BPF_H
#define KD_DELAY_TIMELINE_BPF_H

#include "delay/core.bpf.h"
#include "delay/stack_copy.bpf.h"

#if WAIT_STACKS > KD_LONGEST_WAITS
#error "WAIT_STACKS is above KD_LONGEST_WAITS"
#endif
#if WAIT_STACKS && !WITH_STACK_TRACES
#error "--wait-stacks needs the stack_traces map"
#endif

#if WITH_TIMELINE
BPF_HASH(timelines, __u32, struct kd_timeline, TIMELINE_THREADS);
BPF_ARRAY(timeline_empty, struct kd_timeline, 1);  /* never written: a new value's zeros */

/* Thread tid begins its interval gen (a sample: its first event in the
 * window, timeline_seen): its events from here are kept in its key's
 * value, made now and only looked up at each event, to keep the hooks'
 * paths few (sched_switch is near the verifier's limit of states). */
static __always_inline struct kd_timeline *timeline_open(__u32 tid, kd_gen_t gen)
{
    __u32 key = interval_tid(tid, gen);
    struct kd_timeline *tl = timelines.lookup(&key);
    if (!tl) {
        int zero = 0;
        struct kd_timeline *empty = timeline_empty.lookup(&zero);
        if (!empty)
            return 0;
        tl = timelines.lookup_or_try_init(&key, empty);
        if (!tl) {
            note_full(KD_MAP_TIMELINES);
            return 0;
        }
    }
    tl->gen = gen;
    tl->head = 0;
    tl->calls_head = 0;
    tl->state_since = 0;
    tl->state = KD_B_UNKNOWN;
    tl->state_nr = 0;
    return tl;
}

/* A sample keeps a thread's events from its first syscall, wakeup or
 * switch in the window: its events, made at the first (with --stall, an
 * interval's are made at its start, stall_begins: 0). Not inside
 * tp_btf__sched_switch, whose paths the making's would take past the
 * verifier's limit. */
static __always_inline struct kd_timeline *timeline_seen(__u32 tid)
{
    if (STALL)
        return 0;
    struct kd_timeline *tl = timelines.lookup(&tid);
    return tl ? tl : timeline_open(tid, 1);
}

/* The events under key go (a thread exited). */
static __always_inline void timeline_forget(__u32 key)
{
    timelines.delete(&key);
}

/* Thread tid's kept events of its interval gen (0: none is recorded), or 0. */
static __always_inline struct kd_timeline *timeline_of(__u32 tid, kd_gen_t gen)
{
    if (!gen)
        return 0;  /* outside an interval: no look-up */
    __u32 key = interval_tid(tid, gen);
    struct kd_timeline *tl = timelines.lookup(&key);
    return tl && tl->gen == gen ? tl : 0;
}

/* The next event in tl (0: none), of kind at `at`. The oldest is
 * overwritten. */
static __always_inline struct kd_tl_event *timeline_push(struct kd_timeline *tl, __u32 kind, __u64 at)
{
    if (!tl)
        return 0;
    struct kd_tl_event *e;
    if (kind == KD_TL_SYSCALL || kind == KD_TL_HARDIRQ || kind == KD_TL_SOFTIRQ || kind == KD_TL_BLOCKIO)
        e = &tl->calls[tl->calls_head++ & (KD_TIMELINE_CALLS - 1)];
    else
        e = &tl->events[tl->head++ & (KD_TIMELINE_EVENTS - 1)];
    e->at = at;
    e->end = 0;
    e->kind = kind;
    e->arg = 0;
    e->nr = 0;
    e->tid = 0;
    e->tgid = 0;
    return e;
}

/* The next event of thread tid's interval gen; 0 when it cannot be kept. */
static __always_inline struct kd_tl_event *timeline_add(__u32 tid, kd_gen_t gen, __u32 kind, __u64 at)
{
    return timeline_push(timeline_of(tid, gen), kind, at);
}

/* A state of the budget's from `since` (blocked in syscall nr): kept when
 * it is not the state last kept. */
static __always_inline void timeline_state_at(struct kd_timeline *tl, __u32 state, __u64 since, __u32 nr)
{
    if (!tl || (tl->state == state && tl->state_since == since && tl->state_nr == nr))
        return;
    tl->state = state;
    tl->state_since = since;
    tl->state_nr = nr;
    struct kd_tl_event *e = timeline_push(tl, KD_TL_STATE, since);
    if (e) {
        e->arg = state;
        e->nr = nr;
    }
}

/* The thread (entry t) is in the budget's state since its `since`. */
static __always_inline void timeline_state_in(struct kd_timeline *tl, struct kd_thread *t)
{
    timeline_state_at(tl, t->budget.state, t->budget.since, t->budget.blocked_nr);
}

static __always_inline void timeline_state(struct kd_thread *t)
{
    timeline_state_in(timeline_of((__u32)t->tid, recording_gen(t)), t);
}

/* The timeline a switch of thread tid (entry t) goes on. */
static __always_inline struct kd_timeline *timeline_switched_of(__u32 tid, struct kd_thread *t)
{
    return STALL ? timeline_of(tid, recording_gen(t)) : timeline_seen(tid);
}

/* Thread tid was switched in or out: its state as sched_switch left it,
 * after the run of a switch-in that sched_switch found it had missed. */
static __always_inline void timeline_switched(__u32 tid)
{
    struct kd_thread *t = thread_find(tid);
    if (!t)
        return;
    /* Looked up at each use: one pointer kept for both lost its type to
     * the verifier (the compiler's select of the two look-ups). */
    if (t->run_missed_at) {
        timeline_state_at(timeline_switched_of(tid, t), KD_B_RUNNING, t->run_missed_at, 0);
        t->run_missed_at = 0;
    }
    timeline_state_in(timeline_switched_of(tid, t), t);
}

/* A slice of thread tid (its interval gen) that ended: a syscall, an
 * interrupt. */
static __always_inline struct kd_tl_event *timeline_slice_in(struct kd_timeline *tl, __u32 kind, __u32 arg,
                                                             __u64 at, __u64 end)
{
    struct kd_tl_event *e = timeline_push(tl, kind, at);
    if (e) {
        e->arg = arg;
        e->end = end;
    }
    return e;
}

static __always_inline struct kd_tl_event *timeline_slice(__u32 tid, kd_gen_t gen, __u32 kind, __u32 arg,
                                                          __u64 at, __u64 end)
{
    return timeline_slice_in(timeline_of(tid, gen), kind, arg, at, end);
}

/* Thread tid was woken at `at` by a waker of kind (tid waker, of process
 * tgid, named comm, for a task). */
static __always_inline void timeline_wakeup(__u32 tid, kd_gen_t gen, __u32 kind, __u32 waker, __u32 tgid,
                                            const char *comm, __u64 at)
{
    struct kd_tl_event *e = timeline_add(tid, gen, KD_TL_WAKEUP, at);
    if (e) {
        e->arg = kind;
        e->tid = waker;
        e->tgid = tgid;
        __builtin_memcpy(e->comm, comm, KD_COMM_LEN);
    }
}

/* While thread tid waited for its CPU, holder ran on it from `from` to `to`. */
static __always_inline void timeline_holder(__u32 tid, kd_gen_t gen, struct kd_holder *holder, __u64 from, __u64 to)
{
    struct kd_tl_event *e = timeline_add(tid, gen, KD_TL_HOLDER, from);
    if (e) {
        e->end = to;
        e->tid = holder->tid;
        e->tgid = holder->tgid;
        __builtin_memcpy(e->comm, holder->comm, KD_COMM_LEN);
    }
}
#else
static __always_inline struct kd_timeline *timeline_open(__u32 tid, kd_gen_t gen)
{
    return 0;
}
static __always_inline void timeline_forget(__u32 key) {}
static __always_inline struct kd_timeline *timeline_seen(__u32 tid)
{
    return 0;
}
static __always_inline void timeline_state(struct kd_thread *t) {}
static __always_inline void *timeline_slice_in(struct kd_timeline *tl, __u32 kind, __u32 arg, __u64 at, __u64 end)
{
    return 0;
}
static __always_inline void *timeline_slice(__u32 tid, kd_gen_t gen, __u32 kind, __u32 arg, __u64 at, __u64 end)
{
    return 0;
}
static __always_inline void timeline_wakeup(__u32 tid, kd_gen_t gen, __u32 kind, __u32 waker, __u32 tgid,
                                            const char *comm, __u64 at)
{
}
static __always_inline void timeline_holder(__u32 tid, kd_gen_t gen, struct kd_holder *holder, __u64 from, __u64 to)
{
}
#endif

#if WAIT_STACKS
BPF_HASH(wait_stacks, __u32, struct kd_wait_stacks, TIMELINE_THREADS);
BPF_ARRAY(wait_stacks_empty, struct kd_wait_stacks, 1);  /* never written: a new value's zeros */

/* Thread tid begins its interval gen: its longest waits start anew. */
static __always_inline void wait_stacks_open(__u32 tid, kd_gen_t gen)
{
    __u32 key = interval_tid(tid, gen);
    int zero = 0;
    struct kd_wait_stacks *empty = wait_stacks_empty.lookup(&zero);
    if (!empty)
        return;
    struct kd_wait_stacks *w = wait_stacks.lookup_or_try_init(&key, empty);
    if (!w) {
        note_full(KD_MAP_WAIT_STACKS);
        return;
    }
    __builtin_memset(w, 0, sizeof(*w));
    w->gen = gen;
}

/* The thread's values of its current interval, if it is in one. */
static __always_inline struct kd_wait_stacks *wait_stacks_of(struct kd_thread *t)
{
    kd_gen_t gen = recording_gen(t);
    if (!gen)
        return 0;
    __u32 key = interval_tid((__u32)t->tid, gen);
    struct kd_wait_stacks *w = wait_stacks.lookup(&key);
    return w && w->gen == gen ? w : 0;
}

/* The current thread (entry t) leaves its CPU to wait in a syscall at
 * `at`: where it waits from (ctx: the switch's context). A stack is taken
 * at every such wait inside an interval, as which waits will be the
 * longest is known only when they end. */
static __always_inline void wait_stacks_begin(void *ctx, struct kd_thread *t, __u64 at)
{
    struct kd_wait_stacks *w = wait_stacks_of(t);
    if (!w)
        return;
    w->wait_at = at;
    w->wait_kernel_stack = stack_traces.get_stackid(ctx, 0);
    w->wait_user_stack = stack_traces.get_stackid(ctx, BPF_F_USER_STACK);
}

/* The thread's wait (entry t), blocked in syscall nr, ended after ns: kept
 * when it is among its interval's WAIT_STACKS longest. */
static __always_inline void wait_stacks_end(struct kd_thread *t, __u32 nr, __u64 ns)
{
    struct kd_wait_stacks *w = wait_stacks_of(t);
    if (!w || !w->wait_at)
        return;
    __u32 shortest = 0;
#pragma unroll
    for (__u32 i = 1; i < WAIT_STACKS; i++)
        if (w->longest[i].ns < w->longest[shortest].ns)
            shortest = i;
    struct kd_wait *kept = &w->longest[shortest & (KD_LONGEST_WAITS - 1)];
    if (kept->ns < ns) {
        kept->start = w->wait_at;
        kept->ns = ns;
        kept->nr = nr;
        kept->kernel_stack = w->wait_kernel_stack;
        kept->user_stack = w->wait_user_stack;
        /* A wait of under a hundredth of a stall keeps the frame-pointer
         * walk: a loop of short intervals would send a copy each. */
        if (STACK_COPY_BYTES && ns >= STALL_NS / 100)
            w->copy_wait = w->wait_at;
    }
    w->wait_at = 0;
}

/* The current thread (tid, entry t) returns from a syscall (regs: its
 * pt_regs) in which a wait was kept: that wait's user stack. */
static __always_inline void wait_stacks_returned(void *regs, struct kd_thread *t, __u32 tid)
{
    struct kd_wait_stacks *w = wait_stacks_of(t);
    if (!w || !w->copy_wait)
        return;
    stack_copy_wait(regs, tid, w->gen, w->copy_wait);
    w->copy_wait = 0;
}

static __always_inline void wait_stacks_forget(__u32 key)
{
    wait_stacks.delete(&key);
}
#else
static __always_inline void wait_stacks_open(__u32 tid, kd_gen_t gen) {}
static __always_inline void wait_stacks_begin(void *ctx, struct kd_thread *t, __u64 at) {}
static __always_inline void wait_stacks_end(struct kd_thread *t, __u32 nr, __u64 ns) {}
static __always_inline void wait_stacks_returned(void *regs, struct kd_thread *t, __u32 tid) {}
static __always_inline void wait_stacks_forget(__u32 key) {}
#endif

#endif
