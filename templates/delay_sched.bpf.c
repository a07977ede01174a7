/* ---- scheduling: run, ready (runnable, waiting for a CPU) and stopped ---- */

static __always_inline void woken(void *task, struct kd_capture *cap, int is_new)
{
    __u32 tid;
    if (task_ids(task, &tid) != TARGET_TGID)
        return;
    struct kd_thread *t = thread_entry(tid, task);
    if (!t)
        return;

    __u64 now = bpf_ktime_get_ns();
    if (t->stop_start) {
        stat_add(&t->stopped, now - t->stop_start);
        t->stop_start = 0;
    }
    t->ready_start = now;
{{#budget}}
    if (is_new) {
        t->budget.born_ns = now;
        budget_enter(t, KD_B_READY, 0, now);
        return;
    }
    /* A wakeup of a thread that is running or queued changes nothing. */
    __u32 state = t->budget.state;
    if (state == KD_B_RUNNING || state == KD_B_READY || state == KD_B_DEAD)
        return;
    __u32 was = state;
    __u64 blocked = budget_leave(t, tid, cap, now, KD_B_BLOCKED);
    budget_enter(t, KD_B_READY, 0, now);
    if (was != KD_B_STOPPED)
        note_waker(t, tid, blocked, now);
{{/budget}}
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

{{#budget}}
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
    return 0;
}
{{/budget}}

{{#budget}}
/* A thread of the target gets a CPU at `at`: the wait it ends is blamed on
 * who held this CPU meanwhile. */
static __always_inline void budget_switched_in(struct kd_thread *t, __u32 tid, struct kd_capture *cap, __u64 at)
{
    __u32 was = t->budget.state;
    if (was == KD_B_READY || was == KD_B_UNKNOWN) {
        __u64 w0 = was == KD_B_READY && t->budget.since ? t->budget.since : window_start(cap);
        __u64 lo = was == KD_B_READY && t->budget.migrated_ns > w0 ? t->budget.migrated_ns : w0;
        blame_wait(tid, w0, lo, at);
    }
    budget_leave(t, tid, cap, at, KD_B_READY);
    budget_enter(t, KD_B_RUNNING, 0, at);
}
{{/budget}}

/* A thread renames itself (prctl, its /proc comm, exec): its entry takes the
 * new name, so the report shows the name it has now, or had when it exited,
 * without a copy of the name at every switch. */
BTF_TRACEPOINT_PROBE(task_rename)
{
    __u32 tid;
    if (task_ids((void *)ctx->args[0], &tid) != TARGET_TGID)
        return 0;
    struct kd_thread *t = thread_find(tid);
    if (t)
        bpf_probe_read_kernel_str(&t->comm, sizeof(t->comm), (void *)ctx->args[1]);
    return 0;
}

/* prev leaves its CPU, so it had been switched in, but that switch was not
 * seen: a tracepoint can be skipped (BPF's recursion guard; some kernels
 * hide a task from tracing, and its own switches never fire). Its CPU time
 * since the scheduler picked it says when it got this CPU, at the latest.
 * The fair scheduler keeps that time for its slices; a real-time thread's
 * is not kept, reads as too long, and the wait then ends now. Read here
 * only, not at every switch: a missed switch-in is rare. */
static __always_inline __u64 missed_switch_in(void *prev, __u64 waiting_since, __u64 now)
{
    __u64 runtime = task_u64(prev, TASK_RUNTIME_OFF);
    __u64 at_pick = task_u64(prev, TASK_RUNTIME_AT_PICK_OFF);
    __u64 ran = runtime > at_pick ? runtime - at_pick : 0;
    __u64 waited = now > waiting_since ? now - waiting_since : 0;
    return ran < waited ? now - ran : waiting_since;
}

BTF_TRACEPOINT_PROBE(sched_switch)
{
    struct kd_capture *cap = capturing();
    if (!cap)
        return 0;

    int preempt = (int)ctx->args[0];
    void *prev = (void *)ctx->args[1];
    void *next = (void *)ctx->args[2];
    __u64 now = 0;
{{#budget}}
    /* Who had this CPU, for the threads of the target waiting for it. */
    if (someone_waits()) {
        now = bpf_ktime_get_ns();
        holder_leaves(now);
    } else {
        holder_forget();
    }
{{/budget}}

    /* prev is the current task: its ids come without a memory read. */
    __u64 prev_id = bpf_get_current_pid_tgid();
    if ((prev_id >> 32) == TARGET_TGID) {
        __u32 prev_tid = (__u32)prev_id;
        if (!now)
            now = bpf_ktime_get_ns();
        struct kd_thread *t = thread_entry(prev_tid, 0);
        /* The state the scheduler switched prev out in. */
#if SWITCH_PASSES_PREV_STATE
        kd_task_state_t state = (kd_task_state_t)ctx->args[3];
#else
        kd_task_state_t state = 0;
        bpf_probe_read_kernel(&state, sizeof(state), (char *)prev + TASK_STATE_OFF);
#endif
        if (t && t->ready_start && !t->run_start) {
            __u64 in = missed_switch_in(prev, t->ready_start, now);
            stat_add(&t->ready, in - t->ready_start);
            thread_hist_add(prev_tid, KD_HIST_READY, in - t->ready_start);
            t->ready_start = 0;
            t->run_start = in;
        }
{{#budget}}
        if (t && t->budget.state == KD_B_READY)
            budget_switched_in(t, prev_tid, cap, missed_switch_in(prev, t->budget.since, now));
        /* Before the in-flight slot is spilled, which forgets the syscall. */
        if (t && t->budget.state != KD_B_DEAD) {
            __u32 nr = budget_blocked_nr(t, prev_tid);
            budget_leave(t, prev_tid, cap, now, KD_B_RUNNING);
            if (nr < KD_B_SYSCALL_UNKNOWN)
                t->budget.in_syscall = nr + 1;
            if (preempt || state == KD_TASK_RUNNING)
                budget_enter(t, KD_B_READY, 0, now);
            else if (state & (KD_TASK_STOPPED | KD_TASK_TRACED))
                budget_enter(t, KD_B_STOPPED, 0, now);
            else
                budget_enter(t, KD_B_BLOCKED, nr, now);
        }
{{/budget}}
        spill_inflight(t, prev_tid, cap);
        if (t) {
            if (t->run_start) {
                stat_add(&t->run, now - t->run_start);
                thread_hist_add(prev_tid, KD_HIST_RUN, now - t->run_start);
                t->run_start = 0;
            }
            /* Preempted, or still runnable: it waits for a CPU from now. */
            if (preempt || state == KD_TASK_RUNNING)
                t->ready_start = now;
            else if (state & (KD_TASK_STOPPED | KD_TASK_TRACED))
                t->stop_start = now;
        }
    }

    __u32 next_tid;
    if (task_ids(next, &next_tid) != TARGET_TGID)
        return 0;
    if (!now)
        now = bpf_ktime_get_ns();
    struct kd_thread *t = thread_entry(next_tid, next);
    if (!t)
        return 0;
    if (t->ready_start) {
        stat_add(&t->ready, now - t->ready_start);
        thread_hist_add(next_tid, KD_HIST_READY, now - t->ready_start);
        t->ready_start = 0;
    }
    if (t->stop_start) {
        stat_add(&t->stopped, now - t->stop_start);
        t->stop_start = 0;
    }
    t->run_start = now;
{{#budget}}
    budget_switched_in(t, next_tid, cap, now);
{{/budget}}
    return 0;
}

