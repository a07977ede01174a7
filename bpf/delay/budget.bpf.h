/* ---- the time budget (--budget, JSON): each thread's state, clipped to
 * the window; see struct kd_budget ---- */
#ifndef KD_DELAY_BUDGET_BPF_H
#define KD_DELAY_BUDGET_BPF_H

#include "delay/core.bpf.h"
#include "delay/syscall_state.bpf.h"
#include "delay/timeline.bpf.h"

static __always_inline __u64 window_start(struct kd_capture *cap)
{
    return cap->start_trigger_ns ? cap->start_trigger_ns : cap->start_ns;
}

#if WITH_BUDGET
/* The budget dates a switch or a wakeup as the kernel's accounting does: at
 * the run queue's clock, translated to the report's clock. That clock can
 * be microseconds older than the tracepoint: a wakeup that preempts the
 * running task makes the next schedule() skip its clock update, so the
 * kernel ends prev's run and next's wait at the wakeup's clock.
 *
 * Per CPU, the gap between the two clocks: the smallest seen, as a sample
 * (now less the run queue's clock) is never below the true gap. It may
 * grow by 1/1024 of the time since the last sample, more than the two
 * clocks drift apart (NTP slews ktime by 500 ppm at most). Written only
 * under the run queue's lock, at a switch or a wakeup. */
struct kd_clock_gap {
    __s64 gap;
    __u64 at;
};
BPF_ARRAY(clock_gaps, struct kd_clock_gap, MAX_CPUS);

/* The report's clock for the run queue rq's clock now (read at `now`). */
static __always_inline __u64 rq_time(void *rq, __u32 cpu, __u64 now)
{
    struct kd_clock_gap *g = clock_gaps.lookup(&cpu);
    if (!g)
        return now;
    __u64 clock = typed_u64(rq, RQ_CLOCK_OFF);
    __s64 sample = (__s64)(now - clock);
    __s64 drifted = g->gap + (__s64)((now - g->at) >> 10);
    /* Decided in the map, not in registers, so that the verifier can merge
     * the paths: sched_switch is near its limit of states. */
    if (!g->at || sample < drifted)
        g->gap = sample;
    else
        g->gap = drifted;
    g->at = now;
    return clock + g->gap;
}

BPF_HASH(wakers, struct kd_waker_key, struct kd_waker, MAX_WAKERS);
BPF_PERCPU_ARRAY(irq_context, struct kd_irq_context, 1);

/* Who ends blocked time now: the current task, or the interrupt it is in. */
static __always_inline void note_waker(struct kd_thread *t, __u32 tid, __u64 blocked_ns, __u64 now)
{
    kd_gen_t gen = recording_gen(t);
    if (!gen)
        return;
    struct kd_waker_key key = { .tid = interval_tid(tid, gen), .kind = KD_WAKER_TASK };
    int zero = 0;
    struct kd_irq_context *c = irq_context.lookup(&zero);
    __u64 id = bpf_get_current_pid_tgid();
    if (c && c->timer)
        key.kind = KD_WAKER_TIMER;
    else if (c && c->hard)
        key.kind = KD_WAKER_HARDIRQ;
    else if (c && c->soft)
        key.kind = KD_WAKER_SOFTIRQ;
    else
        key.waker_tid = (__u32)id;
    struct kd_waker fresh = {};
    struct kd_waker *w = wakers.lookup_or_try_init(&key, &fresh);
    if (!w) {
        note_full(KD_MAP_WAKERS);
        return;
    }
    KD_FRESH(w, gen, gen);
    if (!w->count && key.kind == KD_WAKER_TASK) {
        w->tgid = id >> 32;
        bpf_get_current_comm(&w->comm, sizeof(w->comm));
    }
    timeline_wakeup(tid, gen, key.kind, key.waker_tid, w->tgid, w->comm, now);
    w->count++;
    w->blocked_ns += blocked_ns;
    /* For the syscall event of the syscall this wakeup ends, if any. */
    t->budget.woken_ns = now;
    t->budget.waker_kind = key.kind;
    t->budget.waker_tid = key.waker_tid;
    t->budget.waker_pid = key.kind == KD_WAKER_TASK ? w->tgid : 0;
    __builtin_memcpy(t->budget.waker_comm, w->comm, sizeof(w->comm));
}

BPF_HASH(blame, struct kd_blame_key, struct kd_blame, MAX_BLAME);
BPF_PERCPU_ARRAY(holders, struct kd_cpu_holders, 1);
BPF_ARRAY(waiting, __s64, 1);  /* threads of the target waiting for a CPU */

static __always_inline int someone_waits(void)
{
    int zero = 0;
    __s64 *n = waiting.lookup(&zero);
    return n && *n > 0;
}

static __always_inline void waiting_add(__s64 d)
{
    int zero = 0;
    __s64 *n = waiting.lookup(&zero);
    if (n)
        __sync_fetch_and_add(n, d);
}

/* The current task leaves this CPU at now: one more holder in the ring. */
static __always_inline void holder_leaves(__u64 now)
{
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (!h)
        return;
    struct kd_holder *e = &h->ring[h->head & (KD_HOLDERS - 1)];
    __u64 id = bpf_get_current_pid_tgid();
    /* A turn that began while no thread of the target was known to wait
     * (since 0; one waiting since before the window is not counted) began
     * after the last turn kept, never before its end: turns must not
     * overlap, or a wait would be blamed twice over. */
    e->start = h->since ? h->since : h->ring[(h->head - 1) & (KD_HOLDERS - 1)].end;
    e->end = now;
    e->irq_ns = h->irq_ns;
    e->tid = (__u32)id;
    e->tgid = id >> 32;
    bpf_get_current_comm(&e->comm, sizeof(e->comm));
    h->head++;
    h->since = now;
    h->irq_ns = 0;
}

/* No thread of the target waits: what the holder did is of no interest. */
static __always_inline void holder_forget(void)
{
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (h && (h->since || h->irq_ns)) {
        h->since = 0;
        h->irq_ns = 0;
    }
}

static __always_inline void blame_add(__u32 tid, kd_gen_t gen, __u32 kind, struct kd_holder *e, __u64 ns)
{
    if (!ns)
        return;
    struct kd_blame_key key = { .tid = interval_tid(tid, gen), .kind = kind, .holder = e ? e->tid : 0 };
    struct kd_blame fresh = {};
    struct kd_blame *b = blame.lookup_or_try_init(&key, &fresh);
    if (!b) {
        note_full(KD_MAP_BLAME);
        return;
    }
    KD_FRESH(b, gen, gen);
    if (!b->ns && e) {
        b->tgid = e->tgid;
        __builtin_memcpy(b->comm, e->comm, sizeof(b->comm));
    }
    b->ns += ns;
}

/* tid gets this CPU at now after waiting since w0 (since lo on this CPU):
 * split the wait over the holders of this CPU it overlaps, in the thread's
 * interval gen (recording_gen; 0: nothing to record). */
static __always_inline void blame_wait(__u32 tid, kd_gen_t gen, __u64 w0, __u64 lo, __u64 now)
{
    if (!gen)
        return;
    __u64 covered = 0, irq = 0;
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (h) {
        for (int i = 1; i <= KD_HOLDERS; i++) {
            struct kd_holder *e = &h->ring[(h->head - i) & (KD_HOLDERS - 1)];
            if (e->end <= lo)
                break;
            /* Its own turn (a switch-in that was not seen ended its wait
             * unseen too): who held the CPU then is not known. */
            if (e->tid == tid)
                continue;
            __u64 from = e->start > lo ? e->start : lo;
            __u64 to = e->end < now ? e->end : now;
            if (to <= from)
                continue;
            __u64 d = to - from;
            __u64 e_irq = e->irq_ns;
            /* Only part of the holder's turn overlapped: its share of the IRQs. */
            if (e->start && e->end - e->start > d && e_irq)
                e_irq = e_irq * d / (e->end - e->start);
            if (e_irq > d)
                e_irq = d;
            blame_add(tid, gen, KD_BLAME_TASK, e, d - e_irq);
            timeline_holder(tid, gen, e, from, to);
            irq += e_irq;
            covered += d;
        }
    }
    blame_add(tid, gen, KD_BLAME_IRQ, 0, irq);
    __u64 total = now > w0 ? now - w0 : 0;
    if (total > covered)
        blame_add(tid, gen, KD_BLAME_OTHERS, 0, total - covered);
}

/* Interrupt time on this CPU while some thread of the target waits. */
static __always_inline void irq_time_begin(int hard)
{
    if (!someone_waits())
        return;
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (!h)
        return;
    if (hard)
        h->hard_start = bpf_ktime_get_ns();
    else
        h->soft_start = bpf_ktime_get_ns();
}

static __always_inline void irq_time_end(int hard)
{
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (!h)
        return;
    __u64 start = hard ? h->hard_start : h->soft_start;
    if (!start)
        return;
    h->irq_ns += bpf_ktime_get_ns() - start;
    if (hard)
        h->hard_start = 0;
    else
        h->soft_start = 0;
}

/* Interrupt context, per CPU, for note_waker(). */
static __always_inline void set_irq_context(int which, __u32 on)
{
    int zero = 0;
    struct kd_irq_context *c = irq_context.lookup(&zero);
    if (!c)
        return;
    if (which == KD_WAKER_HARDIRQ)
        c->hard = on;
    else if (which == KD_WAKER_SOFTIRQ)
        c->soft = on;
    else
        c->timer = on;
}

/* Ends the thread's current state at now and adds the time to it. A thread
 * first seen now has been in `assumed` since the window began. */
static __always_inline __u64 budget_leave(struct kd_thread *t, __u32 tid, struct kd_capture *cap,
                                          __u64 now, __u32 assumed)
{
    struct kd_budget *b = &t->budget;
    __u64 since = b->since ? b->since : window_start(cap);
    __u64 d = now > since ? now - since : 0;
    __u32 state = b->state ? b->state : assumed;
    __u32 nr = b->state ? b->blocked_nr : KD_B_SYSCALL_UNKNOWN;
    if (b->state == KD_B_READY)
        waiting_add(-1);

    if (state == KD_B_RUNNING) {
        b->running_ns += d;
    } else if (state == KD_B_READY) {
        b->ready_ns += d;
    } else if (state == KD_B_STOPPED) {
        b->stopped_ns += d;
    } else if (state == KD_B_BLOCKED) {
        if (nr == KD_B_NO_SYSCALL) {
            b->blocked_nosys_ns += d;
        } else if (nr == KD_B_SYSCALL_UNKNOWN) {
            b->pending_ns += d;
        } else {
            kd_gen_t gen = recording_gen(t);
            struct kd_syscall_key key = { .tid = tid, .nr = nr };
            struct kd_syscall *s = gen ? syscall_entry(&key, gen) : 0;
            if (s)
                s->blocked_ns += d;
            hist_add(tid, KD_HIST_BLOCKED, nr, d);
        }
        return d;
    }
    return 0;
}

/* The thread (entry t) is in state from now (blocked in syscall nr). At a
 * switch, the timeline's record of it is a program's own
 * (tp_btf__sched_switch__timeline); elsewhere, budget_enter's. */
static __always_inline void budget_set(struct kd_thread *t, __u32 state, __u32 nr, __u64 now)
{
    if (state == KD_B_READY) {
        waiting_add(1);
        t->budget.migrated_ns = 0;
    }
    t->budget.state = state;
    t->budget.blocked_nr = nr;
    /* A thread's parts never overlap: a switch dated by the run queue's
     * clock can fall before the wakeup that queued the thread. */
    if (now > t->budget.since)
        t->budget.since = now;
}

static __always_inline void budget_enter(struct kd_thread *t, __u32 state, __u32 nr, __u64 now)
{
    budget_set(t, state, nr, now);
    timeline_state(t);
}

/* The syscall a thread that leaves its CPU is blocked in: the one in this
 * CPU's in-flight slot (entered in the window or before), one that blocked
 * before and has not returned, or none; unknown when the thread was first
 * seen now, as it may be in a syscall entered before the window. */
static __always_inline __u32 budget_blocked_nr(struct kd_thread *t, __u32 tid, struct kd_capture *cap)
{
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (f && f->start && f->tid == tid && !f->busy)
        return f->nr;
    if (t->sys_start && t->sys_start >= cap->start_ns)
        return t->sys_nr;  /* entered while a preempted hook held the slots */
    if (t->budget.in_syscall)
        return t->budget.in_syscall - 1;
    return t->budget.state ? KD_B_NO_SYSCALL : KD_B_SYSCALL_UNKNOWN;
}

/* A syscall that blocked returns. Blocked time still pending belongs to it
 * when it was entered before the window; otherwise its number was known
 * whenever it blocked, so the pending time was spent outside syscalls. */
static __always_inline void budget_syscall_returned(struct kd_thread *t, __u32 tid, __u32 nr, int entered_in_window)
{
    t->budget.in_syscall = 0;
    if (!t->budget.pending_ns)
        return;
    if (entered_in_window) {
        t->budget.blocked_nosys_ns += t->budget.pending_ns;
    } else {
        kd_gen_t gen = recording_gen(t);
        struct kd_syscall_key key = { .tid = tid, .nr = nr };
        struct kd_syscall *s = gen ? syscall_entry(&key, gen) : 0;
        if (s)
            s->blocked_ns += t->budget.pending_ns;
    }
    t->budget.pending_ns = 0;
}

/* The sys_exit step (ctx: its arguments) of a syscall that left the CPU
 * (thread entry t, maybe none), entered at entry (0: before the window;
 * else its number is in key). Without its entry the number comes from
 * pt_regs, as the classic tracepoint reads it. */
static __always_inline void budget_syscall_left_cpu(struct bpf_raw_tracepoint_args *ctx, struct kd_thread *t,
                                                    struct kd_syscall_key *key, __u64 entry)
{
    if (!entry) {
        kd_regs_nr_t nr = 0;
        bpf_probe_read_kernel(&nr, sizeof(nr), (char *)ctx->args[0] + PT_REGS_NR_OFF);
        key->nr = (__u32)nr;
    }
    if (t)
        budget_syscall_returned(t, key->tid, key->nr, entry != 0);
}
#else
static __always_inline void budget_syscall_left_cpu(struct bpf_raw_tracepoint_args *ctx, struct kd_thread *t,
                                                    struct kd_syscall_key *key, __u64 entry) {}
#endif

#endif
