/* ---- scheduling: run, ready (runnable, waiting for a CPU) and stopped ---- */
#include "delay/core.bpf.h"
#include "delay/syscall_state.bpf.h"
#include "delay/budget.bpf.h"
#include "delay/stall.bpf.h"

/* The run queue of a task: se.cfs_rq, then its rq. */
static __always_inline void *rq_of(void *task)
{
    void *cfs_rq = (void *)typed_u64(task, TASK_CFS_RQ_OFF);
    return (void *)typed_u64(cfs_rq, CFS_RQ_RQ_OFF);
}

#if WITH_BUDGET
/* READY's part throttled by a CPU bandwidth limit: what the group run
 * queue the thread waits on counts as throttled (kd_throttled_total) grew
 * by in the wait. A wait moved to another CPU's queue carries what the
 * first queue counted; the second's throttles are not counted. */
static __always_inline __u64 throttled_total_of(void *cfs_rq, __u64 clock)
{
    if (!THROTTLE_MEASURED)
        return 0;
    return kd_throttled_total(typed_u64(cfs_rq, CFS_THROTTLED_ENDED_OFF), typed_u64(cfs_rq, CFS_THROTTLED_SINCE_OFF),
                              typed_u32(cfs_rq, CFS_THROTTLE_COUNT_OFF), clock);
}

/* The clock throttles are counted in, of the run queue of a group run
 * queue, as the scheduler updated it last: fresh at a switch or a wakeup
 * on that CPU. */
static __always_inline __u64 throttle_clock_of(void *cfs_rq)
{
    if (!THROTTLE_MEASURED)
        return 0;
    return typed_u64((void *)typed_u64(cfs_rq, CFS_RQ_RQ_OFF), THROTTLE_CLOCK_OFF);
}

/* The same clock now, from elsewhere: an idle CPU's stands still, so it is
 * moved on by how far the run queue's clock is behind the report's (the
 * gap rq_time keeps). */
static __always_inline __u64 throttle_clock_now(void *cfs_rq)
{
    if (!THROTTLE_MEASURED)
        return 0;
    void *rq = (void *)typed_u64(cfs_rq, CFS_RQ_RQ_OFF);
    __u64 clock = typed_u64(rq, THROTTLE_CLOCK_OFF);
    __u32 cpu = typed_u32(rq, RQ_CPU_OFF);
    struct kd_clock_gap *g = clock_gaps.lookup(&cpu);
    if (!g || !g->at)
        return clock;
    __s64 behind = (__s64)(bpf_ktime_get_ns() - g->gap - typed_u64(rq, RQ_CLOCK_OFF));
    return behind > 0 ? clock + behind : clock;
}

/* The thread (entry t, its task) begins to wait for a CPU; `fresh`: at a
 * switch or a wakeup, which updated its run queue's clock. */
static __always_inline void throttle_watch_begins(struct kd_thread *t, void *task, int fresh)
{
    if (!THROTTLE_MEASURED)
        return;
    void *cfs_rq = (void *)typed_u64(task, TASK_CFS_RQ_OFF);
    t->throttle_rq = (__u64)cfs_rq;
    t->throttle_seen = throttled_total_of(cfs_rq, fresh ? throttle_clock_of(cfs_rq) : throttle_clock_now(cfs_rq));
    t->throttle_carried = 0;
}

/* How long the thread (entry t, its task) has waited throttled so far;
 * `fresh` as above. */
static __always_inline __u64 throttled_so_far(struct kd_thread *t, void *task, int fresh)
{
    if (!THROTTLE_MEASURED)
        return 0;
    void *cfs_rq = (void *)typed_u64(task, TASK_CFS_RQ_OFF);
    __u64 part = t->throttle_carried;
    if (t->throttle_rq && t->throttle_rq == (__u64)cfs_rq) {
        __u64 clock = fresh ? throttle_clock_of(cfs_rq) : throttle_clock_now(cfs_rq);
        part += kd_part_of(t->throttle_seen, throttled_total_of(cfs_rq, clock), ~0ull);
    }
    return part;
}

/* The thread moves to another CPU's queue (its task still on the old one). */
static __always_inline void throttle_watch_moves(struct kd_thread *t, void *task)
{
    if (!THROTTLE_MEASURED || !t->throttle_rq)
        return;
    t->throttle_carried = throttled_so_far(t, task, 0);
    t->throttle_rq = 0;
}

/* The wait ends, `whole` long by the budget's clock: its throttled part. */
static __always_inline __u64 throttle_watch_ends(struct kd_thread *t, void *task, __u64 whole)
{
    if (!THROTTLE_MEASURED)
        return 0;
    __u64 part = throttled_so_far(t, task, 1);
    t->throttle_rq = 0;
    t->throttle_carried = 0;
    return part < whole ? part : whole;
}

/* RUNNING's part stolen by the hypervisor: what the run queue's steal
 * clock grew by in the run. */
static __always_inline __u64 steal_clock_of(void *task)
{
    return STEAL_MEASURED ? typed_u64(rq_of(task), RQ_STEAL_OFF) : 0;
}

/* A wakeup matters to the budget only (who woke a thread, and when its
 * blocked time ended). READY and STOPPED come from the kernel's own
 * run-queue accounting at the switches below, so without --budget no
 * program runs at a wakeup, the target's or any other task's. */
static __always_inline void woken(void *task, struct kd_capture *cap, int is_new)
{
    __u32 tid;
    if (!is_target_task(task, task_ids(task, &tid)))
        return;
    void *rq = rq_of(task);
    __u64 now = rq_time(rq, typed_u32(rq, RQ_CPU_OFF), bpf_ktime_get_ns());
    struct kd_thread *t = thread_entry(tid, task);
    if (!t)
        return;
    timeline_seen(tid);  /* so that this wakeup is kept in a sample */

    if (is_new) {
        if (t->budget.state == KD_B_DEAD && t->budget.died_ns) {
            /* The tid of a thread that exited in this window, used again. */
            t->budget.between_lives_ns += now > t->budget.died_ns ? now - t->budget.died_ns : 0;
            t->budget.died_ns = 0;
        } else {
            t->budget.born_ns = now;
        }
        budget_enter(t, KD_B_READY, 0, now);
        throttle_watch_begins(t, task, 1);
        return;
    }
    /* A wakeup of a thread that is running or queued changes nothing. */
    __u32 state = t->budget.state;
    if (state == KD_B_RUNNING || state == KD_B_READY || state == KD_B_DEAD)
        return;
    __u32 was = state;
    __u32 nr = t->budget.blocked_nr;
    __u64 blocked = budget_leave(t, tid, cap, now, KD_B_BLOCKED);
    budget_enter(t, KD_B_READY, 0, now);
    throttle_watch_begins(t, task, 1);
    if (was != KD_B_STOPPED) {
        t->woke_ns = now;
        note_waker(t, tid, blocked, now);
        if (was == KD_B_BLOCKED && nr < KD_B_SYSCALL_UNKNOWN)
            wait_stacks_end(t, nr, blocked);
    }
}

BTF_TRACEPOINT_PROBE(sched_wakeup)
{
    struct kd_capture *cap = capturing();
    if (cap)
        woken((void *)ctx->args[0], cap, 0);
    return 0;
}

BTF_TRACEPOINT_PROBE(sched_wakeup_new)
{
    struct kd_capture *cap = capturing();
    if (cap)
        woken((void *)ctx->args[0], cap, 1);
    return 0;
}

/* A waiting thread of the target moves to another CPU's queue: who held
 * the old CPU is not known on the new one. */
BTF_TRACEPOINT_PROBE(sched_migrate_task)
{
    struct kd_capture *cap = capturing();
    if (!cap)
        return 0;
    __u32 tid;
    if (!is_target_task((void *)ctx->args[0], task_ids((void *)ctx->args[0], &tid)))
        return 0;
    struct kd_thread *t = thread_find(tid);
    if (t && t->budget.state == KD_B_READY) {
        t->budget.migrated_ns = bpf_ktime_get_ns();
        throttle_watch_moves(t, (void *)ctx->args[0]);
    }
    return 0;
}

/* A thread of the target exits: it ran until now, and is gone after. */
RAW_TRACEPOINT_PROBE(sched_process_exit)
{
    __u32 tid;
    struct kd_capture *cap = capturing_current(&tid);
    if (!cap)
        return 0;
    struct kd_thread *t = thread_entry(tid, 0);
    if (!t)
        return 0;
    __u64 now = bpf_ktime_get_ns();
    budget_leave(t, tid, cap, now, KD_B_RUNNING);
    budget_enter(t, KD_B_DEAD, 0, now);
    t->budget.died_ns = now;
    stall_thread_exits(t, tid);
    return 0;
}

/* A thread of the target (its task next; 0: a switch-in not seen) gets a
 * CPU at `at`, after waiting `waited` by the kernel's account: the wait it
 * ends is blamed on who held this CPU meanwhile. First seen now, it has
 * waited since the window opened, and the part of the wait before is
 * noted. The wait's throttled part is taken as its beginning, where a
 * throttle that switched the thread out puts it: the holders are blamed
 * for the rest. */
static __always_inline void budget_switched_in(struct kd_thread *t, __u32 tid, struct kd_capture *cap, void *next,
                                               __u64 at, __u64 waited)
{
    __u32 was = t->budget.state;
    if (was == KD_B_UNKNOWN)
        t->budget.ready_before_ns = kd_wait_before_window(at, window_start(cap), waited);
    if (was == KD_B_READY || was == KD_B_UNKNOWN) {
        __u64 w0 = was == KD_B_READY && t->budget.since ? t->budget.since : window_start(cap);
        /* One waiting as the window opened was watched from then on. */
        int watched = next && (was == KD_B_READY || t->throttle_rq);
        __u64 throttled = watched ? throttle_watch_ends(t, next, at > w0 ? at - w0 : 0) : 0;
        t->budget.throttled_ns += throttled;
        w0 += throttled;
        __u64 lo = was == KD_B_READY && t->budget.migrated_ns > w0 ? t->budget.migrated_ns : w0;
        blame_wait(tid, recording_gen(t), w0, lo, at);
    }
    t->throttle_rq = 0;
    t->throttle_carried = 0;
    budget_leave(t, tid, cap, at, KD_B_READY);
    budget_set(t, KD_B_RUNNING, 0, at);
    if (next)
        t->steal_seen = steal_clock_of(next);
}
#endif

/* A thread renames itself (prctl, its /proc comm, exec): its entry takes the
 * new name, so the report shows the name it has now, or had when it exited,
 * without a copy of the name at every switch. */
BTF_TRACEPOINT_PROBE(task_rename)
{
    __u32 tid;
    if (!is_target_task((void *)ctx->args[0], task_ids((void *)ctx->args[0], &tid)))
        return 0;
    struct kd_thread *t = thread_find(tid);
    if (t)
        bpf_probe_read_kernel_str(&t->comm, sizeof(t->comm), (void *)ctx->args[1]);
    return 0;
}

/* The kernel's run-queue accounting of a task the scheduler is switching
 * (sched_info, in its run queue's clock), read from the BTF-typed task with
 * one load instruction a field. */

/* The clock of the task's run queue, updated when this schedule() began:
 * se.cfs_rq, its rq, the rq's clock. */
static __always_inline __u64 rq_clock_of(void *task)
{
    return typed_u64(rq_of(task), RQ_CLOCK_OFF);
}

/* next gets a CPU at its run queue's clock `clock`: its total wait for
 * one so far, the wait ending now (*waiting_now) included. The kernel adds a
 * wait to run_delay when it ends, after this tracepoint, so the wait still
 * running is the clock less when the thread was queued. */
/* (`current` would be a macro of the kernel headers BCC includes.) */
static __always_inline __u64 wait_total_at_switch_in(void *next, __u64 clock, __u64 *waiting_now)
{
    __u64 queued = typed_u64(next, TASK_LAST_QUEUED_OFF);
    *waiting_now = queued && clock > queued ? clock - queued : 0;
    return typed_u64(next, TASK_RUN_DELAY_OFF) + *waiting_now;
}

#if WITH_BUDGET && TASK_ITERATOR
/* The task iterator's context, as the kernel lays it out. */
struct kd_iter_task_ctx {
    void *meta;  /* struct bpf_iter_meta: its seq_file first */
    void *task;  /* NULL once, after the last task */
};

/* Each thread of the target when kdelay reads the iterator, at a window's
 * end: a thread without an event in the window was in this state all
 * along, so that one waiting for a CPU is READY, not RUNNING. Read as a
 * window opens, it writes nothing: a thread waiting for a CPU then begins
 * to watch its throttling there. */
int bpf_iter__task(struct kd_iter_task_ctx *ctx)
{
    void *task = (void *)typed_u64(ctx, 8);
    if (!task)
        return 0;
    __u32 tid;
    __u32 tgid = task_ids(task, &tid);
    if (!is_target_task(task, tgid))
        return 0;
    if (capturing()) {
        __u32 on_cpu = TASK_ON_CPU_SIZE == 1 ? typed_u8(task, TASK_ON_CPU_OFF) : typed_u32(task, TASK_ON_CPU_OFF);
        if (!THROTTLE_MEASURED || typed_u32(task, TASK_STATE_OFF) || on_cpu)
            return 0;
        struct kd_thread *t = thread_entry(tid, task);
        if (t && t->budget.state == KD_B_UNKNOWN && !t->throttle_rq)
            throttle_watch_begins(t, task, 0);
        return 0;
    }
    struct kd_task_now now = {};
    now.tid = tid;
    now.state = typed_u32(task, TASK_STATE_OFF);
    /* a u8 since 6.x */
    now.on_cpu = TASK_ON_CPU_SIZE == 1 ? typed_u8(task, TASK_ON_CPU_OFF) : typed_u32(task, TASK_ON_CPU_OFF);
    __u64 queued = typed_u64(task, TASK_LAST_QUEUED_OFF);
    __u64 clock = rq_clock_of(task);
    now.waiting_ns = queued && clock > queued ? clock - queued : 0;
    struct kd_thread *t = thread_find(tid);
    if (t && t->budget.state == KD_B_READY)
        now.throttled_ns = throttled_so_far(t, task, 0);
    now.at_ns = bpf_ktime_get_ns();
    bpf_seq_write((void *)typed_u64((void *)typed_u64(ctx, 0), 0), &now, sizeof(now));
    return 0;
}
#endif

/* The report's clock, read at most once a program and only on the paths
 * that need it (a first sight, a stop, a missed switch, the budget). */
static __always_inline __u64 clock_now(__u64 *now)
{
    if (!*now)
        *now = bpf_ktime_get_ns();
    return *now;
}

/* The budget's part of a switch (--budget; nothing without it). */
#if WITH_BUDGET
/* When the kernel's accounting switches prev out and next in (see
 * rq_time), by the report's clock. */
static __always_inline __u64 switch_time(void *prev, __u64 *now)
{
    return rq_time(rq_of(prev), bpf_get_smp_processor_id(), clock_now(now));
}

/* Who had this CPU, for the threads of the target waiting for it: the
 * turn of prev ends when the kernel switches it out, by the clock that
 * dates the waits (switch_time), so that a thread preempted here is not
 * its own holder while it waits. */
static __always_inline void budget_holder_turn(void *prev, __u64 *now)
{
    if (someone_waits())
        holder_leaves(switch_time(prev, now));
    else
        holder_forget();
}

/* prev (tid, entry t) ran since `in`, a switch-in that was not seen. */
static __always_inline void budget_missed_switch_in(struct kd_thread *t, __u32 tid, struct kd_capture *cap, __u64 in)
{
    if (t->budget.state == KD_B_READY) {
        budget_switched_in(t, tid, cap, 0, in, 0);
        if (WITH_TIMELINE)
            t->run_missed_at = t->budget.since;
    }
    t->steal_seen = 0;
}

/* prev (tid, entry t) leaves its CPU in the scheduler's state `state`. */
static __always_inline void budget_switched_out(void *ctx, struct kd_thread *t, __u32 tid, struct kd_capture *cap,
                                                void *prev, int preempt, kd_task_state_t state, __u64 *now)
{
    if (t->budget.state == KD_B_DEAD)
        return;
    __u64 switched = switch_time(prev, now);
    __u32 nr = budget_blocked_nr(t, tid, cap);
    if (STEAL_MEASURED && t->steal_seen && t->budget.state == KD_B_RUNNING) {
        __u64 since = t->budget.since ? t->budget.since : window_start(cap);
        t->budget.steal_ns += kd_part_of(t->steal_seen, steal_clock_of(prev), switched > since ? switched - since : 0);
    }
    t->steal_seen = 0;
    budget_leave(t, tid, cap, switched, KD_B_RUNNING);
    if (nr < KD_B_SYSCALL_UNKNOWN)
        t->budget.in_syscall = nr + 1;
    if (preempt || state == KD_TASK_RUNNING) {
        budget_set(t, KD_B_READY, 0, switched);
        throttle_watch_begins(t, prev, 1);
    } else if (state & (KD_TASK_STOPPED | KD_TASK_TRACED))
        budget_set(t, KD_B_STOPPED, 0, switched);
    else
        budget_set(t, KD_B_BLOCKED, nr, switched);
    if (t->budget.state == KD_B_BLOCKED && nr < KD_B_SYSCALL_UNKNOWN)
        wait_stacks_begin(ctx, t, t->budget.since);
}

/* next (tid, entry t) gets the CPU that prev leaves, after waiting `waited`. */
static __always_inline void budget_next_in(struct kd_thread *t, __u32 tid, struct kd_capture *cap, void *prev,
                                           void *next, __u64 waited, __u64 *now)
{
    budget_switched_in(t, tid, cap, next, switch_time(prev, now), waited);
}
#else
static __always_inline void budget_holder_turn(void *prev, __u64 *now) {}
static __always_inline void budget_missed_switch_in(struct kd_thread *t, __u32 tid, struct kd_capture *cap, __u64 in) {}
static __always_inline void budget_switched_out(void *ctx, struct kd_thread *t, __u32 tid, struct kd_capture *cap,
                                                void *prev, int preempt, kd_task_state_t state, __u64 *now) {}
static __always_inline void budget_next_in(struct kd_thread *t, __u32 tid, struct kd_capture *cap, void *prev,
                                           void *next, __u64 waited, __u64 *now) {}
#endif

/* A stop of the thread ended at `at`, where SIGCONT queued it. */
static __always_inline void stop_ends(struct kd_thread *t, __u64 at)
{
    stat_add(&t->stopped, at > t->stop_start ? at - t->stop_start : 0);
    t->stop_start = 0;
}

/* The thread (tid, entry t) ends now a wait for a CPU of `waited` ns. A
 * stop ended where that wait began. */
static __always_inline void ready_ends(struct kd_thread *t, __u32 tid, __u64 waited, __u64 *now)
{
    stat_add(&t->ready, waited);
    thread_hist_add(tid, KD_HIST_READY, waited);
    if (t->stop_start)
        stop_ends(t, clock_now(now) - waited);
}

/* prev leaves its CPU at its run queue's clock `clock`, so it had been
 * switched in, but that switch was not seen: a tracepoint can be skipped
 * (BPF's recursion guard; some kernels hide a task from tracing, and its
 * own switches never fire), or the thread got its CPU before this sample.
 * The kernel noted when (sched_info.last_arrival): *ran is how long it ran
 * since. Returns when the run started, by the report's clock. The wait
 * that arrival ended stays in run_delay, and is counted with the next wait
 * at the thread's next switch-in (one READY value for the two); a stop it
 * ended ends where the run began, at the latest. */
static __always_inline __u64 missed_switch_in(void *prev, struct kd_thread *t, __u64 clock, __u64 *ran,
                                              __u64 *now)
{
    __u64 arrived = typed_u64(prev, TASK_LAST_ARRIVAL_OFF);
    *ran = clock > arrived ? clock - arrived : 0;
    __u64 in = clock_now(now) - *ran;
    if (!t->wait_known) {
        t->wait_seen = typed_u64(prev, TASK_RUN_DELAY_OFF);
        t->wait_known = 1;
    }
    if (t->stop_start)
        stop_ends(t, in);
    return in;
}

/* next (the thread tid, entry t) gets a CPU now, ending a wait whose total
 * (see wait_total_at_switch_in) is total. What the total grew by since the
 * thread's last switch is the wait since, a wait spread over two run
 * queues by a migration included. A thread first seen in this sample
 * counts its wait only if it began in the sample. */
static __always_inline void switched_in(struct kd_thread *t, __u32 tid, struct kd_capture *cap, __u64 total,
                                        __u64 waiting_now, __u64 *now)
{
    if (t->wait_known || clock_now(now) - waiting_now >= cap->start_ns)
        ready_ends(t, tid, t->wait_known ? total - t->wait_seen : waiting_now, now);
    t->wait_seen = total;
    t->wait_known = 1;
}

/* The state the scheduler switches prev out in (args: the tracepoint's).
 * Two definitions, not an if on the constant: BCC rewrites every
 * dereference of a pointer it has seen passed to bpf_probe_read_kernel(),
 * in dead code too. */
#if SWITCH_PASSES_PREV_STATE
static __always_inline kd_task_state_t switched_out_state(__u64 *args, void *prev)
{
    return (kd_task_state_t)args[3];
}
#else
static __always_inline kd_task_state_t switched_out_state(__u64 *args, void *prev)
{
    kd_task_state_t state = 0;
    bpf_probe_read_kernel(&state, sizeof(state), (char *)prev + TASK_STATE_OFF);
    return state;
}
#endif

BTF_TRACEPOINT_PROBE(sched_switch)
{
    struct kd_capture *cap = capturing();
    if (!cap)
        return 0;

    int preempt = (int)ctx->args[0];
    void *prev = (void *)ctx->args[1];
    void *next = (void *)ctx->args[2];
    __u64 now = 0;  /* clock_now() */
    budget_holder_turn(prev, &now);

    /* prev is the current task: its ids come without a memory read. */
    __u64 prev_id = bpf_get_current_pid_tgid();
    if (is_target_current(prev_id >> 32)) {
        __u32 prev_tid = (__u32)prev_id;
        kd_task_state_t state = switched_out_state(ctx->args, prev);
        /* With --stall an exited thread's entry is gone (stall_thread_exits),
         * and its last switch must not make it again. */
        struct kd_thread *t = STALL && (state & KD_TASK_DEAD) ? 0 : thread_entry(prev_tid, 0);
        /* A run is the run queue's clock at the switch-out less at the
         * switch-in, as the kernel measures it, so a switch reads no clock
         * of its own. */
        __u64 clock = t ? rq_clock_of(prev) : 0;
        __u64 ran = t && clock > t->run_clock ? clock - t->run_clock : 0;
        int run_counts = t && t->run_clock;  /* began in this sample */
        if (t && !t->run_clock) {
            __u64 in = missed_switch_in(prev, t, clock, &ran, &now);
            run_counts = in >= cap->start_ns;
            budget_missed_switch_in(t, prev_tid, cap, in);
        }
        /* Before the in-flight slot is spilled, which forgets the syscall. */
        if (t)
            budget_switched_out(ctx, t, prev_tid, cap, prev, preempt, state, &now);
        spill_inflight(t, prev_tid, cap);
        if (t) {
            if (run_counts) {
                stat_add(&t->run, ran);
                thread_hist_add(prev_tid, KD_HIST_RUN, ran);
            }
            t->run_clock = 0;
            /* Stopped from now until SIGCONT queues it (a preempted or
             * still runnable thread is queued at once: its wait is READY). */
            if (!preempt && (state & (KD_TASK_STOPPED | KD_TASK_TRACED)))
                t->stop_start = clock_now(&now);
        }
    }

    __u32 next_tid;
    if (!is_target_task(next, task_ids(next, &next_tid)))
        return 0;
    __u64 clock = rq_clock_of(next);
    __u64 waiting_now;
    __u64 total = wait_total_at_switch_in(next, clock, &waiting_now);
    struct kd_thread *t = thread_entry(next_tid, next);
    if (!t)
        return 0;
    switched_in(t, next_tid, cap, total, waiting_now, &now);
    t->run_clock = clock;
    budget_next_in(t, next_tid, cap, prev, next, waiting_now, &now);
    return 0;
}

#if WITH_TIMELINE
/* The switch's states on the timeline: prev's and next's, as
 * tp_btf__sched_switch left them, with the run of a switch-in it found it
 * had missed (timeline_switched). In that program these steps took
 * sched_switch past the verifier's limit (Debian 13's compiler); here they
 * are verified on their own. */
BTF_TRACEPOINT_STEP(sched_switch, timeline)
{
    if (!capturing())
        return 0;
    __u64 prev_id = bpf_get_current_pid_tgid();
    if (is_target_current(prev_id >> 32))
        timeline_switched((__u32)prev_id);
    void *next = (void *)ctx->args[2];
    __u32 next_tid;
    if (is_target_task(next, task_ids(next, &next_tid)))
        timeline_switched(next_tid);
    return 0;
}
#endif

#if STALL
/* --stall's part of a switch (stall_blocked, stall_resumed), after
 * tp_btf__sched_switch has done the budget's: a program of its own, so
 * that sched_switch stays within the verifier's limit. */
BTF_TRACEPOINT_STEP(sched_switch, stall)
{
    struct kd_capture *cap = capturing();
    if (!cap)
        return 0;
    __u64 now = 0;  /* clock_now() */
    __u64 prev_id = bpf_get_current_pid_tgid();
    if (is_target_current(prev_id >> 32)) {
        struct kd_thread *t = thread_find((__u32)prev_id);
        if (t && t->budget.state == KD_B_BLOCKED)
            stall_blocked(t, (__u32)prev_id, cap, (void *)ctx->args[1], t->budget.since);
    }
    void *next = (void *)ctx->args[2];
    __u32 next_tid;
    if (!is_target_task(next, task_ids(next, &next_tid)))
        return 0;
    profile_switched_in(clock_now(&now));
    struct kd_thread *t = thread_find(next_tid);
    if (t)
        stall_resumed(t, next_tid, next, clock_now(&now));
    return 0;
}
#endif
